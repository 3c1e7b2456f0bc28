"""Standard error and output of the commands: the progress line, and the error
of a write to standard output that failed.

The progress line of a long check (ProgressLine) is shown on a terminal once
a check has run for a second (``--progress`` shows it anywhere, ``--quiet``
never): the steps checked, steps per second, and the bytes of the proof
read, of its size when it is known (a percentage, and the time left at the
pace so far).  On a terminal the line is rewritten in
place and erased at the end; elsewhere (a log) a line is written every few
seconds.  The progress line of a batch (BatchProgress)
counts the lines written, on a terminal only.
"""

from __future__ import annotations

import io
import sys
import time
from collections.abc import Callable
from typing import IO

__all__ = ["BatchProgress", "ProgressLine", "WriteError"]


class WriteError(Exception):
    """Standard output could not be written: a write error, never a read error."""

    def __init__(self, error: OSError) -> None:
        super().__init__(error)
        self.error = error


class ProgressLine:
    """Feed it ``steps(steps_checked, work)`` and ``bytes(read, total)``, the
    ``progress=`` and ``reading=`` callbacks; ``close()`` at the end."""

    DELAY = 1.0  # seconds before anything is shown
    EVERY_TERMINAL = 0.25  # seconds between two updates on a terminal
    EVERY_LOG = 5.0  # ... and elsewhere

    def __init__(
        self, stream: IO[str] | None, show: bool | None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        # Without a stream the line is never enabled, so never written.
        self._stream: IO[str] = stream if stream is not None else io.StringIO()
        self._terminal = stream is not None and _is_terminal(stream)
        self._enabled = stream is not None and (self._terminal if show is None else show)
        self._clock = clock
        self._start = self._clock()
        self._next = self._start + self.DELAY
        self._steps = 0
        self._read = 0
        self._total: int | None = None
        self._shown = False

    def steps(self, steps_checked: int, work: int) -> None:
        self._steps = steps_checked
        self._maybe_show()

    def bytes(self, read: int, total: int | None) -> None:
        self._read, self._total = read, total
        self._maybe_show()

    def _maybe_show(self) -> None:
        if not self._enabled:
            return
        now = self._clock()
        if now < self._next:
            return
        self._next = now + (self.EVERY_TERMINAL if self._terminal else self.EVERY_LOG)
        text = self.text(now - self._start)
        if self._write(f"\r{text}\x1b[K" if self._terminal else f"sat-claim-check: {text}\n"):
            self._shown = True

    def text(self, elapsed: float) -> str:
        rate = self._steps / elapsed if elapsed > 0 else 0.0
        line = f"checked {self._steps:,} steps ({rate:,.0f} steps/s)"
        if self._read:
            line += f", read {_size(self._read)}"
            if self._total:
                line += f" of {_size(self._total)} ({100 * self._read / self._total:.0f}%)"
                if self._read < self._total:
                    # The bytes read so far set the pace of the rest: rough, and said so.
                    left = elapsed * (self._total - self._read) / self._read
                    return line + f", {elapsed:.0f} s, about {_duration(left)} left"
        return line + f", {elapsed:.0f} s"

    def close(self) -> None:
        """Erase the line on a terminal (the result follows on stdout)."""
        if self._shown and self._terminal:
            try:
                self._stream.write("\r\x1b[K")
                self._stream.flush()
            except (OSError, ValueError):
                pass
        self._shown = False

    def _out(self) -> IO[str]:
        """The stream the line is written on."""
        return self._stream

    def _write(self, data: str) -> bool:
        """Write ``data``, flushed; False (and the line is shown no more) when that
        fails: a closed or broken stderr."""
        stream = self._out()
        try:
            stream.write(data)
            stream.flush()
        except (OSError, ValueError):
            self._enabled = False
            return False
        return True


class BatchProgress(ProgressLine):
    """The progress line of a batch on stderr, only when stderr is a terminal:
    the lines written by kind, and how far ``stream``, the input, is read (a
    bar, when its size ``total_bytes`` is known).  Feed it ``update(counts)``;
    ``close()`` at the end."""

    EVERY_TERMINAL = 0.2

    def __init__(self, stream: IO[bytes], total_bytes: int) -> None:
        super().__init__(None, None)
        self._enabled = sys.stderr is not None and sys.stderr.isatty()
        self.tell: Callable[[], int] = lambda: stream.tell()  # how far the input is read
        self.total = total_bytes
        self.last = 0.0

    def update(self, counts: list[int]) -> None:
        """``counts``: the lines written, [valid, not valid, rejected, failed]."""
        now = time.monotonic()
        if not self._enabled or now - self.last < self.EVERY_TERMINAL:
            return
        self.last = now
        line = f"{sum(counts)} lines ({counts[0]} valid, {counts[1]} not, {counts[2]} rejected"
        failed = counts[3]
        line += f", {failed} failed)" if failed else ")"
        if self.total:
            # The reader runs a few chunks ahead of the writer: close enough.
            frac = min(1.0, self.tell() / self.total)
            bar = "#" * int(30 * frac)
            line = f"[{bar:<30}] {100 * frac:3.0f}% {line}"
        self._write("\r" + line)

    def close(self) -> None:
        if self._enabled:
            self._write("\r\033[K")

    def _out(self) -> IO[str]:
        return sys.stderr  # whatever it is at the time


def _is_terminal(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (OSError, ValueError):
        return False


def _size(n: int) -> str:
    if n < 1000:
        return f"{n} B"
    value = n / 1000
    for unit in ("KB", "MB"):
        if value < 1000:
            return f"{value:.1f} {unit}"
        value /= 1000
    return f"{value:.1f} GB"


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
