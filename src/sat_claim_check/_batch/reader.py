"""The input of a batch in chunks of numbered lines, read ahead by a thread;
and the input file as a worker process gets it, to read its Spans."""

from __future__ import annotations

import os
import queue
import select
import signal
import stat
import threading
import time
from collections.abc import Callable, Iterable
from contextlib import suppress
from typing import IO, Any

from .lines import LineReader, Numbered, numbered_lines, numbered_spans
from .signals import STOP_SIGNALS, Stop

__all__ = ["CHUNK_LINES", "Input", "InputFile", "own_descriptor"]

CHUNK_LINES = 32  # lines per task sent to a worker
_READ_BYTES = 1 << 16  # bytes read from the input descriptor at a time
_QUEUED_CHUNKS = 4  # chunks the reader thread holds ready, at most


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
                raise Stop
        data = os.read(self._fd, _READ_BYTES)
        self._eof = not data
        self._buf += data


class Input:
    """The input in chunks of numbered lines, read ahead by a thread so that
    waiting for input never delays writing the lines already checked.

    A chunk holds CHUNK_LINES lines, fewer when the next read would block (a
    slow pipe) or at the end.  A read error ends the input and is kept.  With
    ``spans``, the lines of an input that is a regular file are scanned by
    offset (numbered_spans), its long lines given as Spans of it
    (``input_fd``), for workers to read themselves; once closed, the file
    stands where the scan ended, as after reading it.
    """

    def __init__(
        self, stream: IO[bytes], max_line_bytes: int | None = None, spans: bool = False
    ) -> None:
        self._stream = stream
        self._max_line_bytes = max_line_bytes
        found = _input_file(stream) if spans else None
        self._scan = None if found is None else numbered_spans(*found, max_line_bytes)
        self._queue: queue.Queue[list[Numbered] | None] = queue.Queue(_QUEUED_CHUNKS)
        self._chunk: list[Numbered] = []  # the reader thread's chunk being filled
        self._stopping = False
        self._failure: BaseException | None = None  # not an OSError: raised in the batch
        self._thread: threading.Thread | None = None
        self.wake = -1  # readable when a chunk (or the end) has been queued
        self._wake_w = self._stop_r = self._stop_w = -1
        self.read = 0  # lines taken so far
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
                while True:  # make room: it may be waiting to queue a chunk
                    self._queue.get_nowait()
            thread.join(0.01)
        if not thread.is_alive():  # else a stream that blocks and has no descriptor
            for fd in (self.wake, self._wake_w, self._stop_r, self._stop_w):
                os.close(fd)
            if self._scan is not None:  # a shared descriptor moves on, as if read
                with suppress(OSError, ValueError):
                    self._stream.seek(self._scan.position)
        self._thread = None

    def _run(self) -> None:
        if hasattr(signal, "pthread_sigmask"):  # signals are the main thread's
            signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
        with suppress(Stop):
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
            except OSError as exc:  # the lines before it are still checked
                self.error = exc
            except Stop:
                raise
            except BaseException as exc:  # e.g. MemoryError: the batch raises it
                self._failure = exc
            self._flush()
            self._put(None)

    def _source(self) -> LineReader:
        """Where the lines are read: the descriptor itself when it can be waited on."""
        try:
            fd = self._stream.fileno()
            select.select([fd], [], [], 0)
        except (OSError, ValueError, AttributeError):
            return self._stream  # a file object of Python's (BytesIO...): never waits
        return _FdReader(fd, self._stop_r, self._flush)

    def _flush(self) -> None:
        if self._chunk:
            chunk, self._chunk = self._chunk, []
            self._put(chunk)

    def _put(self, chunk: list[Numbered] | None) -> None:
        if self._stopping:
            raise Stop
        self._queue.put(chunk)
        if self._stopping:
            raise Stop
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


class InputFile:
    """The input file's descriptor as a worker process gets it: inherited
    through a fork, or duplicated into the worker by the other start methods
    (as multiprocessing does for a Connection)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def __reduce__(self) -> tuple[Callable[[Any], InputFile], tuple[Any]]:
        from multiprocessing.reduction import DupFd

        return _input_file_from, (DupFd(self.fd),)


def _input_file_from(duplicate: Any) -> InputFile:
    return InputFile(duplicate.detach())


def own_descriptor(fd: int) -> int:
    """A duplicate of ``fd`` for the workers, which nothing in them closes (a
    worker closes its sys.stdin, which may own the input's descriptor); ``fd``
    itself when no descriptor is left."""
    try:
        return os.dup(fd)
    except OSError:
        return fd
