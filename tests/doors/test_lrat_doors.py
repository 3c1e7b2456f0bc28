"""LRAT out (SPEC §10) through the doors: the Checker, check_files, verify and
request --check; what stays behind when the verdict is not valid, the check
does not end or the LRAT cannot be written; a real solver through a pipe; the
corpus (skipped when absent), checked by tests/_lrat.py and cake_lpr where
it is on the PATH."""

from __future__ import annotations

import io
import json
import os
import random
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import proofgen
import pytest
from _helpers import CLI, CORPUS_ABSENT, cli, cli_text, corpus_dir, corpus_instances, find_cadical
from _lrat import LratRejected, check_lrat, parse_dimacs

import sat_claim_check as scc

CAKE_LPR = shutil.which("cake_lpr")
PAIR = {"num_vars": 2, "clauses": [[1, 2], [-1, 2], [1, -2], [-1, -2]]}
PAIR_CNF = "p cnf 2 4\n1 2 0\n-1 2 0\n1 -2 0\n-1 -2 0\n"


def _files(tmp_path: Path, proof: str, cnf: str = PAIR_CNF) -> tuple[Path, Path]:
    (tmp_path / "f.cnf").write_text(cnf)
    (tmp_path / "p.drup").write_text(proof)
    return tmp_path / "f.cnf", tmp_path / "p.drup"


def _accepted(cnf: Path, lrat: Path | bytes) -> None:
    data = lrat if isinstance(lrat, bytes) else lrat.read_bytes()
    check_lrat(parse_dimacs(cnf.read_text()), data)
    if CAKE_LPR is not None:
        with tempfile.TemporaryDirectory() as where:
            target = Path(where, "checked.lrat")
            target.write_bytes(data)
            out = subprocess.run(
                [CAKE_LPR, str(cnf), str(target)], capture_output=True, text=True, check=False
            )
        assert "s VERIFIED UNSAT" in out.stdout, out.stderr


def _dimacs(clauses: list[list[int]], num_vars: int) -> str:
    lines = "".join(" ".join(map(str, [*clause, 0])) + "\n" for clause in clauses)
    return f"p cnf {num_vars} {len(clauses)}\n{lines}"


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".part"))


# -- the Checker ------------------------------------------------------------------------


def test_the_checker_writes_the_same_lrat_in_any_split(engine: str) -> None:
    rng = random.Random(3)
    for request in proofgen.cases(77, 40):
        try:
            proofgen.to_flat(request)
        except ValueError:
            continue
        whole = io.BytesIO()
        checker = scc.Checker(
            request["cnf"], engine=engine, lrat=whole, limits=scc.Limits.unlimited()
        )
        checker.feed(request["proof"])
        report = checker.finish()
        split = io.BytesIO()
        checker = scc.Checker(
            request["cnf"], engine=engine, lrat=split, limits=scc.Limits.unlimited()
        )
        steps = request["proof"]
        a = 0
        while a < len(steps) and not checker.done:
            b = a + rng.randint(0, 4)
            if b == a and a < len(steps):
                step = steps[a]
                (checker.add if "add" in step else checker.delete)(next(iter(step.values())))
                a += 1
                continue
            checker.feed(steps[a:b])
            a = b
        assert checker.finish().result == report.result
        assert split.getvalue() == whole.getvalue()
        if report.result["valid"]:
            check_lrat(request["cnf"]["clauses"], whole.getvalue())
        else:
            with pytest.raises(LratRejected):
                check_lrat(request["cnf"]["clauses"], whole.getvalue())


def test_the_checker_refuses_a_sink_it_cannot_write_to() -> None:
    with pytest.raises(TypeError, match="lrat must have a write"):
        scc.Checker(PAIR, lrat="out.lrat")
    with pytest.raises(TypeError, match="lrat_binary must be a bool"):
        scc.Checker(PAIR, lrat=io.BytesIO(), lrat_binary="yes")


def test_no_verdict_no_empty_clause() -> None:
    # The empty clause is derived at step 1, but step 2 fails: the stream has no
    # proof a checker accepts.
    out = io.BytesIO()
    checker = scc.Checker(PAIR, lrat=out)
    checker.feed([{"add": [2]}, {"add": []}, {"delete": [1]}])
    assert not checker.finish().result["valid"]
    assert out.getvalue() == b"5 2 0 1 2 0\n"
    # A Checker that ends without finish() writes no more than its buffer held.
    out = io.BytesIO()
    checker = scc.Checker(PAIR, lrat=out)
    checker.add([2])
    checker.add([])
    del checker
    assert b" 0 5 3 4 0" not in out.getvalue()


# -- check_files ------------------------------------------------------------------------


def test_check_files_puts_the_lrat_in_place_only_when_valid(tmp_path: Path) -> None:
    cnf, proof = _files(tmp_path, "2 0\n0\n")
    target = tmp_path / "out.lrat"
    assert scc.check_files(cnf, proof, lrat=target).status == "valid"
    _accepted(cnf, target)
    # A proof that is not valid: the older file goes too (it is not this proof's).
    proof.write_text("1 -1 0\n")
    assert scc.check_files(cnf, proof, lrat=target).status == "not_valid"
    assert not target.exists() and _leftovers(tmp_path) == []
    binary = tmp_path / "out.blrat"
    proof.write_text("2 0\n0\n")
    assert scc.check_files(cnf, proof, lrat=binary, lrat_binary=True).status == "valid"
    assert binary.read_bytes()[:1] == b"a"
    _accepted(cnf, binary)


def test_check_files_writes_to_a_stream_and_to_a_device(tmp_path: Path) -> None:
    cnf, proof = _files(tmp_path, "2 0\n0\n")
    out = io.BytesIO()
    assert scc.check_files(cnf, proof, lrat=out).status == "valid"
    _accepted(cnf, out.getvalue())
    assert scc.check_files(cnf, proof, lrat=os.devnull).status == "valid"
    assert os.path.exists(os.devnull) and _leftovers(Path(os.devnull).parent) == []


def test_check_files_leaves_nothing_when_the_check_does_not_end(tmp_path: Path) -> None:
    cnf, proof = _files(tmp_path, "2 0\n0\n")
    target = tmp_path / "out.lrat"

    def stop(steps: int, work: int) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        scc.check_files(cnf, proof, lrat=target, progress=stop)
    assert not target.exists() and _leftovers(tmp_path) == []
    # A timeout is an Outcome: nothing left either.
    outcome = scc.check_files(cnf, proof, lrat=target, timeout=1e-9)
    assert isinstance(outcome.error, scc.TimedOut) and not target.exists()
    assert _leftovers(tmp_path) == []


def test_check_files_says_when_the_lrat_cannot_be_written(tmp_path: Path) -> None:
    cnf, proof = _files(tmp_path, "2 0\n0\n")
    with pytest.raises(scc.LratWriteError, match="cannot write the LRAT to"):
        scc.check_files(cnf, proof, lrat=tmp_path / "no" / "such" / "dir.lrat")

    class Full:
        def write(self, data: bytes) -> None:
            raise OSError(28, "No space left on device")

    with pytest.raises(scc.LratWriteError, match="No space left"):
        scc.check_files(cnf, proof, lrat=Full())
    with pytest.raises(ValueError, match="is the proof"):
        scc.check_files(cnf, proof, lrat=proof)
    with pytest.raises(TypeError, match="a sat claim has no LRAT"):
        scc.check_files(cnf, model=proof, lrat=tmp_path / "x.lrat")


def test_the_second_reading_of_a_failed_proof_writes_nothing(tmp_path: Path) -> None:
    # Strictly not valid (the deletion of a reason), valid as drat-trim reads it:
    # the hint's second reading must not write an LRAT.
    # The unit lemma 2 deleted: strictly, the empty clause is not RUP then.
    cnf, proof = _files(tmp_path, "2 0\nd 2 0\n0\n")
    out = io.BytesIO()
    outcome = scc.check_files(cnf, proof, lrat=out, reading="strict")
    assert outcome.status == "not_valid" and "drat-trim" in (outcome.hint or "")
    with pytest.raises(LratRejected):
        check_lrat(parse_dimacs(cnf.read_text()), out.getvalue())


# -- the command line ---------------------------------------------------------------------


def test_verify_writes_the_lrat_and_says_so(tmp_path: Path) -> None:
    cnf, proof = _files(tmp_path, "2 0\n0\n")
    target = tmp_path / "out.lrat"
    code, out, err = cli_text(*["verify", str(cnf), str(proof), "--lrat", str(target)])
    assert code == 0 and json.loads(out)["valid"] and "LRAT written to" in err
    _accepted(cnf, target)
    (tmp_path / "p.drup").write_text("1 -1 0\n")
    code, out, err = cli_text(*["verify", str(cnf), str(proof), "--lrat", str(target)])
    assert code == 1 and not target.exists()
    assert "LRAT not written" in err and "removed" in err


def test_verify_lrat_to_standard_output_moves_the_result_line(tmp_path: Path) -> None:
    cnf, proof = _files(tmp_path, "2 0\n0\n")
    done = cli("verify", str(cnf), str(proof), "--lrat", "-", "--lrat-binary")
    assert done.returncode == 0 and done.stdout[:1] == b"a"
    assert b'"valid":true' in done.stderr
    _accepted(cnf, done.stdout)


def test_verify_lrat_to_a_closed_standard_output(tmp_path: Path) -> None:
    cnf, proof = _files(tmp_path, "2 0\n0\n")
    done = subprocess.run(
        [*CLI, "verify", str(cnf), str(proof), "--lrat", "-"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        close_fds=True,
        preexec_fn=lambda: os.close(1),
        check=False,
    )
    assert done.returncode == 2 and b"Traceback" not in done.stderr
    assert b"cannot write the LRAT to standard output: it is closed" in done.stderr


def test_verify_refuses_lrat_misuse(tmp_path: Path) -> None:
    cnf, proof = _files(tmp_path, "2 0\n0\n")
    code, _, err = cli_text(*["verify", str(cnf), "--model", str(proof), "--lrat", "x.lrat"])
    assert code == 2 and "sat claim" in err
    code, _, err = cli_text(*["verify", str(cnf), str(proof), "--lrat-binary"])
    assert code == 2 and "--lrat-binary needs --lrat" in err
    code, _, err = cli_text(
        *["verify", str(cnf), str(proof), "--lrat", str(tmp_path / "no/x.lrat")]
    )
    assert code == 2 and "cannot write the LRAT" in err
    for same in (cnf, proof):
        code, _, err = cli_text(*["verify", str(cnf), str(proof), "--lrat", str(same)])
        assert code == 2 and "give another name" in err
    assert proof.read_text() == "2 0\n0\n"  # the proof is still there


def test_request_check_writes_the_lrat(tmp_path: Path) -> None:
    cnf, proof = _files(tmp_path, "2 0\n0\n")
    target = tmp_path / "out.lrat"
    code, _, _ = cli_text(
        *["request", "--cnf", str(cnf), "--proof", str(proof), "--check", "--lrat", str(target)]
    )
    assert code == 0
    _accepted(cnf, target)
    code, _, err = cli_text(*["request", "--cnf", str(cnf), "--proof", str(proof), "--lrat", "x"])
    assert code == 2 and "--lrat needs --check" in err


def test_a_solver_writing_into_a_pipe(tmp_path: Path) -> None:
    cadical = find_cadical()
    if cadical is None:
        pytest.skip("cadical is not installed and cannot be")
    num_vars, clauses = proofgen.pigeonhole(5, 4)
    cnf = tmp_path / "php5.cnf"
    cnf.write_text(_dimacs(clauses, num_vars))
    target = tmp_path / "php5.lrat"
    solver = subprocess.Popen([cadical, "-q", str(cnf), "-"], stdout=subprocess.PIPE)
    checker = subprocess.run(
        [*CLI, "verify", str(cnf), "-", "--lrat", str(target)],
        stdin=solver.stdout,
        capture_output=True,
        text=True,
    )
    assert solver.stdout is not None
    solver.stdout.close()
    solver.wait()
    assert checker.returncode == 0, checker.stderr
    _accepted(cnf, target)


# -- the corpus ---------------------------------------------------------------------------


CORPUS = corpus_dir()


@pytest.mark.skipif(CORPUS is None, reason=CORPUS_ABSENT)
@pytest.mark.parametrize("binary", [False, True])
def test_every_valid_corpus_proof_of_the_contract_tier_gives_an_accepted_lrat(
    tmp_path: Path, binary: bool
) -> None:
    assert CORPUS is not None
    checked = 0
    for entry in corpus_instances(CORPUS):
        if entry["tier"] != "contract" or "drup" not in entry["files"]:
            continue  # the large tier: benchmarks/lrat_corpus.py (cake_lpr on every proof)
        cnf = CORPUS / entry["files"]["cnf"]
        target = tmp_path / "p.lrat"
        outcome = scc.check_files(
            cnf, CORPUS / entry["files"]["drup"], lrat=target, lrat_binary=binary
        )
        if outcome.status != "valid":
            assert not target.exists()
            continue
        _accepted(cnf, target)
        checked += 1
    assert checked > 50


# -- where the LRAT goes: names that are not plain files ----------------------------------


def test_a_link_to_standard_output_is_standard_output(tmp_path: Path) -> None:
    cnf, proof = _files(tmp_path, "2 0\n0\n")
    link = tmp_path / "out"
    link.symlink_to("/proc/self/fd/1")
    done = cli("verify", str(cnf), str(proof), "--lrat", str(link))
    assert done.returncode == 0 and link.is_symlink()
    _accepted(cnf, done.stdout)  # the LRAT alone: the result line went to stderr
    assert b'"valid":true' in done.stderr


def test_a_link_is_written_through_never_replaced(tmp_path: Path) -> None:
    cnf, proof = _files(tmp_path, "2 0\n0\n")
    real = tmp_path / "real.lrat"
    real.write_text("old")
    link = tmp_path / "link.lrat"
    link.symlink_to(real)
    assert scc.check_files(cnf, proof, lrat=link).status == "valid"
    assert link.is_symlink()
    _accepted(cnf, real)


def test_names_that_cannot_be_files_are_refused_up_front(tmp_path: Path) -> None:
    cnf, proof = _files(tmp_path, "2 0\n0\n")
    for name in ("", str(tmp_path / "newdir") + os.sep, str(tmp_path)):
        code, _, err = cli_text(*["verify", str(cnf), str(proof), "--lrat", name])
        assert code == 2 and "cannot write the LRAT" in err, name
    out = tmp_path / "s.out"
    code, _, err = cli_text(*["verify", str(cnf), str(proof), "-o", str(out), "--lrat", str(out)])
    assert code == 2 and "is the output" in err and not out.exists()
    assert _leftovers(tmp_path) == [] and _leftovers(tmp_path.parent) == []


def test_the_file_takes_the_umask_s_mode(tmp_path: Path) -> None:
    cnf, proof = _files(tmp_path, "2 0\n0\n")
    assert scc.check_files(cnf, proof, lrat=tmp_path / "a.lrat").status == "valid"
    umask = os.umask(0)
    os.umask(umask)
    assert (tmp_path / "a.lrat").stat().st_mode & 0o777 == 0o666 & ~umask


def test_short_writes_and_text_streams(tmp_path: Path) -> None:
    cnf, proof = _files(tmp_path, "2 0\n0\n")
    got = bytearray()

    class Short:  # writes three bytes a call, as a raw stream may
        def write(self, data: bytes) -> int:
            got.extend(bytes(data[:3]))
            return min(3, len(data))

    assert scc.check_files(cnf, proof, lrat=Short()).status == "valid"
    _accepted(cnf, bytes(got))
    with pytest.raises(TypeError, match="binary stream"):
        scc.check_files(cnf, proof, lrat=io.StringIO())
    with pytest.raises(TypeError, match="lrat_binary must be a bool"):
        scc.check_files(cnf, proof, lrat_binary="yes")


def test_sigterm_while_the_proof_is_awaited_leaves_nothing(tmp_path: Path) -> None:
    cnf, _ = _files(tmp_path, "")
    fifo = tmp_path / "proof.fifo"
    os.mkfifo(fifo)
    target = tmp_path / "out.lrat"
    process = subprocess.Popen(
        [*CLI, "verify", str(cnf), str(fifo), "--lrat", str(target)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        for _ in range(600):  # the temporary file exists once the check has begun
            if _leftovers(tmp_path):
                break
            time.sleep(0.05)
        assert _leftovers(tmp_path), "the check never began"
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 143, err
    assert b"SIGTERM" in err and not target.exists() and _leftovers(tmp_path) == []
