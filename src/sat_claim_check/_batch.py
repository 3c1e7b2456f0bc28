"""``batch``: JSON Lines in, one output line per input line, in input order.

One job checks in this process.  More jobs check chunks of lines in worker
processes, with a bounded number of lines read ahead of the output, so memory
stays bounded whatever the input size.

No fault costs a line.  A worker that dies (killed, out of memory) costs only
the chunk it held: those lines are checked again one by one in new workers,
and a line that kills its worker twice gets a ``check_failed`` error object.
A line whose check raises MemoryError (workers run under an address-space
limit) gets one too.  SIGINT and SIGTERM stop the batch after writing, in
order, the lines already checked; no worker outlives the batch.
"""

from __future__ import annotations

import heapq
import os
import signal
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import IO, TYPE_CHECKING, Any, Union

from ._codes import EXIT_REJECTED
from ._jsontext import dumps
from ._outcome import check_json
from .errors import CheckError, InvalidInput
from .limits import Limits

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

    from ._types import EngineName

try:
    import resource
except ImportError:         # Windows: no address-space limit
    resource = None  # type: ignore[assignment]

__all__ = ["CHECK_FAILED", "CHUNK_LINES", "FAILED", "Outcome", "Progress", "available_cpus",
           "check_line", "check_lines", "default_worker_memory", "run_batch"]

CHUNK_LINES = 32            # lines per task sent to a worker
_SKIP_CHUNK = 1 << 20       # bytes read at a time while skipping a line that is too long
FAILED = 3                  # the count (after EXIT_VALID, _NOT_VALID, _REJECTED) of lines
                            # whose check could not finish
CHECK_FAILED = "check_failed"
DEATHS = 2                  # a line whose worker died this many times is given up
_EXIT_OUT_OF_MEMORY = 3     # a worker's exit status when a whole chunk did not fit
_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)

# (1-based line number, the line without its newline, or a str: numbered_lines'
# reason for refusing a line too long to read)
Numbered = tuple[int, Union[bytes, str]]
Checked = tuple[int, str]           # (EXIT_VALID, _NOT_VALID, _REJECTED or FAILED, output)


# -- checking one line ---------------------------------------------------------

def failed_line(number: int, message: str) -> str:
    """The error object of a line whose check could not finish."""
    return dumps({"error": CHECK_FAILED, "field": None, "path": "", "message": message,
                  "line": number})


def check_line(engine: EngineName, limits: Limits | None, number: int, line: bytes | str,
               memory: int | None = None) -> Checked:
    """Check one numbered JSON line: its kind and its output line.

    ``memory`` is the worker's address-space limit, for the message when the
    check runs out of memory.
    """
    failure = None
    try:
        if isinstance(line, str):       # numbered_lines' reason for refusing the line
            raise InvalidInput(None, "", line)
        if not line.strip():
            raise InvalidInput(None, "", "blank line: every line must hold one JSON request")
        outcome = check_json(line, engine=engine, limits=limits)
        if outcome.error is not None:
            raise outcome.error         # written below, with the line number
    except CheckError as err:
        error = err.to_dict()
        error["line"] = number
        return EXIT_REJECTED, dumps(error)
    except MemoryError:
        # Worded after the except clause, which frees what the check had built.
        failure = "the check of this line ran out of memory"
        if memory:
            failure += f" (the limit is {memory >> 20} MiB per worker: see --worker-memory)"
    except Exception as exc:    # a bug: say so on this line rather than lose the batch
        failure = (f"the check of this line raised {type(exc).__name__}: {exc} "
                   "(a bug in sat-claim-check: please report it)")
    if failure is not None:
        return FAILED, failed_line(number, failure)
    return outcome.exit_code, outcome.body.decode()


def check_lines(engine: EngineName, limits: Limits | None, lines: list[Numbered],
                memory: int | None = None) -> list[Checked]:
    """check_line() on each numbered line, in order (what a worker does per chunk)."""
    return [check_line(engine, limits, number, line, memory) for number, line in lines]


def numbered_lines(stream: IO[bytes], max_bytes: int | None = None) -> Iterator[Numbered]:
    """(1-based number, bytes) per line; a final newline ends the last line.

    A line longer than ``max_bytes`` is never held whole: its number comes
    with the reason (a str) instead, and the rest of it is skipped in chunks,
    up to ``skip_bytes(max_bytes)``; a line with no end by then (an endless
    stream) ends the input there.
    """
    number = 0
    while True:
        line = stream.readline() if max_bytes is None else stream.readline(max_bytes + 1)
        if not line:
            return
        number += 1
        if line.endswith(b"\n"):
            yield number, line[:-1]
            continue
        if max_bytes is None or len(line) <= max_bytes:
            yield number, line          # the last line, with no newline
            continue
        reason = (f"the line is longer than {max_bytes} bytes, the most read at these "
                  "limits (raise the limits, or --max-input-bytes)")
        most, skipped = skip_bytes(max_bytes), len(line)
        while line and not line.endswith(b"\n"):
            if skipped > most:
                yield number, f"{reason}; it has no end within {most} bytes: the input stops here"
                return
            line = stream.readline(_SKIP_CHUNK)
            skipped += len(line)
        yield number, reason


def skip_bytes(max_bytes: int) -> int:
    """How far a line over the cap is skipped before the input is given up."""
    return max(16 * max_bytes, 64 << 20)


# -- how many workers, how much memory -----------------------------------------

def available_cpus() -> int:
    """The CPUs this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


def default_worker_memory(jobs: int) -> int | None:
    """Bytes of address space per worker: physical memory / (jobs + 1), so that
    every worker at its limit still leaves a share for the rest; None if unknown."""
    try:
        total = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None
    return total // (jobs + 1) if total > 0 else None


def _limit_memory(memory: int | None) -> int | None:
    """Cap this process's address space at ``memory`` bytes, so that a huge
    line raises MemoryError here instead of exhausting the machine; return
    the cap in force (a lower one set by the user stays)."""
    if resource is None or not hasattr(resource, "RLIMIT_AS"):
        return None
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if soft != resource.RLIM_INFINITY and (memory is None or soft < memory):
        return soft
    if memory is None:
        return None
    try:
        resource.setrlimit(resource.RLIMIT_AS, (memory, hard))
    except (ValueError, OSError):
        return None
    return memory


# -- signals -------------------------------------------------------------------

class _Stop(BaseException):
    """Raised by the SIGINT or SIGTERM handler: stop, keep what is finished."""


class _StopSignals:
    """While a batch runs, SIGINT and SIGTERM raise _Stop, except that a write in
    progress ends first (output lines stay whole); a second signal does not wait.

    ``signum`` is the first signal received.  Only the main thread can take
    signals, and an ignored signal stays ignored.
    """

    def __init__(self) -> None:
        self.signum: int | None = None
        self._writing = False
        self._pending = False
        self._saved: dict[int, Any] = {}

    def __enter__(self) -> _StopSignals:
        defaults = {signal.SIGINT: signal.default_int_handler, signal.SIGTERM: signal.SIG_DFL}
        for signum, default in defaults.items():
            if signal.getsignal(signum) is default:
                try:
                    self._saved[signum] = signal.signal(signum, self._handle)
                except ValueError:      # not the main thread
                    break
        return self

    def __exit__(self, kind: type[BaseException] | None, *rest: object) -> bool:
        for signum, handler in self._saved.items():
            signal.signal(signum, handler)
        return kind is not None and issubclass(kind, _Stop)

    def _handle(self, signum: int, frame: object) -> None:
        if self.signum is None:
            self.signum = signum
            if self._writing:
                self._pending = True
                return
        raise _Stop

    @contextmanager
    def writing(self) -> Iterator[None]:
        self._writing = True
        try:
            yield
        finally:
            self._writing = False
        if self._pending:
            self._pending = False
            raise _Stop


@contextmanager
def _signals_blocked() -> Iterator[None]:
    """SIGINT and SIGTERM wait (a worker being started inherits the mask and
    unblocks them once its own handlers are set)."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, _STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


# -- input and output ----------------------------------------------------------

class _WriteFailed(Exception):
    def __init__(self, error: OSError) -> None:
        super().__init__(error)
        self.error = error


class _Input:
    """The input in chunks of numbered lines; a read error ends it and is kept."""

    def __init__(self, stream: IO[bytes], max_line_bytes: int | None = None) -> None:
        self._lines = numbered_lines(stream, max_line_bytes)
        self.read = 0           # lines read so far
        self.done = False
        self.error: OSError | None = None

    def next_chunk(self) -> list[Numbered] | None:
        chunk: list[Numbered] = []
        if not self.done:
            try:
                for item in self._lines:
                    chunk.append(item)
                    if len(chunk) == CHUNK_LINES:
                        break
                else:
                    self.done = True
            except OSError as exc:  # the lines before it are still checked
                self.error = exc
                self.done = True
        self.read += len(chunk)
        return chunk or None


class _Output:
    """Output lines, written in input order as soon as they are contiguous."""

    def __init__(self, out: IO[str], progress: Progress, signals: _StopSignals) -> None:
        self.out = out
        self.progress = progress
        self.signals = signals
        self.counts = [0, 0, 0, 0]      # lines written: valid, not valid, rejected, failed
        self.written = 0
        self.waiting: dict[int, Checked] = {}

    def put(self, number: int, checked: Checked) -> None:
        self.waiting[number] = checked

    def write_ready(self) -> None:
        texts = []
        while self.written + 1 in self.waiting:
            self.written += 1
            kind, text = self.waiting.pop(self.written)
            self.counts[kind] += 1
            texts.append(text)
        if not texts:
            return
        texts.append("")
        with self.signals.writing():
            try:
                self.out.write("\n".join(texts))
                self.out.flush()
            except OSError as exc:
                raise _WriteFailed(exc) from None
        self.progress.update(self.counts)


class Progress:
    """A progress line on stderr, only when stderr is a terminal."""

    def __init__(self, stream: IO[bytes], total_bytes: int) -> None:
        self.enabled = sys.stderr is not None and sys.stderr.isatty()
        self.stream = stream
        self.total = total_bytes
        self.last = 0.0

    def update(self, counts: list[int]) -> None:
        now = time.monotonic()
        if not self.enabled or now - self.last < 0.2:
            return
        self.last = now
        line = f"{sum(counts)} lines ({counts[0]} valid, {counts[1]} not, {counts[2]} rejected"
        line += f", {counts[FAILED]} failed)" if counts[FAILED] else ")"
        if self.total:
            # The reader runs a few chunks ahead of the writer: close enough.
            frac = min(1.0, self.stream.tell() / self.total)
            bar = "#" * int(30 * frac)
            line = f"[{bar:<30}] {100 * frac:3.0f}% {line}"
        self._write("\r" + line)

    def close(self) -> None:
        if self.enabled:
            self._write("\r\033[K")

    def _write(self, text: str) -> None:
        try:
            sys.stderr.write(text)
            sys.stderr.flush()
        except (OSError, ValueError):
            self.enabled = False


# -- the batch -----------------------------------------------------------------

class Outcome:
    """How a batch ended.

    ``counts``: lines written, [valid, not valid, rejected, failed].  ``signal``:
    the SIGINT or SIGTERM that stopped it.  ``read_error``: reading stopped
    there, after every line read had its output line.  ``write_error``: the
    output could not be written.
    """

    def __init__(self, counts: list[int]) -> None:
        self.counts = counts
        self.signal: int | None = None
        self.read_error: OSError | None = None
        self.write_error: OSError | None = None


def run_batch(stream: IO[bytes], out: IO[str], *, engine: EngineName, limits: Limits | None,
              jobs: int, progress: Progress, worker_memory: int | None = None,
              max_line_bytes: int | None = None) -> Outcome:
    """Check every line of ``stream`` (binary), writing one line each to ``out``.

    ``jobs`` 1 checks here; more start up to that many worker processes, each
    limited to ``worker_memory`` bytes of address space (None: no limit).  A
    line over ``max_line_bytes`` is rejected unread.
    """
    lines_in = _Input(stream, max_line_bytes)
    with _StopSignals() as signals:
        output = _Output(out, progress, signals)
        outcome = Outcome(output.counts)
        try:
            if jobs == 1:
                _check_here(lines_in, output, engine, limits)
            else:
                _check_in_workers(lines_in, output, jobs, engine, limits, worker_memory)
        except _WriteFailed as exc:
            outcome.write_error = exc.error
    outcome.signal = signals.signum
    outcome.read_error = lines_in.error
    return outcome


def _check_here(lines_in: _Input, output: _Output, engine: EngineName,
                limits: Limits | None) -> None:
    while True:
        chunk = lines_in.next_chunk()
        if chunk is None:
            return
        try:
            for number, line in chunk:
                output.put(number, check_line(engine, limits, number, line))
        finally:                # on a signal too: the lines checked so far
            output.write_ready()


class _Task:
    """Numbered lines for one worker, and how often a worker died on them."""

    __slots__ = ("deaths", "lines")

    def __init__(self, lines: list[Numbered]) -> None:
        self.lines = lines
        self.deaths = 0


class _Worker:
    """One worker process, its end of the pipe, and the task it holds."""

    def __init__(self, context: Any, engine: EngineName, limits: Limits | None,
                 memory: int | None) -> None:
        ours, theirs = context.Pipe()
        self.process = context.Process(target=_serve, args=(theirs, engine, limits, memory),
                                       daemon=True)
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


def _serve(conn: Connection, engine: EngineName, limits: Limits | None, memory: int | None) -> None:
    """A worker process: check the chunks the batch sends, until it sends None."""
    # Ctrl-C reaches the whole process group: the batch decides what to do.  A
    # fork copied the batch's SIGTERM handler and blocked signals: undo both.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP_SIGNALS)
    memory = _limit_memory(memory)
    parent = os.getppid()
    try:
        while True:
            while not conn.poll(1.0):
                if os.getppid() != parent:
                    return      # the batch was killed: do not linger
            lines = conn.recv()
            if lines is None:
                return
            conn.send(check_lines(engine, limits, lines, memory))
    except MemoryError:         # the chunk itself, or its results, did not fit
        sys.exit(_EXIT_OUT_OF_MEMORY)
    except (EOFError, OSError):     # the batch is gone
        return


def _context() -> Any:
    """The multiprocessing context (start method) of the workers: the platform's default."""
    import multiprocessing
    return multiprocessing.get_context()


def _check_in_workers(lines_in: _Input, output: _Output, jobs: int, engine: EngineName,
                      limits: Limits | None, memory: int | None) -> None:
    from multiprocessing.connection import wait

    context = _context()
    workers: list[_Worker] = []
    retry: list[tuple[int, _Task]] = []     # a heap: the earliest line first
    ahead = 4 * jobs * CHUNK_LINES          # at most this many lines read, not yet written

    def died(worker: _Worker) -> None:
        """Forget a dead worker; check its lines again, one by one."""
        workers.remove(worker)
        reason = worker.reap()
        task = worker.task
        if task is None:
            return
        if len(task.lines) > 1:     # which line killed it? each one alone will tell
            for item in task.lines:
                heapq.heappush(retry, (item[0], _Task([item])))
            return
        number = task.lines[0][0]
        task.deaths += 1
        if task.deaths < DEATHS:
            heapq.heappush(retry, (number, task))
        else:
            output.put(number, (FAILED, failed_line(
                number, f"the worker process checking this line died {DEATHS} times "
                        f"(last: {reason})")))

    def next_task() -> _Task | None:
        if retry:
            return heapq.heappop(retry)[1]
        if lines_in.read - output.written < ahead:
            chunk = lines_in.next_chunk()
            if chunk is not None:
                return _Task(chunk)
        return None

    def start_worker() -> _Worker | None:
        nonlocal jobs
        try:
            with _signals_blocked():
                workers.append(_Worker(context, engine, limits, memory))
        except OSError:     # no more processes: go on with those there are
            jobs = max(1, len(workers))
            return None
        return workers[-1]

    def hand_out() -> None:
        """Give tasks to idle workers, starting workers up to ``jobs``."""
        while True:
            idle = [w for w in workers if w.task is None]
            if idle and not idle[0].process.is_alive():
                died(idle[0])       # killed while idle: it held no line
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
                else:               # not even one: check here
                    for number, line in task.lines:
                        output.put(number, check_line(engine, limits, number, line))
            elif not worker.give(task):
                died(worker)        # it died taking the task: the task counts

    try:
        while True:
            hand_out()
            busy = [w for w in workers if w.task is not None]
            if not busy:
                output.write_ready()
                if retry or not lines_in.done:
                    continue        # lines were checked here: read on
                return              # the input is done, and every line is written
            ready = set(wait([w.conn for w in busy] + [w.process.sentinel for w in busy]))
            for worker in busy:
                if worker.conn not in ready and worker.process.sentinel not in ready:
                    continue
                results = worker.take()
                if results is None:
                    died(worker)
                    continue
                _keep(output, worker, results)
                if worker.process.sentinel in ready:    # it sent them, then died
                    died(worker)
            output.write_ready()        # before reading on, which may block
    except _Stop:
        # Results the workers have sent are finished lines: keep them.
        for worker in workers:
            if worker.task is not None and worker.conn.poll(0):
                results = worker.take()
                if results is not None:
                    _keep(output, worker, results)
        output.write_ready()
        raise
    finally:
        with _signals_blocked():
            _stop_workers(workers)


def _keep(output: _Output, worker: _Worker, results: list[Checked]) -> None:
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
