"""The answer of a proof checked in segments: the walkers' events, tallied in stream order.

Each segment is checked by one walker (``walk``), and its events arrive in
any order.  The answer is what one check of the whole proof would give: the
earliest of a failing step, the drat-trim reading's end, a problem the
reader found (a malformed step, a size limit: raised once the steps before
it are known to pass) and the proof's end, once every segment before it has
passed.  No answer is given while a step before it is unchecked.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._core.codes import STATUS_EMPTY_CLAUSE_NOT_DERIVED, STATUS_VALID

__all__ = ["Answer", "Tally"]

# (status, step_index, steps_checked, the failing step's clause)
Answer = tuple[int, int, int, list[int]]


class Tally:
    """The events of one proof's segments, and the answer once it is known."""

    def __init__(self, segment_steps: int) -> None:
        self.segment_steps = segment_steps
        self.started = False  # a walker has said whether the CNF holds the empty clause
        self.derived = False  # the CNF or a step taken holds the empty clause
        self.fed = 0  # steps handed to the walkers
        self.ended = False  # the proof ends after ``fed`` steps
        self.problem: BaseException | None = None  # after the steps fed
        self.event: tuple[Any, ...] | None = None  # the earliest failure or end
        self.passed: set[int] = set()
        self.prefix = 0  # segments 0 .. prefix-1 have all passed
        self.work = 0
        self.reasons: list[int] = []
        self.ignored: list[int] = []

    # -- what the reader says -----------------------------------------------------------

    def fed_steps(self, count: int) -> None:
        self.fed += count

    def stop_at(self, problem: BaseException) -> None:
        """Reading stopped at a problem after the steps fed (a malformed line, a
        limit, a read error): nothing more comes."""
        self.problem = problem
        self.ended = True

    def end(self) -> None:
        self.ended = True

    # -- what the walkers say -----------------------------------------------------------

    def record(self, event: tuple[Any, ...]) -> None:
        kind, segment = event[0], event[1]
        if kind == "started":
            self.started = True
            self.derived = self.derived or event[2]
            return
        _, _, work, reasons, ignored, *rest = event
        self.work += work
        self.reasons += reasons
        self.ignored += ignored
        if kind == "passed":
            self.derived = self.derived or rest[0]
            self.passed.add(segment)
            while self.prefix in self.passed:
                self.passed.discard(self.prefix)
                self.prefix += 1
        elif self.event is None or _key(event) < _key(self.event):
            self.event = event

    def horizon(self) -> int | None:
        """The first step whose segment cannot change the answer any more (None:
        every step still can)."""
        if self.event is None:
            return None
        step = int(self.event[5])
        return step + 1 if self.event[0] == "concluded" else step

    # -- the answer ---------------------------------------------------------------------

    def needed(self) -> int | None:
        """The number of leading segments that must pass before the answer is
        known (None: not yet known how many)."""
        if self.event is not None:
            return max(int(self.event[1]), 0)  # its own segment passed up to its step
        if self.ended:
            return -(-self.fed // self.segment_steps)
        return None

    @property
    def decided(self) -> bool:
        needed = self.needed()
        return self.started and needed is not None and self.prefix >= needed

    @property
    def steps_checked(self) -> int:
        """Steps known to pass, from the first on (for progress)."""
        return min(self.prefix * self.segment_steps, self.fed)

    def lost(self, owned: Callable[[int], bool], claimed: int) -> int | None:
        """The first segment the answer may need, of the first ``claimed``, that
        has not passed and is ``owned`` (by a walker that has died), or None."""
        end = claimed
        needed = self.needed()
        if needed is not None:
            end = min(end, needed)
        if self.ended:
            end = min(end, -(-self.fed // self.segment_steps))
        for segment in range(self.prefix, end):
            if segment not in self.passed and owned(segment):
                return segment
        return None

    def answer(self) -> Answer:
        """The answer, once ``decided``; raises the reader's problem when that is
        the answer."""
        assert self.decided
        if self.event is not None:
            step = self.event[5]
            if self.event[0] == "concluded":
                return STATUS_VALID, -1, step + 1, []
            return self.event[6], step, step, self.event[7]
        if self.problem is not None:
            raise self.problem
        # Every step passed: each add was taken, an empty one among them or not.
        status = STATUS_VALID if self.derived else STATUS_EMPTY_CLAUSE_NOT_DERIVED
        return status, -1, self.fed, []

    def deletions(self, steps_checked: int) -> tuple[list[int], list[int]]:
        """(reason deletions, ignored deletions) among the steps checked."""
        return (
            sorted(s for s in self.reasons if s < steps_checked),
            sorted(s for s in self.ignored if s < steps_checked),
        )


def _key(event: tuple[Any, ...]) -> float:
    """Stream order: a failing step before the end after it."""
    return float(event[5]) + (0.5 if event[0] == "concluded" else 0.0)
