"""Messages that say what to do: the limits to lift (all that are known to be
passed), the file and line, and hints for the usual mistakes.  Hints go to
standard error only; the results and error objects do not change."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _helpers import cli

import sat_claim_check as scc
from sat_claim_check._core.hints import json_misread_lines, limit_lines, looks_like, misread_lines
from sat_claim_check.dimacs import request_from_files

CNF = "p cnf 2 4\n1 2 0\n-1 2 0\n1 -2 0\n-1 -2 0\n"
PROOF = "2 0\n0\n"


def files(tmp_path: Path, cnf: str = CNF, proof: str = PROOF) -> tuple[str, str]:
    (tmp_path / "f.cnf").write_text(cnf)
    (tmp_path / "p.drup").write_text(proof)
    return str(tmp_path / "f.cnf"), str(tmp_path / "p.drup")


def err_lines(out) -> list[str]:
    return [line.removeprefix("sat-claim-check: ") for line in out.stderr.decode().splitlines()]


def test_a_header_over_two_limits_names_both(tmp_path: Path) -> None:
    cnf, proof = files(tmp_path, cnf="p cnf 20000 7000\n")
    with pytest.raises(scc.LimitExceeded) as info:
        request_from_files(cnf, proof)
    err = info.value
    assert (err.limit, err.actual, err.also_passed) == ("max_vars", 20000, (("max_clauses", 7000),))
    lines = limit_lines(err)
    assert "also passes max_clauses (it has 7,000)" in lines[0]
    assert "--limit max_vars=20000 --limit max_clauses=7000" in lines[-1]
    assert "Limits(max_vars=20000, max_clauses=7000)" in lines[-1]
    assert "--unlimited" in lines[-1]
    out = cli("request", "--check", "--cnf", cnf, "--proof", proof)
    assert out.returncode == 2
    assert json.loads(out.stdout)["limit"] == "max_vars"  # the error object as before
    assert any("also passes max_clauses" in line for line in err_lines(out))


def test_a_proof_limit_names_the_file_line_and_the_flag(tmp_path: Path) -> None:
    cnf, proof = files(tmp_path, proof="c a comment\n" + "2 0\nd 2 0\n" * 20 + "0\n")
    out = cli("request", "--check", "--cnf", cnf, "--proof", proof, "--limit", "max_proof_steps=5")
    lines = err_lines(out)
    assert lines[0].startswith(f"limit_exceeded at /proof ({proof}:7): ")  # step 5, line 7
    # The file is counted to its end: its 41 steps, not a guess.
    assert "--limit max_proof_steps=41 (in Python: Limits(max_proof_steps=41))" in lines[1]


def test_check_keeps_to_one_line_on_stderr(tmp_path: Path) -> None:
    request = tmp_path / "r.json"
    request.write_text(
        json.dumps(
            {
                "cnf": {"num_vars": 1, "clauses": [[1], [-1]]},
                "claim": "unsat",
                "proof": [{"add": []}] * 3,
            }
        )
    )
    out = cli("check", str(request), "--limit", "max_proof_steps=2")
    assert out.returncode == 2 and out.stderr.count(b"\n") == 1
    assert b"--limit max_proof_steps=3" in out.stderr and b"Limits(max_proof_steps=3)" in (
        out.stderr
    )


def test_swapped_cnf_and_proof_are_pointed_out(tmp_path: Path) -> None:
    cnf, proof = files(tmp_path)
    out = cli("request", "--check", "--cnf", proof, "--proof", cnf)
    assert out.returncode == 2 and json.loads(out.stdout)["error"] == "invalid_input"
    assert "Are --cnf and --proof swapped?" in err_lines(out)[-1]


def test_a_cnf_given_to_check_is_pointed_out(tmp_path: Path) -> None:
    cnf, _ = files(tmp_path)
    out = cli("check", cnf)
    assert out.returncode == 2 and json.loads(out.stdout)["error"] == "invalid_input"
    (line,) = err_lines(out)
    assert "looks like a DIMACS CNF" in line and "request --cnf" in line


def test_explain_without_check_is_refused(tmp_path: Path) -> None:
    cnf, proof = files(tmp_path)
    out = cli("request", "--explain", "--cnf", cnf, "--proof", proof)
    assert out.returncode == 2 and out.stdout == b""
    assert "--explain needs --check" in err_lines(out)[0]


def test_a_missing_file_reads_the_same_from_every_command(tmp_path: Path) -> None:
    missing = str(tmp_path / "nope")
    answers = [
        err_lines(cli(*args))
        for args in (
            ["check", missing],
            ["batch", missing],
            ["request", "--cnf", missing, "--proof", missing],
            ["request", "--check", "--cnf", missing, "--proof", missing],
        )
    ]
    assert all(
        lines == [f"cannot read {missing!r}: No such file or directory"] for lines in answers
    ), answers


def test_a_model_that_leaves_variables_unassigned_is_pointed_out(tmp_path: Path) -> None:
    (tmp_path / "f.cnf").write_text("p cnf 3 1\n1 2 3 0\n")
    (tmp_path / "m.txt").write_text("v -1 0\n")
    out = cli(
        "request",
        "--check",
        "--explain",
        "--cnf",
        str(tmp_path / "f.cnf"),
        "--model",
        str(tmp_path / "m.txt"),
    )
    assert out.returncode == 1
    assert any("a model cut short" in line for line in err_lines(out))


@pytest.mark.parametrize(
    ("head", "kind"),
    [
        (b"c x\np cnf 1 1\n1 0\n", "cnf"),
        (b"1 2 0\nd 1 2 0\n", "drup"),
        (b"a\x02\x00", "binary"),
        (b"s UNSATISFIABLE\n", "status"),
        (b'{"cnf": 1}', None),
        (b"", None),
    ],
)
def test_what_a_file_looks_like(head: bytes, kind: str | None) -> None:
    assert looks_like(head) == kind


def test_hints_for_text_that_did_not_parse() -> None:
    assert "swapped" in misread_lines("proof", b"p cnf 1 1\n", "x")[0]
    assert "--proof-format binary" in misread_lines("proof", b"a\x02\x00", "x")[0]
    assert "status line" in misread_lines("proof", b"s SATISFIABLE\n", "x")[0]
    assert misread_lines("proof", b"1 2 0\n", "x") == []
    assert "DRUP proof" in json_misread_lines(b"1 2 0\n0\n")[0]
    assert json_misread_lines(b"[1, 2") == []


def test_a_falsified_clause_is_named_by_its_cnf_line(tmp_path: Path) -> None:
    (tmp_path / "f.cnf").write_text("c x\np cnf 3 2\n1 2\n 0\n-1 3 0")  # no final newline
    (tmp_path / "m.txt").write_text("v 1 -2 -3 0\n")
    out = cli(
        "request",
        "--check",
        "--explain",
        "--cnf",
        str(tmp_path / "f.cnf"),
        "--model",
        str(tmp_path / "m.txt"),
    )
    assert out.returncode == 1 and json.loads(out.stdout)["first_discrepancy"]["clause_index"] == 1
    assert f"clause 1 ({tmp_path / 'f.cnf'}:5) [-1, 3]" in err_lines(out)[0]
