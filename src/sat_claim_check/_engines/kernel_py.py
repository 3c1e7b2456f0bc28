# Read beside kernel_c.pyx: the same sections, in the same order, with the same
# names (``name`` here is ``_name`` there).  Its C-only parts, with no counterpart
# here (memory, collection, loading and its checks), are in kernel_arena.pxi.
"""The reference engine: the unsat check of docs/semantics.md written plainly.

This module is the executable specification of the unsat check.  The compiled
engine (``kernel_c.pyx``) implements the same algorithm and must agree with it
on every verdict and on the work counter to the unit.

Input is flat integer arrays (CSR style), filled by ``_core.validate``:

* ``clause_offsets`` (m + 1 entries) and ``clause_lits``: the CNF clauses, as
  given (repeats included); every literal is in ``1..num_vars`` in magnitude.
* ``kinds`` (one per proof step), ``offsets`` (one more) and ``lits``: proof
  steps as given, step ``s`` being ``lits[offsets[s]:offsets[s + 1]]``.  An
  ``add`` with a literal out of range, and a ``delete`` that can match no
  clause, get their own kinds, so the engine never sees a literal outside
  ``1..num_vars``.

A kernel is fed step by step::

    k = Kernel(num_vars, clause_offsets, clause_lits, None, None, None, max_work)
    k.start(progress=None)          # the CNF and the initial build -> status
    k.feed(kinds, offsets, lits)    # a chunk of steps -> (status, index in the chunk)
    k.feed_step(kind, lits, steps_left, literals_left)  # one plain step -> status, or None
    ...
    k.finish()                      # -> (status, step_index, steps_checked, work)

``start`` returns ``STATUS_VALID``, or ``STATUS_WORK_LIMIT`` when the initial
build passed the cap.  ``feed`` checks its steps in order and stops at the
first that fails or passes the cap, returning its status and its index in the
chunk (``STATUS_VALID, -1`` when every step succeeded); steps are numbered
across calls.  ``finish`` gives the outcome, the conclusion included (is the
empty clause in?).  After a step failed, or after ``finish``, ``feed`` raises
RuntimeError; ``finish`` can be asked again.  ``start`` always starts afresh.
``reason_deletions`` lists, across calls, the steps whose delete removed the
reason of a level-0 literal.  ``feed_step`` is ``feed`` of one step in the
common case (the Checker's ``add``/``delete``: a plain list of plain ints in
range, within the room left under the proof limits); it declines any other
step (None, nothing changed), and the caller takes the exact way.

``Kernel(..., max_work, reading)`` takes the reading of the proof as a
``READING_*`` code (a bool as well: False strict, True lenient; anything else
raises ValueError).  ``READING_LENIENT`` reads deletions leniently
(docs/semantics.md, "Lenient deletions"): a delete that matches no live
clause, or would remove a unit clause or the reason of a level-0 literal, is
ignored (it succeeds, changes nothing and counts no work);
``ignored_deletions`` lists those steps, across calls (always empty when
strict, as ``reason_deletions`` is when lenient).  ``READING_DRAT_TRIM``
reads deletions so too, and ends the check valid at the first step boundary
where the level-0 state is inconsistent (docs/semantics.md, "The drat-trim
reading"): ``start`` (the CNF alone) or ``feed`` (at the step that made it
so, after the cap is checked) returns ``STATUS_CONCLUDED``, the check stops
there as after a failing step, ``concluded()`` is then True and ``finish``
returns ``STATUS_VALID`` with the steps checked up to that point.

One call at a time: a call made while another runs (from its progress
callback, or from a second thread) raises RuntimeError ("already running")
and changes nothing, as the compiled kernel does.

``Kernel(num_vars, clause_offsets, clause_lits, step_kinds, step_offsets,
step_lits, max_work).run()`` checks a whole proof held in memory: ``start``,
``feed``, ``finish``.  ``_core.report`` turns the plain ints into a result or an
error.

Memory follows the live clauses: a deleted clause leaves every structure (its
id is never used again).

``start(progress)`` arranges for ``progress(steps_checked, work)`` to be called
each time the counter has grown by ``poll_interval`` (2**20) since the last
call, looking before each step and before each trail literal that
``propagate`` takes, across ``feed`` calls; an exception it raises stops the
check.  The compiled engine looks between clause visits instead, so the calls
fall at nearby, not equal, points; the polls change nothing else.
"""

from __future__ import annotations

import threading
from array import array
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from .._core.codes import (
    READING_DRAT_TRIM,
    READING_STRICT,
    STATUS_CONCLUDED,
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
    check_sink,
    reading_code,
)
from .lrat_py import FLUSH_BYTES, LratLines

if TYPE_CHECKING:
    from .._core.types import Ints, Progress

NONE = -1  # "no clause" for propagate() and conflict
UNASSIGNED = 0
TRUE = 1
FALSE = -1

# Kinds of stored clause (SPEC §4.2).
TAUTOLOGY = 0
EMPTY = 1
UNIT = 2
LONG = 3

# Where a kernel is: before start(), checking steps, stopped at a step (or by
# the cap), finished, or broken: an exception (from a poll) left a call midway,
# and the check must be started again.
NEW = 0
CHECKING = 1
STOPPED = 2
FINISHED = 3
BROKEN = 4

POLL_INTERVAL = 1 << 20  # work between two calls of the progress callback
RUN_SLICE = 1 << 16  # run() feeds the proof in slices of this many steps
NEVER = 1 << 64  # next_poll without a callback: the counter never gets there
ALREADY_RUNNING = "this Kernel is already running (use one Kernel per request, one call at a time)"


def _check_polling(progress: Progress | None, poll_interval: int) -> None:
    """TypeError or ValueError unless start()'s polling arguments are usable."""
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be callable, not {type(progress).__name__}")
    if poll_interval < 1:
        raise ValueError(f"poll_interval must be >= 1, got {poll_interval}")


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
    proof: tuple[Ints, Ints, Ints] | None
    max_work: int
    cap: int
    lits: dict[int, list[int]]
    kind: dict[int, int]
    next_id: int
    by_set: dict[tuple[int, ...], list[int]]
    units: list[int]
    units_dead: int
    live_empty: int
    watches: dict[int, list[int]]
    dead: dict[int, int]
    values: list[int]
    reason: list[int]
    trail: list[int]
    qhead: int
    conflict: int
    work: int
    steps_checked: int
    derived_empty: bool
    phase: int
    status: int
    step_index: int
    reason_deletions: array[int]
    reading: int
    lenient: bool
    ignored_deletions: array[int]
    ended_early: bool
    lazy: bool
    lrat_sink: Any
    lrat_binary: bool
    trail_pos: list[int]
    lrat_lines: LratLines | None
    lrat_open: bool
    lrat_last: int
    lrat_closing: bytes
    lrat_done: bool
    lrat_copies: dict[int, int]
    lrat_shift: int

    def __init__(
        self,
        num_vars: int,
        clause_offsets: Ints,
        clause_lits: Ints,
        step_kinds: Ints | None,
        step_offsets: Ints | None,
        step_lits: Ints | None,
        max_work: int,
        reading: int = READING_STRICT,
        lrat: Any = None,
        lrat_binary: bool = False,
    ) -> None:
        busy = getattr(self, "_busy", None)
        if busy is None:
            self._busy = threading.Lock()  # held by the call running (_enter)
        else:
            self._not_running()  # run() reads the proof this replaces
        code = reading_code(reading)  # ValueError before anything changes
        check_sink(lrat, lrat_binary)
        self.lrat_sink = lrat  # SPEC §10: where the LRAT goes, or None
        self.lrat_binary = lrat_binary
        self.num_vars = num_vars
        self.reading = code
        self.lenient = code != READING_STRICT  # SPEC §4.4: some deletions are ignored
        self.clause_offsets = clause_offsets
        self.clause_lits = clause_lits
        if step_kinds is None or step_offsets is None or step_lits is None:
            self.proof = None  # fed with feed(), not run()
        else:
            self.proof = (step_kinds, step_offsets, step_lits)
        self.cap = max_work  # max_work, until a replay lifts it
        self.phase = NEW
        self.reset()

    def reset(self) -> None:
        """The state before the CNF is stored."""
        self.max_work = self.cap
        self.lits = {}  # per live clause id: distinct literals (permuted by watching)
        self.kind = {}  # per live clause id: TAUTOLOGY, EMPTY, UNIT or LONG
        self.next_id = 0  # the id the next stored clause gets
        self.by_set = {}  # sorted literal tuple -> ids of its live clauses, ascending
        self.units = []  # ids of live unit clauses, ascending (units_drop)
        self.units_dead = 0  # entries of deleted units among them
        self.live_empty = 0
        self.watches = {}  # literal -> list of long clause ids (ws_drop)
        self.dead = {}  # literal -> entries of deleted clauses in its list
        self.values = [UNASSIGNED] * (self.num_vars + 1)
        self.reason = [NONE] * (self.num_vars + 1)
        self.trail_pos = [0] * (self.num_vars + 1)  # per assigned variable: its trail index
        self.trail = []
        self.qhead = 0
        self.conflict = NONE
        self.work = 0
        self.steps_checked = 0  # steps that succeeded so far (the next step's index)
        self.derived_empty = False  # the CNF or a successful add holds the empty clause
        self.status = STATUS_VALID  # a failing step's status, once one failed
        self.step_index = -1  # that step's index
        self.ended_early = False  # SPEC §4.5: stopped valid at an inconsistent state
        # Replayed strictly: no level-0 state is kept (the trail is empty) until
        # the next check of a step builds it (see replay()).
        self.lazy = False
        self.progress: Progress | None = None
        self.poll_interval = POLL_INTERVAL
        self.next_poll = NEVER  # the counter's value due for a call of progress
        # Steps whose delete removed the reason of a level-0 literal (for --explain),
        # and those whose delete was ignored (lenient mode only, SPEC §4.4): 8
        # bytes each, as a proof may have millions of them.
        self.reason_deletions = array("q")
        self.ignored_deletions = array("q")
        # SPEC §10: the LRAT not yet written; open until the first inconsistent
        # state, when its last line (the empty clause) is made and held back
        # until the verdict is known to be valid.
        self.lrat_lines = None if self.lrat_sink is None else LratLines(self.lrat_binary)
        self.lrat_open = self.lrat_sink is not None
        self.lrat_last = len(self.clause_offsets) - 1  # the last number written
        self.lrat_closing = b""
        self.lrat_done = False  # finish() has written it out
        # CNF clauses that repeat a literal, by id: the number of their copy
        # without the repeats (cake_lpr reads a clause as given, so "1 1 0" would
        # not be unit); lemmas are numbered after the copies.
        self.lrat_copies = {}
        self.lrat_shift = 0

    # -- one call at a time ------------------------------------------------------------

    def _not_running(self) -> None:
        """Refuse a call while another one runs (from its progress callback, or
        another thread): the running one is halfway through a step."""
        if self._busy.locked():
            raise RuntimeError(ALREADY_RUNNING)

    def _enter(self) -> None:
        """Become the running call (release ``_busy`` when it ends), or refuse."""
        if not self._busy.acquire(blocking=False):
            raise RuntimeError(ALREADY_RUNNING)

    # -- values and assignment ---------------------------------------------------------

    def value(self, lit: int) -> int:
        v = self.values[abs(lit)]
        return v if lit > 0 else -v

    def assign(self, lit: int, reason: int) -> None:
        self.values[abs(lit)] = TRUE if lit > 0 else FALSE
        self.reason[abs(lit)] = reason
        self.trail_pos[abs(lit)] = len(self.trail)
        self.trail.append(lit)
        self.work += 1

    def undo_to(self, length: int) -> None:
        while len(self.trail) > length:
            self.values[abs(self.trail.pop())] = UNASSIGNED
        self.qhead = length

    def inconsistent(self) -> bool:
        return self.live_empty > 0 or self.conflict != NONE

    def concluded(self) -> bool:
        """Return whether the check ended valid before the proof's end (the
        drat-trim reading, at an inconsistent level-0 state)."""
        return self.ended_early

    def concludes(self) -> bool:
        """Whether the check ends here, valid (at a step boundary, after the cap
        was checked); if so, stop it there."""
        # SPEC §4.5: the drat-trim reading ends at the first inconsistent state.
        if self.reading == READING_DRAT_TRIM and self.inconsistent():
            self.ended_early = True
            self.phase = STOPPED
            return True
        return False

    # -- the clause store --------------------------------------------------------------

    def store(self, distinct: list[int], tautology: bool) -> tuple[int, int]:
        """Store a clause (its distinct literals, and whether they are a tautology)
        under the next id and return (id, kind); no watching."""
        if tautology:
            kind = TAUTOLOGY
        elif not distinct:
            kind = EMPTY
        elif len(distinct) == 1:
            kind = UNIT
        else:
            kind = LONG
        cid = self.next_id
        self.next_id += 1
        self.lits[cid] = distinct
        self.kind[cid] = kind
        self.by_set.setdefault(tuple(sorted(distinct)), []).append(cid)
        if kind == EMPTY:
            self.live_empty += 1
            self.derived_empty = True
        elif kind == UNIT:
            self.units.append(cid)
        return cid, kind

    def watch(self, cid: int) -> None:
        lits = self.lits[cid]
        self.watches.setdefault(lits[0], []).append(cid)
        self.watches.setdefault(lits[1], []).append(cid)

    # A deleted clause leaves its watch lists lazily: finding it in a list costs
    # the list's length, and deleting the clauses of one long list one by one
    # would cost its square (deletions count no work: no cap would bound it).
    # Its entries stay where they are, counted in ``dead``, until the list is
    # purged: before it is next visited (a visit never meets one), or when half
    # of it is dead.  A purge keeps the order of the rest.

    def ws_drop(self, lit: int) -> None:
        """A clause of watches[lit], just deleted from ``lits``, leaves it (lazily)."""
        dead = self.dead.get(lit, 0) + 1
        self.dead[lit] = dead
        if 2 * dead > len(self.watches[lit]):
            self.ws_purge(lit)

    def ws_purge(self, lit: int) -> None:
        """Remove the deleted clauses' entries from watches[lit], keeping the order."""
        ws = self.watches[lit]
        ws[:] = [c for c in ws if c in self.lits]
        del self.dead[lit]

    # The unit list is in id order, and a unit's deletion finds it by bisection;
    # closing the gap at once would cost the length of the list after it.  Its
    # entry becomes ``-1 - id`` (its place in the order kept) until half the
    # list is dead.

    def units_drop(self, cid: int) -> None:
        """A live unit clause leaves the unit list (lazily)."""
        units = self.units
        lo, hi = 0, len(units)
        while lo < hi:
            mid = (lo + hi) // 2
            entry = units[mid]
            if (entry if entry >= 0 else -1 - entry) < cid:
                lo = mid + 1
            else:
                hi = mid
        units[lo] = -1 - cid
        self.units_dead += 1
        if 2 * self.units_dead > len(units):
            self.units = [u for u in units if u >= 0]
            self.units_dead = 0

    # -- SPEC §4.3 ---------------------------------------------------------------------

    def poll(self) -> None:
        """Call progress (start() has set next_poll only when there is one)."""
        self.next_poll = self.work + self.poll_interval
        assert self.progress is not None
        self.progress(self.steps_checked, self.work)

    def propagate(self) -> int:
        while self.qhead < len(self.trail):
            if self.work >= self.next_poll:
                self.poll()
            p = self.trail[self.qhead]
            self.qhead += 1
            f = -p  # f just became FALSE
            if f in self.dead:
                self.ws_purge(f)  # a visit meets no deleted clause
            ws = self.watches.get(f, [])
            i = j = 0
            while i < len(ws):
                c = ws[i]
                i += 1
                self.work += 1
                L = self.lits[c]
                if L[0] == f:
                    L[0], L[1] = L[1], L[0]  # now L[1] == f
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
            if cid < 0:
                continue  # deleted (units_drop)
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
        conflict = NONE
        if not rup:
            conflict = self.propagate()
            rup = conflict != NONE
        if rup and self.lrat_open:
            self.lrat_addition(distinct, conflict)
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
            return  # tautology, or empty (counted)
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
            if found == pos:  # nothing found for this position
                break
        self.watch(cid)
        if found == 0:
            self.conflict = cid
        elif found == 1 and self.value(L[0]) == UNASSIGNED:
            self.assign(L[0], cid)
            self.conflict = self.propagate()

    def delete(self, cid: int, s: int) -> None:
        """Remove a live clause (at step s); rebuild the level-0 state when it held it up."""
        kind = self.kind.pop(cid)
        L = self.lits.pop(cid)
        rebuild = cid == self.conflict
        if kind == EMPTY:
            self.live_empty -= 1
            rebuild = rebuild or self.live_empty == 0
        elif kind in (UNIT, LONG):
            if kind == UNIT:
                self.units_drop(cid)
            else:
                self.ws_drop(L[0])
                self.ws_drop(L[1])
            if self.value(L[0]) == TRUE and self.reason[abs(L[0])] == cid:
                self.reason_deletions.append(s)
                rebuild = True
        if rebuild and not self.lazy:
            self.build()

    # -- the whole check ---------------------------------------------------------------

    def start(self, progress: Progress | None = None, poll_interval: int = POLL_INTERVAL) -> int:
        """Store the CNF and make the initial build; return STATUS_VALID,
        STATUS_WORK_LIMIT when the build passed the cap, or (drat-trim reading)
        STATUS_CONCLUDED when the CNF alone is inconsistent.  Starts afresh.

        ``progress(steps_checked, work)``, when given, is called about every
        ``poll_interval`` units of work from here on (see the module note); an
        exception it raises stops the check and propagates.
        """
        _check_polling(progress, poll_interval)
        self._enter()
        try:
            return self._start(progress, poll_interval)
        finally:
            self._busy.release()

    def _start(self, progress: Progress | None, poll_interval: int) -> int:
        self.phase = NEW
        self.reset()
        self.progress = progress
        self.poll_interval = poll_interval
        self.next_poll = NEVER if progress is None else poll_interval
        offsets = self.clause_offsets
        try:
            for k in range(len(offsets) - 1):
                given = self.clause_lits[offsets[k] : offsets[k + 1]]
                distinct = distinct_literals(given)
                cid, kind = self.store(distinct, is_tautology(distinct))
                if self.lrat_open and len(distinct) < len(given) and kind != TAUTOLOGY:
                    self.lrat_copy(cid, distinct)
                if kind == LONG:
                    self.watch(cid)
            self.lrat_shift = len(self.lrat_copies)
            self.build()
        except BaseException:
            self.phase = BROKEN
            raise
        if self.work > self.max_work:
            self.status = STATUS_WORK_LIMIT
            self.phase = STOPPED
            return STATUS_WORK_LIMIT
        if self.lrat_open and self.inconsistent():
            self.lrat_close()
        if self.concludes():
            return STATUS_CONCLUDED
        self.phase = CHECKING
        return STATUS_VALID

    def feed(self, kinds: Ints, offsets: Ints, lits: Ints) -> tuple[int, int]:
        """Check the steps of a chunk in order; return (STATUS_VALID, -1) when all
        succeeded, else (status, index in the chunk) of the step that failed or
        passed the cap, or (STATUS_CONCLUDED, index) of the step after which
        the drat-trim reading ends valid (the check stops there)."""
        self._enter()
        try:
            return self._feed(kinds, offsets, lits)
        finally:
            self._busy.release()

    def _feed(self, kinds: Ints, offsets: Ints, lits: Ints) -> tuple[int, int]:
        if self.phase != CHECKING:
            raise RuntimeError(self.not_checking("feed()"))
        if len(offsets) != len(kinds) + 1:
            raise ValueError(
                f"{len(kinds)} step kinds need {len(kinds) + 1} offsets, got {len(offsets)}"
            )
        if self.lazy:
            try:
                self.settle()
            except BaseException:
                self.phase = BROKEN
                raise
        for i in range(len(kinds)):
            written = self.lrat_mark()
            try:
                if self.work >= self.next_poll:
                    self.poll()
                status = self.step(kinds[i], lits[offsets[i] : offsets[i + 1]], self.steps_checked)
            except BaseException:
                self.phase = BROKEN  # the step is half done
                raise
            if self.work > self.max_work:
                status = STATUS_WORK_LIMIT  # whatever the step's verdict
            if status != STATUS_VALID:
                self.lrat_truncate(written)  # a failing step writes nothing
                self.status = status
                self.step_index = self.steps_checked
                self.phase = STOPPED
                return status, i
            self.steps_checked += 1
            if self.lrat_open:
                try:
                    self.lrat_step_done()
                except BaseException:
                    self.phase = BROKEN  # the sink's write() raised
                    raise
            if self.concludes():
                return STATUS_CONCLUDED, i
        return STATUS_VALID, -1

    def feed_step(self, kind: int, lits: Any, steps_left: int, literals_left: int) -> int | None:
        """One step, the common case, for the Checker's add()/delete(): ``kind``
        STEP_ADD or STEP_DELETE, ``lits`` a plain list or tuple of literals.
        Return the step's status as ``feed`` would (STATUS_WORK_LIMIT and
        STATUS_CONCLUDED included), or None, changing nothing, when the step
        is not one this takes: ``lits`` not a plain list or tuple, a literal
        not a plain int within ``1..num_vars`` in magnitude, no room for one
        more step (``steps_left < 1``) or for its literals (``len(lits) >
        literals_left``).  The caller then takes the exact way (validate,
        ``feed``), which finds the error or the step's own kind."""
        self._enter()
        try:
            return self._feed_step(kind, lits, steps_left, literals_left)
        finally:
            self._busy.release()

    def _feed_step(self, kind: int, lits: Any, steps_left: int, literals_left: int) -> int | None:
        if self.phase != CHECKING:
            raise RuntimeError(self.not_checking("feed_step()"))
        if type(kind) is not int or (kind != STEP_ADD and kind != STEP_DELETE):
            raise ValueError(f"kind is {kind!r}, not STEP_ADD or STEP_DELETE")
        if type(steps_left) is not int or type(literals_left) is not int:
            raise TypeError("steps_left and literals_left must be ints")
        if type(lits) is not list and type(lits) is not tuple:
            return None
        if steps_left < 1 or len(lits) > literals_left:
            return None
        nv = self.num_vars
        for lit in lits:
            if type(lit) is not int or lit == 0 or not -nv <= lit <= nv:
                return None
        return self._feed((kind,), (0, len(lits)), lits)[0]

    def finish(self) -> tuple[int, int, int, int]:
        """End the check; return (status, step_index, steps_checked, work)."""
        self._enter()
        try:
            return self._finish()
        finally:
            self._busy.release()

    def _finish(self) -> tuple[int, int, int, int]:
        if self.phase in (NEW, BROKEN):
            raise RuntimeError(self.not_checking("finish()"))
        if self.phase == CHECKING:
            self.phase = FINISHED
        if self.status != STATUS_VALID:
            status, step_index = self.status, self.step_index
        elif not self.derived_empty and not self.ended_early:
            status, step_index = STATUS_EMPTY_CLAUSE_NOT_DERIVED, -1
        else:
            status, step_index = STATUS_VALID, -1
        self.lrat_finish(status == STATUS_VALID)
        return status, step_index, self.steps_checked, self.work

    def not_checking(self, call: str) -> str:
        if self.phase == NEW:
            return f"start() the check before {call}"
        if self.phase == BROKEN:
            return f"an exception stopped the check: start() it again before {call}"
        if self.phase == STOPPED and self.ended_early:
            return f"the check has concluded (valid): {call} after its end"
        if self.phase == STOPPED:
            return f"the check has stopped: {call} after a failing step"
        return f"the check is finished: {call} after finish()"

    def run(
        self, progress: Progress | None = None, poll_interval: int = POLL_INTERVAL
    ) -> tuple[int, int, int, int]:
        """Check the proof given to the constructor; return (status, step_index,
        steps_checked, work).  ``progress`` and ``poll_interval`` as for start()."""
        if self.proof is None:
            raise TypeError("run() needs a Kernel made with the proof's three arrays")
        kinds, offsets, lits = self.proof
        _check_polling(progress, poll_interval)
        self._enter()
        try:
            if self._start(progress, poll_interval) == STATUS_VALID:
                for a in range(0, len(kinds), RUN_SLICE):
                    b = min(a + RUN_SLICE, len(kinds))
                    if self._feed(kinds[a:b], offsets[a : b + 1], lits)[0] != STATUS_VALID:
                        break
            return self._finish()
        finally:
            self._busy.release()

    def step(self, kind: int, given: Sequence[int], s: int) -> int:
        """Check step ``s`` (a kind and its literals as given); return its STATUS_*."""
        if kind == STEP_ADD_OUT_OF_RANGE:
            return STATUS_LITERAL_OUT_OF_RANGE
        if kind == STEP_DELETE_NO_MATCH:
            return self.not_found(s)
        if kind == STEP_DELETE:
            key = tuple(sorted(set(given)))
            ids = self.by_set.get(key)
            if not ids:
                return self.not_found(s)
            if self.lenient and self.holds_up(ids[-1]):
                # SPEC §4.4: the clause it would remove is a unit or a reason.
                self.ignored_deletions.append(s)
                return STATUS_VALID
            self.remove_top(key, ids, s)
            return STATUS_VALID
        distinct = distinct_literals(given)
        tautology = is_tautology(distinct)
        if not self.is_rup(distinct, tautology):
            return STATUS_LEMMA_NOT_RUP
        cid, stored_kind = self.store(distinct, tautology)
        self.attach(cid, stored_kind)
        return STATUS_VALID

    def remove_top(self, key: tuple[int, ...], ids: list[int], s: int) -> None:
        """Delete (at step s) the live clause with the highest id of the set ``key``
        (``ids``, its live clauses)."""
        cid = ids.pop()
        if not ids:
            del self.by_set[key]
        if self.lrat_open:
            self.lrat_deletion(cid)
        self.delete(cid, s)

    def not_found(self, s: int) -> int:
        """A delete (step s) that matches no live clause: it fails, or (lenient) is
        ignored."""
        if not self.lenient:
            return STATUS_DELETED_CLAUSE_NOT_FOUND
        self.ignored_deletions.append(s)
        return STATUS_VALID

    def holds_up(self, cid: int) -> bool:
        """Whether a lenient delete leaves the live clause alone: it is a unit
        clause, or the reason of a level-0 literal (the rebuild's test)."""
        kind = self.kind[cid]
        if kind == UNIT:
            return True
        L = self.lits[cid]
        return kind == LONG and self.value(L[0]) == TRUE and self.reason[abs(L[0])] == cid

    # -- replay: steps taken without their check (a proof checked in segments) ---------

    def replay(self, kinds: Ints, offsets: Ints, lits: Ints) -> tuple[int, int]:
        """Take a chunk of steps as if each one succeeded, checking none of them;
        return (STATUS_VALID, -1), or (STATUS_CONCLUDED, i) when the drat-trim
        reading's level-0 state is inconsistent after step i (a check would end
        there: the kernel stops as ``feed`` stops).

        This is how a segment of a proof is checked apart from the steps before
        it (docs/semantics.md, "One proof on every core"): the clauses alive at
        a step depend only on the steps before it, so a kernel that replays
        them reaches the multiset a check would have reached, and ``feed``
        checks on from there.  An add is stored (an add with a literal out of
        range is skipped), a delete removes what a successful delete removes,
        and a delete that would fail is skipped.  Strictly read, no level-0
        state is kept while replaying (the next ``feed`` builds it, as a
        rebuild does); the lenient readings keep it, since which deletions
        they ignore depends on it.  The counter goes on counting, but a kernel
        that has replayed has no cap (its counter is not a check's).  A
        kernel that writes an LRAT cannot replay (RuntimeError)."""
        self._enter()
        try:
            return self._replay(kinds, offsets, lits)
        finally:
            self._busy.release()

    def _replay(self, kinds: Ints, offsets: Ints, lits: Ints) -> tuple[int, int]:
        if self.phase != CHECKING:
            raise RuntimeError(self.not_checking("replay()"))
        if self.lrat_sink is not None:
            raise RuntimeError("a Kernel that writes an LRAT cannot replay() steps")
        if len(offsets) != len(kinds) + 1:
            raise ValueError(
                f"{len(kinds)} step kinds need {len(kinds) + 1} offsets, got {len(offsets)}"
            )
        self.max_work = NEVER
        if not self.lenient and not self.lazy:
            self.undo_to(0)
            self.conflict = NONE
            self.lazy = True
        for i in range(len(kinds)):
            try:
                self.take(kinds[i], lits[offsets[i] : offsets[i + 1]], self.steps_checked)
            except BaseException:
                self.phase = BROKEN
                raise
            self.steps_checked += 1
            if self.concludes():
                return STATUS_CONCLUDED, i
        return STATUS_VALID, -1

    def take(self, kind: int, given: Sequence[int], s: int) -> None:
        """Replay step ``s``: what ``step`` does when the step succeeds."""
        if kind in (STEP_ADD_OUT_OF_RANGE, STEP_DELETE_NO_MATCH):
            return  # a check fails (strict) or ignores it here
        if kind == STEP_DELETE:
            key = tuple(sorted(set(given)))
            ids = self.by_set.get(key)
            if ids and not (self.lenient and self.holds_up(ids[-1])):
                self.remove_top(key, ids, s)
            return
        distinct = distinct_literals(given)
        cid, stored_kind = self.store(distinct, is_tautology(distinct))
        if not self.lazy:
            self.attach(cid, stored_kind)
        elif stored_kind == LONG:
            self.watch(cid)  # nothing is assigned: any two literals will do

    def settle(self) -> None:
        """End a strict replay: the level-0 state, built from the clauses alive."""
        self.lazy = False
        self.build()

    # -- LRAT out (SPEC §10) ------------------------------------------------------------
    # Numbers are ids + 1 (the CNF's clauses are 1..m in file order), lemmas
    # after the copies of the CNF clauses that repeat a literal (lrat_number).
    # Nothing here counts work.

    def justify(self, conflict: int, assumed: Iterable[int]) -> list[int]:
        """The hints refuting the current assignment at ``conflict`` (a falsified
        clause), the variables of ``assumed`` taken as given: the reasons of the
        literals it rests on, in trail order, then ``conflict`` itself."""
        seen = {abs(lit) for lit in assumed}
        positions = []
        pending = [abs(lit) for lit in self.lits[conflict]]
        while pending:
            v = pending.pop()
            if v in seen:
                continue
            seen.add(v)
            why = self.reason[v]
            assert why != NONE, v  # only the lemma's own literals are assumed
            positions.append(self.trail_pos[v])
            pending.extend(abs(lit) for lit in self.lits[why])
        positions.sort()
        hints = [self.lrat_number(self.reason[abs(self.trail[p])]) for p in positions]
        hints.append(self.lrat_number(conflict))
        return hints

    def lrat_number(self, cid: int) -> int:
        """Clause ``cid``'s number in the LRAT."""
        m = len(self.clause_offsets) - 1
        if cid < m:
            return self.lrat_copies.get(cid, cid + 1)
        return cid + 1 + self.lrat_shift

    def lrat_copy(self, cid: int, distinct: list[int]) -> None:
        """A CNF clause that repeats a literal: its copy without the repeats, next."""
        assert self.lrat_lines is not None
        self.lrat_last = len(self.clause_offsets) + len(self.lrat_copies)
        self.lrat_copies[cid] = self.lrat_last
        self.lrat_lines.addition(self.lrat_last, distinct, [cid + 1])

    def lrat_addition(self, distinct: list[int], conflict: int) -> None:
        """The line of a lemma found RUP (before its assumptions are undone):
        refuted at ``conflict``, or, when NONE, true at level 0 already."""
        if conflict == NONE:
            # A literal TRUE at level 0: the first such on the trail, so that
            # its justification meets none of the lemma's other TRUE literals.
            true = [lit for lit in distinct if self.value(lit) == TRUE]
            first = min(true, key=lambda lit: self.trail_pos[abs(lit)])
            conflict = self.reason[abs(first)]
        assert self.lrat_lines is not None
        self.lrat_last = self.lrat_number(self.next_id)  # the id store() gives it
        self.lrat_lines.addition(self.lrat_last, distinct, self.justify(conflict, distinct))

    def lrat_deletion(self, cid: int) -> None:
        """The line of a delete that removes clause ``cid`` (none for a lemma that
        is a tautology: those are never written)."""
        if cid < len(self.clause_offsets) - 1 or self.kind[cid] != TAUTOLOGY:
            assert self.lrat_lines is not None
            self.lrat_lines.deletion(self.lrat_last, self.lrat_number(cid))

    def lrat_close(self) -> None:
        """The state is inconsistent: the LRAT ends with the empty clause, justified
        now and held back until the verdict is known."""
        assert self.lrat_lines is not None
        self.lrat_open = False
        if self.live_empty > 0:  # only a CNF's: a lemma comes once the LRAT is closed
            hints = [min(cid for cid, kind in self.kind.items() if kind == EMPTY) + 1]
        else:
            hints = self.justify(self.conflict, ())
        number = self.lrat_number(self.next_id)
        self.lrat_closing = self.lrat_lines.addition_bytes(number, (), hints)

    def lrat_step_done(self) -> None:
        """After a step that succeeded: close at an inconsistent state, write out a
        full buffer."""
        assert self.lrat_lines is not None and self.lrat_sink is not None
        if self.inconsistent():
            self.lrat_close()
        if len(self.lrat_lines.buf) >= FLUSH_BYTES:
            self.lrat_sink.write(self.lrat_lines.take())

    def lrat_mark(self) -> tuple[int, int]:
        """Where the LRAT is before a step (``lrat_truncate`` goes back there)."""
        return (0 if self.lrat_lines is None else len(self.lrat_lines.buf)), self.lrat_last

    def lrat_truncate(self, mark: tuple[int, int]) -> None:
        if self.lrat_lines is not None:
            del self.lrat_lines.buf[mark[0] :]
            self.lrat_last = mark[1]

    def lrat_finish(self, valid: bool) -> None:
        """Write out the rest, with the closing line only when the verdict is valid."""
        if self.lrat_lines is None or self.lrat_done:
            return
        self.lrat_done = True
        out = self.lrat_lines.take()
        if valid:
            assert self.lrat_closing, "a valid verdict has met an inconsistent state"
            out += self.lrat_closing
        if out:
            assert self.lrat_sink is not None
            self.lrat_sink.write(out)

    # -- for the tests and the benchmarks ----------------------------------------------

    def _stats(self) -> dict[str, Any]:
        """The stores' sizes now, for the memory tests and benchmarks: a dict."""
        self._not_running()
        if self.phase == NEW:
            return {}
        return {
            "live_clauses": len(self.lits),
            "literal_sets": len(self.by_set),
            "units": len(self.units) - self.units_dead,
            "trail": len(self.trail),
        }

    def _check_invariants(self) -> None:
        """Raise AssertionError unless the stores agree with each other (tests call it
        between steps; not after a step passed the cap, which stops mid-step).

        Checked: every live long clause is in the watch lists of ``lits[0]`` and
        ``lits[1]``, once each, and the lists hold nothing else; the groups of
        equal literal sets hold exactly the live clauses, ids ascending; the unit
        list holds exactly the live units, ids ascending; ``live_empty`` counts
        the live empty clauses; the trail, values and reasons agree, every
        level-0 literal's reason being a live clause that has it first; the
        queue is empty unless the state is inconsistent; a conflict is a live
        clause that is falsified; in a consistent state, no watched literal is
        FALSE unless the clause's other watch is TRUE.
        """
        self._not_running()
        if self.phase in (NEW, BROKEN):
            return
        live = self.lits.keys()
        assert self.kind.keys() == live
        assert all(0 <= cid < self.next_id for cid in live)
        watched: dict[int, list[int]] = {}
        for cid in sorted(live):
            L, kind = self.lits[cid], self.kind[cid]
            assert len(set(L)) == len(L)
            assert kind == (
                TAUTOLOGY if is_tautology(L) else EMPTY if not L else UNIT if len(L) == 1 else LONG
            ), cid
            assert all(1 <= abs(lit) <= self.num_vars for lit in L)
            if kind == LONG:
                watched.setdefault(L[0], []).append(cid)
                watched.setdefault(L[1], []).append(cid)
        for lit, ws in self.watches.items():
            live_ws = [c for c in ws if c in self.lits]
            assert sorted(live_ws) == watched.get(lit, []), lit
            dead = len(ws) - len(live_ws)
            assert dead == self.dead.get(lit, 0) and 2 * dead <= len(ws), lit
        assert all(lit in self.watches for lit in watched)
        grouped = []
        for key, ids in self.by_set.items():
            assert ids and ids == sorted(ids), key
            assert all(tuple(sorted(self.lits[cid])) == key for cid in ids), key
            grouped.extend(ids)
        assert sorted(grouped) == sorted(live)
        units = [cid for cid in self.units if cid >= 0]
        assert units == sorted(cid for cid in live if self.kind[cid] == UNIT)
        order = [cid if cid >= 0 else -1 - cid for cid in self.units]
        assert order == sorted(set(order))
        assert len(self.units) - len(units) == self.units_dead <= len(self.units) // 2
        assert self.live_empty == sum(self.kind[cid] == EMPTY for cid in live)
        assigned = [v for v in range(1, self.num_vars + 1) if self.values[v] != UNASSIGNED]
        assert sorted(abs(lit) for lit in self.trail) == assigned
        for lit in self.trail:
            assert self.value(lit) == TRUE
            why = self.reason[abs(lit)]
            assert why in live and self.lits[why][0] == lit, lit
        assert self.qhead == len(self.trail) or self.inconsistent()
        if self.conflict != NONE:
            assert self.conflict in live
            assert all(self.value(lit) == FALSE for lit in self.lits[self.conflict])
        elif not self.inconsistent():
            for cid in live:
                L = self.lits[cid]
                if self.kind[cid] == LONG and FALSE in (self.value(L[0]), self.value(L[1])):
                    assert TRUE in (self.value(L[0]), self.value(L[1])), cid
