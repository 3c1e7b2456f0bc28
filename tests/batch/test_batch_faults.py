"""`batch` under faults: no input line ever loses its output line.

A worker that dies costs only its chunk, a line that kills its worker twice
or runs out of memory gets a ``check_failed`` error object, SIGINT and
SIGTERM write the lines already checked (in order) and no worker outlives the
batch; the errors the workers send back pickle.
"""

from __future__ import annotations

import copy
import errno
import io
import json
import multiprocessing
import os
import pickle
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

import sat_claim_check as scc
from sat_claim_check._batch import local as _batch
from sat_claim_check._batch import protocol as _protocol
from sat_claim_check._batch import sizing as _sizing
from sat_claim_check._batch.console import BatchProgress
from sat_claim_check._batch.local import DEATHS, run_batch
from sat_claim_check._batch.output import BatchTotals
from sat_claim_check._batch.protocol import FAILED
from sat_claim_check._batch.reader import CHUNK_LINES
from sat_claim_check._batch.sizing import available_cpus
from sat_claim_check._core.jsontext import dumps
from sat_claim_check.dimacs import DimacsError
from sat_claim_check.errors import CheckError, InvalidInput, LimitExceeded, TimedOut

HAS_PROC = os.path.isdir("/proc/self")
TWO_CPUS = available_cpus() >= 2
needs_workers = pytest.mark.skipif(not TWO_CPUS, reason="--jobs 2 needs two CPUs")
needs_proc = pytest.mark.skipif(not HAS_PROC, reason="finds the workers in /proc")
needs_fork = pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods(),
    reason="the fault injection reaches workers by fork",
)


# -- requests and what `check` says of them ------------------------------------


def request(n: int) -> dict[str, Any]:
    """A sat request whose result names n (clauses_checked or the failing clause)."""
    clauses = [[1]] * n + ([[-1]] if n % 5 == 0 else [])
    return {"cnf": {"num_vars": 1, "clauses": clauses}, "claim": "sat", "assignment": [1]}


def line(n: int) -> bytes:
    return json.dumps(request(n)).encode()


def expected(n: int) -> str:
    return dumps(scc.check(request(n)))


def slow_line(pairs: int) -> bytes:
    """An unsat request whose every second step propagates a 4000-literal chain:
    about half a second with the reference engine for 100 pairs."""
    n = 4000
    clauses = [[-i, i + 1] for i in range(1, n)] + [[-n, -1]]
    proof = [{"add": [-1]}, {"delete": [-1]}] * pairs
    return json.dumps(
        {"cnf": {"num_vars": n, "clauses": clauses}, "claim": "unsat", "proof": proof}
    ).encode()


def in_process(
    lines: list[bytes], jobs: int, out: Any = None, stream: Any = None, **options: Any
) -> tuple[BatchTotals, list[str]]:
    out = io.StringIO() if out is None else out
    if stream is None:
        stream = io.BytesIO(b"".join(text + b"\n" for text in lines))
    outcome = run_batch(
        stream,
        out,
        engine="reference",
        limits=None,
        jobs=jobs,
        progress=BatchProgress(stream, 0),
        **options,
    )
    assert multiprocessing.active_children() == []  # no worker outlives the batch
    return outcome, out.getvalue().splitlines() if isinstance(out, io.StringIO) else []


def failure(text: str, number: int) -> str:
    obj = json.loads(text)
    assert list(obj) == ["error", "field", "path", "message", "line"]
    assert (obj["error"], obj["field"], obj["path"], obj["line"]) == (
        "check_failed",
        None,
        "",
        number,
    )
    return obj["message"]


# -- pickling the errors -------------------------------------------------------


def every_subclass(cls: type) -> set[type]:
    found = {cls}
    for sub in cls.__subclasses__():
        found |= every_subclass(sub)
    return found


SAMPLES = [
    CheckError("cnf", "/cnf", "a message"),
    CheckError(None, "", "no field"),
    InvalidInput("proof", "/proof/3/add/1", "literal 9 is out of range"),
    InvalidInput(None, "", "malformed JSON"),
    LimitExceeded("proof", "/proof", "too many", limit="max_proof_steps", max=2000, actual=2001),
    LimitExceeded(
        "proof", "/proof/812", "work", limit="max_propagation_work", max=5, step_index=812
    ),
    LimitExceeded("cnf", "/cnf", "work", limit="max_propagation_work", max=5, step_index=None),
    TimedOut("proof", "/proof/7", "past its timeout", seconds=1.5, steps_checked=7),
    DimacsError("proof: not an integer", "p.drup", 12),
    DimacsError("CNF: over its cap", "f.cnf", None, None, hint="swapped?"),
]


def test_the_samples_cover_every_error_class():
    assert {type(e) for e in SAMPLES} == every_subclass(CheckError)


@pytest.mark.parametrize("error", SAMPLES, ids=lambda e: f"{type(e).__name__}-{e.path}")
@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_errors_pickle_to_equal_errors(error, protocol):
    back = pickle.loads(pickle.dumps(error, protocol))
    assert type(back) is type(error)
    assert back == error and hash(back) == hash(error)
    assert vars(back) == vars(error)
    assert back.args == error.args and str(back) == str(error)
    assert back.to_dict() == error.to_dict()
    assert copy.deepcopy(error) == error


def test_errors_differing_in_any_attribute_are_not_equal():
    base = LimitExceeded("proof", "/proof", "m", limit="max_proof_steps", max=2, actual=3)
    changes = {
        "field": "cnf",
        "path": "/cnf",
        "message": "n",
        "limit": "max_vars",
        "max": 4,
        "actual": 5,
        "step_index": 1,
    }
    for name, value in changes.items():
        other = copy.copy(base)
        setattr(other, name, value)
        assert other != base, name
    assert InvalidInput("cnf", "/cnf", "m") != CheckError("cnf", "/cnf", "m")
    assert InvalidInput("cnf", "/cnf", "m") == InvalidInput("cnf", "/cnf", "m")


def test_an_error_keeps_other_attributes_through_pickle():
    error = InvalidInput("cnf", "/cnf", "m")
    error.extra = "kept"
    assert pickle.loads(pickle.dumps(error)).extra == "kept"


# -- a line whose check cannot finish --------------------------------------------


def test_memory_error_in_this_process_is_that_lines_error(monkeypatch):
    real = _protocol.check_request

    def run(v: Any, *args: Any) -> Any:
        if v.clause_lits.tolist() == [1] * 7:
            raise MemoryError
        return real(v, *args)

    monkeypatch.setattr(_protocol, "check_request", run)
    outcome, out = in_process([line(n) for n in range(1, 41)], jobs=1)
    assert len(out) == 40
    assert "ran out of memory" in failure(out[6], 7)
    assert [out[i] for i in range(40) if i != 6] == [expected(n) for n in range(1, 41) if n != 7]
    assert outcome.counts[FAILED] == 1 and sum(outcome.counts) == 40


def test_an_unexpected_exception_is_that_lines_error(monkeypatch):
    real = _protocol.check_request

    def run(v: Any, *args: Any) -> Any:
        if v.clause_lits.tolist() == [1] * 3:
            raise RuntimeError("boom")
        return real(v, *args)

    monkeypatch.setattr(_protocol, "check_request", run)
    _, out = in_process([line(n) for n in range(1, 6)], jobs=1)
    message = failure(out[2], 3)
    assert "RuntimeError: boom" in message and "bug" in message
    assert out[:2] + out[3:] == [expected(n) for n in (1, 2, 4, 5)]


DIE = b'{"die": true}'


def fault_injection(monkeypatch, tmp_path):
    """Workers (forked) that SIGKILL themselves on DIE, and on a "die_once" line
    the first time only; every attempt at such a line is logged."""
    real = _protocol.check_line
    log = tmp_path / "attempts"

    def check_line(options: Any, number: int, text: bytes, memory: Any = None) -> Any:
        if text == DIE or b"die_once" in text:
            with open(log, "a") as f:
                f.write(f"{number}\n")
            marker = tmp_path / f"died-{number}"
            if text == DIE or not marker.exists():
                marker.touch()
                os.kill(os.getpid(), signal.SIGKILL)
        return real(options, number, text, memory)

    monkeypatch.setattr(_protocol, "check_line", check_line)
    monkeypatch.setattr(_batch, "_context", lambda: multiprocessing.get_context("fork"))
    return lambda: [int(n) for n in log.read_text().split()] if log.exists() else []


@needs_fork
def test_a_line_that_kills_its_worker_twice_gets_check_failed(monkeypatch, tmp_path):
    attempts = fault_injection(monkeypatch, tmp_path)
    lines = [line(n) for n in range(1, 101)]
    lines[40] = DIE  # line 41, inside the second chunk
    lines[95] = DIE  # line 96, in another chunk
    outcome, out = in_process(lines, jobs=2)
    assert len(out) == 100
    for number in (41, 96):
        message = failure(out[number - 1], number)
        assert f"died {DEATHS} times" in message and "SIGKILL" in message
    want = [expected(n) for n in range(1, 101)]
    assert [o for i, o in enumerate(out) if i not in (40, 95)] == [
        w for i, w in enumerate(want) if i not in (40, 95)
    ]
    # Once in its chunk, then alone until it has killed DEATHS workers.
    assert sorted(attempts()) == [41] * (1 + DEATHS) + [96] * (1 + DEATHS)
    assert outcome.counts[FAILED] == 2 and outcome.signal is None


@needs_fork
def test_a_worker_that_dies_once_costs_no_line(monkeypatch, tmp_path):
    attempts = fault_injection(monkeypatch, tmp_path)
    lines = [line(n) for n in range(1, 3 * CHUNK_LINES + 1)]
    lines[CHUNK_LINES + 3] = b'{"die_once": 1}'
    outcome, out = in_process(lines, jobs=2)
    number = CHUNK_LINES + 4
    error = json.loads(out[number - 1])  # checked again: its own answer
    assert (error["error"], error["path"], error["line"]) == ("invalid_input", "/die_once", number)
    assert out[: number - 1] + out[number:] == [
        expected(n) for n in range(1, 3 * CHUNK_LINES + 1) if n != number
    ]
    assert attempts() == [number, number]
    assert outcome.counts[FAILED] == 0


@needs_fork
def test_the_worker_memory_limit_is_named_in_the_message(monkeypatch):
    monkeypatch.setattr(_batch, "_context", lambda: multiprocessing.get_context("fork"))
    real = _protocol.check_request

    def run(v: Any, *args: Any) -> Any:
        if v.clause_lits.tolist() == [1] * 2:
            raise MemoryError
        return real(v, *args)

    monkeypatch.setattr(_protocol, "check_request", run)
    _, out = in_process([line(n) for n in range(1, 4)], jobs=2, worker_memory=1 << 40)
    assert "ran out of memory (the limit is 1048576 MiB per worker" in failure(out[1], 2)
    assert [out[0], out[2]] == [expected(1), expected(3)]


# -- reading and writing faults ------------------------------------------------


class FailsAtTheEnd(io.RawIOBase):
    """The bytes of ``data``, then EIO instead of the end of the file."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self.pos >= len(self.data):
            raise OSError(errno.EIO, "Input/output error")
        size = min(len(buffer), len(self.data) - self.pos, 1000)
        buffer[:size] = self.data[self.pos : self.pos + size]
        self.pos += size
        return size


@pytest.mark.parametrize("jobs", [1, pytest.param(2, marks=needs_workers)])
def test_a_read_error_keeps_every_line_read_before_it(jobs):
    count = CHUNK_LINES + 8  # the last chunk is cut short by the error
    data = b"".join(line(n) + b"\n" for n in range(1, count + 1))
    stream = io.BufferedReader(FailsAtTheEnd(data))
    outcome, out = in_process([], jobs, stream=stream)
    assert out == [expected(n) for n in range(1, count + 1)]
    assert outcome.read_error is not None and outcome.read_error.errno == errno.EIO


class FullAfter(io.StringIO):
    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit

    def write(self, text: str) -> int:
        if self.tell() + len(text) > self.limit:
            raise OSError(errno.ENOSPC, "No space left on device")
        return super().write(text)


@pytest.mark.parametrize("jobs", [1, pytest.param(2, marks=needs_workers)])
def test_a_write_error_stops_the_batch_and_its_workers(jobs):
    out = FullAfter(limit=2000)
    outcome, _ = in_process([line(n) for n in range(1, 400)], jobs, out=out)
    assert outcome.write_error is not None and outcome.write_error.errno == errno.ENOSPC
    written = out.getvalue().splitlines()
    assert written == [expected(n) for n in range(1, len(written) + 1)]


# -- the command line, in a subprocess -----------------------------------------


def descendants(pid: int) -> set[int]:
    """The processes below ``pid``, from /proc."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
    found, todo = set(), [pid]
    while todo:
        parent = todo.pop()
        kids = {p for p, pp in parents.items() if pp == parent}
        found |= kids
        todo.extend(kids)
    return found


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (ProcessLookupError, FileNotFoundError):
        return False
    return state != "Z"


def assert_all_gone(pids: set[int]) -> None:
    deadline = time.monotonic() + 10
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [p for p in pids if alive(p)], "a worker outlived the batch"


def start(*args: str, **kw: Any) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "sat_claim_check", "batch", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        **kw,
    )
    # A batch that never answers fails its test (its pipes close) instead of hanging it.
    watchdog = threading.Timer(60, proc.kill)
    watchdog.daemon = True
    watchdog.start()
    return proc


def read_lines(proc: subprocess.Popen[bytes], count: int) -> list[str]:
    assert proc.stdout is not None
    return [proc.stdout.readline().decode().rstrip("\n") for _ in range(count)]


def finish(proc: subprocess.Popen[bytes], first: list[str]) -> tuple[int, list[str], str]:
    """Exit status, every output line and stderr.  Not communicate(): it would
    skip what readline() has buffered."""
    assert proc.stdout is not None and proc.stderr is not None
    out = proc.stdout.read()  # stderr holds a few lines: it cannot fill its pipe
    err = proc.stderr.read()
    proc.wait(timeout=60)
    for pipe in (proc.stdin, proc.stdout, proc.stderr):
        if pipe is not None:
            pipe.close()
    return proc.returncode, first + out.decode().splitlines(), err.decode()


def workers_of(proc: subprocess.Popen[bytes], count: int) -> set[int]:
    deadline = time.monotonic() + 10
    while len(found := descendants(proc.pid)) < count and time.monotonic() < deadline:
        time.sleep(0.02)
    return found


SLOW_INPUT = (
    [line(n) for n in range(1, CHUNK_LINES + 1)]
    + [slow_line(100)]
    + [line(n) for n in range(CHUNK_LINES + 2, 4 * CHUNK_LINES + 1)]
)


def slow_expected() -> list[str]:
    slow = dumps(scc.check(json.loads(SLOW_INPUT[CHUNK_LINES])))
    return [expected(n) if n != CHUNK_LINES + 1 else slow for n in range(1, len(SLOW_INPUT) + 1)]


@needs_proc
@needs_workers
def test_kill_9_of_the_workers_loses_no_line():
    proc = start("--jobs", "2", "--engine", "reference")
    proc.stdin.write(b"".join(text + b"\n" for text in SLOW_INPUT))
    proc.stdin.close()
    first = read_lines(proc, CHUNK_LINES)  # chunk 1 is done: the slow line is not
    victims = workers_of(proc, 2)
    for pid in victims:
        os.kill(pid, signal.SIGKILL)
    code, out, err = finish(proc, first)
    assert out == slow_expected()
    assert code == 1 and "Traceback" not in err  # every fifth claim is not valid
    assert f"{len(SLOW_INPUT)} lines" in err and "failed" not in err


@needs_proc
@needs_workers
def test_sigterm_writes_the_lines_checked_and_leaves_no_worker():
    proc = start("--jobs", "2")
    proc.stdin.write(b"".join(line(n) + b"\n" for n in range(1, 2 * CHUNK_LINES + 1)))
    proc.stdin.flush()  # stdin stays open: the batch waits for more
    first = read_lines(proc, CHUNK_LINES)
    workers = workers_of(proc, 2)
    time.sleep(0.5)  # the second chunk is checked too, not yet written
    proc.send_signal(signal.SIGTERM)
    code, out, err = finish(proc, first)
    assert code == 143
    assert out == [expected(n) for n in range(1, 2 * CHUNK_LINES + 1)]
    assert f"stopped by SIGTERM after {2 * CHUNK_LINES} lines" in err
    assert "Traceback" not in err
    assert_all_gone(workers)


@needs_proc
def test_sigint_in_process_writes_the_lines_checked():
    count = CHUNK_LINES + 8  # stdin stays open: every line is written, none waits
    proc = start("--jobs", "1")
    proc.stdin.write(b"".join(line(n) + b"\n" for n in range(1, count + 1)))
    proc.stdin.flush()
    first = read_lines(proc, count)
    proc.send_signal(signal.SIGINT)
    code, out, err = finish(proc, first)
    assert (code, out) == (130, [expected(n) for n in range(1, count + 1)])
    assert f"stopped by SIGINT after {count} lines" in err and "Traceback" not in err


@needs_proc
@needs_workers
def test_ctrl_c_to_the_process_group_stops_cleanly():
    proc = start("--jobs", "2", "--engine", "reference", start_new_session=True)
    proc.stdin.write(b"".join(text + b"\n" for text in SLOW_INPUT))
    proc.stdin.close()
    first = read_lines(proc, CHUNK_LINES)
    workers = workers_of(proc, 2)
    os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C in a terminal does
    code, out, err = finish(proc, first)
    assert code == 130
    assert CHUNK_LINES <= len(out) < len(SLOW_INPUT)
    assert out == slow_expected()[: len(out)]
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    assert_all_gone(workers)


@needs_proc
@needs_workers
def test_jobs_above_the_cpus_is_lowered_with_a_note():
    cpus = available_cpus()
    proc = start("--jobs", str(cpus + 60))
    proc.stdin.write(b"".join(line(n) + b"\n" for n in range(1, (cpus + 4) * CHUNK_LINES)))
    proc.stdin.flush()
    first = read_lines(proc, CHUNK_LINES)
    assert len(descendants(proc.pid)) <= cpus
    proc.stdin.close()
    code, out, err = finish(proc, first)
    assert out == [expected(n) for n in range(1, (cpus + 4) * CHUNK_LINES)]
    assert f"--jobs {cpus + 60} lowered to {cpus}" in err and code == 1


BIG = (
    b'{"cnf": {"num_vars": 1, "clauses": ['
    + b",".join([b"[1]"] * 2_000_000)
    + b']}, "claim": "sat", "assignment": [1]}'
)


def memory_input() -> bytes:
    return b"".join(text + b"\n" for text in [line(1), line(2), BIG, line(4)])


def check_memory_output(code: int, out: bytes, err: bytes) -> list[str]:
    lines = out.decode().splitlines()
    assert code == 2, err
    assert [lines[0], lines[1], lines[3]] == [expected(1), expected(2), expected(4)]
    assert "ran out of memory" in failure(lines[2], 3)
    assert b"Traceback" not in err and b"1 failed" in err
    return lines


@pytest.mark.skipif(
    not hasattr(_sizing.resource, "RLIMIT_AS") or not sys.platform.startswith("linux"),
    reason="needs an enforced RLIMIT_AS",
)
@needs_workers
def test_a_line_that_exhausts_a_workers_memory_gets_check_failed():
    # --max-input-bytes: the line must reach the check, not stop at the byte cap.
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "sat_claim_check",
            "batch",
            "--jobs",
            "2",
            "--worker-memory",
            "100",
            "--max-input-bytes",
            str(1 << 30),
        ],
        input=memory_input(),
        capture_output=True,
        timeout=60,
    )
    lines = check_memory_output(proc.returncode, proc.stdout, proc.stderr)
    assert "100 MiB per worker" in lines[2]


@pytest.mark.skipif(
    not hasattr(_sizing.resource, "RLIMIT_AS") or not sys.platform.startswith("linux"),
    reason="needs an enforced RLIMIT_AS",
)
def test_a_line_that_exhausts_memory_in_process_gets_check_failed():
    def limit() -> None:
        rlimit = _sizing.resource.RLIMIT_AS
        _sizing.resource.setrlimit(rlimit, (150 << 20, _sizing.resource.getrlimit(rlimit)[1]))

    proc = subprocess.run(
        [sys.executable, "-m", "sat_claim_check", "batch", "--max-input-bytes", str(1 << 30)],
        input=memory_input(),
        capture_output=True,
        timeout=60,
        preexec_fn=limit,
    )
    check_memory_output(proc.returncode, proc.stdout, proc.stderr)
