"""One proof on every core: a proof checked as it is read, in segments, by worker processes.

``SegmentChecker`` is ``front.Segments`` with ``jobs`` worker processes
behind it: the steps it validates are handed to every worker as soon as
they are (``Broadcast``: one thread a worker writes its pipe).
Each worker walks the whole proof (``walk.Walker``), checking the segments
it reaches first (``claims``) and replaying the others; ``verdict.Tally``
makes the answer of their events.  Memory: every worker
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
import signal
import sys
import threading
import time
import traceback
from array import array
from typing import TYPE_CHECKING, Any

from .._engines import resolve
from .broadcast import END, Broadcast, pack, unpack
from .claims import Claims
from .front import Segments, WorkerFailed
from .walk import CHECK, REPLAY, STOP, Walker

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

    from .._core.options import Options

__all__ = ["SEGMENT_STEPS", "SegmentChecker", "WorkerFailed"]

SEGMENT_STEPS = 8192  # steps a segment (strictly read, each costs a level-0 build)
HELD_BYTES = 256 << 20  # steps read and not yet taken by every worker, at most
NO_HORIZON = 2**62
PARENT_SECONDS = 0.5  # how often a worker looks whether the checker is still there


class SegmentChecker(Segments):
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
        super().__init__(options, num_vars, clause_offsets, clause_lits, segment_steps)
        context = _context()
        # The first step whose segment cannot change the answer: written here,
        # read by the workers (a late read only costs a segment).
        self._horizon = context.RawValue("q", NO_HORIZON)
        self._claims = Claims(context)
        self._broadcast = Broadcast(HELD_BYTES)
        cnf = (num_vars, clause_offsets, clause_lits)
        self._workers: list[_Worker] = []
        try:
            for index in range(jobs):
                walk = (index, self._claims, self._horizon, segment_steps)
                args = (options.engine, options.reading_code, cnf, walk)
                self._workers.append(_Worker(context, index, args))
            # The threads start once every process has: no fork copies a thread.
            for worker in self._workers:
                worker.sender = self._broadcast.reader(worker.steps)
        except BaseException:
            self.close()
            raise

    def _send(self, kinds: array[int], offsets: array[int], lits: array[int]) -> None:
        first, last = offsets[0], offsets[len(kinds)]
        if first != 0 or last != len(lits):  # a window into the part: the steps' own arrays
            lits = lits[first:last]
            offsets = array("i", [o - first for o in offsets])
        self._broadcast.put(pack(kinds, offsets, lits), self._idle)

    def _end_of_steps(self) -> None:
        self._broadcast.end()

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
            lost = self._tally.lost(self._claims.owned_by(worker.index), self._claims.claimed)
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
    walk: tuple[int, Claims, Any, int],
) -> None:
    """A worker process: walk the proof the checker sends, sending back events."""
    # Ctrl-C reaches the whole process group: the checker decides.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    index, claims, horizon, segment_steps = walk

    def claim(segment: int) -> int:
        if segment * segment_steps >= horizon.value:
            return STOP
        return CHECK if claims.claim(segment, index) else REPLAY

    threading.Thread(target=_end_with, args=(os.getppid(),), daemon=True).start()
    try:
        walker = Walker(resolve(engine)[1], reading_code, cnf, segment_steps, claim)
        del cnf
        results.send(walker.start_events)
        while not walker.stopped:
            message = steps.recv_bytes()
            events = walker.end() if message == END else walker.take(*unpack(message))
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
