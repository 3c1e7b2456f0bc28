"""SIGINT and SIGTERM while a batch runs: they stop it once the lines already
checked are written, never in the middle of an output line."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["STOP_SIGNALS", "Stop", "StopSignals", "signals_blocked"]

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Stop(BaseException):
    """The batch stops, keeping what is finished: raised by the SIGINT or
    SIGTERM handler (StopSignals), and in the reader thread when the batch
    tells it to stop."""


class StopSignals:
    """While a batch runs, SIGINT and SIGTERM raise Stop, except that a write in
    progress ends first (output lines stay whole); a second signal does not wait.

    ``signum`` is the first signal received.  Only the main thread can take
    signals, and an ignored signal stays ignored.
    """

    def __init__(self) -> None:
        self.signum: int | None = None
        self._writing = False
        self._pending = False
        self._saved: dict[int, Any] = {}

    def __enter__(self) -> StopSignals:
        defaults = {signal.SIGINT: signal.default_int_handler, signal.SIGTERM: signal.SIG_DFL}
        for signum, default in defaults.items():
            if signal.getsignal(signum) is default:
                try:
                    self._saved[signum] = signal.signal(signum, self._handle)
                except ValueError:  # not the main thread
                    break
        return self

    def __exit__(self, kind: type[BaseException] | None, *rest: object) -> bool:
        for signum, handler in self._saved.items():
            signal.signal(signum, handler)
        return kind is not None and issubclass(kind, Stop)

    def _handle(self, signum: int, frame: object) -> None:
        if self.signum is None:
            self.signum = signum
            if self._writing:
                self._pending = True
                return
        raise Stop

    @contextmanager
    def writing(self) -> Iterator[None]:
        self._writing = True
        try:
            yield
        finally:
            self._writing = False
        if self._pending:
            self._pending = False
            raise Stop


@contextmanager
def signals_blocked() -> Iterator[None]:
    """SIGINT and SIGTERM wait (a worker being started inherits the mask and
    unblocks them once its own handlers are set)."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)
