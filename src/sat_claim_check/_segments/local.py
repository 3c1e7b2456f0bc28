"""One proof on every core: a proof checked as it is read, in segments, by worker processes.

``SegmentChecker`` stands where a ``Checker`` stands for ``check_stream``
(``_feed_arrays``, ``steps``, ``work``, ``done``, then ``finish``), with
``jobs`` worker processes behind it.  The steps it is fed are validated here,
in stream order, as the Checker validates them, and handed to every worker
as soon as they are (``Broadcast``: one thread a worker writes its pipe).
Each worker walks the whole proof (``walk.Walker``), checking its own
segments (segment s is worker s mod jobs's: no claims to arbitrate, and a
worker that dies leaves a known gap) and replaying the others;
``verdict.Tally`` makes the answer of their events.  Memory: every worker
holds the live clauses, and the steps read but not yet taken by the slowest
worker are held here, up to ``HELD_BYTES`` (reading waits past that).

A worker that dies (killed, out of memory) ends the check with
WorkerFailed naming how, unless the segments it leaves cannot change the
answer.  Ctrl-C reaches the workers' process group too: they ignore it, and
``close`` ends them.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import sys
import threading
import time
import traceback
from array import array
from typing import TYPE_CHECKING, Any

from .._core.checker import ARRAY_CHUNK
from .._core.report import Report, outcome
from .._core.steps import step_arrays_chunk
from .._core.validate import validate_cnf_arrays
from .._engines import resolve
from .broadcast import END, Broadcast
from .verdict import Tally
from .walk import CHECK, REPLAY, STOP, Walker

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

    from .._core.options import Options

__all__ = ["SEGMENT_STEPS", "SegmentChecker", "WorkerFailed"]

SEGMENT_STEPS = 8192  # steps a segment (strictly read, each costs a level-0 build)
HELD_BYTES = 256 << 20  # steps read and not yet taken by every worker, at most
POLL_SECONDS = 0.2  # how often the progress callback (and its deadline) is called when waiting
NO_HORIZON = 2**62
PARENT_SECONDS = 0.5  # how often a worker looks whether the checker is still there


class WorkerFailed(RuntimeError):
    """A worker process died, or failed, before the answer was known."""


class SegmentChecker:
    """An unsat check of the steps fed, on ``jobs`` worker processes."""

    def __init__(
        self,
        options: Options,
        num_vars: int,
        clause_offsets: array[int],
        clause_lits: array[int],
        jobs: int,
        segment_steps: int | None = None,
    ) -> None:
        segment_steps = SEGMENT_STEPS if segment_steps is None else segment_steps

        validate_cnf_arrays(num_vars, clause_offsets, clause_lits, options.limits)
        self._options = options
        self._num_vars = num_vars
        self._steps = 0
        self._literals = 0
        self._tally = Tally(segment_steps, jobs)
        self._done = False
        context = _context()
        # The first step whose segment cannot change the answer: written here,
        # read by the workers (a late read only costs a segment).
        self._horizon = context.RawValue("q", NO_HORIZON)
        self._broadcast = Broadcast(HELD_BYTES)
        cnf = (num_vars, clause_offsets, clause_lits)
        self._workers: list[_Worker] = []
        try:
            for index in range(jobs):
                walk = (index, jobs, self._horizon, segment_steps)
                args = (options.engine, options.reading_code, cnf, walk)
                self._workers.append(_Worker(context, index, args))
            # The threads start once every process has: no fork copies a thread.
            for worker in self._workers:
                worker.sender = self._broadcast.reader(worker.steps)
        except BaseException:
            self.close()
            raise

    # -- what check_stream calls ------------------------------------------------------

    def stop_at(self, problem: BaseException) -> None:
        """Reading stopped at ``problem`` (a malformed line, a read error) after
        the steps fed: raise it once they are known to pass, unless one of them
        fails (that is the verdict: ``finish`` gives it)."""
        self._tally.stop_at(problem)
        self._wait()
        self._tally.answer()  # raises the problem when it is the answer
        self._done = True

    def _feed_arrays(self, kinds: array[int], offsets: array[int], lits: array[int]) -> None:
        """Validate steps as the Checker does, and hand those that pass to the
        workers; a problem is raised once every step before it is known to pass
        (unless one of them fails: that is the verdict)."""
        limits = self._options.limits
        for a in range(0, len(kinds), ARRAY_CHUNK):
            if self._done:
                return
            b = min(a + ARRAY_CHUNK, len(kinds))
            chunk = step_arrays_chunk(
                kinds, offsets, lits, a, b, self._steps, self._literals, self._num_vars, limits
            )
            self._hand_out(chunk.kinds, chunk.offsets, chunk.lits)
            if chunk.problem is not None:
                self.stop_at(chunk.problem)
                return
        self._collect(0)

    def _hand_out(self, kinds: array[int], offsets: array[int], lits: array[int]) -> None:
        n = len(kinds)
        if n == 0:
            return
        first, last = offsets[0], offsets[n]
        if first != 0 or last != len(lits):  # a window into the part: the steps' own arrays
            lits = lits[first:last]
            offsets = array("i", [o - first for o in offsets])
        message = pickle.dumps((kinds, offsets, lits), pickle.HIGHEST_PROTOCOL)
        self._broadcast.put(message, self._idle)
        self._tally.fed_steps(n)
        self._steps += n
        self._literals += last - first

    @property
    def steps(self) -> int:
        """The steps fed so far (validated and handed out)."""
        return self._steps

    @property
    def checked(self) -> int:
        """The steps known to pass, from the first on."""
        return self._tally.steps_checked

    @property
    def work(self) -> int:
        """The work the segments' checks have counted so far."""
        return self._tally.work

    @property
    def done(self) -> bool:
        """True once the answer is fixed within the steps fed: reading can stop."""
        return self._done or self._tally.event is not None

    def finish(self) -> Report:
        """Wait for the answer; return the Report (its work is what the segments'
        checks counted: the exact counter belongs to a check on one core)."""
        try:
            if not self._tally.ended:
                self._tally.end()
            self._wait()
            status, step_index, steps_checked, clause = self._tally.answer()
            verdict = outcome(
                status,
                step_index,
                steps_checked,
                clause,
                self._num_vars,
                self._options.limits.max_propagation_work,
            )
            reasons, ignored = self._tally.deletions(steps_checked)
            return Report(verdict, self._tally.work, self._options.engine, reasons, ignored)
        finally:
            self.close()

    # -- the workers --------------------------------------------------------------------

    def _wait(self) -> None:
        """Wait until the answer is known."""
        self._broadcast.end()
        while not self._tally.decided:
            self._idle(POLL_SECONDS)

    def _idle(self, seconds: float) -> None:
        """Take the workers' events for a while, then say how far the check is
        (the progress callback: a deadline, the progress line)."""
        self._collect(seconds)
        if self._options.progress is not None:
            self._options.progress(self._tally.steps_checked, self._tally.work)

    def _collect(self, timeout: float) -> None:
        """Take the events the workers have sent (waiting up to ``timeout`` for
        one); raise RuntimeError when a worker the answer needs has died."""
        from multiprocessing.connection import wait

        live = [w for w in self._workers if not w.finished]
        if not live:
            if not self._tally.decided:
                raise WorkerFailed("the worker processes ended before the answer was known")
            return
        ready = set(wait([w.results for w in live] + [w.process.sentinel for w in live], timeout))
        for worker in live:
            if worker.results in ready or worker.process.sentinel in ready:
                self._take(worker)

    def _take(self, worker: _Worker) -> None:
        # Whether it has ended is looked at first: all it sent before is then
        # in the pipe, and read before it is taken for dead.
        alive = worker.process.is_alive()
        while not worker.finished and worker.results.poll():
            try:
                events = worker.results.recv()
            except (EOFError, OSError):
                break
            for event in events:
                if event[0] == "done":
                    worker.finished = True
                elif event[0] == "error":
                    raise WorkerFailed(f"a worker process failed: {event[1]}")
                else:
                    self._tally.record(event)
            horizon = self._tally.horizon()
            if horizon is not None and horizon < self._horizon.value:
                self._horizon.value = horizon
        if not worker.finished and not alive:
            worker.finished = True
            lost = self._tally.lost(worker.index)
            if lost is not None:
                raise WorkerFailed(
                    f"a worker process died ({worker.how_it_ended()}) before it checked "
                    f"steps from {lost * self._tally.segment_steps} on"
                )

    def close(self) -> None:
        """End every worker (safe to call twice)."""
        self._broadcast.close()
        for worker in self._workers:
            worker.stop()
        self._workers = []

    def __enter__(self) -> SegmentChecker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Worker:
    """One worker process: its pipes, and the thread that writes it the steps."""

    def __init__(self, context: Any, index: int, args: tuple[Any, ...]) -> None:
        self.index = index
        steps_in, steps_out = context.Pipe(duplex=False)
        results_in, results_out = context.Pipe(duplex=False)
        self.process = context.Process(
            target=_serve, args=(steps_in, results_out, *args), daemon=True
        )
        self.process.start()
        steps_in.close()
        results_out.close()
        self.steps: Connection = steps_out  # written by the sender thread
        self.results: Connection = results_in
        self.finished = False
        self.sender: threading.Thread | None = None

    def how_it_ended(self) -> str:
        self.process.join(1)
        code = self.process.exitcode
        if code is not None and code < 0:
            try:
                return f"killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"killed by signal {-code}"
        return f"exit status {code}"

    def stop(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join(5)
        if self.sender is None:
            self.steps.close()
        else:  # its pipe broken, it ends (and closes it)
            self.sender.join(5)
        self.results.close()


def _context() -> Any:
    """The processes' start method: a fork where it is safe (no thread in this
    process to copy half-way), else a fork server or a fresh interpreter."""
    import multiprocessing

    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")


def _serve(
    steps: Connection,
    results: Connection,
    engine: str,
    reading_code: int,
    cnf: tuple[int, array[int], array[int]],
    walk: tuple[int, int, Any, int],
) -> None:
    """A worker process: walk the proof the checker sends, sending back events."""
    # Ctrl-C reaches the whole process group: the checker decides.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    index, jobs, horizon, segment_steps = walk

    def claim(segment: int) -> int:
        if segment * segment_steps >= horizon.value:
            return STOP
        return CHECK if segment % jobs == index else REPLAY

    threading.Thread(target=_end_with, args=(os.getppid(),), daemon=True).start()
    try:
        walker = Walker(resolve(engine)[1], reading_code, cnf, segment_steps, claim)
        del cnf
        results.send(walker.start_events)
        while not walker.stopped:
            message = steps.recv_bytes()
            events = walker.end() if message == END else walker.take(*pickle.loads(message))
            if events:
                results.send(events)
        results.send([("done",)])
    except (EOFError, BrokenPipeError):
        return  # the checker is gone
    except MemoryError:
        _report(results, "out of memory")
    except BaseException:
        _report(results, traceback.format_exc(limit=8))


def _end_with(parent: int) -> None:
    """End this worker once the checker has gone (killed, say): its pipes need
    not tell, a forked sibling may hold their other ends, or half a message."""
    while os.getppid() == parent:
        time.sleep(PARENT_SECONDS)
    os._exit(0)


def _report(results: Connection, what: str) -> None:
    with contextlib.suppress(OSError):
        results.send([("error", what)])
    sys.exit(1)
