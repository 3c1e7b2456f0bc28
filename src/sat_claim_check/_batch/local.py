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

A line may be an envelope ``{"id": ..., "request": {...}}`` (``_envelope``),
whose output line carries the id; with ``manifest`` every line names files to
check instead (``_manifest``).
"""

from __future__ import annotations

import heapq
import os
import queue
import select
import signal
import stat
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from typing import IO, TYPE_CHECKING, Any, NamedTuple, Protocol, Union

from .._core.check import contract_limits, lenient_deletions, run_validated
from .._core.codes import EXIT_NOT_VALID, EXIT_REJECTED, EXIT_VALID
from .._core.jsontext import dumps, loads
from .._core.validate import read_common_case, validate
from .._engines import resolve
from ..errors import CheckError, InvalidInput
from ..limits import Limits
from .envelope import Ident, line_id, split_envelope, with_id

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

    from .._core.types import Deletions, EngineName, Result
    from .manifest import Manifest

try:
    import resource
except ImportError:         # Windows: no address-space limit
    resource = None  # type: ignore[assignment]

__all__ = ["CHECK_FAILED", "CHUNK_LINES", "FAILED", "OUT_OF_MEMORY", "Outcome", "Progress",
           "Span", "SpanScan", "answer_line", "available_cpus", "bug_message", "check_line",
           "check_lines", "check_one", "default_worker_memory", "failed_line", "memory_message",
           "numbered_lines", "numbered_spans", "read_span", "run_batch"]

CHUNK_LINES = 32            # lines per task sent to a worker
_SKIP_CHUNK = 1 << 20       # bytes read at a time while skipping a line that is too long
_READ_BYTES = 1 << 16       # bytes read from the input descriptor at a time
_SPAN_READ_BYTES = 1 << 20  # bytes of an input file scanned for line ends at a time
_SPAN_MIN_BYTES = 4096      # a shorter line goes to a worker as bytes: cheaper than a Span
_QUEUED_CHUNKS = 4          # chunks the reader thread holds ready, at most
FAILED = 3                  # the count (after EXIT_VALID, _NOT_VALID, _REJECTED) of lines
                            # whose check could not finish
CHECK_FAILED = "check_failed"
DEATHS = 2                  # a line whose worker died this many times is given up
_EXIT_OUT_OF_MEMORY = 3     # a worker's exit status when a whole chunk did not fit
_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Span(NamedTuple):
    """Where a line is in the input file (without its newline).  With workers
    and an input file, the batch process sends them this for a long line and
    the worker reads it itself (read_span): its bytes then cross no pipe."""

    offset: int
    length: int


# (1-based line number, the line without its newline, a str: numbered_lines'
# reason for refusing a line too long to read, or where it is in the input file)
Numbered = tuple[int, Union[bytes, str, Span]]
Checked = tuple[int, str]           # (EXIT_VALID, _NOT_VALID, _REJECTED or FAILED, output)


class LineReader(Protocol):
    """What numbered_lines() reads: a binary file object, or _FdReader."""

    def readline(self, size: int = -1, /) -> bytes: ...


# -- checking one line ---------------------------------------------------------

def failed_line(number: int, message: str, ident: Ident | None = None) -> str:
    """The error object of a line whose check could not finish (its id first, if any)."""
    return dumps(with_id(ident, {"error": CHECK_FAILED, "field": None, "path": "",
                                 "message": message, "line": number}))


OUT_OF_MEMORY = "out of memory"     # a MemoryError, until it is worded by memory_message


def memory_message(memory: int | None) -> str:
    """The check_failed message of a line whose check ran out of memory."""
    message = "the check of this line ran out of memory"
    if memory:
        message += f" (the limit is {memory >> 20} MiB per worker: see --worker-memory)"
    return message


def bug_message(exc: Exception) -> str:
    """The check_failed message of a line whose check raised an unexpected exception."""
    return (f"the check of this line raised {type(exc).__name__}: {exc} "
            "(a bug in sat-claim-check: please report it)")


def answer_line(number: int, line: bytes | str, memory: int | None, what: str,
                check: Callable[[bytes, Callable[[Ident], None]], Result]) -> Checked:
    """The kind and output line of one numbered line, whatever its check does.

    ``check(line, note_id)`` returns the line's result, or raises CheckError
    (the line's error object); it calls ``note_id`` as soon as it knows the
    line's id, which then goes first on the output line.  A line that
    ``numbered_lines`` refused (a str) or a blank one is rejected; a check that
    runs out of memory (``memory``: the worker's limit, for the message) or
    fails with an unexpected exception gives ``check_failed``.  ``what`` names
    what a line must hold.
    """
    failure = None
    ident: Ident | None = None

    def note_id(found: Ident) -> None:
        nonlocal ident
        ident = found

    try:
        if isinstance(line, str):       # numbered_lines' reason for refusing the line
            raise InvalidInput(None, "", line)
        if not line.strip():
            raise InvalidInput(None, "", f"blank line: every line must hold one {what}")
        result = check(line, note_id)
    except CheckError as err:
        error = err.to_dict()
        error["line"] = number
        return EXIT_REJECTED, dumps(with_id(ident, error))
    except MemoryError:
        # Worded after the except clause, which frees what the check had built.
        failure = OUT_OF_MEMORY
    except Exception as exc:    # a bug: say so on this line rather than lose the batch
        failure = bug_message(exc)
    if failure is not None:
        if failure is OUT_OF_MEMORY:
            failure = memory_message(memory)
        return FAILED, failed_line(number, failure, ident)
    return EXIT_VALID if result["valid"] else EXIT_NOT_VALID, dumps(with_id(ident, result))


def check_line(engine: EngineName, limits: Limits | None, number: int, line: bytes | str,
               memory: int | None = None, deletions: Deletions = "strict") -> Checked:
    """Check one numbered JSON line: its kind and its output line.

    ``memory`` is the worker's address-space limit, for the message when the
    check runs out of memory.  An envelope's id goes first on its output line.
    ``deletions`` as for ``run``.
    """
    def check(text: bytes, note_id: Callable[[Ident], None]) -> Result:
        in_force = contract_limits(limits)
        v = read_common_case(text, in_force)        # the compiled reader: no envelope
        if v is None:
            ident, request = split_envelope(loads(text))
            if ident is not None:
                note_id(ident)
            v = validate(request, in_force)
        return run_validated(v, *resolve(engine), in_force, None,
                             lenient_deletions(deletions)).result

    return answer_line(number, line, memory, "JSON request", check)


def check_lines(engine: EngineName, limits: Limits | None, lines: list[Numbered],
                memory: int | None = None, manifest: Manifest | None = None,
                deletions: Deletions = "strict", input_fd: int | None = None) -> list[Checked]:
    """check_line() on each numbered line, in order (what a worker does per chunk).

    With ``manifest`` (where their paths lead) the lines are manifest lines:
    ``_manifest.check_manifest_line``.  A Span
    is read from ``input_fd`` first.
    """
    if manifest is not None:
        from .manifest import check_manifest_line
    checked = []
    for number, line in lines:
        if isinstance(line, Span):
            try:
                line = read_span(input_fd, line)
            except MemoryError:
                checked.append((FAILED, failed_line(number, memory_message(memory))))
                continue
        if manifest is not None:
            checked.append(check_manifest_line(engine, limits, number, line, manifest, memory,
                                               deletions))
        else:
            checked.append(check_line(engine, limits, number, line, memory, deletions))
    return checked


def check_one(engine: EngineName, limits: Limits | None, number: int,
              line: bytes | str | Span, manifest: Manifest | None = None,
              deletions: Deletions = "strict", input_fd: int | None = None) -> Checked:
    """check_lines() of one line, in this process."""
    return check_lines(engine, limits, [(number, line)], None, manifest, deletions,
                       input_fd)[0]


def numbered_lines(stream: LineReader, max_bytes: int | None = None) -> Iterator[Numbered]:
    """(1-based number, bytes) per line; a final newline ends the last line.

    A line longer than ``max_bytes`` is never held whole: its number comes
    with the reason (a str) instead, and the rest of it is skipped in chunks;
    a line longer than ``skip_bytes(max_bytes)`` (an endless stream) ends the
    input there (numbered_spans keeps the same rule to the byte).
    """
    if max_bytes is None:       # no cap: readline() to the end, or any iterable of lines
        reader = getattr(stream, "readline", None)
        lines: Iterator[bytes] = iter(reader, b"") if reader else iter(stream)  # type: ignore[call-overload]
        for number, line in enumerate(lines, 1):
            yield number, line[:-1] if line.endswith(b"\n") else line
        return
    number = 0
    while True:
        line = stream.readline(max_bytes + 1)
        if not line:
            return
        number += 1
        if line.endswith(b"\n"):
            yield number, line[:-1]
            continue
        if len(line) <= max_bytes:
            yield number, line          # the last line, with no newline
            continue
        most, skipped = skip_bytes(max_bytes), len(line)
        while line and not line.endswith(b"\n"):
            if _ends_input(skipped, max_bytes):
                yield number, _no_end(max_bytes)
                return
            # Not past most + 1: a line of more than most bytes stops the
            # input whatever the chunks.
            line = stream.readline(min(_SKIP_CHUNK, most + 1 - skipped))
            skipped += len(line)
        yield number, _too_long(max_bytes)


def skip_bytes(max_bytes: int) -> int:
    """How far a line over the cap is skipped before the input is given up."""
    return max(16 * max_bytes, 64 << 20)


def _too_long(max_bytes: int) -> str:
    return (f"the line is longer than {max_bytes} bytes, the most read at these "
            "limits (raise the limits, or --max-input-bytes)")


def _no_end(max_bytes: int) -> str:
    return (f"{_too_long(max_bytes)}; it has no end within {skip_bytes(max_bytes)} bytes: "
            "the input stops here")


def numbered_spans(fd: int, start: int, max_bytes: int | None = None) -> SpanScan:
    """numbered_lines() of the regular file ``fd`` from byte ``start`` on, a
    line within the cap as its Span, or its bytes when it is shorter than
    _SPAN_MIN_BYTES (or the same reason for refusing it, a str): the file is
    scanned for line ends a block at a time, and no long line is held."""
    return SpanScan(fd, start, max_bytes)


class SpanScan:
    """The lines of numbered_spans(), and how far they reach: ``position`` is
    the offset just after the last line given (and its newline)."""

    def __init__(self, fd: int, start: int, max_bytes: int | None) -> None:
        self.fd = fd
        self.position = start
        self._lines = self._scan(fd, start, max_bytes)

    def __iter__(self) -> Iterator[Numbered]:
        return self._lines

    def _scan(self, fd: int, start: int, max_bytes: int | None) -> Iterator[Numbered]:
        number = 0
        line_start = at = start
        while True:
            block = os.pread(fd, _SPAN_READ_BYTES, at)
            if not block:
                break
            found = block.find(b"\n")
            while found >= 0:
                number += 1
                length = at + found - line_start
                self.position = at + found + 1
                if max_bytes is None or length <= max_bytes:
                    if length < _SPAN_MIN_BYTES and line_start >= at:
                        yield number, block[found - length:found]
                    else:
                        yield number, Span(line_start, length)
                else:
                    yield number, _refusal(length, max_bytes)
                    if _ends_input(length, max_bytes):
                        return
                line_start = self.position
                found = block.find(b"\n", found + 1)
            at += len(block)
            if max_bytes is not None and _ends_input(at - line_start, max_bytes):
                self.position = at
                yield number + 1, _refusal(at - line_start, max_bytes)  # no need to read on
                return
        length = at - line_start
        if not length:
            return
        self.position = at                  # the last line, with no newline
        if max_bytes is not None and length > max_bytes:
            yield number + 1, _refusal(length, max_bytes)
        elif length < _SPAN_MIN_BYTES:
            yield number + 1, read_span(fd, Span(line_start, length))
        else:
            yield number + 1, Span(line_start, length)


def _refusal(length: int, max_bytes: int) -> str:
    """numbered_lines' reason for refusing a line this long (over max_bytes)."""
    return _no_end(max_bytes) if _ends_input(length, max_bytes) else _too_long(max_bytes)


def _ends_input(length: int, max_bytes: int) -> bool:
    """Whether a line this long ends the input (numbered_lines' rule, to the byte)."""
    return length > skip_bytes(max_bytes)


def read_span(fd: int | None, span: Span) -> bytes | str:
    """The line at ``span`` of the input file, or why it cannot be read (a str:
    the line is rejected with it)."""
    assert fd is not None, "a Span without the input file"
    try:
        data = os.pread(fd, span.length, span.offset)
    except OSError as exc:
        return f"cannot read this line of the input: {exc.strerror or exc}"
    if len(data) != span.length:
        return "the input file changed while the batch read it: this line is no longer there"
    return data


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


class _Stopped(Exception):
    """Raised inside the reader thread when the batch tells it to stop."""


class _FdReader:
    """readline() straight from a file descriptor, for the reader thread.

    Unlike a buffered file object it holds no lock while it waits (a forked
    worker closing its copy of sys.stdin, or the interpreter's exit, would
    wait for it forever), it stops when ``stop_fd`` is readable, and it calls
    ``before_wait`` when the next read would block.
    """

    def __init__(self, fd: int, stop_fd: int, before_wait: Callable[[], None]) -> None:
        self._fd = fd
        self._stop = stop_fd
        self._before_wait = before_wait
        self._buf = bytearray()
        self._eof = False

    def readline(self, size: int = -1) -> bytes:
        scanned = 0
        while True:
            limit = len(self._buf) if size < 0 else min(size, len(self._buf))
            end = self._buf.find(b"\n", scanned, limit)
            if end >= 0:
                limit = end + 1
                break
            if limit == size or self._eof:
                break
            scanned = limit
            self._fill()
        line = bytes(self._buf[:limit])
        del self._buf[:limit]
        return line

    def _fill(self) -> None:
        if not select.select([self._fd], [], [], 0)[0]:
            self._before_wait()
            if self._stop in select.select([self._fd, self._stop], [], [])[0]:
                raise _Stopped
        data = os.read(self._fd, _READ_BYTES)
        self._eof = not data
        self._buf += data


class _Input:
    """The input in chunks of numbered lines, read ahead by a thread so that
    waiting for input never delays writing the lines already checked.

    A chunk holds CHUNK_LINES lines, fewer when the next read would block (a
    slow pipe) or at the end.  A read error ends the input and is kept.  With
    ``spans``, the lines of an input that is a regular file are scanned by
    offset (numbered_spans), its long lines given as Spans of it
    (``input_fd``), for workers to read themselves; once closed, the file
    stands where the scan ended, as after reading it.
    """

    def __init__(self, stream: IO[bytes], max_line_bytes: int | None = None,
                 spans: bool = False) -> None:
        self._stream = stream
        self._max_line_bytes = max_line_bytes
        found = _input_file(stream) if spans else None
        self._scan = None if found is None else numbered_spans(*found, max_line_bytes)
        self._queue: queue.Queue[list[Numbered] | None] = queue.Queue(_QUEUED_CHUNKS)
        self._chunk: list[Numbered] = []        # the reader thread's chunk being filled
        self._stopping = False
        self._failure: BaseException | None = None  # not an OSError: raised in the batch
        self._thread: threading.Thread | None = None
        self.wake = -1          # readable when a chunk (or the end) has been queued
        self._wake_w = self._stop_r = self._stop_w = -1
        self.read = 0           # lines taken so far
        self.done = False
        self.error: OSError | None = None

    def start(self) -> None:
        self.wake, self._wake_w = os.pipe()
        self._stop_r, self._stop_w = os.pipe()
        for fd in (self.wake, self._wake_w):
            os.set_blocking(fd, False)
        self._thread = threading.Thread(target=self._run, name="batch-reader", daemon=True)
        self._thread.start()

    def next_chunk(self, block: bool = True) -> list[Numbered] | None:
        """The next chunk; None at the end, or when none is ready and not ``block``."""
        while not self.done:
            try:
                chunk = self._queue.get(block)
            except queue.Empty:
                return None
            if chunk is None:
                self.done = True
                if self._failure is not None:
                    raise self._failure
            elif chunk:
                self.read += len(chunk)
                return chunk
        return None

    def ready(self) -> bool:
        """Whether next_chunk(block=False) has something to give."""
        return not self._queue.empty()

    @property
    def input_fd(self) -> int | None:
        """The input file the lines' Spans are in (None: no Spans)."""
        return None if self._scan is None else self._scan.fd

    def workers_wanted(self, jobs: int) -> int:
        """Workers worth starting at once: ``jobs``, but for an input file of
        fewer chunks of lines of 128 bytes or more, one per such chunk."""
        if self._scan is None:
            return jobs
        try:
            left = os.fstat(self._scan.fd).st_size - self._scan.position
        except OSError:
            return jobs
        return max(1, min(jobs, -(-left // (CHUNK_LINES * 128))))

    def tell(self) -> int:
        """About how far the input has been read, in bytes (for the progress line)."""
        return self._stream.tell() if self._scan is None else self._scan.position

    def take_wake(self) -> None:
        with suppress(BlockingIOError):
            os.read(self.wake, 4096)

    def close(self) -> None:
        """Stop the reader thread and wait for it (a moment at most)."""
        thread = self._thread
        if thread is None:
            return
        self._stopping = True
        os.write(self._stop_w, b"x")
        deadline = time.monotonic() + 5
        while thread.is_alive() and time.monotonic() < deadline:
            with suppress(queue.Empty):
                while True:         # make room: it may be waiting to queue a chunk
                    self._queue.get_nowait()
            thread.join(0.01)
        if not thread.is_alive():   # else a stream that blocks and has no descriptor
            for fd in (self.wake, self._wake_w, self._stop_r, self._stop_w):
                os.close(fd)
            if self._scan is not None:      # a shared descriptor moves on, as if read
                with suppress(OSError, ValueError):
                    self._stream.seek(self._scan.position)
        self._thread = None

    def _run(self) -> None:
        if hasattr(signal, "pthread_sigmask"):     # signals are the main thread's
            signal.pthread_sigmask(signal.SIG_BLOCK, _STOP_SIGNALS)
        with suppress(_Stopped):
            try:
                items: Iterable[Numbered]
                if self._scan is not None:
                    items = self._scan
                else:
                    items = numbered_lines(self._source(), self._max_line_bytes)
                for item in items:
                    self._chunk.append(item)
                    if len(self._chunk) == CHUNK_LINES:
                        self._flush()
            except OSError as exc:      # the lines before it are still checked
                self.error = exc
            except _Stopped:
                raise
            except BaseException as exc:    # e.g. MemoryError: the batch raises it
                self._failure = exc
            self._flush()
            self._put(None)

    def _source(self) -> LineReader:
        """Where the lines are read: the descriptor itself when it can be waited on."""
        try:
            fd = self._stream.fileno()
            select.select([fd], [], [], 0)
        except (OSError, ValueError, AttributeError):
            return self._stream     # a file object of Python's (BytesIO...): never waits
        return _FdReader(fd, self._stop_r, self._flush)

    def _flush(self) -> None:
        if self._chunk:
            chunk, self._chunk = self._chunk, []
            self._put(chunk)

    def _put(self, chunk: list[Numbered] | None) -> None:
        if self._stopping:
            raise _Stopped
        self._queue.put(chunk)
        if self._stopping:
            raise _Stopped
        with suppress(BlockingIOError):
            os.write(self._wake_w, b"x")


def _input_file(stream: IO[bytes]) -> tuple[int, int] | None:
    """(descriptor, position) of a stream that is a regular file, or None.

    A file of size 0 is read as a stream: a /proc file says 0 and makes its
    bytes as it is read (a worker reading at an offset later sees others).
    """
    try:
        fd = stream.fileno()
        found = os.fstat(fd)
        if not stat.S_ISREG(found.st_mode) or found.st_size == 0:
            return None
        return fd, stream.tell()
    except (OSError, ValueError, AttributeError):
        return None


class _InputFile:
    """The input file's descriptor as a worker process gets it: inherited
    through a fork, or duplicated into the worker by the other start methods
    (as multiprocessing does for a Connection)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def __reduce__(self) -> tuple[Callable[[Any], _InputFile], tuple[Any]]:
        from multiprocessing.reduction import DupFd
        return _input_file_from, (DupFd(self.fd),)


def _input_file_from(duplicate: Any) -> _InputFile:
    return _InputFile(duplicate.detach())


def _own_descriptor(fd: int) -> int:
    """A duplicate of ``fd`` for the workers, which nothing in them closes (a
    worker closes its sys.stdin, which may own the input's descriptor); ``fd``
    itself when no descriptor is left."""
    try:
        return os.dup(fd)
    except OSError:
        return fd


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
        self.tell: Callable[[], int] = lambda: stream.tell()   # how far the input is read
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
            frac = min(1.0, self.tell() / self.total)
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
              max_line_bytes: int | None = None, manifest: Manifest | None = None,
              deletions: Deletions = "strict") -> Outcome:
    """Check every line of ``stream`` (binary), writing one line each to ``out``.

    ``jobs`` 1 checks here; more start up to that many worker processes, each
    limited to ``worker_memory`` bytes of address space (None: no limit).  A
    line over ``max_line_bytes`` is rejected unread.  With ``manifest`` (a
    ``_manifest.Manifest``) the lines are manifest lines whose paths lead
    where it says.  ``deletions`` as for ``run`` (ValueError for another value,
    before any line is read).
    """
    lenient_deletions(deletions)
    lines_in = _Input(stream, max_line_bytes, spans=jobs > 1)
    progress.tell = lines_in.tell
    with _StopSignals() as signals:
        output = _Output(out, progress, signals)
        outcome = Outcome(output.counts)
        try:
            if jobs == 1:
                lines_in.start()
                _check_here(lines_in, output, engine, limits, manifest, deletions)
            else:       # it starts the reader once it has started its workers
                _check_in_workers(lines_in, output, jobs, engine, limits, worker_memory,
                                  manifest, deletions)
        except _WriteFailed as exc:
            outcome.write_error = exc.error
        finally:
            with _signals_blocked():
                lines_in.close()
    outcome.signal = signals.signum
    outcome.read_error = lines_in.error
    return outcome


def _check_here(lines_in: _Input, output: _Output, engine: EngineName,
                limits: Limits | None, manifest: Manifest | None, deletions: Deletions) -> None:
    while True:
        chunk = lines_in.next_chunk()
        if chunk is None:
            return
        try:
            for number, line in chunk:
                output.put(number, check_one(engine, limits, number, line, manifest,
                                             deletions))
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
                 memory: int | None, manifest: Manifest | None, deletions: Deletions,
                 input_file: _InputFile | None) -> None:
        ours, theirs = context.Pipe()
        self.process = context.Process(target=_serve,
                                       args=(theirs, engine, limits, memory, manifest,
                                             deletions, input_file),
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


def _serve(conn: Connection, engine: EngineName, limits: Limits | None, memory: int | None,
           manifest: Manifest | None, deletions: Deletions = "strict",
           input_file: _InputFile | None = None) -> None:
    """A worker process: check the chunks the batch sends, until it sends None
    (reading the Spans among their lines from ``input_file``)."""
    # Ctrl-C reaches the whole process group: the batch decides what to do.  A
    # fork copied the batch's SIGTERM handler and blocked signals: undo both.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP_SIGNALS)
    memory = _limit_memory(memory)
    input_fd = None if input_file is None else input_file.fd
    parent = os.getppid()
    try:
        while True:
            while not conn.poll(1.0):
                if os.getppid() != parent:
                    return      # the batch was killed: do not linger
            lines = conn.recv()
            if lines is None:
                return
            conn.send(check_lines(engine, limits, lines, memory, manifest, deletions, input_fd))
    except MemoryError:         # the chunk itself, or its results, did not fit
        sys.exit(_EXIT_OUT_OF_MEMORY)
    except (EOFError, OSError):     # the batch is gone
        return


def _context() -> Any:
    """The multiprocessing context (start method) of the workers: the platform's default."""
    import multiprocessing
    return multiprocessing.get_context()


def _check_in_workers(lines_in: _Input, output: _Output, jobs: int, engine: EngineName,
                      limits: Limits | None, memory: int | None, manifest: Manifest | None,
                      deletions: Deletions) -> None:
    from multiprocessing.connection import wait

    context = _context()
    input_fd = lines_in.input_fd
    input_file = None if input_fd is None else _InputFile(_own_descriptor(input_fd))
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
        number, line = task.lines[0]
        task.deaths += 1
        if task.deaths < DEATHS:
            heapq.heappush(retry, (number, task))
            return
        if isinstance(line, Span):
            line = read_span(input_fd, line)
        output.put(number, (FAILED, failed_line(
            number, f"the worker process checking this line died {DEATHS} times "
                    f"(last: {reason})", line_id(line, manifest is not None))))

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
            with _signals_blocked():
                workers.append(_Worker(context, engine, limits, memory, manifest, deletions,
                                       input_file))
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
                        output.put(number, check_one(engine, limits, number, line, manifest,
                                                     deletions, input_fd))
            elif not worker.give(task):
                died(worker)        # it died taking the task: the task counts

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
                    continue        # lines were checked here: read on
                if lines_in.done:
                    return          # the input is done, and every line is written
            # Worker results and the reader's next chunk, whichever comes first.
            ready = set(wait([w.conn for w in busy] + [w.process.sentinel for w in busy]
                             + ([] if lines_in.done else [lines_in.wake])))
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
                if worker.process.sentinel in ready:    # it sent them, then died
                    died(worker)
            output.write_ready()
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
        if input_file is not None and input_file.fd != input_fd:
            os.close(input_file.fd)


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
