"""`batch` on a pipe that stays open: waiting for input never holds back output.

Every line checked is written at once, whatever the input does next: a
producer that writes lines and keeps its pipe open sees their output lines,
with one job or several, and workers started while the batch waits for input
still start.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from typing import Any

import pytest

import sat_claim_check as scc
from sat_claim_check._batch.reader import CHUNK_LINES
from sat_claim_check._batch.sizing import available_cpus
from sat_claim_check._core.jsontext import dumps

needs_workers = pytest.mark.skipif(available_cpus() < 2, reason="--jobs 2 needs two CPUs")
JOBS = [1, pytest.param(2, marks=needs_workers)]
WAIT = 10.0  # seconds an output line may take (a busy machine), then the batch is killed


def request(n: int) -> dict[str, Any]:
    clauses = [[1]] * n + ([[-1]] if n % 5 == 0 else [])
    return {"cnf": {"num_vars": 1, "clauses": clauses}, "claim": "sat", "assignment": [1]}


def line(n: int) -> bytes:
    return json.dumps(request(n)).encode() + b"\n"


def expected(n: int) -> str:
    return dumps(scc.check(request(n)))


class Batch:
    """`batch` in a subprocess whose stdin stays open until close()."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "sat_claim_check", "batch", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.killed = False

    def send(self, numbers: range) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"".join(line(n) for n in numbers))
        self.proc.stdin.flush()

    def receive(self, count: int) -> list[str]:
        """The next ``count`` output lines; a batch that holds them back is killed
        (its output ends) so that the test fails instead of hanging."""
        assert self.proc.stdout is not None
        watchdog = threading.Timer(WAIT, self._kill)
        watchdog.start()
        try:
            got = [self.proc.stdout.readline().decode().rstrip("\n") for _ in range(count)]
        finally:
            watchdog.cancel()
        assert not self.killed, f"output lines held back: {sum(map(bool, got))} of {count} came"
        return got

    def close(self) -> tuple[int, str, str]:
        try:
            out, err = self.proc.communicate(timeout=WAIT)  # closes stdin
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.communicate()
            raise AssertionError("the batch did not end when its input did") from None
        return self.proc.returncode, out.decode(), err.decode()

    def _kill(self) -> None:
        self.killed = True
        self.proc.kill()


@pytest.mark.parametrize("jobs", JOBS)
def test_the_lines_written_so_far_are_answered_while_the_pipe_stays_open(jobs):
    batch = Batch("--jobs", str(jobs))
    try:
        count = 2 * CHUNK_LINES + 5  # whole chunks, then part of one
        batch.send(range(1, count + 1))
        assert batch.receive(count) == [expected(n) for n in range(1, count + 1)]
        batch.send(range(count + 1, count + 4))
        assert batch.receive(3) == [expected(n) for n in range(count + 1, count + 4)]
    finally:
        code, out, err = batch.close()
    assert (code, out) == (1, "")  # every fifth claim is not valid
    assert f"batch: {count + 3} lines" in err and "Traceback" not in err


@pytest.mark.parametrize("jobs", JOBS)
def test_a_line_at_a_time_is_answered_before_the_next_comes(jobs):
    batch = Batch("--jobs", str(jobs))
    try:
        for n in range(1, 9):
            batch.send(range(n, n + 1))
            assert batch.receive(1) == [expected(n)]
    finally:
        code, _, err = batch.close()
    assert code == 1 and "batch: 8 lines" in err


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="finds the workers in /proc")
@needs_workers
def test_workers_started_while_the_batch_waits_for_input_start():
    # A worker forked while the input is being waited for must not wait for a
    # lock the reading holds (a forked child closes its copy of sys.stdin).
    batch = Batch("--jobs", "2")
    try:
        batch.send(range(1, CHUNK_LINES + 1))
        batch.receive(CHUNK_LINES)
        time.sleep(0.1)  # the batch is waiting for input now
        workers = [
            int(p) for p in os.listdir("/proc") if p.isdigit() and _parent(p) == batch.proc.pid
        ]
        assert workers
        for pid in workers:
            os.kill(pid, signal.SIGKILL)
        time.sleep(0.1)
        batch.send(range(CHUNK_LINES + 1, 3 * CHUNK_LINES + 1))
        assert batch.receive(2 * CHUNK_LINES) == [
            expected(n) for n in range(CHUNK_LINES + 1, 3 * CHUNK_LINES + 1)
        ]
    finally:
        code, _, err = batch.close()
    assert code == 1 and f"batch: {3 * CHUNK_LINES} lines" in err and "failed" not in err


def _parent(pid: str) -> int:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return -1
