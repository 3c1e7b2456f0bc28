"""--explain and explain(): the lenient reading of a proof that failed strict.

When a strict check fails after deletions of reason clauses, the explanation
says whether the proof checks with deletions read leniently (as drat-trim
reads them), naming the ignored deletions, or where it fails anyway.  The
corpus's Glucose and MapleChrono proofs that fail strict and pass lenient
(expected.jsonl against expected-lenient.jsonl) are the real cases.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import pytest
from _helpers import cli_text, corpus_expected, corpus_instances

import sat_claim_check as scc
from sat_claim_check._core.explain import steps_list

PREFIX = "sat-claim-check: "


def _lenient_rows(corpus: Path) -> dict[str, dict[str, Any]]:
    path = corpus / "expected-lenient.jsonl"
    if not path.is_file():
        pytest.skip("the corpus has no expected-lenient.jsonl")
    with open(path, encoding="utf-8") as f:
        return {row["name"]: row for row in map(json.loads, f) if row}


def _rescued(corpus: Path) -> list[tuple[dict[str, Any], dict[str, Any], dict[str, Any]]]:
    """(instance, strict row, lenient row) of the proofs that fail strict, pass lenient."""
    strict, lenient = corpus_expected(corpus), _lenient_rows(corpus)
    return [
        (i, strict[i["name"]], lenient[i["name"]])
        for i in corpus_instances(corpus)
        if i["name"] in lenient
        and not strict[i["name"]]["result"]["valid"]
        and lenient[i["name"]]["result"]["valid"]
    ]


def _load(corpus: Path, instance: dict[str, Any]) -> dict[str, Any]:
    with open(corpus / instance["files"]["json"], encoding="utf-8") as f:
        return json.load(f)  # type: ignore[no-any-return]


def _valid_line(ignored: list[int]) -> str:
    """The line the corpus row calls for, written out here from the row alone."""
    n = len(ignored)
    if n > 10:
        steps = ", ".join(map(str, ignored[:8])) + f", ..., {ignored[-1]} ({n} in all)"
    else:
        steps = (
            str(ignored[0]) if n == 1 else ", ".join(map(str, ignored[:-1])) + f" and {ignored[-1]}"
        )
    what = "reason clauses" if n != 1 else "a reason clause"
    return (
        f"explain: valid if the {n} deletion{'s' * (n != 1)} of {what} at "
        f"step{'s' * (n != 1)} {steps} {'are' if n != 1 else 'is'} ignored, as "
        "drat-trim does (--deletions lenient)"
    )


def test_corpus_proofs_rescued_by_the_lenient_reading(corpus: Path, engine: str) -> None:
    rescued = _rescued(corpus)
    assert len(rescued) >= 5
    for instance, strict_row, lenient_row in rescued:
        explanation = scc.explain(_load(corpus, instance), engine=engine)
        assert explanation.strict.result == strict_row["result"]
        assert explanation.strict.work == strict_row["work"]
        assert explanation.strict.reason_deletions
        assert explanation.lenient is not None
        assert (
            explanation.lenient.result,
            explanation.lenient.work,
            list(explanation.lenient.ignored_deletions),
        ) == (lenient_row["result"], lenient_row["work"], lenient_row["ignored_deletions"])
        # The strict lines first, then the answer; every ignored delete of these
        # proofs is of a reason clause (none is a unit, none is absent).
        assert explanation.lines[0].startswith(
            f"explain: step {strict_row['result']['first_discrepancy']['step_index']} fails"
        )
        assert explanation.lines[-1] == _valid_line(lenient_row["ignored_deletions"]), instance[
            "name"
        ]


@pytest.mark.parametrize("how", ["check", "request"])
def test_the_command_line_says_it(corpus: Path, how: str) -> None:
    instance, strict_row, lenient_row = next(
        r for r in _rescued(corpus) if r[0]["name"].startswith("c002-")
    )
    files = {k: str(corpus / v) for k, v in instance["files"].items()}
    if how == "check":
        code, out, err = cli_text("check", files["json"], "--explain")
    else:
        code, out, err = cli_text(
            "request", "--cnf", files["cnf"], "--proof", files["drup"], "--check", "--explain"
        )
    assert code == 1
    assert json.loads(out) == strict_row["result"]
    lines = err.splitlines()
    assert lines[-1] == PREFIX + _valid_line(lenient_row["ignored_deletions"])
    if how == "request":
        # The file is read: each step named comes with its FILE:LINE (step s on line s+1).
        lines = [
            re.sub(r" \(" + re.escape(files["drup"]) + r":(\d+)\)", "", line) for line in lines
        ]
    assert lines[:-1] == [PREFIX + line for line in scc.explain(_load(corpus, instance)).lines[:-1]]


def test_fails_anyway_says_where() -> None:
    # [-1, 2] is the reason of 2; with its delete ignored, [3] is still not RUP.
    request = {
        "cnf": {"num_vars": 3, "clauses": [[1], [-1, 2]]},
        "claim": "unsat",
        "proof": [{"delete": [2, -1]}, {"add": [3]}],
    }
    explanation = scc.explain(request, engine="reference")
    assert explanation.strict.reason_deletions == (0,)
    assert explanation.lenient is not None
    assert explanation.lenient.ignored_deletions == (0,)
    assert explanation.lenient.result["reason"] == "lemma_not_rup"
    assert explanation.lines[-1] == (
        "explain: it fails anyway if the 1 deletion of a reason clause at step 0 is ignored, "
        "as drat-trim does (--deletions lenient): step 1 fails: lemma_not_rup (3 0)"
    )


def test_units_and_absent_clauses_are_named() -> None:
    # Step 0 deletes a unit (the reason of 1), step 1 a clause that is not there;
    # strict fails at step 1.  Lenient ignores both and [] is RUP (conflict).
    request = {
        "cnf": {"num_vars": 2, "clauses": [[1], [-1]]},
        "claim": "unsat",
        "proof": [{"delete": [1]}, {"delete": [2]}, {"add": []}],
    }
    explanation = scc.explain(request)
    assert explanation.strict.result["reason"] == "deleted_clause_not_found"
    assert explanation.lenient is not None and explanation.lenient.result["valid"]
    assert explanation.lines[-1] == (
        "explain: valid if the 2 deletions of unit clauses (1) and clauses that are not "
        "there (1) at steps 0 and 1 are ignored, as drat-trim does (--deletions lenient)"
    )


def test_no_lenient_run_without_reason_deletions() -> None:
    not_rup = {
        "cnf": {"num_vars": 2, "clauses": [[1, 2]]},
        "claim": "unsat",
        "proof": [{"add": [1]}],
    }
    explanation = scc.explain(not_rup)
    assert explanation.lenient is None
    assert "no earlier step deleted a reason clause" in explanation.lines[-1]
    valid = {
        "cnf": {"num_vars": 1, "clauses": [[1], [-1]]},
        "claim": "unsat",
        "proof": [{"add": []}],
    }
    assert scc.explain(valid) == scc.Explanation(scc.run(valid), None, ())
    sat = {"cnf": {"num_vars": 1, "clauses": [[1]]}, "claim": "sat", "assignment": [-1]}
    assert scc.explain(sat).lenient is None


def test_the_lenient_reading_past_the_work_cap_is_said() -> None:
    # Strict: build 3 (assign 1, a visit, assign 2); the delete of the reason
    # [-1, 2] rebuilds (assign 1: 4); [2] is not RUP (assign -2: 5).  Lenient
    # goes on: [2] is TRUE; [-3, 6] costs 7 more (2 assignments, 3 visits, 2
    # implications): 10, past a cap of 5 at step 2.
    request = {
        "cnf": {"num_vars": 6, "clauses": [[1], [-1, 2], [-3, 4], [-4, 5], [-5, 6]]},
        "claim": "unsat",
        "proof": [{"delete": [-1, 2]}, {"add": [2]}, {"add": [-3, 6]}],
    }
    assert scc.run(request).work == 5
    assert scc.run(request, deletions="lenient").work == 10
    explanation = scc.explain(request, limits=scc.Limits(max_propagation_work=5))
    assert explanation.strict.result["reason"] == "lemma_not_rup"
    assert explanation.lenient is None
    assert explanation.lines[-1] == (
        "explain: read leniently (--deletions lenient), the "
        "proof passes the work cap (5) at step 2: no verdict"
    )


def test_explanations_are_frozen_data() -> None:
    explanation = scc.explain(
        {"cnf": {"num_vars": 1, "clauses": [[1]]}, "claim": "unsat", "proof": []}
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        explanation.lines = ()  # type: ignore[misc]
    assert explanation.lines == (
        "explain: all 0 steps passed but no step added the empty clause (a DRUP proof ends "
        "with a line '0')",
        "explain: the clauses alive after the last step do not propagate to a conflict: the "
        "proof stops short of a refutation",
    )
    assert explanation.conflict_at_end is False


def test_rejected_requests_raise() -> None:
    with pytest.raises(scc.InvalidInput):
        scc.explain({"cnf": {"num_vars": 1, "clauses": [[2]]}, "claim": "unsat", "proof": []})


def test_long_lists_are_shortened() -> None:
    assert steps_list([4]) == "4"
    assert steps_list([4, 9]) == "4 and 9"
    assert steps_list(list(range(10))) == "0, 1, 2, 3, 4, 5, 6, 7, 8 and 9"
    assert steps_list(list(range(0, 70, 2))) == "0, 2, 4, 6, 8, 10, 12, 14, ..., 68 (35 in all)"
