"""--explain: why a claim failed, on stderr; stdout stays the contract's result."""

import json
from pathlib import Path
from typing import Any

import pytest
from _helpers import cli_text, corpus_expected, corpus_instances

from sat_claim_check._core.jsontext import dumps

PREFIX = "sat-claim-check: explain: "


def instance(corpus: Path, prefix: str) -> tuple[dict[str, Any], dict[str, Any]]:
    entry = next(i for i in corpus_instances(corpus) if i["name"].startswith(prefix))
    return entry, corpus_expected(corpus)[entry["name"]]


@pytest.mark.parametrize("prefix", ["c011-", "c010-"])
@pytest.mark.parametrize("how", ["check", "request"])
def test_reason_deletions_are_listed(corpus, prefix, how):
    entry, expected = instance(corpus, prefix)
    cnf, drup, req = (corpus / entry["files"][k] for k in ("cnf", "drup", "json"))
    if how == "check":
        code, out, err = cli_text("check", str(req), "--explain")
    else:
        code, out, err = cli_text(
            "request", "--cnf", str(cnf), "--proof", str(drup), "--check", "--explain"
        )
    assert code == 1
    assert out == dumps(expected["result"]) + "\n"

    # One DRUP line per step in the corpus files, so step s is line s + 1.
    steps = drup.read_text().splitlines()
    failing = entry["strict"]["first_discrepancy"]["step_index"]
    lines = err.splitlines()

    def at(step):  # request --check reads the file: it names the line too
        return f" ({drup}:{step + 1})" if how == "request" else ""

    assert lines[0] == f"{PREFIX}step {failing}{at(failing)} fails: lemma_not_rup"
    assert lines[1] == f"{PREFIX}  step {failing}: {steps[failing]}"
    listed = [
        line[len(PREFIX) :].strip() for line in lines[4:] if line.startswith(PREFIX + "  step ")
    ]
    assert len(listed) == entry["strict"]["del_reason"] > 0
    for item in listed:
        number, text = item[len("step ") :].split(": ")
        number = number.split(" ")[0]
        assert item.startswith(f"step {number}{at(int(number))}: ")
        assert int(number) < failing
        assert text == steps[int(number)]
        assert text.startswith("d ")
    assert "drat-trim-style checkers ignore" in err
    assert "this checker honours every deletion" in err


def test_no_reason_deletions_said_plainly(corpus):
    entry, _ = instance(corpus, "c005-")  # lemma_not_rup without reason deletions
    assert entry["strict"]["del_reason"] == 0
    code, _, err = cli_text("check", str(corpus / entry["files"]["json"]), "--explain")
    assert code == 1
    assert "no earlier step deleted a reason clause" in err
    assert "drat-trim" not in err


def test_valid_claims_explain_nothing(corpus):
    entry, expected = instance(corpus, "c000-")
    code, out, err = cli_text("check", str(corpus / entry["files"]["json"]), "--explain")
    assert (code, out, err) == (0, dumps(expected["result"]) + "\n", "")


def test_other_reasons(tmp_path):
    cases = [
        (
            {
                "cnf": {"num_vars": 1, "clauses": [[1], [-1]]},
                "claim": "unsat",
                "proof": [{"add": [1, 7]}],
            },
            "the literal 7 is outside 1..num_vars",
        ),
        (
            {
                "cnf": {"num_vars": 1, "clauses": [[1]]},
                "claim": "unsat",
                "proof": [{"delete": [-1]}],
            },
            "step 0: d -1 0",
        ),
        (
            {"cnf": {"num_vars": 1, "clauses": [[1]]}, "claim": "unsat", "proof": []},
            "no step added the empty clause",
        ),
        (
            {"cnf": {"num_vars": 2, "clauses": [[1, 2]]}, "claim": "sat", "assignment": [-1]},
            "clause 0 [1, 2] is not satisfied by the assignment; unassigned: [2]",
        ),
        (
            {"cnf": {"num_vars": 2, "clauses": [[1, 2]]}, "claim": "sat", "assignment": [1, -1]},
            "conflicting_assignment: assignment literal -1 at index 1 (see index 0)",
        ),
    ]
    for request, phrase in cases:
        path = tmp_path / "r.json"
        path.write_text(json.dumps(request))
        code, out, err = cli_text("check", str(path), "--explain")
        assert code == 1
        assert json.loads(out)["valid"] is False
        assert phrase in err, err


# -- a proof that stops short of the empty clause -------------------------------------

FULL_CNF = "p cnf 2 4\n1 2 0\n-1 2 0\n1 -2 0\n-1 -2 0\n"
CONFLICT = (
    "lacks only its final empty clause (a line '0'); drat-trim accepts such a proof, "
    "this checker needs the empty clause added"
)
NO_CONFLICT = "do not propagate to a conflict: the proof stops short of a refutation"


@pytest.mark.parametrize("deletions", ["strict", "lenient"])
@pytest.mark.parametrize("how", ["check", "request", "pipe"])
@pytest.mark.parametrize("proof, said", [("2 0\n", CONFLICT), ("1 2 0\n", NO_CONFLICT)])
def test_the_end_of_a_proof_without_the_empty_clause_is_explained(
    tmp_path, deletions, how, proof, said
):
    # "2 0" over the full 2-variable formula: the clauses alive at the end
    # propagate to a conflict (drat-trim -f says VERIFIED), but no step adds
    # the empty clause.  Both readings say empty_clause_not_derived, and why.
    (tmp_path / "f.cnf").write_text(FULL_CNF)
    (tmp_path / "f.drup").write_text(proof)
    steps = [{"add": [int(x) for x in line.split()[:-1]]} for line in proof.splitlines()]
    (tmp_path / "f.json").write_text(
        json.dumps(
            {
                "cnf": {"num_vars": 2, "clauses": [[1, 2], [-1, 2], [1, -2], [-1, -2]]},
                "claim": "unsat",
                "proof": steps,
            }
        )
    )
    flags = ["--explain", "--deletions", deletions]
    if how == "check":
        code, out, err = cli_text("check", str(tmp_path / "f.json"), *flags)
    elif how == "request":
        code, out, err = cli_text(
            "request",
            "--cnf",
            str(tmp_path / "f.cnf"),
            "--proof",
            str(tmp_path / "f.drup"),
            "--check",
            *flags,
        )
    else:
        code, out, err = cli_text(
            "request",
            "--cnf",
            str(tmp_path / "f.cnf"),
            "--proof",
            "-",
            "--check",
            *flags,
            stdin=proof.encode(),
        )
    assert code == 1
    assert json.loads(out)["reason"] == "empty_clause_not_derived"
    lines = err.splitlines()
    assert lines[0] == (
        PREFIX + f"all {len(steps)} steps passed but no step added the "
        "empty clause (a DRUP proof ends with a line '0')"
    )
    if how == "pipe":  # cannot be read again: it says how to find out
        assert lines[1] == (
            PREFIX + "the proof came from a pipe and cannot be read again: "
            "to see whether its clauses propagate to a conflict at the end, "
            "add a final line '0' and run the check again"
        )
    else:
        assert lines[1].startswith(PREFIX) and lines[1].endswith(said)
    assert len(lines) == 2


def test_the_end_is_explained_in_the_reading_that_was_checked_again(tmp_path):
    # "2 0, d 2 0" read strictly loses the unit: with a final 0 it still fails
    # (lemma_not_rup); read leniently the delete is ignored, and the clauses
    # alive at the end propagate to a conflict.  The line says which reading.
    (tmp_path / "f.cnf").write_text(FULL_CNF)
    (tmp_path / "f.drup").write_text("2 0\nd 2 0\n")
    code, _, err = cli_text(
        "request",
        "--cnf",
        str(tmp_path / "f.cnf"),
        "--proof",
        str(tmp_path / "f.drup"),
        "--check",
        "--explain",
    )
    assert code == 1
    assert err.splitlines()[-1] == (
        PREFIX + "read leniently, the clauses alive after the "
        "last step propagate to a conflict: the proof " + CONFLICT
    )


# -- the reason deletions: the first ones and the last, not all --------------------------


def cycling_request(cycles: int) -> dict[str, object]:
    """A proof that deletes a reason clause twice a cycle, then a lemma not RUP."""
    proof = [{"delete": [-1, 2]}, {"add": [-1, 2]}, {"delete": [-4, 2]}, {"add": [-4, 2]}]
    return {
        "cnf": {"num_vars": 4, "clauses": [[1], [-1, 2], [-1, 4], [-4, 2]]},
        "claim": "unsat",
        "proof": proof * cycles + [{"add": [3]}],
    }


def test_explain_lists_a_bounded_number_of_reason_deletions(twins: str) -> None:
    from sat_claim_check import explain
    from sat_claim_check._core.explain import LISTED

    few, many = explain(cycling_request(3)), explain(cycling_request(300))
    assert len(many.strict.reason_deletions) == 600
    listed = [line for line in many.lines if line.startswith("explain:   step ")]
    assert len(listed) == 1 + LISTED  # the failing step, then LISTED
    assert "explain:   ... 590 more" in many.lines
    assert listed[-1] == "explain:   step 1198: d -4 2 0"  # the last one, shown
    assert len([x for x in few.lines if x.startswith("explain:   step ")]) == 1 + 6
    assert not any("more" in line for line in few.lines)
