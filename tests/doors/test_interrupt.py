"""Stopping a long check: the progress callback, Ctrl-C, and exit 130.

The long check is an implication chain x1 -> x2 -> ... -> xL with no unit
clause and a proof that adds the lemma [-x1, xL] and deletes it again, over and
over: every RUP check walks the whole chain (2L - 1 units of work per lemma,
nothing at level 0).  The big one takes several seconds with the compiled
engine; no test runs it to the end.
"""

import _thread
import gc
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time

import pytest

import sat_claim_check as scc
from sat_claim_check.dimacs import run_dimacs, run_files

POLL = 2**20
UNLIMITED = scc.Limits.unlimited()

# About 1.2e9 work: over 3 s of the compiled engine (about 300 M work/s here).
BIG = (20_000, 30_000)


def chain_request(length, lemmas):
    clauses = [[-i, i + 1] for i in range(1, length)]
    proof = [{"add": [-1, length]}, {"delete": [length, -1]}] * lemmas
    return {"cnf": {"num_vars": length, "clauses": clauses}, "claim": "unsat", "proof": proof}


def chain_dimacs(length, lemmas):
    cnf = f"p cnf {length} {length - 1}\n" + "".join(f"-{i} {i + 1} 0\n" for i in range(1, length))
    proof = f"-1 {length} 0\nd {length} -1 0\n" * lemmas
    return cnf, proof


def work_of(length, lemmas):
    return lemmas * (2 * length - 1)


def assert_true_position(steps_checked, work, length):
    """(steps_checked, work) as a poll reports them in the chain proof: lemma q
    (steps 2q and 2q+1) takes the counter from q(2L-1) to (q+1)(2L-1); a poll
    before the delete step sees the lemma's work done."""
    q = work // (2 * length - 1)
    assert steps_checked in (2 * q - 1, 2 * q), (steps_checked, work)


class Recorder:
    """A progress callback that records its calls, and raises at call ``stop_at``."""

    def __init__(self, stop_at=None, action=None):
        self.calls = []
        self.stop_at = stop_at
        self.action = action

    def __call__(self, steps_checked, work):
        self.calls.append((steps_checked, work))
        if len(self.calls) == self.stop_at:
            self.action()


class Cancelled(Exception):
    pass


def cancel():
    raise Cancelled


@pytest.fixture(scope="module")
def big_request():
    return chain_request(*BIG)


@pytest.fixture
def default_sigint():
    """Python's own SIGINT handler (KeyboardInterrupt), whatever pytest set."""
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, old)


# -- the progress callback ----------------------------------------------------------

# Per engine: a chain whose check passes 2**20 work a few times, and how many
# calls a test waits for (the reference engine does about 1.6 M work/s).
SMALL = {"compiled": (20_000, 2_000, 3), "reference": (1_000, 1_000, 1)}


@pytest.mark.parametrize("door", [scc.run, scc.check])
def test_a_raising_callback_stops_the_check(engine, door):
    length, lemmas, calls = SMALL[engine]
    recorder = Recorder(stop_at=calls, action=cancel)
    with pytest.raises(Cancelled):
        door(chain_request(length, lemmas), engine=engine, limits=UNLIMITED, progress=recorder)
    assert len(recorder.calls) == calls
    works = [w for _, w in recorder.calls]
    assert works[0] >= POLL and works[-1] < work_of(length, lemmas)
    assert all(b - a >= POLL for a, b in zip(works, works[1:]))
    for s, w in recorder.calls:
        assert_true_position(s, w, length)


def test_a_callback_that_returns_changes_nothing(engine):
    length, lemmas, _ = SMALL[engine]
    request = chain_request(length, lemmas * 3 // 4)  # 1.5 * 2**20 work at least
    recorder = Recorder()
    plain = scc.run(request, engine=engine, limits=UNLIMITED)
    assert scc.run(request, engine=engine, limits=UNLIMITED, progress=recorder) == plain
    assert plain.work == work_of(length, lemmas * 3 // 4)
    # Every 2**20 work, up to a few units late each time.
    assert 1 <= plain.work // (POLL + 3) <= len(recorder.calls) <= plain.work // POLL
    for s, w in recorder.calls:
        assert_true_position(s, w, length)


def test_no_call_for_small_checks_and_sat_claims(engine):
    recorder = Recorder(stop_at=1, action=cancel)
    request = chain_request(300, 20)  # 12k work
    assert scc.run(request, engine=engine, progress=recorder) == scc.run(request, engine=engine)
    sat = {"cnf": {"num_vars": 1, "clauses": [[1]]}, "claim": "sat", "assignment": [1]}
    assert scc.check(sat, engine=engine, progress=recorder)["valid"]
    assert recorder.calls == []


def test_the_dimacs_doors_pass_the_callback(engine, tmp_path):
    length, lemmas, _ = SMALL[engine]
    cnf, proof = chain_dimacs(length, lemmas)
    (tmp_path / "f.cnf").write_text(cnf)
    (tmp_path / "f.drup").write_text(proof)
    recorder = Recorder(stop_at=1, action=cancel)
    with pytest.raises(Cancelled):
        run_files(
            tmp_path / "f.cnf",
            tmp_path / "f.drup",
            engine=engine,
            limits=UNLIMITED,
            progress=recorder,
        )
    assert len(recorder.calls) == 1
    recorder = Recorder(stop_at=1, action=cancel)
    with pytest.raises(Cancelled):
        run_dimacs(cnf, proof, engine=engine, limits=UNLIMITED, progress=recorder)
    assert len(recorder.calls) == 1


def test_progress_must_be_callable():
    request = chain_request(3, 1)
    with pytest.raises(TypeError, match="progress must be callable"):
        scc.run(request, progress=1)
    with pytest.raises(TypeError, match="progress must be callable"):
        run_dimacs(*chain_dimacs(3, 1), progress="no")


# -- KeyboardInterrupt out of the compiled engine -----------------------------------


@pytest.mark.compiled
@pytest.mark.parametrize("send", ["raise_signal", "kill"])
def test_sigint_from_the_callback(big_request, default_sigint, send):
    def interrupt():
        if send == "raise_signal":
            signal.raise_signal(signal.SIGINT)
        else:
            os.kill(os.getpid(), signal.SIGINT)

    recorder = Recorder(stop_at=3, action=interrupt)
    with pytest.raises(KeyboardInterrupt):
        scc.run(big_request, engine="compiled", limits=UNLIMITED, progress=recorder)
    # Raised in the callback, or at the very next poll at the latest.
    assert len(recorder.calls) in (3, 4)


@pytest.mark.parametrize("send", ["interrupt_main", "pthread_kill"])
@pytest.mark.parametrize(
    "engine_name", [pytest.param("compiled", marks=pytest.mark.compiled), "reference"]
)
def test_sigint_from_another_thread(big_request, default_sigint, send, engine_name, slack):
    """No callback: a signal alone stops the run, within a poll's time."""
    main = threading.main_thread().ident
    sent = []
    # Python runs a signal's handler between two bytecodes of the main thread,
    # wherever they are: in a finalizer that the collector calls for garbage
    # left by earlier tests, the KeyboardInterrupt is "ignored" (printed, not
    # raised), and the run went on for minutes.  Collect first, and keep the
    # collector out of the run: the handler then runs in the check.
    gc.collect()
    gc.disable()

    def interrupt():
        sent.append(time.monotonic())
        if send == "interrupt_main":
            _thread.interrupt_main()
        else:
            signal.pthread_kill(main, signal.SIGINT)

    timer = threading.Timer(0.3, interrupt)
    start = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt):
            timer.start()
            scc.run(big_request, engine=engine_name, limits=UNLIMITED)
        stopped = time.monotonic()
    finally:
        gc.enable()
        timer.cancel()
        timer.join()
    assert sent, "run() ended before the signal"
    assert stopped - sent[0] < 1.5 * slack  # it was 100 s
    assert stopped - start < 4.0 * slack
    # Nothing is left broken: the next check runs normally.
    small = chain_request(300, 20)
    assert scc.run(small, engine=engine_name).work == work_of(300, 20)


# -- the command line: exit 130 -------------------------------------------------------


def start(args):
    return subprocess.Popen(
        [sys.executable, "-m", "sat_claim_check", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


@pytest.fixture(scope="module")
def big_files(tmp_path_factory):
    d = tmp_path_factory.mktemp("long")
    (d / "chain.json").write_text(json.dumps(chain_request(*BIG)))
    cnf, proof = chain_dimacs(*BIG)
    (d / "chain.cnf").write_text(cnf)
    (d / "chain.drup").write_text(proof)
    return d


COMMANDS = {
    "check": ["check", "--unlimited", "{d}/chain.json"],
    "request": [
        "request",
        "--check",
        "--unlimited",
        "--cnf",
        "{d}/chain.cnf",
        "--proof",
        "{d}/chain.drup",
    ],
}


@pytest.mark.parametrize(
    "command, engine_name",
    [
        pytest.param("check", "compiled", marks=pytest.mark.compiled),
        pytest.param("request", "compiled", marks=pytest.mark.compiled),
        ("check", "reference"),
    ],
)
def test_ctrl_c_exits_130_naming_the_step(big_files, command, engine_name, slack):
    args = [a.format(d=big_files) for a in COMMANDS[command]] + ["--engine", engine_name]
    # How long the process takes to start, read and validate: with a cap of 0 it
    # stops at the first unit of work.
    t = time.monotonic()
    probe = start([*args, "--limit", "max_propagation_work=0"])
    probe.communicate(timeout=30)
    assert probe.returncode == 2
    ready = time.monotonic() - t

    proc = start(args)
    try:
        # Well inside the check, past the first report (2**20 work: about 4 ms
        # of the compiled engine, 0.5 s of the reference).
        time.sleep(max(0.5, 2 * ready + (0.2 if engine_name == "compiled" else 1.5)))
        assert proc.poll() is None, "the check ended before the signal"
        proc.send_signal(signal.SIGINT)
        sent = time.monotonic()
        out, err = proc.communicate(timeout=10)
        elapsed = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert elapsed < 2.0 * slack  # the kernel ignored SIGINT for 100 s
    assert out == b""
    # request --check reads the proof as it checks it: its length is not known.
    m = re.fullmatch(
        rb"sat-claim-check: interrupted at proof step (\d+)( of \d+)? "
        rb"\(work (\d+)\)\n",
        err,
    )
    assert m, err
    steps, work = int(m[1]), int(m[3])
    assert (m[2] is None) is (command == "request")
    if command == "check":
        assert m[2] == f" of {2 * BIG[1]}".encode()
    assert 0 < work < work_of(*BIG)
    assert_true_position(steps, work, BIG[0])


def test_help_documents_exit_130():
    out = subprocess.run(
        [sys.executable, "-m", "sat_claim_check", "check", "--help"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "130 interrupted" in out
