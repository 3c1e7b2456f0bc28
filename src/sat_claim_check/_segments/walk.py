"""A worker's walk through a proof: its own segments checked, the others replayed.

The steps of a proof are cut into segments of ``segment_steps`` steps.  Every
walker sees every step, in order.  At each segment's first step it asks
``claim(segment)``: ``CHECK`` (its own: ``Kernel.feed`` checks it),
``REPLAY`` (another walker's: ``Kernel.replay`` brings this kernel's clauses
to where that check leaves them, at a fraction of the cost) or ``STOP``
(nothing from there on can change the answer).  A walker stops at its own
first failing step and at the drat-trim reading's end, wherever it meets
it.  ``start_events``, then what ``take`` and ``end`` return, are its
events, for ``verdict.Tally``:

* ``("started", -1, derived)`` (``derived``: the CNF holds the empty
  clause);
* ``("passed", segment, work, reasons, ignored, derived)`` when every step
  of it passed: ``work`` is what its check counted, ``reasons`` and
  ``ignored`` the steps of it whose delete removed a reason (strict) or was
  ignored, ``derived`` whether the CNF or a step up to its end holds the
  empty clause;
* ``("failed", segment, work, reasons, ignored, step, status, clause)`` at
  its failing step (``clause``: the step's literals as given);
* ``("concluded", segment, work, reasons, ignored, step)`` where the
  drat-trim reading ends valid, after ``step`` (segment and step -1: the
  CNF alone).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._core.codes import STATUS_CONCLUDED, STATUS_VALID
from ..limits import CEILINGS

if TYPE_CHECKING:
    from array import array
    from collections.abc import Callable

    from .._core.types import KernelModule

__all__ = ["CHECK", "REPLAY", "STOP", "Walker"]

CHECK, REPLAY, STOP = 0, 1, 2
Event = tuple[Any, ...]
UNCAPPED = CEILINGS["max_propagation_work"]  # the exact counter is a one-core check's


class Walker:
    """One kernel walking a proof: ``start_events`` first, then ``take`` each
    chunk of steps in order, then ``end``; both return the events of what it
    checked."""

    def __init__(
        self,
        kernel_module: KernelModule,
        reading_code: int,
        cnf: tuple[int, array[int], array[int]],
        segment_steps: int,
        claim: Callable[[int], int],
    ) -> None:
        num_vars, offsets, lits = cnf
        self.kernel = kernel_module.Kernel(
            num_vars, offsets, lits, None, None, None, UNCAPPED, reading_code
        )
        self.segment_steps = segment_steps
        self.claim = claim
        self.position = 0  # the index of the next step
        self.mine = -1  # the segment being checked here, or -1
        self.stopped = False
        self.work = 0  # what the current segment's check has counted
        self.marks = (0, 0)  # the deletion lists' lengths when it began
        concluded = self.kernel.start() == STATUS_CONCLUDED
        self.start_events: list[Event] = [("started", -1, self.kernel.derived_empty)]
        if concluded:  # the CNF alone is inconsistent
            self.start_events.append(("concluded", -1, 0, [], [], -1))
            self.stopped = True

    def take(self, kinds: Any, offsets: Any, lits: Any) -> list[Event]:
        """Walk on through a chunk of steps (``offsets`` index ``lits``)."""
        events: list[Event] = []
        a, n = 0, len(kinds)
        while a < n and not self.stopped:
            segment, within = divmod(self.position, self.segment_steps)
            if within == 0:
                self._begin(segment, events)
                if self.stopped:
                    break
            b = min(n, a + self.segment_steps - within)
            if self.mine == segment:
                self._check(kinds, offsets, lits, a, b, events)
            elif self.kernel.replay(kinds[a:b], offsets[a : b + 1], lits)[0] == STATUS_CONCLUDED:
                self.stopped = True  # a check ends there: the walker that checks it says so
            if self.stopped:
                break
            self.position += b - a
            a = b
            if self.mine == segment and self.position % self.segment_steps == 0:
                self._passed(events)
        return events

    def end(self) -> list[Event]:
        """The proof ends here: a segment being checked has passed."""
        events: list[Event] = []
        if not self.stopped and self.mine >= 0:
            self._passed(events)
        self.stopped = True
        return events

    def _begin(self, segment: int, events: list[Event]) -> None:
        decision = self.claim(segment)
        if decision == STOP:
            self.stopped = True
        elif decision == CHECK:
            self.mine = segment
            self.work = 0
            self.marks = (len(self.kernel.reason_deletions), len(self.kernel.ignored_deletions))
        else:
            self.mine = -1

    def _check(
        self, kinds: Any, offsets: Any, lits: Any, a: int, b: int, events: list[Event]
    ) -> None:
        before = self.kernel.work
        status, i = self.kernel.feed(kinds[a:b], offsets[a : b + 1], lits)
        self.work += self.kernel.work - before
        if status == STATUS_VALID:
            return
        self.stopped = True
        step = self.position + i
        if status == STATUS_CONCLUDED:
            events.append(("concluded", *self._seen(), step))
        else:
            clause = lits[offsets[a + i] : offsets[a + i + 1]]
            events.append(("failed", *self._seen(), step, status, list(clause)))

    def _passed(self, events: list[Event]) -> None:
        events.append(("passed", *self._seen(), self.kernel.derived_empty))
        self.mine = -1

    def _seen(self) -> tuple[int, int, list[int], list[int]]:
        """(segment, work, reasons, ignored) of the segment being checked: what its
        check counted and saw of deletions (those of replayed steps are not its)."""
        reasons = self.kernel.reason_deletions[self.marks[0] :].tolist()
        ignored = self.kernel.ignored_deletions[self.marks[1] :].tolist()
        return self.mine, self.work, reasons, ignored
