"""The output of a batch: its lines written in input order, and its totals."""

from __future__ import annotations

from typing import IO, TYPE_CHECKING

from .console import BatchProgress, WriteError

if TYPE_CHECKING:
    from .protocol import Checked
    from .signals import StopSignals

__all__ = ["BatchTotals", "OrderedOutput"]


class OrderedOutput:
    """Output lines, written in input order as soon as they are contiguous."""

    def __init__(self, out: IO[str], progress: BatchProgress, signals: StopSignals) -> None:
        self.out = out
        self.progress = progress
        self.signals = signals
        self.counts = [0, 0, 0, 0]  # lines written: valid, not valid, rejected, failed
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
                raise WriteError(exc) from None
        self.progress.update(self.counts)


class BatchTotals:
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
