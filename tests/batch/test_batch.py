"""`sat-claim-check batch`: one output line per input line, in order, and exit codes."""

import json

import pytest
from _helpers import cli_text

import sat_claim_check as scc
from sat_claim_check._core.jsontext import dumps
from sat_claim_check.cli import main

UNSAT_VALID = {
    "cnf": {"num_vars": 1, "clauses": [[1], [-1]]},
    "claim": "unsat",
    "proof": [{"add": []}],
}
UNSAT_NOT_RUP = {
    "cnf": {"num_vars": 2, "clauses": [[1, 2]]},
    "claim": "unsat",
    "proof": [{"add": [1]}],
}
SAT_VALID = {"cnf": {"num_vars": 2, "clauses": [[1], [-2]]}, "claim": "sat", "assignment": [1, -2]}


def line_of(request):
    return json.dumps(request)


def run_batch(data: bytes, *args: str) -> tuple[int, list[str], str]:
    code, out, err = cli_text("batch", *args, stdin=data)
    return code, out.splitlines(), err


MIXED = [
    line_of(UNSAT_VALID),
    "",  # a blank line: rejected, never dropped
    line_of(UNSAT_NOT_RUP),
    '{"cnf": 1}',
    "not json",
    "   ",
    line_of(SAT_VALID),
    '{"a": 1, "a": 2}',
    line_of({**SAT_VALID, "assignment": [1, 2]}),
]


def expected_output():
    out = []
    for number, text in enumerate(MIXED, 1):
        try:
            if not text.strip():
                raise scc.InvalidInput(None, "", "blank")
            out.append(dumps(scc.check(json.loads(text, object_pairs_hook=_unique))))
        except (scc.CheckError, ValueError) as err:
            out.append(("error", number, getattr(err, "field", None)))
    return out


def _unique(pairs):
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise ValueError("repeated key")
    return dict(pairs)


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("final_newline", [True, False])
def test_order_line_numbers_and_exit_code(jobs, final_newline):
    data = ("\n".join(MIXED) + ("\n" if final_newline else "")).encode()
    code, lines, err = run_batch(data, "--jobs", jobs)
    assert code == 2
    assert len(lines) == len(MIXED)
    for got, want in zip(lines, expected_output()):
        if isinstance(want, tuple):
            obj = json.loads(got)
            assert list(obj)[-1] == "line"
            assert obj["line"] == want[1]
            assert obj["error"] == "invalid_input"
            assert obj["field"] == want[2]
        else:
            assert got == want
    assert "batch: 9 lines: 2 valid, 2 not valid, 5 rejected" in err


def test_error_object_is_the_check_error_plus_line():
    code, lines, _ = run_batch(b'{"cnf": {"num_vars": 20000, "clauses": []}, "claim": "sat"}\n')
    obj = json.loads(lines[0])
    assert list(obj) == ["error", "field", "path", "limit", "max", "actual", "message", "line"]
    assert (obj["limit"], obj["line"], code) == ("max_vars", 1, 2)


@pytest.mark.parametrize(
    "requests, code",
    [
        ([UNSAT_VALID, SAT_VALID, UNSAT_VALID], 0),
        ([UNSAT_VALID, UNSAT_NOT_RUP, SAT_VALID], 1),
        ([], 0),
    ],
)
def test_exit_codes_in_process(capsys, tmp_path, requests, code):
    path = tmp_path / "in.jsonl"
    path.write_text("".join(line_of(r) + "\n" for r in requests))
    assert main(["batch", str(path), "--engine", "reference"]) == code
    out, err = capsys.readouterr()
    assert out.splitlines() == [dumps(scc.check(r)) for r in requests]
    assert f"batch: {len(requests)} lines" in err


def test_many_lines_keep_their_order_with_two_jobs():
    requests = []
    for n in range(1, 150):
        cnf = {"num_vars": n, "clauses": [[n], [-n]]}
        requests.append(
            {"cnf": cnf, "claim": "unsat", "proof": [{"add": []}] if n % 3 else [{"add": [n]}]}
        )
    data = "".join(line_of(r) + "\n" for r in requests).encode()
    code, lines, err = run_batch(data, "--jobs", "2")
    assert code == 1  # every third proof never adds the empty clause
    assert lines == [dumps(scc.check(r)) for r in requests]
    assert "149 lines: 100 valid, 49 not valid, 0 rejected" in err


def test_limits_and_engine_options_reach_the_workers():
    data = (line_of(UNSAT_VALID) + "\n").encode()
    code, lines, _ = run_batch(data, "--jobs", "2", "--limit", "max_clauses=1")
    assert code == 2
    assert json.loads(lines[0])["limit"] == "max_clauses"


def test_unreadable_file(tmp_path):
    code, lines, err = run_batch(b"", str(tmp_path / "missing.jsonl"))
    assert (code, lines) == (2, [])
    assert "cannot read" in err
