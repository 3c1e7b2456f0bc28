"""``batch``: JSON Lines in, one output line per input line, in input order.

One job checks in this process.  More jobs check chunks of lines in worker
processes, with a bounded number of lines read ahead of the output, so memory
stays bounded whatever the input size.  From an input that is a regular file
the workers are sent where their long lines are (Spans) and read them
themselves, so that the batch process does not copy those into a pipe.

No fault costs a line.  A worker that dies (killed, out of memory) costs only
the chunk it held: those lines are checked again one by one in new workers,
and a line that kills its worker twice gets a ``check_failed`` error object.
A line whose check raises MemoryError (workers run under an address-space
limit) gets one too.  SIGINT and SIGTERM stop the batch after writing, in
order, the lines already checked; no worker outlives the batch.

What a line's output line is, whoever checks it, is ``protocol``'s; reading
the lines is ``reader``'s (``lines``: numbered lines and Spans).
"""

from __future__ import annotations

import heapq
import os
import signal
import sys
from contextlib import suppress
from typing import IO, TYPE_CHECKING, Any

from .._core.options import Options
from .console import BatchProgress, WriteError
from .lines import Numbered, Span, read_span
from .output import BatchTotals, OrderedOutput
from .protocol import Checked, check_lines, check_one, unfinished
from .reader import CHUNK_LINES, Input, InputFile, own_descriptor
from .signals import STOP_SIGNALS, Stop, StopSignals, signals_blocked
from .sizing import limit_memory

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

    from .._core.types import Deletions, EngineName
    from ..limits import Limits
    from .manifest import Manifest

__all__ = ["DEATHS", "run_batch"]

DEATHS = 2  # a line whose worker died this many times is given up
_EXIT_OUT_OF_MEMORY = 3  # a worker's exit status when a whole chunk did not fit


def run_batch(
    stream: IO[bytes],
    out: IO[str],
    *,
    engine: EngineName,
    limits: Limits | None,
    jobs: int,
    progress: BatchProgress,
    worker_memory: int | None = None,
    max_line_bytes: int | None = None,
    manifest: Manifest | None = None,
    deletions: Deletions = "strict",
) -> BatchTotals:
    """Check every line of ``stream`` (binary), writing one line each to ``out``.

    ``jobs`` 1 checks here; more start up to that many worker processes, each
    limited to ``worker_memory`` bytes of address space (None: no limit).  A
    line over ``max_line_bytes`` is rejected unread.  With ``manifest`` (a
    ``manifest.Manifest``) the lines are manifest lines whose paths lead
    where it says.  ``deletions`` as for ``run`` (ValueError for another value,
    before any line is read).
    """
    options = Options.of(engine, limits, deletions)  # before any line is read
    lines_in = Input(stream, max_line_bytes, spans=jobs > 1)
    progress.tell = lines_in.tell
    with StopSignals() as signals:
        output = OrderedOutput(out, progress, signals)
        outcome = BatchTotals(output.counts)
        try:
            if jobs == 1:
                lines_in.start()
                _check_here(lines_in, output, options, manifest)
            else:  # it starts the reader once it has started its workers
                _check_in_workers(lines_in, output, jobs, options, worker_memory, manifest)
        except WriteError as exc:
            outcome.write_error = exc.error
        finally:
            with signals_blocked():
                lines_in.close()
    outcome.signal = signals.signum
    outcome.read_error = lines_in.error
    return outcome


def _check_here(
    lines_in: Input, output: OrderedOutput, options: Options, manifest: Manifest | None
) -> None:
    while True:
        chunk = lines_in.next_chunk()
        if chunk is None:
            return
        try:
            for number, line in chunk:
                output.put(number, check_one(options, number, line, manifest))
        finally:  # on a signal too: the lines checked so far
            output.write_ready()


class _Task:
    """Numbered lines for one worker, and how often a worker died on them."""

    __slots__ = ("deaths", "lines")

    def __init__(self, lines: list[Numbered]) -> None:
        self.lines = lines
        self.deaths = 0


class _Worker:
    """One worker process, its end of the pipe, and the task it holds."""

    def __init__(
        self,
        context: Any,
        options: Options,
        memory: int | None,
        manifest: Manifest | None,
        input_file: InputFile | None,
    ) -> None:
        ours, theirs = context.Pipe()
        self.process = context.Process(
            target=_serve, args=(theirs, options, memory, manifest, input_file), daemon=True
        )
        self.process.start()
        theirs.close()
        self.conn: Connection = ours
        self.task: _Task | None = None

    def give(self, task: _Task) -> bool:
        """Send a task; False when the worker is dead."""
        self.task = task
        try:
            self.conn.send(task.lines)
        except OSError:
            return False
        return True

    def take(self) -> list[Checked] | None:
        """The results of its task; None when the worker died first."""
        try:
            return self.conn.recv()  # type: ignore[no-any-return]
        except (EOFError, OSError):
            return None

    def reap(self) -> str:
        """Wait for the (dead) worker to end; how it died, in words."""
        self.process.join(5)
        if self.process.exitcode is None:
            self.process.kill()
            self.process.join()
        self.conn.close()
        code = self.process.exitcode or 0
        if code == _EXIT_OUT_OF_MEMORY:
            return "out of memory"
        if code < 0:
            try:
                return f"killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"killed by signal {-code}"
        return f"exit status {code}"


def _serve(
    conn: Connection,
    options: Options,
    memory: int | None,
    manifest: Manifest | None,
    input_file: InputFile | None = None,
) -> None:
    """A worker process: check the chunks the batch sends, until it sends None
    (reading the Spans among their lines from ``input_file``)."""
    # Ctrl-C reaches the whole process group: the batch decides what to do.  A
    # fork copied the batch's SIGTERM handler and blocked signals: undo both.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
    memory = limit_memory(memory)
    input_fd = None if input_file is None else input_file.fd
    parent = os.getppid()
    try:
        while True:
            while not conn.poll(1.0):
                if os.getppid() != parent:
                    return  # the batch was killed: do not linger
            lines = conn.recv()
            if lines is None:
                return
            conn.send(check_lines(options, lines, memory, manifest, input_fd))
    except MemoryError:  # the chunk itself, or its results, did not fit
        sys.exit(_EXIT_OUT_OF_MEMORY)
    except (EOFError, OSError):  # the batch is gone
        return


def _context() -> Any:
    """The multiprocessing context (start method) of the workers: the platform's default."""
    import multiprocessing

    return multiprocessing.get_context()


def _check_in_workers(
    lines_in: Input,
    output: OrderedOutput,
    jobs: int,
    options: Options,
    memory: int | None,
    manifest: Manifest | None,
) -> None:
    from multiprocessing.connection import wait

    context = _context()
    input_fd = lines_in.input_fd
    input_file = None if input_fd is None else InputFile(own_descriptor(input_fd))
    workers: list[_Worker] = []
    retry: list[tuple[int, _Task]] = []  # a heap: the earliest line first
    ahead = 4 * jobs * CHUNK_LINES  # at most this many lines read, not yet written

    def died(worker: _Worker) -> None:
        """Forget a dead worker; check its lines again, one by one."""
        workers.remove(worker)
        reason = worker.reap()
        task = worker.task
        if task is None:
            return
        if len(task.lines) > 1:  # which line killed it? each one alone will tell
            for item in task.lines:
                heapq.heappush(retry, (item[0], _Task([item])))
            return
        number, line = task.lines[0]
        task.deaths += 1
        if task.deaths < DEATHS:
            heapq.heappush(retry, (number, task))
            return
        if isinstance(line, Span):
            line = read_span(input_fd, line)
        output.put(
            number,
            unfinished(
                number,
                line,
                f"the worker process checking this line died {DEATHS} times (last: {reason})",
                manifest is not None,
            ),
        )

    def next_task() -> _Task | None:
        if retry:
            return heapq.heappop(retry)[1]
        if lines_in.read - output.written < ahead:
            chunk = lines_in.next_chunk(block=False)
            if chunk is not None:
                return _Task(chunk)
        return None

    def start_worker() -> _Worker | None:
        nonlocal jobs
        try:
            with signals_blocked():
                workers.append(_Worker(context, options, memory, manifest, input_file))
        except OSError:  # no more processes: go on with those there are
            jobs = max(1, len(workers))
            return None
        return workers[-1]

    def hand_out() -> None:
        """Give tasks to idle workers, starting workers up to ``jobs``."""
        while True:
            idle = [w for w in workers if w.task is None]
            if idle and not idle[0].process.is_alive():
                died(idle[0])  # killed while idle: it held no line
                continue
            if not idle and len(workers) >= jobs:
                return
            task = next_task()
            if task is None:
                return
            worker = idle[0] if idle else start_worker()
            if worker is None:
                if workers:
                    heapq.heappush(retry, (task.lines[0][0], task))
                else:  # not even one: check here
                    for number, line in task.lines:
                        output.put(number, check_one(options, number, line, manifest, input_fd))
            elif not worker.give(task):
                died(worker)  # it died taking the task: the task counts

    try:
        # The workers start before the reader thread: no fork waits for it, and
        # no worker is a copy of a process with a thread in it.  Not more than
        # a small input file can keep busy (the rest would start on demand).
        while len(workers) < lines_in.workers_wanted(jobs) and start_worker() is not None:
            pass
        lines_in.start()
        while True:
            hand_out()
            busy = [w for w in workers if w.task is not None]
            if not busy:
                output.write_ready()
                if retry or lines_in.ready():
                    continue  # lines were checked here: read on
                if lines_in.done:
                    return  # the input is done, and every line is written
            # Worker results and the reader's next chunk, whichever comes first.
            ready = set(
                wait(
                    [w.conn for w in busy]
                    + [w.process.sentinel for w in busy]
                    + ([] if lines_in.done else [lines_in.wake])
                )
            )
            if lines_in.wake in ready:
                lines_in.take_wake()
            for worker in busy:
                if worker.conn not in ready and worker.process.sentinel not in ready:
                    continue
                results = worker.take()
                if results is None:
                    died(worker)
                    continue
                _keep(output, worker, results)
                if worker.process.sentinel in ready:  # it sent them, then died
                    died(worker)
            output.write_ready()
    except Stop:
        # Results the workers have sent are finished lines: keep them.
        for worker in workers:
            if worker.task is not None and worker.conn.poll(0):
                results = worker.take()
                if results is not None:
                    _keep(output, worker, results)
        output.write_ready()
        raise
    finally:
        with signals_blocked():
            _stop_workers(workers)
        if input_file is not None and input_file.fd != input_fd:
            os.close(input_file.fd)


def _keep(output: OrderedOutput, worker: _Worker, results: list[Checked]) -> None:
    assert worker.task is not None
    for (number, _), checked in zip(worker.task.lines, results):
        output.put(number, checked)
    worker.task = None


def _stop_workers(workers: list[_Worker]) -> None:
    """End every worker: the idle ones are told to, the busy ones are killed."""
    for worker in workers:
        if worker.task is None:
            with suppress(OSError):
                worker.conn.send(None)
        else:
            worker.process.kill()
    for worker in workers:
        worker.process.join(5)
        if worker.process.exitcode is None:
            worker.process.kill()
            worker.process.join()
        worker.conn.close()
