"""`verify --jobs N` and ``check_files(jobs=N)``: a proof checked in segments, on
worker processes, gives the bytes a check on one core gives (docs/semantics.md,
"One proof on every core").

The segments here are a few steps long, so that a small proof is cut into
many and every way a walker can meet a segment (checking it, replaying it,
stopping) is taken.
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import proofgen
import pytest
from _helpers import CLI, cli_text

import sat_claim_check as scc
from sat_claim_check._batch import sizing
from sat_claim_check._engines import compiled_available
from sat_claim_check._segments import local

READINGS = ("strict", "drat-trim")
# A check that lasts a second or so, whichever twin runs it.
LONG = {"n": 2000, "repeats": 60000} if compiled_available() else {"n": 300, "repeats": 6000}
UNLIMITED = scc.Limits.unlimited().as_dict()


@pytest.fixture
def short_segments(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(local, "SEGMENT_STEPS", 3)


def dimacs(request: dict[str, Any]) -> tuple[str, str]:
    """(CNF text, DRUP text) of a proofgen request."""
    cnf = request["cnf"]
    head = f"p cnf {cnf['num_vars']} {len(cnf['clauses'])}\n"
    clauses = "".join(" ".join(map(str, [*c, 0])) + "\n" for c in cnf["clauses"])
    steps = []
    for step in request["proof"]:
        ((key, lits),) = step.items()
        steps.append(("d " if key == "delete" else "") + " ".join(map(str, [*lits, 0])))
    return head + clauses, "".join(s + "\n" for s in steps)


def files(
    tmp_path: Path, request: dict[str, Any], proof_text: str | None = None
) -> tuple[str, str]:
    cnf_text, drup = dimacs(request)
    cnf, proof = tmp_path / "f.cnf", tmp_path / "f.drup"
    cnf.write_text(cnf_text)
    proof.write_text(drup if proof_text is None else proof_text)
    return str(cnf), str(proof)


def same(cnf: str, proof: str, **kw: Any) -> scc.Outcome:
    """The Outcome on one core and on two: equal bodies and exit codes."""
    one = scc.check_files(cnf, proof, **kw)
    two = scc.check_files(cnf, proof, jobs=2, **kw)
    assert (two.body, two.exit_code) == (one.body, one.exit_code), kw
    if one.report is not None:
        assert two.report is not None
        assert two.report.hint == one.report.hint
    return one


def generated_proofs(tmp_path: Path, count: int) -> None:
    verdicts = set()
    for request in proofgen.cases("segments", count):
        cnf, proof = files(tmp_path, request)
        for reading in READINGS:
            outcome = same(cnf, proof, reading=reading)
            verdicts.add(outcome.report.result["reason"] if outcome.report else "rejected")
    assert len(verdicts) >= 4, verdicts  # valid, and several ways to fail


def problems(tmp_path: Path, count: int) -> None:
    rng = random.Random("segments-problems")
    for request in proofgen.cases("segments-problems", count):
        cnf, proof = files(tmp_path, request)
        steps = len(request["proof"])
        for reading in READINGS:
            for most in {0, steps // 2, max(steps - 1, 0)}:
                limits = scc.Limits(**{**UNLIMITED, "max_proof_steps": most})
                same(cnf, proof, reading=reading, limits=limits)
        lines = dimacs(request)[1].splitlines(keepends=True)
        lines.insert(rng.randint(0, len(lines)), "1 x 0\n")
        cnf, proof = files(tmp_path, request, "".join(lines))
        for reading in READINGS:
            same(cnf, proof, reading=reading)


# Each check starts its worker processes: a few cases here, many with -m fuzz.


@pytest.mark.usefixtures("short_segments")
def test_generated_proofs_give_the_bytes_of_one_core(tmp_path: Path) -> None:
    generated_proofs(tmp_path, 12)


@pytest.mark.usefixtures("short_segments")
def test_limits_and_malformed_lines_come_in_stream_order(tmp_path: Path) -> None:
    problems(tmp_path, 5)


@pytest.mark.fuzz
@pytest.mark.usefixtures("short_segments")
def test_many_generated_proofs_and_problems(tmp_path: Path) -> None:
    generated_proofs(tmp_path, 400)
    problems(tmp_path, 200)


def test_a_solver_proof_in_every_reading_and_split(tmp_path: Path, cadical: str) -> None:
    cnf = tmp_path / "php.cnf"
    num_vars, clauses = proofgen.pigeonhole(7, 6)
    request = {"cnf": {"num_vars": num_vars, "clauses": clauses}, "proof": []}
    cnf.write_text(dimacs(request)[0])
    proof = tmp_path / "php.drat"
    subprocess.run([cadical, "-q", str(cnf), str(proof)], check=False)
    data = proof.read_bytes()
    assert data
    for steps in (1, 7, 100, 5000):
        local.SEGMENT_STEPS, kept = steps, local.SEGMENT_STEPS
        try:
            for reading in READINGS:
                assert same(str(cnf), str(proof), reading=reading).status == "valid"
            # Cut short: the verdict and the steps checked are one core's.
            cut = tmp_path / "cut.drat"
            cut.write_bytes(data[: len(data) * 2 // 3])
            for reading in READINGS:
                same(str(cnf), str(cut), reading=reading)
        finally:
            local.SEGMENT_STEPS = kept


def test_check_files_takes_jobs_as_an_int(tmp_path: Path) -> None:
    cnf, proof = files(tmp_path, next(proofgen.cases("jobs", 1)))
    for bad in (-1, 1.0, "2", True, None):
        with pytest.raises(ValueError, match="jobs"):
            scc.check_files(cnf, proof, jobs=bad)  # type: ignore[arg-type]


def test_check_files_jobs_0_is_one_worker_a_cpu_as_verify_jobs_0(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cnf, proof = files(tmp_path, next(proofgen.cases("jobs", 1)))
    assert scc.check_files(cnf, proof, jobs=0).body == scc.check_files(cnf, proof).body
    asked = []
    monkeypatch.setattr(sizing, "available_cpus", lambda: 3)
    monkeypatch.setattr(local, "SegmentChecker", lambda *a: asked.append(a[-1]) or 1 / 0)
    with pytest.raises(ZeroDivisionError):
        scc.check_files(cnf, proof, jobs=0)
    assert asked == [3]


def test_the_lenient_reading_and_lrat_check_on_one_core(tmp_path: Path) -> None:
    # One core counts the exact work; segments would count their own.
    request = proofgen.resolution_request(random.Random(3), steps=30)
    cnf, proof = files(tmp_path, request)
    one = scc.check_files(cnf, proof, reading="lenient")
    two = scc.check_files(cnf, proof, reading="lenient", jobs=2)
    assert two.body == one.body and two.report.work == one.report.work  # type: ignore[union-attr]


# -- the command line -------------------------------------------------------------------


def long_proof(tmp_path: Path, n: int = 400, repeats: int = 30000) -> tuple[str, str]:
    """An implication chain (satisfiable) and a proof that adds and deletes one
    lemma over and over, each add propagating the whole chain: a proof that
    takes time and ends without the empty clause."""
    cnf = tmp_path / "chain.cnf"
    cnf.write_text(f"p cnf {n} {n - 1}\n" + "".join(f"-{i} {i + 1} 0\n" for i in range(1, n)))
    proof = tmp_path / "chain.drup"
    proof.write_text(f"-1 {n} 0\nd -1 {n} 0\n" * repeats)
    return str(cnf), str(proof)


def test_verify_jobs_writes_one_cores_line(tmp_path: Path) -> None:
    cnf, proof = long_proof(tmp_path, repeats=3000 if compiled_available() else 300)
    one = cli_text("verify", cnf, proof, "--reading", "strict")
    for jobs in ("2", "0"):
        assert cli_text("verify", cnf, proof, "--reading", "strict", "--jobs", jobs)[:2] == one[:2]
    # From a pipe, as a solver writes it.
    piped = cli_text(
        "verify", cnf, "-", "--reading", "strict", "-j", "2", stdin=Path(proof).read_bytes()
    )
    assert piped[:2] == one[:2]


def test_verify_jobs_says_what_it_does_not_do(tmp_path: Path) -> None:
    cnf, proof = long_proof(tmp_path, repeats=10)
    code, _, err = cli_text("verify", cnf, proof, "--jobs", "2", "--reading", "lenient")
    assert code == 1 and "--jobs 2: the lenient reading check on one core" in err
    code, _, err = cli_text("verify", cnf, proof, "--jobs", "2", "--contract-limits")
    assert code == 1 and "no work cap" in err


def children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            text = (task / "children").read_text().split()
        except FileNotFoundError:
            continue  # the thread ended after the listing: it has none now
        found += [int(t) for t in text]
    return found


def started(args: list[str], output: int = subprocess.PIPE) -> subprocess.Popen[bytes]:
    return subprocess.Popen([*CLI, *args], stdout=output, stderr=output, start_new_session=True)


@contextlib.contextmanager
def running(args: list[str]) -> Iterator[subprocess.Popen[bytes]]:
    """The command line started in a session of its own, killed at the end."""
    process = started(args)
    try:
        yield process
    finally:
        process.kill()
        process.communicate()


def ctrl_c(process: subprocess.Popen[bytes]) -> bytes:
    """Ctrl-C, as a terminal sends it: SIGINT to the process group; its stderr."""
    os.killpg(process.pid, signal.SIGINT)
    return process.communicate(timeout=60)[1]


def wait_for_workers(process: subprocess.Popen[bytes], count: int) -> list[int]:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        workers = children(process.pid)
        if len(workers) >= count:
            return workers
        time.sleep(0.02)
    raise AssertionError("the workers did not start")


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs /proc")
def test_a_killed_worker_ends_the_check_cleanly_or_costs_nothing(tmp_path: Path) -> None:
    cnf, proof = long_proof(tmp_path, **LONG)
    process = started(["verify", cnf, proof, "--reading", "strict", "--jobs", "2"])
    try:
        workers = wait_for_workers(process, 2)
        time.sleep(0.1)
        os.kill(workers[0], signal.SIGKILL)
        out, err = process.communicate(timeout=120)
    finally:
        process.kill()
        process.communicate()
    if process.returncode == 2:
        assert out == b"" and b"a worker process died (killed by SIGKILL)" in err
    else:  # it held no segment the answer needed: the other worker checked on
        one = cli_text("verify", cnf, proof, "--reading", "strict")
        assert (process.returncode, out.decode()) == one[:2]


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs /proc")
def test_ctrl_c_ends_the_workers_too(tmp_path: Path) -> None:
    cnf, proof = long_proof(tmp_path, **LONG)
    with running(["verify", cnf, proof, "--jobs", "2"]) as process:
        workers = wait_for_workers(process, 2)
        time.sleep(0.1)
        err = ctrl_c(process)
    assert process.returncode == 130, err
    assert b"interrupted" in err
    time.sleep(0.2)
    for pid in workers:
        assert gone(pid)


def test_a_timeout_with_jobs_is_the_timeout_error(tmp_path: Path) -> None:
    cnf, proof = long_proof(tmp_path, **LONG)
    code, out, err = cli_text("verify", cnf, proof, "--jobs", "2", "--timeout", "0.3")
    assert code == 2 and '"error":"timeout"' in out, err


def gone(pid: int) -> bool:
    stat = Path(f"/proc/{pid}/stat")
    try:
        return stat.read_text().split()[2] == "Z"
    except OSError:
        return True


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs /proc")
def test_workers_end_when_the_checker_is_killed(tmp_path: Path) -> None:
    # Killed while it writes the workers their steps: half a message may stay
    # in a pipe whose other end a forked sibling holds.
    cnf, proof = long_proof(tmp_path, **LONG)
    # No pipes: live workers would hold them open.
    args = ["verify", cnf, proof, "--reading", "strict", "--jobs", "2"]
    process = started(args, output=subprocess.DEVNULL)
    try:
        workers = wait_for_workers(process, 2)
        time.sleep(0.3)
        process.kill()
        process.wait()
        deadline = time.monotonic() + 10
        while not all(gone(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert all(gone(pid) for pid in workers)
    finally:
        for pid in workers:
            if not gone(pid):
                os.kill(pid, signal.SIGKILL)


def test_every_segment_is_claimed_once_and_its_owner_known() -> None:
    import multiprocessing
    import threading

    from sat_claim_check._segments.claims import RING, Claims

    claims = Claims(multiprocessing.get_context())
    won: list[list[int]] = [[], [], []]

    def walk(worker: int) -> None:
        rng = random.Random(worker)
        for segment in range(3000):
            if claims.claim(segment, worker):
                won[worker].append(segment)
            if rng.random() < 0.01:
                time.sleep(0.001)

    walkers = [threading.Thread(target=walk, args=(w,)) for w in range(3)]
    for t in walkers:
        t.start()
    for t in walkers:
        t.join()
    assert sorted(s for w in won for s in w) == list(range(3000))
    assert claims.claimed == 3000
    for worker, segments in enumerate(won):
        owned = claims.owned_by(worker)
        assert [s for s in range(3000) if owned(s)] == segments
    assert RING > 3000


def test_a_chunk_reaches_the_workers_as_its_arrays() -> None:
    """The bytes a worker is sent are the chunk's arrays, whatever their types."""
    from array import array

    from sat_claim_check._segments.broadcast import END, pack, unpack

    rng = random.Random("pack")
    for n in (0, 1, 2, 3, 4, 5, 17):
        kinds = array("b", [rng.choice((0, 1, 2, 3)) for _ in range(n)])
        sizes = [rng.randint(0, 4) for _ in range(n)]
        offsets = array("i", [0])
        for size in sizes:
            offsets.append(offsets[-1] + size)
        lits = array("i", [rng.choice((-1, 1)) * rng.randint(1, 2**31 - 1) for _ in offsets[1:]])
        lits = lits * 4  # as many as the offsets end at
        del lits[offsets[-1] :]
        for given in (
            (kinds, offsets, lits),
            (array("h", kinds), array("l", offsets), array("q", lits)),
        ):
            message = pack(*given)
            assert message != END
            k, o, li = unpack(message)
            assert (k.format, o.format, li.format) == ("b", "i", "i")
            assert (k.tolist(), o.tolist(), li.tolist()) == (
                kinds.tolist(),
                offsets.tolist(),
                lits.tolist(),
            )
        with pytest.raises(ValueError):
            unpack(message + b"\0\0\0\0")


def test_validation_counts_a_chunk_once_taken_and_stops_at_a_problem(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What this process and a walker reading the file both validate."""
    from array import array

    from sat_claim_check._core import checker
    from sat_claim_check._segments import front

    monkeypatch.setattr(front, "ARRAY_CHUNK", 2)
    kinds = array("b", [0, 0, 1, 0, 0])
    offsets = array("i", [0, 2, 3, 5, 6, 8])
    lits = array("i", [1, 2, -1, 1, 2, 3, -2, -3])
    assert checker.ARRAY_CHUNK > 2  # the chunks here are front's own
    limits = scc.Limits(**{**UNLIMITED, "max_proof_steps": 6, "max_proof_literals": 100})
    v = front.Validation(3, limits)
    seen = []
    for chunk in v.chunks(kinds, offsets, lits):
        seen.append((len(chunk.kinds), v.steps, v.literals, chunk.problem))
    assert seen == [(2, 0, 0, None), (2, 2, 3, None), (1, 4, 6, None)]
    assert (v.steps, v.literals) == (5, 8)
    # the sixth step is the last the limit allows: the seventh is the problem
    taken = [len(c.kinds) for c in v.chunks(kinds, offsets, lits)]
    assert taken == [1] and v.steps == 6
    over = [c.problem for c in v.chunks(kinds, offsets, lits)]
    assert len(over) == 1 and over[0] is not None and v.steps == 6
