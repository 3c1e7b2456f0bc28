"""Lenient deletions (docs/semantics.md, "Lenient deletions"): hand-made cases.

Each case names the rule it exercises: a delete is ignored when no live clause
has its literal set, when the clause it would remove (the live one with the
highest id) is a unit clause, or when it is the reason of a level-0 literal;
any other delete is carried out as in strict mode, rebuild included.  The
expected verdicts and work counts are worked out by hand in the comments
(docs/semantics.md, "Propagation and the work counter"), for both readings,
on both engines, through run(), through Checker and on the kernels directly
with their invariants checked between steps.
"""

from __future__ import annotations

import importlib
from array import array
from types import ModuleType
from typing import Any

import proofgen
import pytest

import sat_claim_check as scc
from sat_claim_check._core import codes
from sat_claim_check._engines import kernel_py

BIG = 10**12

# name: (num_vars, clauses, proof,
#        strict (reason, step_index, steps_checked, work, reason_deletions),
#        lenient (reason, step_index, steps_checked, work, ignored_deletions)).
# reason None is a valid result; step_index None a conclusion.
CASES: dict[
    str, tuple[int, list[list[int]], list[dict[str, list[int]]], tuple[Any, ...], tuple[Any, ...]]
] = {
    # No live clause has the set: never added, out of range (matches nothing),
    # already deleted.  No units: the build does no work.
    "no-live-clause": (
        3,
        [[1, 2]],
        [{"delete": [1, 3]}, {"delete": [1, 4]}, {"delete": [2, 1]}, {"delete": [1, 2]}],
        ("deleted_clause_not_found", 0, 0, 0, ()),
        ("empty_clause_not_derived", None, 4, 0, (0, 1, 3)),
    ),
    # A unit clause that is a reason: [1] (id 0).  Build: assign 1, -2 (2);
    # visit [-1, 2] on -1 (3): conflict.  Strict rebuilds: assign -2 (4),
    # visit [-1, 2] on 2 (5), assign -1 (6); then [] is not RUP.  Lenient
    # keeps the conflict: [] is RUP with no work.
    "unit-reason": (
        2,
        [[1], [-1, 2], [-2]],
        [{"delete": [1]}, {"add": []}],
        ("lemma_not_rup", 1, 1, 6, (0,)),
        (None, None, 2, 3, (0,)),
    ),
    # A unit clause that is not a reason: [1] id 1 (id 0 made 1 TRUE).  Build:
    # assign 1 (1), visit [-1, 2] (2), assign 2 (3).  Strict removes id 1 (no
    # rebuild), then id 0 (a reason: rebuild, no units left); [2] then costs
    # assign -2 (4), a visit (5), assign -1 (6): not RUP.  Lenient ignores
    # both and [2] is TRUE already: RUP, no work; no empty clause.
    "unit-not-reason": (
        2,
        [[1], [1], [-1, 2]],
        [{"delete": [1]}, {"delete": [1]}, {"add": [2]}],
        ("lemma_not_rup", 2, 2, 6, (1,)),
        ("empty_clause_not_derived", None, 3, 3, (0, 1)),
    ),
    # A long clause that is a reason: [-1, 2].  Build: assign 1, -3 (2); visit
    # [-1, 2] (3), assign 2 (4); visit [-2, 3] on 3 (5): conflict.  Lenient:
    # ignored, [] is RUP in the inconsistent state.  Strict rebuilds: assign
    # 1, -3 (7); visit [-2, 3] on 3 (8), assign -2 (9); [] is not RUP.
    "long-reason": (
        3,
        [[1], [-1, 2], [-2, 3], [-3]],
        [{"delete": [-1, 2]}, {"add": []}],
        ("lemma_not_rup", 1, 1, 9, (0,)),
        (None, None, 2, 5, (0,)),
    ),
    # The highest id decides: [-1, 2] (id 1) is the reason of 2, [2, -1] (id 2)
    # is not.  Build: assign 1 (1); visit id 1 (2), assign 2 (3); visit id 2
    # (4): TRUE.  Both readings remove id 2 first.  Then id 1: strict removes
    # it and rebuilds (assign 1: 5), [2] is not RUP (assign -2: 6); lenient
    # ignores it and [2] is TRUE: RUP.
    "highest-id-decides": (
        2,
        [[1], [-1, 2], [2, -1]],
        [{"delete": [-1, 2]}, {"delete": [-1, 2]}, {"add": [2]}],
        ("lemma_not_rup", 2, 2, 6, (1,)),
        ("empty_clause_not_derived", None, 3, 4, (1,)),
    ),
    # A long clause that holds nothing up is removed in both readings: [1] is
    # then not RUP (assign -1, visit [1, -2], assign -2: 3).
    "long-removed": (
        2,
        [[1, 2], [1, -2]],
        [{"delete": [1, 2]}, {"add": [1]}],
        ("lemma_not_rup", 1, 1, 3, ()),
        ("lemma_not_rup", 1, 1, 3, ()),
    ),
    # The conflict clause, neither a unit nor a reason, is removed in both
    # readings, and the state rebuilt.  Build: assign 1, 2 (2), visit [-1, -2]
    # (3): conflict.  Rebuild: assign 1, 2 (5), nothing watched; [] not RUP.
    "conflict-removed": (
        2,
        [[1], [2], [-1, -2]],
        [{"delete": [-1, -2]}, {"add": []}],
        ("lemma_not_rup", 1, 1, 5, ()),
        ("lemma_not_rup", 1, 1, 5, ()),
    ),
    # The empty clause and a tautology are removed in both readings (the last
    # empty clause: a rebuild, no work); a second delete of [] is ignored.
    "empty-and-tautology": (
        2,
        [[], [1, -1]],
        [{"delete": [-1, 1]}, {"delete": []}, {"delete": []}],
        ("deleted_clause_not_found", 2, 2, 0, ()),
        (None, None, 3, 0, (2,)),
    ),
    # Steps after the empty clause are still checked: an ignored delete there
    # succeeds.  Build: assign 1 (1), [-1] is FALSE: the conflict; the unit
    # [1] is not deleted in lenient mode, so [2] is RUP in the inconsistent state.
    "after-empty": (
        2,
        [[1], [-1]],
        [{"add": []}, {"delete": [2]}, {"delete": [1]}, {"add": [2]}],
        ("deleted_clause_not_found", 1, 1, 1, ()),
        (None, None, 4, 1, (1, 2)),
    ),
}


def _request(name: str) -> dict[str, Any]:
    num_vars, clauses, proof, _, _ = CASES[name]
    return {"cnf": {"num_vars": num_vars, "clauses": clauses}, "claim": "unsat", "proof": proof}


def _expected_result(
    num_vars: int, proof: list[dict[str, list[int]]], expected: tuple[Any, ...]
) -> dict[str, Any]:
    reason, step_index, steps_checked, _, _ = expected
    discrepancy: dict[str, Any] | None = None
    if reason == "empty_clause_not_derived":
        discrepancy = {"kind": "conclusion", "step_count": steps_checked}
    elif reason is not None:
        (lits,) = proof[step_index].values()
        discrepancy = {"kind": "step", "step_index": step_index, "clause": lits}
    return {
        "valid": reason is None,
        "reason": reason,
        "first_discrepancy": discrepancy,
        "claim": "unsat",
        "clauses_checked": 0,
        "steps_checked": steps_checked,
        "reference_version": _REFERENCE_VERSION,
    }


_REFERENCE_VERSION = "r71-sat-1.0.0+dimacs-cnf-1993+resolution-robinson-1965+drup-2013"


@pytest.mark.parametrize("name", sorted(CASES))
def test_run_both_readings(engine: str, name: str) -> None:
    num_vars, _, proof, strict, lenient = CASES[name]
    request = _request(name)
    s = scc.run(request, engine=engine)
    assert s.result == _expected_result(num_vars, proof, strict)
    assert (s.work, s.reason_deletions, s.ignored_deletions) == (strict[3], strict[4], ())
    assert scc.run(request, engine=engine, deletions="strict") == s
    r = scc.run(request, engine=engine, deletions="lenient")
    assert r.result == _expected_result(num_vars, proof, lenient)
    assert (r.work, r.reason_deletions, r.ignored_deletions) == (lenient[3], (), lenient[4])
    assert scc.check(request, engine=engine, deletions="lenient") == r.result


@pytest.mark.parametrize("name", sorted(CASES))
def test_checker_one_step_at_a_time(engine: str, name: str) -> None:
    num_vars, clauses, proof, _, _ = CASES[name]
    for deletions in ("strict", "lenient"):
        checker = scc.Checker(
            {"num_vars": num_vars, "clauses": clauses}, engine=engine, deletions=deletions
        )
        for step in proof:
            ((key, lits),) = step.items()
            (checker.add if key == "add" else checker.delete)(lits)
        assert checker.finish() == scc.run(_request(name), engine=engine, deletions=deletions)


def _kernels() -> list[ModuleType]:
    modules: list[ModuleType] = [kernel_py]
    if scc._engines.compiled_available():
        modules.append(importlib.import_module("sat_claim_check._engines.kernel_c"))
    return modules


@pytest.mark.parametrize("name", sorted(CASES))
def test_kernels_step_by_step_keep_their_invariants(name: str) -> None:
    _, _, _, strict, lenient = CASES[name]
    n, co, cl, kinds, offsets, lits = proofgen.to_flat(_request(name))
    for module in _kernels():
        for flag, expected in ((False, strict), (True, lenient)):
            k = module.Kernel(n, co, cl, None, None, None, BIG, flag)
            assert k.lenient is flag
            assert k.start() == codes.STATUS_VALID
            k._check_invariants()
            for s in range(len(kinds)):
                status, _ = k.feed(kinds[s : s + 1], offsets[s : s + 2], lits)
                if status != codes.STATUS_VALID:
                    break
                k._check_invariants()
            status, step_index, steps_checked, work = k.finish()
            assert (steps_checked, work) == (expected[2], expected[3]), (module, flag)
            assert (step_index == -1) == (expected[1] is None)
            lists = (list(k.reason_deletions), list(k.ignored_deletions))
            if flag:
                assert lists == ([], list(expected[4]))
            else:
                assert lists == (list(expected[4]), [])
            # run() on the whole proof: the same answer, the same lists.
            whole = module.Kernel(n, co, cl, kinds, offsets, lits, BIG, flag)
            assert whole.run() == (status, step_index, steps_checked, work)
            assert list(whole.ignored_deletions) == list(k.ignored_deletions)


def test_lists_are_numbered_across_feeds_and_reset_by_start() -> None:
    n, co, cl, kinds, offsets, lits = proofgen.to_flat(_request("no-live-clause"))
    for module in _kernels():
        k = module.Kernel(n, co, cl, None, None, None, BIG, reading=True)
        k.start()
        assert k.feed(kinds[:2], offsets[:3], lits) == (codes.STATUS_VALID, -1)
        assert k.feed(kinds[2:], offsets[2:], lits) == (codes.STATUS_VALID, -1)
        assert list(k.ignored_deletions) == [0, 1, 3]
        k.start()
        assert list(k.ignored_deletions) == []
        k.feed(kinds[3:], offsets[3:], lits)  # [1, 2] is live again: removed
        k.feed(kinds[1:2], offsets[1:3], lits)  # [1, 4] matches nothing: step 1
        assert list(k.ignored_deletions) == [1]
        k.finish()


def test_ignored_deletions_in_report_equality_and_repr() -> None:
    result = scc.check(_request("no-live-clause"), deletions="lenient")
    a = scc.Report(result, 0, "reference", (), (0, 1, 3))
    assert a == scc.Report(result, 0, "reference", (), [0, 1, 3])
    assert a != scc.Report(result, 0, "reference", (), (0, 1))
    assert a != scc.Report(result, 0, "reference")
    assert "ignored_deletions=(0, 1, 3)" in repr(a)
    assert scc.Report(result, 0, "reference").ignored_deletions == ()


@pytest.mark.parametrize("bad", ["Lenient", "", None, 1, "drat-trim"])
def test_other_values_raise(bad: Any) -> None:
    request = _request("unit-reason")
    cnf = request["cnf"]
    for call in (
        lambda: scc.run(request, deletions=bad),
        lambda: scc.check(request, deletions=bad),
        lambda: scc.Checker(cnf, deletions=bad),
    ):
        with pytest.raises(ValueError, match="deletions must be 'strict' or 'lenient'"):
            call()


def test_sat_claims_ignore_the_reading(engine: str) -> None:
    request = {"cnf": {"num_vars": 2, "clauses": [[1, 2]]}, "claim": "sat", "assignment": [1, -2]}
    r = scc.run(request, engine=engine, deletions="lenient")
    assert r == scc.run(request, engine=engine)
    assert r.ignored_deletions == ()


def test_the_cap_still_holds_in_lenient_mode(engine: str) -> None:
    # "long-reason" does 5 units of work in lenient mode, all in the build.
    request = _request("long-reason")
    assert scc.run(
        request, engine=engine, deletions="lenient", limits=scc.Limits(max_propagation_work=5)
    ).result["valid"]
    with pytest.raises(scc.LimitExceeded) as err:
        scc.run(
            request, engine=engine, deletions="lenient", limits=scc.Limits(max_propagation_work=4)
        )
    assert err.value.to_dict()["path"] == "/cnf"


def test_kernel_flag_is_keyword_or_positional() -> None:
    for module in _kernels():
        k = module.Kernel(1, array("i", [0]), array("i"), None, None, None, BIG)
        assert k.lenient is False
        assert (
            module.Kernel(1, array("i", [0]), array("i"), None, None, None, BIG, True).lenient
            is True
        )


def test_the_deletions_type_names_the_readings() -> None:
    import typing

    from sat_claim_check._core.options import DELETIONS

    assert typing.get_args(scc.Deletions) == DELETIONS == ("strict", "lenient")
