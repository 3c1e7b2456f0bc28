"""Proofs checked as they are read: files, named pipes and standard input
(``run_files``, ``request --check``), in stream order, and a solver loop
feeding a ``Checker`` as it learns.

Stream order (docs/semantics.md, "Checking step by step"): the first step
that fails is the verdict, even when a later line is malformed or a later
step passes a limit; reading stops there.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from _helpers import cli
from proofgen import _Solver, pigeonhole

import sat_claim_check as scc
from sat_claim_check.dimacs import DimacsError, request_from_files, run_files

UNSAT_CNF = "p cnf 2 4\n1 2 0\n-1 2 0\n1 -2 0\n-1 -2 0\n"
GOOD_PROOF = "2 0\n0\n"


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


@pytest.fixture
def unsat_cnf(tmp_path: Path) -> Path:
    return write(tmp_path / "f.cnf", UNSAT_CNF)


def test_a_failing_step_before_a_malformed_line_is_the_verdict(
    unsat_cnf: Path, tmp_path: Path, engine: str
) -> None:
    # Step 2 deletes the clause {1, 2} a second time: it is not there any more.
    proof = write(tmp_path / "p.drup", "2 0\nd 1 2 0\nd 1 2 0\nthis is not DRUP\n")
    result = run_files(unsat_cnf, proof, engine=engine).result
    assert (result["reason"], result["first_discrepancy"]["step_index"]) == (
        "deleted_clause_not_found",
        2,
    )
    with pytest.raises(DimacsError, match="not an integer"):
        request_from_files(unsat_cnf, proof)  # the whole text first: malformed


def test_a_malformed_line_before_any_failure_is_the_error(
    unsat_cnf: Path, tmp_path: Path, engine: str
) -> None:
    proof = write(tmp_path / "p.drup", "2 0\nd 1 2 0\n2 x 0\n0\n")
    with pytest.raises(DimacsError) as info:
        run_files(unsat_cnf, proof, engine=engine)
    assert (info.value.file, info.value.line) == (str(proof), 3)


def test_a_failing_step_before_a_limit_is_the_verdict(
    unsat_cnf: Path, tmp_path: Path, engine: str
) -> None:
    # Without the clause {1, 2} the lemma 2 is not RUP: step 1 fails, before the
    # step limit of 10 is passed.
    proof = write(tmp_path / "p.drup", "d 1 1 2 0\n" + "2 0\n" * 50)
    limits = scc.Limits(max_proof_steps=10)
    result = run_files(unsat_cnf, proof, engine=engine, limits=limits).result
    assert (result["reason"], result["first_discrepancy"]["step_index"]) == ("lemma_not_rup", 1)
    with pytest.raises(scc.LimitExceeded):
        scc.run(
            request_from_files(unsat_cnf, proof, limits=scc.Limits.unlimited()),
            engine=engine,
            limits=limits,
        )


def test_every_corpus_proof_gives_run_s_report(corpus: Path, engine: str) -> None:
    for cnf in sorted(corpus.glob("c0*.cnf"))[:40]:
        proof = cnf.with_suffix(".drup")
        if not proof.exists():
            continue
        expected = scc.run(json.loads(cnf.with_suffix(".json").read_text()), engine=engine)
        assert run_files(cnf, proof, engine=engine) == expected, cnf.name


def test_progress_and_reading_are_called_per_part(tmp_path: Path, engine: str) -> None:
    cnf = write(tmp_path / "f.cnf", UNSAT_CNF)
    lines = "2 0\nd 2 0\n" * 200_000 + GOOD_PROOF  # about 2.4 MB: a few parts
    proof = write(tmp_path / "p.drup", lines)
    seen: list[tuple[int, int | None]] = []
    steps: list[int] = []
    limits = scc.Limits.unlimited()
    report = run_files(
        cnf,
        proof,
        engine=engine,
        limits=limits,
        progress=lambda s, w: steps.append(s),
        reading=lambda read, total: seen.append((read, total)),
    )
    assert report.result["valid"]
    assert len(seen) >= 2 and seen[-1] == (len(lines), len(lines))
    assert all(a[0] <= b[0] for a, b in zip(seen, seen[1:]))
    assert steps and steps == sorted(steps) and steps[-1] == 400_002


# -- named pipes and standard input --------------------------------------------------


def _fifo(tmp_path: Path) -> Path:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no named pipes here")
    path = tmp_path / "proof.fifo"
    os.mkfifo(path)
    return path


def test_a_pipe_is_checked_while_its_writer_writes(
    tmp_path: Path, engine: str, slack: float
) -> None:
    cnf = write(tmp_path / "f.cnf", UNSAT_CNF)
    fifo = _fifo(tmp_path)
    closed_at: list[float] = []

    def writer() -> None:
        with open(fifo, "w") as f:
            for _ in range(20):
                f.write("2 0\nd 2 0\n" * 100)
                f.flush()
                time.sleep(0.02)
            f.write(GOOD_PROOF)
            f.flush()
            closed_at.append(time.monotonic())

    thread = threading.Thread(target=writer)
    thread.start()
    report = run_files(cnf, fifo, engine=engine, limits=scc.Limits.unlimited())
    done = time.monotonic()
    thread.join()
    assert report.result["valid"] and report.result["steps_checked"] == 4002
    assert done - closed_at[0] < 0.2 * slack  # the verdict follows the writer's close


def test_reading_a_pipe_stops_at_the_first_failing_step(tmp_path: Path, engine: str) -> None:
    cnf = write(tmp_path / "f.cnf", UNSAT_CNF)
    fifo = _fifo(tmp_path)
    release = threading.Event()

    def writer() -> None:
        with open(fifo, "w") as f:
            f.write("2 0\nd 1 1 1 0\n")  # step 1 deletes a clause that is not there
            f.flush()
            release.wait(10)  # ... and the pipe stays open

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        start = time.monotonic()
        result = run_files(cnf, fifo, engine=engine).result
        assert time.monotonic() - start < 5  # not waiting for the writer
    finally:
        release.set()
        thread.join()
    assert (result["reason"], result["first_discrepancy"]["step_index"]) == (
        "deleted_clause_not_found",
        1,
    )


def test_request_check_reads_the_proof_from_standard_input(unsat_cnf: Path) -> None:
    out = cli(
        "request", "--check", "--cnf", str(unsat_cnf), "--proof", "-", stdin=GOOD_PROOF.encode()
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["steps_checked"] == 2


def test_cadical_writes_into_a_pipe_the_checker_reads(tmp_path: Path, cadical: str) -> None:
    solver = cadical
    cnf = tmp_path / "php.cnf"
    num_vars, clauses = pigeonhole(7, 6)
    cnf.write_text(
        f"p cnf {num_vars} {len(clauses)}\n"
        + "".join(" ".join(map(str, c)) + " 0\n" for c in clauses)
    )
    fifo = _fifo(tmp_path)
    with subprocess.Popen(
        [solver, "-q", "--no-binary", str(cnf), str(fifo)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    ) as proc:
        report = run_files(cnf, fifo, limits=scc.Limits.unlimited())
    assert proc.returncode == 20  # unsat
    assert report.result["valid"], report.result
    assert report.result["steps_checked"] > 100


# -- a solver loop feeding a Checker -----------------------------------------------


class CheckedLog(list):  # type: ignore[type-arg]
    """A solver's proof log that checks each step as the solver writes it."""

    def __init__(self, checker: scc.Checker) -> None:
        super().__init__()
        self.checker = checker

    def append(self, step: dict[str, list[int]]) -> None:
        ((key, lits),) = step.items()
        (self.checker.add if key == "add" else self.checker.delete)(lits)
        super().append(step)


def test_a_python_cdcl_loop_checked_as_it_learns(engine: str) -> None:
    # The test suite's solver learns, restarts and deletes (reasons too, and now
    # and then an original clause, which can make the formula satisfiable).
    num_vars, clauses = pigeonhole(4, 3)
    cnf = {"num_vars": num_vars, "clauses": [list(c) for c in clauses]}
    limits = scc.Limits.unlimited()
    valid = 0
    for seed in range(8):
        checker = scc.Checker(cnf, engine=engine, limits=limits)
        solver = _Solver(num_vars, clauses, random.Random(seed))
        solver.proof = CheckedLog(checker)
        unsat = solver.solve(10_000)
        assert checker.steps == len(solver.proof) and not checker.failed
        report = checker.finish()
        request: dict[str, Any] = {"cnf": cnf, "claim": "unsat", "proof": list(solver.proof)}
        assert report == scc.run(request, engine=engine, limits=limits), seed
        assert report.result["valid"] is (unsat is True)
        valid += report.result["valid"]
    assert valid >= 3


# -- memory follows the live clauses -----------------------------------------------

RSS_SCRIPT = """
import resource, sys
from sat_claim_check import Limits
from sat_claim_check.dimacs import run_files
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
r = run_files(sys.argv[1], sys.argv[2], limits=Limits.unlimited())
assert r.result["valid"], r.result
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base)
"""


@pytest.mark.compiled
def test_peak_memory_is_flat_in_the_number_of_steps(tmp_path: Path) -> None:
    cnf = write(tmp_path / "f.cnf", UNSAT_CNF)
    peaks = []
    for repeat in (50_000, 500_000):  # 0.6 MB and 6 MB of proof text
        proof = write(tmp_path / f"p{repeat}.drup", "2 0\nd 2 0\n" * repeat + GOOD_PROOF)
        out = subprocess.run(
            [sys.executable, "-c", RSS_SCRIPT, str(cnf), str(proof)],
            capture_output=True,
            text=True,
            check=True,
        )
        peaks.append(int(out.stdout))
    # Holding the 10x longer proof's arrays would take about 6 MB (1M steps of
    # 4-byte offsets, 1-byte kinds, 4-byte literals) more.
    assert peaks[1] < peaks[0] + 3 * 1024, peaks


REASONS_SCRIPT = """
import resource, sys
from sat_claim_check import Limits
from sat_claim_check.dimacs import run_files
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
r = run_files(sys.argv[1], sys.argv[2], limits=Limits.unlimited())
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base   # before the tuple is made
print(peak, len(r.reason_deletions))
"""


@pytest.mark.compiled
def test_deletions_of_reason_clauses_cost_8_bytes_each(tmp_path: Path) -> None:
    # Each "d 2" deletes the unit clause [2], the reason of the level-0 literal
    # 2: a million of them are recorded (Report.reason_deletions), as 8-byte
    # integers (Python ints in a list would take 36 MB more).
    cnf = write(tmp_path / "f.cnf", UNSAT_CNF)
    peaks = []
    for repeat in (1000, 1_000_000):
        proof = tmp_path / f"p{repeat}.drup"
        proof.write_bytes(b"2 0\nd 2 0\n" * repeat + GOOD_PROOF.encode())
        out = subprocess.run(
            [sys.executable, "-c", REASONS_SCRIPT, str(cnf), str(proof)],
            capture_output=True,
            text=True,
            check=True,
        )
        peak, count = map(int, out.stdout.split())
        assert count == repeat
        peaks.append(peak)
    assert peaks[1] < peaks[0] + 28 * 1024, peaks


def test_a_run_without_whitespace_is_refused_however_high_the_limits(tmp_path: Path) -> None:
    # /dev/zero read as a text proof: one endless "token" of NUL bytes.  It was
    # held whole while waiting for its end; under unlimited limits, for ever.
    cnf = write(tmp_path / "f.cnf", UNSAT_CNF)
    proof = tmp_path / "zeros.drup"
    proof.write_bytes(b"2 0\n" + b"\x00" * (3 << 20))
    for limits in (None, scc.Limits.unlimited()):
        with pytest.raises(DimacsError, match="without whitespace") as info:
            run_files(cnf, proof, limits=limits)
        assert info.value.offset == 4
