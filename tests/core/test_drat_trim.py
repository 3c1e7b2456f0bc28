"""The drat-trim reading (docs/semantics.md, "The drat-trim reading"), by hand.

Deletions are read leniently, and the check ends valid at the first step
boundary where the level-0 state is inconsistent: after the initial build, or
after a successful step.  Later steps are not checked (the Checker does not
even validate them); ``run`` still validates the whole request first.
"""

from __future__ import annotations

import itertools
import pickle
from typing import Any

import pytest

import sat_claim_check as scc
from sat_claim_check._core.options import Options

# x1 or x2, and the three other clauses over them: unsatisfiable, no units.
PHP2 = [[1, 2], [-1, 2], [1, -2], [-1, -2]]
# Units that propagate to a conflict: the CNF alone is inconsistent (work 3).
CONFLICTING = {"num_vars": 2, "clauses": [[1], [-1, 2], [-2]]}
WITH_EMPTY = {"num_vars": 2, "clauses": [[1, 2], []]}
# The lemma [1] makes the state inconsistent at step 0 (work 8), and no step
# adds the empty clause.
NO_EMPTY = {"cnf": {"num_vars": 2, "clauses": PHP2}, "claim": "unsat", "proof": [{"add": [1]}]}


def _unsat(cnf: dict[str, Any], proof: list[dict[str, Any]]) -> dict[str, Any]:
    return {"cnf": cnf, "claim": "unsat", "proof": proof}


def _valid(steps: int) -> dict[str, Any]:
    return scc.check(_unsat(WITH_EMPTY, []), reading="drat-trim") | {"steps_checked": steps}


def _fed(request: dict[str, Any], engine: str, cuts: tuple[int, ...], **kw: Any) -> scc.Report:
    """A Checker fed the proof in the pieces that ``cuts`` makes (one-step pieces
    through add()/delete())."""
    checker = scc.Checker(request["cnf"], engine=engine, **kw)
    proof = request["proof"]
    bounds = [0, *cuts, len(proof)]
    for a, b in zip(bounds, bounds[1:]):
        if b - a == 1:
            ((key, lits),) = proof[a].items()
            (checker.add if key == "add" else checker.delete)(lits)
        else:
            checker.feed(proof[a:b])
    return checker.finish()


def _every_split(request: dict[str, Any], engine: str, **kw: Any) -> None:
    """Checker under every split of the proof gives run()'s Report."""
    whole = scc.run(request, engine=engine, **kw)
    n = len(request["proof"])
    for r in range(n):
        for cuts in itertools.combinations(range(1, n), r):
            assert _fed(request, engine, cuts, **kw) == whole, cuts


# -- where the check ends ------------------------------------------------------------


@pytest.mark.parametrize("proof", [[], [{"add": [1]}], [{"add": [2, 3]}, {"delete": [7]}]])
def test_a_cnf_that_propagates_to_a_conflict_is_valid_with_no_step_checked(
    engine: str, proof: list[Any]
) -> None:
    request = _unsat(CONFLICTING, proof)
    report = scc.run(request, engine=engine, reading="drat-trim")
    assert report.result == _valid(0)
    assert (report.work, report.ignored_deletions) == (3, ())
    # Strict and lenient readings check every step and need the empty clause.
    assert not scc.check(request, engine=engine)["valid"]
    _every_split(request, engine, reading="drat-trim")


def test_a_cnf_with_the_empty_clause_is_valid_with_no_step_checked(engine: str) -> None:
    request = _unsat(WITH_EMPTY, [{"add": [1]}, {"add": [5]}])
    report = scc.run(request, engine=engine, reading="drat-trim")
    assert (report.result, report.work) == (_valid(0), 0)
    assert scc.check(request, engine=engine, deletions="lenient")["reason"] == (
        "literal_out_of_range"
    )


def test_a_proof_without_the_empty_clause_ends_at_its_conflict(engine: str) -> None:
    report = scc.run(NO_EMPTY, engine=engine, reading="drat-trim")
    assert (report.result, report.work) == (_valid(1), 8)
    for deletions in ("strict", "lenient"):
        result = scc.check(NO_EMPTY, engine=engine, deletions=deletions)  # type: ignore[arg-type]
        assert result["reason"] == "empty_clause_not_derived"
    # With the empty clause at the end: the same Report, the last step unchecked.
    closed = NO_EMPTY | {"proof": [{"add": [1]}, {"add": []}]}
    assert scc.run(closed, engine=engine, reading="drat-trim") == report
    _every_split(closed, engine, reading="drat-trim")


def test_a_failing_step_before_the_conflict_still_fails(engine: str) -> None:
    request = NO_EMPTY | {"proof": [{"add": [3]}, {"add": [1]}]}
    result = scc.check(request, engine=engine, reading="drat-trim")
    assert (result["reason"], result["steps_checked"]) == ("literal_out_of_range", 0)
    sat = {"num_vars": 2, "clauses": PHP2[:3]}  # x1 and x2 satisfy it
    result = scc.check(_unsat(sat, [{"add": [-1]}]), engine=engine, reading="drat-trim")
    assert (result["reason"], result["steps_checked"]) == ("lemma_not_rup", 0)
    # A proof that never gets inconsistent needs the empty clause, as lenient.
    request = _unsat(sat, [{"add": [2]}])
    assert scc.run(request, engine=engine, reading="drat-trim") == scc.run(
        request, engine=engine, deletions="lenient"
    )
    assert not scc.check(request, engine=engine, reading="drat-trim")["valid"]


LATER_BAD = [
    {"add": [2, 1, -1]},  # a tautology: checked, stored
    {"add": [1]},  # the conflict: the check ends valid here (step 1)
    {"add": [9]},  # literal_out_of_range, were it checked
    {"delete": [1, -2]},
    {"add": [-1, 2]},
]


def test_steps_after_the_end_are_not_checked(engine: str) -> None:
    request = _unsat({"num_vars": 2, "clauses": PHP2}, LATER_BAD)
    report = scc.run(request, engine=engine, reading="drat-trim")
    assert report.result == _valid(2)
    assert scc.check(request, engine=engine, deletions="lenient")["reason"] == (
        "literal_out_of_range"
    )
    _every_split(request, engine, reading="drat-trim")


def test_malformed_steps_after_the_end_stream_order_against_run(engine: str) -> None:
    cnf = {"num_vars": 2, "clauses": PHP2}
    proof: list[Any] = [{"add": [1]}, {"add": [1.5]}, {"remove": [1]}]
    # run() validates the whole request first.
    with pytest.raises(scc.InvalidInput) as err:
        scc.run(_unsat(cnf, proof), engine=engine, reading="drat-trim")
    assert err.value.to_dict()["path"] == "/proof/1/add/0"
    # The Checker checks in stream order: the steps after the end are ignored.
    for how in ("feed", "one by one", "one feed"):
        checker = scc.Checker(cnf, engine=engine, reading="drat-trim")
        if how == "one feed":
            checker.feed(proof)
        else:
            checker.add([1])
            assert checker.done and not checker.failed
            if how == "feed":
                checker.feed(proof[1:])
            else:
                checker.add([1.5])  # type: ignore[list-item]
                checker.delete("not a clause")  # type: ignore[arg-type]
        assert checker.done and not checker.failed and checker.steps == 1
        assert checker.finish().result == _valid(1)
        with pytest.raises(RuntimeError):
            checker.add([1])


def test_the_proof_limits_after_the_end_stream_order_against_run(engine: str) -> None:
    request = NO_EMPTY | {"proof": [{"add": [1]}, {"add": [2]}, {"add": [-2]}]}
    limits = scc.Limits(max_proof_steps=2)
    with pytest.raises(scc.LimitExceeded):
        scc.run(request, engine=engine, limits=limits, reading="drat-trim")
    checker = scc.Checker(request["cnf"], engine=engine, limits=limits, reading="drat-trim")
    checker.feed(request["proof"])
    assert checker.finish().result == _valid(1)


def test_a_cnf_that_ends_the_check_ignores_every_step_given(engine: str) -> None:
    checker = scc.Checker(CONFLICTING, engine=engine, reading="drat-trim")
    assert checker.done and not checker.failed and checker.work == 3
    assert "concluded" in repr(checker)
    checker.add([5])
    checker.delete([1])
    checker.feed([{"bogus": True}, 17])
    assert checker.steps == 0
    assert checker.finish() == scc.run(_unsat(CONFLICTING, []), engine=engine, reading="drat-trim")


def test_failed_still_means_failed(engine: str) -> None:
    checker = scc.Checker({"num_vars": 2, "clauses": PHP2}, engine=engine, reading="drat-trim")
    assert not checker.done
    checker.add([3])
    assert checker.done and checker.failed
    checker = scc.Checker({"num_vars": 2, "clauses": PHP2}, engine=engine)
    checker.add([1])
    assert not checker.done and not checker.failed  # strict: the check goes on


# -- the work cap ------------------------------------------------------------------


def test_the_cap_is_checked_before_the_end_in_the_build(engine: str) -> None:
    request = _unsat(CONFLICTING, [])
    at = scc.Limits(max_propagation_work=3)
    assert scc.run(request, engine=engine, limits=at, reading="drat-trim").result == _valid(0)
    below = scc.Limits(max_propagation_work=2)
    for make in (
        lambda: scc.run(request, engine=engine, limits=below, reading="drat-trim"),
        lambda: scc.Checker(CONFLICTING, engine=engine, limits=below, reading="drat-trim"),
    ):
        with pytest.raises(scc.LimitExceeded) as err:
            make()
        assert err.value.to_dict()["path"] == "/cnf"


def test_the_cap_is_checked_before_the_end_at_a_step(engine: str) -> None:
    # The step that makes the state inconsistent passes the cap: limit_exceeded.
    at = scc.Limits(max_propagation_work=8)
    assert scc.run(NO_EMPTY, engine=engine, limits=at, reading="drat-trim").result == _valid(1)
    below = scc.Limits(max_propagation_work=7)
    with pytest.raises(scc.LimitExceeded) as err:
        scc.run(NO_EMPTY, engine=engine, limits=below, reading="drat-trim")
    assert err.value.to_dict()["path"] == "/proof/0"
    checker = scc.Checker(NO_EMPTY["cnf"], engine=engine, limits=below, reading="drat-trim")
    with pytest.raises(scc.LimitExceeded):
        checker.add([1])
    with pytest.raises(RuntimeError):
        checker.finish()


# -- deletions ----------------------------------------------------------------------

DELETIONS = _unsat(
    {"num_vars": 4, "clauses": [*PHP2, [3], [3, 4]]},
    [
        {"delete": [3]},  # a unit: ignored
        {"delete": [4, -4]},  # no such clause: ignored
        {"delete": [4, 3]},  # removed
        {"add": [1]},  # the end
        {"delete": [3]},  # not checked: not listed
        {"add": [-4, 5]},
    ],
)


def test_deletions_are_read_leniently_until_the_end(engine: str) -> None:
    report = scc.run(DELETIONS, engine=engine, reading="drat-trim")
    assert report.result == _valid(4)
    assert (report.ignored_deletions, report.reason_deletions) == ((0, 1), ())
    lenient = scc.run(DELETIONS, engine=engine, deletions="lenient")
    assert lenient.ignored_deletions == (0, 1, 4)
    assert lenient.result["reason"] == "literal_out_of_range"
    assert scc.check(DELETIONS, engine=engine)["reason"] == "deleted_clause_not_found"
    _every_split(DELETIONS, engine, reading="drat-trim")
    _every_split(DELETIONS, engine, deletions="lenient", reading="drat-trim")


# -- the settings -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("deletions", "reading", "chosen"),
    [
        ("strict", None, "strict"),
        ("lenient", None, "lenient"),
        ("strict", "strict", "strict"),
        ("strict", "lenient", "lenient"),
        ("strict", "drat-trim", "drat-trim"),
        ("lenient", "lenient", "lenient"),
        ("lenient", "drat-trim", "drat-trim"),
    ],
)
def test_the_reading_in_force(deletions: str, reading: str | None, chosen: str) -> None:
    options = Options.of("reference", None, deletions, None, reading)
    assert options.reading == chosen
    assert options.lenient == (chosen != "strict")
    assert options.deletions == ("strict" if chosen == "strict" else "lenient")
    assert options.reading_code == ("strict", "lenient", "drat-trim").index(chosen)
    assert pickle.loads(pickle.dumps(options)) == options


def test_explains_replace_keeps_the_reading_consistent() -> None:
    drat = Options.of("reference", None, "strict", None, "drat-trim")
    assert drat._replace(lenient=True).reading == "drat-trim"
    assert drat._replace(lenient=False).reading == "strict"
    strict = Options.of("reference")
    assert strict._replace(lenient=True).reading == "lenient"


@pytest.mark.parametrize("bad", ["drat_trim", "DRAT-TRIM", "", 2, True, b"strict"])
def test_an_unknown_reading_is_refused_by_every_door(bad: Any) -> None:
    request = NO_EMPTY
    for call in (
        lambda: scc.run(request, reading=bad),
        lambda: scc.check(request, reading=bad),
        lambda: scc.check_json(b"{}", reading=bad),
        lambda: scc.Checker(request["cnf"], reading=bad),
    ):
        with pytest.raises(ValueError, match="reading must be 'strict', 'lenient' or 'drat-trim'"):
            call()


def test_lenient_deletions_contradict_a_strict_reading() -> None:
    for call in (
        lambda: scc.run(NO_EMPTY, deletions="lenient", reading="strict"),
        lambda: scc.Checker(NO_EMPTY["cnf"], deletions="lenient", reading="strict"),
    ):
        with pytest.raises(ValueError, match="deletions='lenient' contradicts reading='strict'"):
            call()
    # A bad deletions value is named first.
    with pytest.raises(ValueError, match="deletions must be"):
        scc.run(NO_EMPTY, deletions="loose", reading="nope")  # type: ignore[arg-type]


def test_check_json_takes_the_reading(engine: str) -> None:
    import json

    outcome = scc.check_json(json.dumps(NO_EMPTY), engine=engine, reading="drat-trim")
    assert outcome.status == "valid" and outcome.report is not None
    assert outcome.report.result == _valid(1)
    assert scc.check_json(json.dumps(NO_EMPTY), engine=engine).status == "not_valid"


def test_sat_claims_ignore_the_reading(engine: str) -> None:
    request = {"cnf": {"num_vars": 2, "clauses": [[1, 2]]}, "claim": "sat", "assignment": [1, -2]}
    assert scc.run(request, engine=engine, reading="drat-trim") == scc.run(request, engine=engine)
