"""The progress line of a long check on standard error.

Shown on a terminal once a check has run for a second (``--progress`` shows it
anywhere, ``--quiet`` never): the steps checked, steps per second, and the
bytes of the proof read, of its size when it is known.  On a terminal the
line is rewritten in place and erased at the end; elsewhere (a log) a line
is written every few seconds.
"""

from __future__ import annotations

import io
import time
from collections.abc import Callable
from typing import IO

__all__ = ["ProgressLine"]


class ProgressLine:
    """Feed it ``steps(steps_checked, work)`` and ``bytes(read, total)``, the
    ``progress=`` and ``reading=`` callbacks; ``close()`` at the end."""

    DELAY = 1.0                 # seconds before anything is shown
    EVERY_TERMINAL = 0.25       # seconds between two updates on a terminal
    EVERY_LOG = 5.0             # ... and elsewhere

    def __init__(self, stream: IO[str] | None, show: bool | None,
                 clock: Callable[[], float] = time.monotonic) -> None:
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
        try:
            if self._terminal:
                self._stream.write(f"\r{text}\x1b[K")
            else:
                self._stream.write(f"sat-claim-check: {text}\n")
            self._stream.flush()
        except (OSError, ValueError):       # a closed or broken stderr: stop showing
            self._enabled = False
            return
        self._shown = True

    def text(self, elapsed: float) -> str:
        rate = self._steps / elapsed if elapsed > 0 else 0.0
        line = f"checked {self._steps:,} steps ({rate:,.0f} steps/s)"
        if self._read:
            line += f", read {_size(self._read)}"
            if self._total:
                line += f" of {_size(self._total)} ({100 * self._read / self._total:.0f}%)"
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
