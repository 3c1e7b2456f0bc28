"""--explain: why a claim failed, on stderr; stdout stays the contract's result."""

import json
from pathlib import Path
from typing import Any

import pytest
from _helpers import cli_text, corpus_expected, corpus_instances

from sat_claim_check._jsontext import dumps

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
        code, out, err = cli_text("request", "--cnf", str(cnf), "--proof", str(drup),
                                  "--check", "--explain")
    assert code == 1
    assert out == dumps(expected["result"]) + "\n"

    # One DRUP line per step in the corpus files, so step s is line s + 1.
    steps = drup.read_text().splitlines()
    failing = entry["strict"]["first_discrepancy"]["step_index"]
    lines = err.splitlines()

    def at(step):       # request --check reads the file: it names the line too
        return f" ({drup}:{step + 1})" if how == "request" else ""

    assert lines[0] == f"{PREFIX}step {failing}{at(failing)} fails: lemma_not_rup"
    assert lines[1] == f"{PREFIX}  step {failing}: {steps[failing]}"
    listed = [line[len(PREFIX):].strip() for line in lines[4:]
              if line.startswith(PREFIX + "  step ")]
    assert len(listed) == entry["strict"]["del_reason"] > 0
    for item in listed:
        number, text = item[len("step "):].split(": ")
        number = number.split(" ")[0]
        assert item.startswith(f"step {number}{at(int(number))}: ")
        assert int(number) < failing
        assert text == steps[int(number)]
        assert text.startswith("d ")
    assert "drat-trim-style checkers ignore" in err
    assert "this checker honours every deletion" in err


def test_no_reason_deletions_said_plainly(corpus):
    entry, _ = instance(corpus, "c005-")     # lemma_not_rup without reason deletions
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
        ({"cnf": {"num_vars": 1, "clauses": [[1], [-1]]}, "claim": "unsat",
          "proof": [{"add": [1, 7]}]}, "the literal 7 is outside 1..num_vars"),
        ({"cnf": {"num_vars": 1, "clauses": [[1]]}, "claim": "unsat",
          "proof": [{"delete": [-1]}]}, "step 0: d -1 0"),
        ({"cnf": {"num_vars": 1, "clauses": [[1]]}, "claim": "unsat", "proof": []},
         "no step added the empty clause"),
        ({"cnf": {"num_vars": 2, "clauses": [[1, 2]]}, "claim": "sat", "assignment": [-1]},
         "clause 0 [1, 2] is not satisfied by the assignment; unassigned: [2]"),
        ({"cnf": {"num_vars": 2, "clauses": [[1, 2]]}, "claim": "sat", "assignment": [1, -1]},
         "conflicting_assignment: assignment literal -1 at index 1 (see index 0)"),
    ]
    for request, phrase in cases:
        path = tmp_path / "r.json"
        path.write_text(json.dumps(request))
        code, out, err = cli_text("check", str(path), "--explain")
        assert code == 1
        assert json.loads(out)["valid"] is False
        assert phrase in err, err
