"""`verify CNF PROOF` / `verify CNF --model FILE` and their Python twin,
``check_files``: no size limits unless asked, a timeout, and a hint on
stderr (``.hint`` in Python) on every verdict that is not valid."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _helpers import REPO, cli_text

import sat_claim_check as scc

EXAMPLES = REPO / "examples"
PHP5 = str(EXAMPLES / "php5.cnf")
# The shipped examples are beside the tests in a checkout, not in an sdist's test run.
needs_examples = pytest.mark.skipif(
    not (EXAMPLES / "tseitin-reason-deleted.json").exists(), reason="examples/ is not here"
)


def chain(tmp_path: Path, n: int = 300, repeats: int = 1200) -> tuple[str, str]:
    """A CNF of n variables in an implication chain and a proof of 2 * repeats
    steps (more than the contract's 2,000) that adds and deletes one lemma
    over and over, then ends with a contradiction of the chain."""
    cnf = tmp_path / "chain.cnf"
    cnf.write_text(
        f"p cnf {n} {n}\n" + "".join(f"-{i} {i + 1} 0\n" for i in range(1, n)) + f"1 -{n} 0\n"
    )
    proof = tmp_path / "chain.drup"
    proof.write_text(f"-1 {n} 0\nd -1 {n} 0\n" * repeats)
    return str(cnf), str(proof)


def result_of(out: str) -> dict:
    (line,) = out.splitlines()
    return json.loads(line)


def test_a_proof_over_the_contracts_limits_checks_without_a_flag(tmp_path: Path) -> None:
    cnf, proof = chain(tmp_path)
    code, out, err = cli_text("verify", cnf, proof)
    res = result_of(out)
    assert (code, res["reason"], res["steps_checked"]) == (1, "empty_clause_not_derived", 2400)
    assert err.startswith("sat-claim-check: hint: ") and "stops short of a refutation" in err
    code, out, err = cli_text("verify", cnf, proof, "--reading", "strict")
    assert code == 1 and "--reading drat-trim" in err and "not valid either" not in err
    # The same files under the contract: the exact counts, in one rerun.
    code, out, err = cli_text("verify", cnf, proof, "--contract-limits")
    assert code == 2 and result_of(out)["limit"] == "max_proof_steps"
    assert "--limit max_proof_steps=2400" in err and "--limit max_proof_literals" not in err
    code, _, _ = cli_text(
        "verify", cnf, proof, "--contract-limits", "--limit", "max_proof_steps=2400"
    )
    assert code == 1


def test_exact_counts_of_every_limit_a_proof_file_passes(tmp_path: Path) -> None:
    cnf, proof = chain(tmp_path, n=300, repeats=20000)  # 40,000 steps, 80,000 literals
    code, out, err = cli_text("request", "--check", "--cnf", cnf, "--proof", proof)
    assert code == 2 and result_of(out)["limit"] == "max_proof_steps"
    assert "--limit max_proof_steps=40000 --limit max_proof_literals=80000" in err
    assert "Limits(max_proof_steps=40000, max_proof_literals=80000)" in err
    # From a pipe the count is not known: no guessed value, --unlimited instead.
    code, out, err = cli_text(
        "request", "--check", "--cnf", cnf, "--proof", "-", stdin=Path(proof).read_bytes()
    )
    assert code == 2 and "--limit max_proof_steps=" not in err and "--unlimited" in err


def test_the_drat_trim_reading_accepts_a_proof_without_its_empty_clause(tmp_path: Path) -> None:
    cnf = tmp_path / "f.cnf"
    cnf.write_text("p cnf 2 4\n1 2 0\n-1 2 0\n1 -2 0\n-1 -2 0\n")
    proof = tmp_path / "f.drup"
    proof.write_text("2 0\n")  # then -2 is falsified: a conflict, without a line '0'
    code, out, err = cli_text("verify", str(cnf), str(proof), "--reading", "strict")
    assert code == 1 and result_of(out)["reason"] == "empty_clause_not_derived"
    assert "valid as drat-trim reads it" in err and "--reading drat-trim" in err
    # verify's default reading is drat-trim's
    for flags in ([], ["--reading", "drat-trim"]):
        code, out, err = cli_text("verify", str(cnf), str(proof), *flags)
        assert (code, result_of(out)["steps_checked"], err) == (0, 1, "")


@needs_examples
def test_reason_deletions_get_a_hint_without_explain() -> None:
    proof = str(EXAMPLES / "tseitin-reason-deleted.drup")
    code, out, err = cli_text(
        "verify", str(EXAMPLES / "tseitin.cnf"), proof, "--deletions", "strict"
    )
    assert code == 1 and result_of(out)["reason"] == "lemma_not_rup"
    (line,) = err.splitlines()
    assert "valid as drat-trim reads it" in line and "1 deletion" in line
    code, out, err = cli_text(
        "verify", str(EXAMPLES / "tseitin.cnf"), proof, "--deletions", "lenient"
    )
    assert (code, err) == (0, "")


@needs_examples
def test_a_proof_from_a_pipe_gets_the_hint_its_result_gives() -> None:
    proof = (EXAMPLES / "tseitin-reason-deleted.drup").read_bytes()
    code, _, err = cli_text(
        "verify", str(EXAMPLES / "tseitin.cnf"), "-", "--reading", "strict", stdin=proof
    )
    assert code == 1
    assert "reason clauses" in err and "--deletions lenient" in err and "pipe" in err


def test_a_model_that_falsifies_a_clause_gets_a_hint(tmp_path: Path) -> None:
    model = tmp_path / "model.txt"
    model.write_text("s SATISFIABLE\nv 1 2 0\n")
    cnf = tmp_path / "f.cnf"
    cnf.write_text("p cnf 2 2\n1 2 0\n-1 -2 0\n")
    code, out, err = cli_text("verify", str(cnf), "--model", str(model))
    assert code == 1 and result_of(out)["reason"] == "clause_falsified"
    assert "hint: the model falsifies clause 1" in err
    model.write_text("s SATISFIABLE\nv 1 -2 0\n")
    assert cli_text("verify", str(cnf), "--model", str(model))[::2] == (0, "")


@needs_examples
def test_literals_beyond_the_formula_get_a_hint(tmp_path: Path) -> None:
    proof = tmp_path / "p.drup"
    proof.write_text("1 99 0\n0\n")
    code, out, err = cli_text("verify", PHP5, str(proof))
    assert code == 1 and result_of(out)["reason"] == "literal_out_of_range"
    assert "variable 99, beyond the formula's" in err


@needs_examples
def test_swapped_files_get_a_hint() -> None:
    code, out, err = cli_text("verify", str(EXAMPLES / "php5.drup"), PHP5)
    assert code == 2 and result_of(out)["error"] == "invalid_input"
    assert "swapped" in err


def test_a_timeout_ends_with_an_error_object_naming_the_step(tmp_path: Path) -> None:
    cnf, proof = chain(tmp_path, n=3000, repeats=3000)  # seconds of the reference engine
    code, out, err = cli_text("verify", cnf, proof, "--engine", "reference", "--timeout", "0.3")
    error = result_of(out)
    assert code == 2 and error["error"] == "timeout" and error["seconds"] == 0.3
    assert 0 < error["steps_checked"] < 6000 and error["path"] == f"/proof/{error['steps_checked']}"
    assert "--timeout" in err


@needs_examples
@pytest.mark.parametrize(
    ("args", "words"),
    [
        ((PHP5,), "give the proof"),
        ((PHP5, "p.drup", "--model", "m.txt"), "not both"),
        (("-", "-"), "only one of"),
        ((PHP5, "p.drup", "--reading", "strict", "--deletions", "lenient"), "contradicts"),
    ],
)
def test_usage_errors(args: tuple[str, ...], words: str) -> None:
    code, out, err = cli_text("verify", *args)
    assert (code, out) == (2, "") and words in err


@needs_examples
def test_check_files_is_the_same_outcome_as_the_command(tmp_path: Path) -> None:
    cnf, proof = chain(tmp_path)
    for args, kwargs in [
        ((cnf, proof), {}),
        ((cnf, proof), {"limits": scc.Limits()}),
        ((cnf, proof), {"reading": "strict"}),
        ((str(EXAMPLES / "tseitin.cnf"), str(EXAMPLES / "tseitin-reason-deleted.drup")), {}),
        ((PHP5, str(EXAMPLES / "php5.drup")), {}),
        ((str(EXAMPLES / "php5.drup"), PHP5), {}),
    ]:
        outcome = scc.check_files(*args, **kwargs)
        flags = ["--contract-limits"] if "limits" in kwargs else []
        if "reading" in kwargs:
            flags += ["--reading", kwargs["reading"]]
        code, out, err = cli_text("verify", *args, *flags)
        assert (outcome.exit_code, outcome.body.decode() + "\n") == (code, out)
        if outcome.status != "valid":
            assert outcome.hint and outcome.hint in err


@needs_examples
def test_check_files_refuses_misuse() -> None:
    with pytest.raises(TypeError):
        scc.check_files(PHP5)
    with pytest.raises(TypeError):
        scc.check_files(PHP5, "p", model="m")
    with pytest.raises(ValueError, match="timeout"):
        scc.check_files(PHP5, "p", timeout=0)
    with pytest.raises(ValueError, match="reading"):
        scc.check_files(PHP5, "p", reading="forward")


def test_check_files_times_out_as_an_outcome(tmp_path: Path) -> None:
    cnf, proof = chain(tmp_path, n=3000, repeats=3000)
    outcome = scc.check_files(cnf, proof, engine="reference", timeout=0.2)
    assert outcome.status == "rejected" and isinstance(outcome.error, scc.TimedOut)
    assert outcome.error.steps_checked == outcome.data["steps_checked"] > 0
    assert "timeout" in (outcome.hint or "")


def test_a_pipe_left_unread_at_a_limit_never_aborts_the_exit(tmp_path: Path) -> None:
    # The reader thread is still blocked on the pipe when the command exits: it
    # must hold no lock the interpreter takes then (it aborted, now and then).
    import subprocess
    import sys

    cnf, proof = chain(tmp_path, n=300, repeats=40000)
    for _ in range(6):
        with open(proof, "rb") as source:
            writer = subprocess.Popen(["cat"], stdin=source, stdout=subprocess.PIPE)
            assert writer.stdout is not None
            run = subprocess.run(
                [sys.executable, "-m", "sat_claim_check", "verify", cnf, "-", "--contract-limits"],
                stdin=writer.stdout,
                capture_output=True,
                timeout=60,
                check=False,
            )
            writer.stdout.close()
            writer.wait()
        assert run.returncode == 2 and b"Fatal" not in run.stderr


@needs_examples
def test_every_door_gives_a_report_that_is_not_valid_its_hint() -> None:
    request = json.loads((EXAMPLES / "tseitin-reason-deleted.json").read_text())
    strict = scc.run(request)
    assert "--deletions lenient" in (strict.hint or "")
    assert scc.check_json(json.dumps(request)).hint == strict.hint
    checker = scc.Checker(request["cnf"])
    checker.feed(request["proof"])
    assert checker.finish().hint == strict.hint
    # Never a flag already in force.
    not_rup = json.loads((EXAMPLES / "tiny-not-rup.json").read_text())
    hints = {r: scc.run(not_rup, reading=r).hint or "" for r in ("strict", "lenient", "drat-trim")}
    assert "--reading drat-trim" in hints["strict"] and "RAT" in hints["strict"]
    # Read leniently, a lemma that is not RUP met a consistent state: drat-trim
    # fails it too, so no reading is offered.
    assert "--deletions" not in hints["lenient"] and "--reading" not in hints["lenient"]
    assert "--reading" not in hints["drat-trim"] and "--deletions" not in hints["drat-trim"]
    assert scc.run(request, deletions="lenient").hint is None  # valid: nothing to say


@needs_examples
def test_one_exception_type_for_every_fault_of_the_file_doors(tmp_path: Path) -> None:
    from sat_claim_check.dimacs import DimacsError, run_files

    with pytest.raises(scc.CheckError) as info:  # malformed text
        run_files(str(EXAMPLES / "php5.drup"), PHP5)
    assert isinstance(info.value, DimacsError) and isinstance(info.value, scc.InvalidInput)
    assert info.value.to_dict()["field"] == "cnf" and "swapped" in (info.value.hint or "")
    cnf, proof = chain(tmp_path)
    with pytest.raises(scc.CheckError) as info:  # a limit
        run_files(cnf, proof)
    assert isinstance(info.value, scc.LimitExceeded) and "--limit" in (info.value.hint or "")


@needs_examples
def test_check_takes_the_reading_too() -> None:
    request = str(EXAMPLES / "tseitin-reason-deleted.json")
    code, out, err = cli_text("check", request, "--reading", "drat-trim")
    assert (code, result_of(out)["steps_checked"], err) == (0, 47, "")
    code, out, err = cli_text("check", request, "--reading", "strict", "--deletions", "lenient")
    assert (code, out) == (2, "") and "contradicts" in err


@needs_examples
def test_options_may_come_between_the_files() -> None:
    proof = str(EXAMPLES / "php5.drup")
    assert cli_text("verify", PHP5, "--quiet", "--timeout", "60", proof)[0] == 0
    assert cli_text("verify", "--quiet", PHP5, proof, "--engine", "reference")[0] == 0


@needs_examples
@pytest.mark.parametrize("fault", [KeyboardInterrupt, OSError, scc.InvalidInput])
def test_a_second_reading_that_cannot_finish_keeps_the_verdict(fault: type) -> None:
    from sat_claim_check._core.advice import verdict_hint
    from sat_claim_check._core.options import Options
    from sat_claim_check.files import verdict_of_files

    request = json.loads((EXAMPLES / "tseitin-reason-deleted.json").read_text())
    report = scc.run(request)

    def report_of(options: Options) -> scc.Report:
        raise fault if fault is not scc.InvalidInput else fault(None, "", "changed")

    proof = str(EXAMPLES / "tseitin-reason-deleted.drup")  # a regular file: read again
    hint = verdict_of_files(report, Options.of(), report_of, proof)
    assert hint == verdict_hint(report, "strict") and hint is not None
