"""The reference engine: the unsat check of docs/semantics.md written plainly.

This module is the executable specification of the unsat check.  The compiled
engine (``_engine_c.pyx``) implements the same algorithm and must agree with it
on every verdict and on the work counter to the unit.

Input is flat integer arrays (CSR style), filled by ``_validate``:

* ``clause_offsets`` (m + 1 entries) and ``clause_lits``: the CNF clauses, as
  given (repeats included); every literal is in ``1..num_vars`` in magnitude.
* ``step_kinds`` (one per proof step), ``step_offsets`` (n + 1 entries) and
  ``step_lits``: the proof steps as given.  An ``add`` with a literal out of
  range, and a ``delete`` that can match no clause, get their own kinds, so the
  engine never sees a literal outside ``1..num_vars``.

``Kernel(...).run()`` returns plain ints ``(status, step_index, steps_checked,
work)``; ``_report`` turns them into a result or an error.

``run(progress)`` calls ``progress(steps_checked, work)`` each time the counter
has grown by ``poll_interval`` (2**20) since the last call, looking before
each step and before each trail literal that ``propagate`` takes; an exception
it raises stops the run.  The compiled engine looks between clause visits
instead, so the calls fall at nearby, not equal, points; the polls change
nothing else.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from ._codes import (
    STATUS_DELETED_CLAUSE_NOT_FOUND,
    STATUS_EMPTY_CLAUSE_NOT_DERIVED,
    STATUS_LEMMA_NOT_RUP,
    STATUS_LITERAL_OUT_OF_RANGE,
    STATUS_VALID,
    STATUS_WORK_LIMIT,
    STEP_ADD,
    STEP_ADD_OUT_OF_RANGE,
    STEP_DELETE,
    STEP_DELETE_NO_MATCH,
)

if TYPE_CHECKING:
    from ._types import Ints, Progress

NONE = -1           # "no clause" for propagate() and conflict
UNASSIGNED = 0
TRUE = 1
FALSE = -1

# Kinds of stored clause (SPEC §4.2).
TAUTOLOGY = 0
EMPTY = 1
UNIT = 2
LONG = 3

POLL_INTERVAL = 1 << 20     # work between two calls of run()'s progress callback
NEVER = 1 << 64             # next_poll without a callback: the counter never gets there


def distinct_literals(lits: Iterable[int]) -> list[int]:
    """The distinct literals of a clause, in order of first occurrence."""
    seen = set()
    out = []
    for lit in lits:
        if lit not in seen:
            seen.add(lit)
            out.append(lit)
    return out


def is_tautology(distinct: list[int]) -> bool:
    present = set(distinct)
    return any(-lit in present for lit in distinct)


class Kernel:
    """The clause multiset, watch lists and level-0 state of one unsat check."""

    num_vars: int
    clause_offsets: Ints
    clause_lits: Ints
    step_kinds: Ints
    step_offsets: Ints
    step_lits: Ints
    max_work: int
    lits: list[list[int]]
    kind: list[int]
    live: list[bool]
    by_set: dict[tuple[int, ...], list[int]]
    units: list[int]
    live_empty: int
    watches: dict[int, list[int]]
    values: list[int]
    reason: list[int]
    trail: list[int]
    qhead: int
    conflict: int
    work: int
    reason_deletions: list[int]

    def __init__(self, num_vars: int, clause_offsets: Ints, clause_lits: Ints,
                 step_kinds: Ints, step_offsets: Ints, step_lits: Ints,
                 max_work: int) -> None:
        self.num_vars = num_vars
        self.clause_offsets = clause_offsets
        self.clause_lits = clause_lits
        self.step_kinds = step_kinds
        self.step_offsets = step_offsets
        self.step_lits = step_lits
        self.max_work = max_work

        self.lits = []          # per clause id: distinct literals (permuted by watching)
        self.kind = []          # per clause id: TAUTOLOGY, EMPTY, UNIT or LONG
        self.live = []          # per clause id: not deleted yet
        self.by_set = {}        # sorted literal tuple -> ids of live clauses, ascending
        self.units = []         # ids of live unit clauses, ascending
        self.live_empty = 0
        self.watches = {}       # literal -> list of long clause ids
        self.values = [UNASSIGNED] * (num_vars + 1)
        self.reason = [NONE] * (num_vars + 1)
        self.trail = []
        self.qhead = 0
        self.conflict = NONE
        self.work = 0
        self.steps_checked = 0  # steps that succeeded so far (what a poll reports)
        self.progress: Progress | None = None
        self.poll_interval = POLL_INTERVAL
        self.next_poll = NEVER  # the counter's value due for a call of progress
        # Steps whose delete removed the reason of a level-0 literal (for --explain).
        self.reason_deletions = []

    # -- values and assignment ------------------------------------------------

    def value(self, lit: int) -> int:
        v = self.values[abs(lit)]
        return v if lit > 0 else -v

    def assign(self, lit: int, reason: int) -> None:
        self.values[abs(lit)] = TRUE if lit > 0 else FALSE
        self.reason[abs(lit)] = reason
        self.trail.append(lit)
        self.work += 1

    def undo_to(self, length: int) -> None:
        while len(self.trail) > length:
            self.values[abs(self.trail.pop())] = UNASSIGNED
        self.qhead = length

    def inconsistent(self) -> bool:
        return self.live_empty > 0 or self.conflict != NONE

    # -- the clause store -----------------------------------------------------

    def store(self, given: Sequence[int]) -> tuple[int, int]:
        """Store a clause under the next id and return (id, kind); no watching."""
        distinct = distinct_literals(given)
        if is_tautology(distinct):
            kind = TAUTOLOGY
        elif not distinct:
            kind = EMPTY
        elif len(distinct) == 1:
            kind = UNIT
        else:
            kind = LONG
        cid = len(self.lits)
        self.lits.append(distinct)
        self.kind.append(kind)
        self.live.append(True)
        self.by_set.setdefault(tuple(sorted(distinct)), []).append(cid)
        if kind == EMPTY:
            self.live_empty += 1
        elif kind == UNIT:
            self.units.append(cid)
        return cid, kind

    def watch(self, cid: int) -> None:
        lits = self.lits[cid]
        self.watches.setdefault(lits[0], []).append(cid)
        self.watches.setdefault(lits[1], []).append(cid)

    # -- SPEC §4.3 --------------------------------------------------------------

    def poll(self) -> None:
        """Call progress (run() has set next_poll only when there is one)."""
        self.next_poll = self.work + self.poll_interval
        assert self.progress is not None
        self.progress(self.steps_checked, self.work)

    def propagate(self) -> int:
        while self.qhead < len(self.trail):
            if self.work >= self.next_poll:
                self.poll()
            p = self.trail[self.qhead]
            self.qhead += 1
            f = -p                                  # f just became FALSE
            ws = self.watches.get(f, [])
            i = j = 0
            while i < len(ws):
                c = ws[i]
                i += 1
                self.work += 1
                L = self.lits[c]
                if L[0] == f:
                    L[0], L[1] = L[1], L[0]         # now L[1] == f
                if self.value(L[0]) == TRUE:
                    ws[j] = c
                    j += 1
                    continue
                moved = False
                for k in range(2, len(L)):
                    self.work += 1
                    if self.value(L[k]) != FALSE:
                        L[1], L[k] = L[k], L[1]
                        self.watches.setdefault(L[1], []).append(c)  # c leaves ws
                        moved = True
                        break
                if moved:
                    continue
                ws[j] = c
                j += 1
                if self.value(L[0]) == FALSE:
                    # Conflict: keep the rest of ws, stop.
                    ws[j:] = ws[i:]
                    self.qhead = len(self.trail)
                    return c
                self.assign(L[0], c)
            del ws[j:]
        return NONE

    def build(self) -> None:
        """The level-0 build: units in id order, then propagation."""
        self.undo_to(0)
        self.conflict = NONE
        for cid in self.units:
            lit = self.lits[cid][0]
            v = self.value(lit)
            if v == TRUE:
                continue
            if v == FALSE:
                self.conflict = cid
                return
            self.assign(lit, cid)
        self.conflict = self.propagate()

    def is_rup(self, distinct: list[int], tautology: bool) -> bool:
        if tautology or self.inconsistent():
            return True
        level0 = len(self.trail)
        rup = False
        for lit in distinct:
            v = self.value(lit)
            if v == TRUE:
                rup = True
                break
            if v == UNASSIGNED:
                self.assign(-lit, NONE)
        if not rup:
            rup = self.propagate() != NONE
        self.undo_to(level0)
        return rup

    def attach(self, cid: int, kind: int) -> None:
        """Attach a successful lemma that store() has just stored."""
        if kind == UNIT:
            if self.inconsistent():
                return
            lit = self.lits[cid][0]
            v = self.value(lit)
            if v == FALSE:
                self.conflict = cid
            elif v == UNASSIGNED:
                self.assign(lit, cid)
                self.conflict = self.propagate()
            return
        if kind != LONG:
            return                                  # tautology, or empty (counted)
        if self.inconsistent():
            self.watch(cid)
            return
        L = self.lits[cid]
        found = 0
        for pos in (0, 1):
            for k in range(pos, len(L)):
                if self.value(L[k]) != FALSE:
                    L[pos], L[k] = L[k], L[pos]
                    found += 1
                    break
            if found == pos:                        # nothing found for this position
                break
        self.watch(cid)
        if found == 0:
            self.conflict = cid
        elif found == 1 and self.value(L[0]) == UNASSIGNED:
            self.assign(L[0], cid)
            self.conflict = self.propagate()

    def delete(self, cid: int, s: int) -> None:
        """Remove a live clause (at step s); rebuild the level-0 state when it held it up."""
        self.live[cid] = False
        kind = self.kind[cid]
        L = self.lits[cid]
        rebuild = cid == self.conflict
        if kind == EMPTY:
            self.live_empty -= 1
            rebuild = rebuild or self.live_empty == 0
        elif kind in (UNIT, LONG):
            if kind == UNIT:
                self.units.remove(cid)
            else:
                self.watches[L[0]].remove(cid)
                self.watches[L[1]].remove(cid)
            if self.value(L[0]) == TRUE and self.reason[abs(L[0])] == cid:
                self.reason_deletions.append(s)
                rebuild = True
        if rebuild:
            self.build()

    # -- the whole check ----------------------------------------------------------

    def step_clause(self, s: int) -> Sequence[int]:
        return self.step_lits[self.step_offsets[s]:self.step_offsets[s + 1]]

    def run(self, progress: Progress | None = None,
            poll_interval: int = POLL_INTERVAL) -> tuple[int, int, int, int]:
        """Check the proof; return (status, step_index, steps_checked, work).

        ``progress(steps_checked, work)``, when given, is called about every
        ``poll_interval`` units of work (see the module note); an exception it
        raises stops the run and propagates.
        """
        if progress is not None and not callable(progress):
            raise TypeError(f"progress must be callable, not {type(progress).__name__}")
        if poll_interval < 1:
            raise ValueError(f"poll_interval must be >= 1, got {poll_interval}")
        self.progress = progress
        self.poll_interval = poll_interval
        self.next_poll = NEVER if progress is None else poll_interval
        offsets = self.clause_offsets
        derived_empty = False
        for k in range(len(offsets) - 1):
            cid, kind = self.store(self.clause_lits[offsets[k]:offsets[k + 1]])
            derived_empty = derived_empty or kind == EMPTY
            if kind == LONG:
                self.watch(cid)
        self.build()
        if self.work > self.max_work:
            return STATUS_WORK_LIMIT, -1, 0, self.work

        steps = len(self.step_kinds)
        for s in range(steps):
            self.steps_checked = s
            if self.work >= self.next_poll:
                self.poll()
            status = self.step(s)
            if self.work > self.max_work:
                return STATUS_WORK_LIMIT, s, s, self.work
            if status == STATUS_VALID:
                if self.step_kinds[s] == STEP_ADD and self.kind[-1] == EMPTY:
                    derived_empty = True
                continue
            return status, s, s, self.work
        if not derived_empty:
            return STATUS_EMPTY_CLAUSE_NOT_DERIVED, -1, steps, self.work
        return STATUS_VALID, -1, steps, self.work

    def step(self, s: int) -> int:
        kind = self.step_kinds[s]
        if kind == STEP_ADD_OUT_OF_RANGE:
            return STATUS_LITERAL_OUT_OF_RANGE
        if kind == STEP_DELETE_NO_MATCH:
            return STATUS_DELETED_CLAUSE_NOT_FOUND
        given = self.step_clause(s)
        if kind == STEP_DELETE:
            ids = self.by_set.get(tuple(sorted(set(given))))
            if not ids:
                return STATUS_DELETED_CLAUSE_NOT_FOUND
            cid = ids.pop()                         # the live equal clause with the highest id
            self.delete(cid, s)
            return STATUS_VALID
        distinct = distinct_literals(given)
        if not self.is_rup(distinct, is_tautology(distinct)):
            return STATUS_LEMMA_NOT_RUP
        cid, stored_kind = self.store(given)
        self.attach(cid, stored_kind)
        return STATUS_VALID
