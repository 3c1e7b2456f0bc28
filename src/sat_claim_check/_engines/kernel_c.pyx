# Read beside kernel_py.py: the same sections, in the same order, with the same
# names (``_name`` here is ``name`` there).  The C-only parts, with no counterpart
# there (memory, collection, loading and its checks), are in kernel_arena.pxi.
"""The compiled engine: SPEC §4 as a two-watched-literal kernel in C.

This is a translation of ``kernel_py.Kernel`` with the same public names and
the same sections, in the same order:

* ``Kernel(num_vars, clause_offsets, clause_lits, None, None, None,
  max_work)`` is fed step by step: ``start(progress=None)`` stores the CNF and
  makes the initial build (-> status), ``feed(kinds, offsets, lits)`` checks a
  chunk of steps (-> status, index in the chunk), ``finish()`` gives
  ``(status, step_index, steps_checked, work)``; see ``kernel_py``.
* ``Kernel(num_vars, clause_offsets, clause_lits, step_kinds, step_offsets,
  step_lits, max_work).run()`` checks a whole proof: ``start``, ``feed`` (in
  slices of ``RUN_SLICE`` steps), ``finish``.
* ``feed_step(kind, lits, steps_left, literals_left)`` is ``feed`` of one step
  in the common case, converted and checked here (the Checker's
  ``add``/``delete``); it declines any other step (None, nothing changed).

``reason_deletions`` lists the steps whose delete removed the reason of a
level-0 literal.  ``Kernel(..., max_work, reading)`` takes a ``READING_*``
code (or a bool: False strict, True lenient; anything else is ValueError):
lenient deletions (SPEC §4.4) and the drat-trim reading (§4.5: lenient
deletions, and the check ends valid at the first inconsistent state, with
``STATUS_CONCLUDED`` from start or feed and ``concluded()`` True); see
``kernel_py``.  ``ignored_deletions`` lists the steps whose delete it
ignored.  Verdicts and the work counter agree with the reference
engine to the unit, with one documented exception: on ``STATUS_WORK_LIMIT``
this engine stops as soon as the counter passes the cap (inside
propagation), so the ``work`` it reports is the counter at that moment, not at
the end of the step.  Status, step index and steps checked are the same;
callers ignore ``work`` for that status (it is an error, not a result).

Memory follows the live clauses, not the steps: every store grows by doubling
as clauses arrive, and the room of deleted clauses is reused. A deleted
clause's slot in the clause table goes to a free list, and its literal set
leaves the hash table when no live clause has it; its literals stay in the
arena as dead space until ``_collect`` copies the live clauses into a fresh
arena (when the dead space passes the live one) and the watch lists into a
fresh pool, rewriting their arena references. Slots are not ids, but the arena
is in storing order (the collector keeps it): the unit list stays in id order
by arena position, and the stacks of equal literal sets are in storing order,
so "the live clause with the highest id" is a stack's top. A deleted clause is
never a reason of a level-0 literal nor the conflict once its delete is done
(it would have forced a rebuild), so reusing its slot cannot confuse the
reasons.

Each ``start``/``feed`` copies and encodes its input into C arrays while it
holds the GIL, checking it as it goes (a kernel never reads out of bounds,
whatever it is given), then checks in one ``with nogil:`` block: threads
checking different requests run in parallel.  One ``Kernel`` per request;
one call at a time.

A check that holds no GIL would also never run Python's signal handlers, so
Ctrl-C could not stop it: ``_poll()`` takes the GIL back every
``poll_interval`` (2**20) units of work, across feeds, at the points where the
cap is checked, to run them (``PyErr_CheckSignals``) and to call the optional
``progress(steps_checked, work)`` callback; an exception from either leaves
the call (and ends the check: the kernel must be started again).  Polls change
neither verdicts nor the counter.
"""

import os
from array import array

from cpython.exc cimport PyErr_CheckSignals
from libc.stdint cimport INT64_MAX
from libc.stdlib cimport free, malloc
from libc.string cimport memmove

# Step kinds and run outcomes: _codes is their one definition; C copies here.
from .._core import codes as _codes

cdef int STEP_ADD = _codes.STEP_ADD
cdef int STEP_DELETE = _codes.STEP_DELETE
cdef int STEP_ADD_OUT_OF_RANGE = _codes.STEP_ADD_OUT_OF_RANGE
cdef int STEP_DELETE_NO_MATCH = _codes.STEP_DELETE_NO_MATCH
cdef int STATUS_VALID = _codes.STATUS_VALID
cdef int STATUS_LEMMA_NOT_RUP = _codes.STATUS_LEMMA_NOT_RUP
cdef int STATUS_LITERAL_OUT_OF_RANGE = _codes.STATUS_LITERAL_OUT_OF_RANGE
cdef int STATUS_DELETED_CLAUSE_NOT_FOUND = _codes.STATUS_DELETED_CLAUSE_NOT_FOUND
cdef int STATUS_EMPTY_CLAUSE_NOT_DERIVED = _codes.STATUS_EMPTY_CLAUSE_NOT_DERIVED
cdef int STATUS_WORK_LIMIT = _codes.STATUS_WORK_LIMIT
cdef int STATUS_CONCLUDED = _codes.STATUS_CONCLUDED
cdef int READING_STRICT = _codes.READING_STRICT
cdef int READING_DRAT_TRIM = _codes.READING_DRAT_TRIM

cdef enum:
    NONE = -1           # "no clause" for _propagate() and conflict
    LIMIT = -2          # _propagate() stopped: the counter passed the cap
    UNASSIGNED = 0
    TRUE = 1
    FALSE = -1
    # Kinds of stored clause (SPEC §4.2), and of a slot with no clause.
    TAUTOLOGY = 0
    EMPTY = 1
    UNIT = 2
    LONG = 3
    FREE = 4
    # Where a kernel is (as in kernel_py), and BROKEN: an exception stopped a
    # call midway (start() again).
    NEW = 0
    CHECKING = 1
    STOPPED = 2
    FINISHED = 3
    BROKEN = 4
    # _propagate prefetches the clause this many watch-list entries ahead, once
    # the arena holds more than _prefetch_arena entries.
    PREFETCH = 4

# Below this many arena entries the clauses stay in the nearest caches and the
# prefetch only costs (a few percent on the contract tier).  A hint only: it
# changes no visit, no count; _set_prefetch_arena lets the tests run the
# prefetching loop on small proofs.
PREFETCH_ARENA = 65536
cdef int64_t _prefetch_arena = PREFETCH_ARENA


def _set_prefetch_arena(entries):
    """Prefetch once the arena holds more than ``entries`` (the tests); return
    the threshold it replaces."""
    global _prefetch_arena
    cdef int64_t before = _prefetch_arena
    _prefetch_arena = entries
    return before


# The literal sets' hash seed (csrc/litset.h): drawn once a process, so that
# no proof can be made of sets that share one run of the table.
cdef uint64_t _SET_SEED = int.from_bytes(os.urandom(8), "little")


def _set_set_seed(seed):
    """Hash literal sets with ``seed`` from now on (the tests: a kernel holding
    sets must not see it change); return the seed it replaces."""
    global _SET_SEED
    cdef uint64_t before = _SET_SEED
    _SET_SEED = seed
    return before


# Work between two polls (signals, progress) by default: about 4 ms of checking.
POLL_INTERVAL = 1 << 20
# run() feeds the proof in slices of this many steps (each feed copies its slice).
RUN_SLICE = 1 << 16
# What feed() returns when every step succeeded.
cdef tuple _ALL_STEPS_VALID = (_codes.STATUS_VALID, -1)

# The C-only parts: C memory, watch lists in a pool, the collection, loading.
include "kernel_arena.pxi"
# LRAT out (SPEC §10): the lines, the walk of the reasons, the buffers.
include "kernel_lrat.pxi"


cdef object _check_polling(object progress, object poll_interval):
    """start()'s polling arguments, as kernel_py's twin checks them: the
    interval as an int, or TypeError / ValueError."""
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be callable, not {type(progress).__name__}")
    poll_interval = _as_int(poll_interval, "poll_interval")
    if poll_interval < 1:
        raise ValueError(f"poll_interval must be >= 1, got {poll_interval}")
    return poll_interval


cdef class Kernel:
    """The clause multiset, watch lists and level-0 state of one unsat check."""

    def __cinit__(self):
        # Cython zeroes the C fields: every pointer is NULL until start() loads.
        self.reason_deletions = array("q")    # 8 bytes a step: there may be millions
        self.ignored_deletions = array("q")
        self.phase = NEW

    def __init__(self, num_vars, clause_offsets, clause_lits,
                 step_kinds, step_offsets, step_lits, max_work, reading=0,
                 lrat=None, lrat_binary=False):
        self._not_running()         # run() reads the step buffers this replaces
        # Exact ints and bools only (ValueError otherwise), before anything changes.
        code = _codes.reading_code(reading)
        _codes.check_sink(lrat, lrat_binary)        # TypeError
        self._lrat = lrat           # SPEC §10: where the LRAT goes, or None
        self.lrat_binary = lrat_binary
        self.reading = code
        self.lenient = code != READING_STRICT
        self._num_vars = _as_int(num_vars, "num_vars")
        self._max_work = _as_int(max_work, "max_work")
        self._clause_offsets = _int_buffer(clause_offsets, "clause_offsets")
        self._clause_lits = _int_buffer(clause_lits, "clause_lits")
        if step_kinds is None and step_offsets is None and step_lits is None:
            self._has_proof = False                     # fed with feed(), not run()
            return
        if step_kinds is None or isinstance(step_kinds, (list, tuple)):
            step_kinds = _int_buffer(step_kinds, "step_kinds")
        try:
            self._kinds_b = step_kinds
            self._kinds_wide = False
        except (TypeError, ValueError, BufferError):
            self._kinds_i = _int_buffer(step_kinds, "step_kinds")
            self._kinds_wide = True
        self._step_offsets = _int_buffer(step_offsets, "step_offsets")
        self._step_lits = _int_buffer(step_lits, "step_lits")
        self._has_proof = True

    def __dealloc__(self):
        _free(self)

    @property
    def work(self):
        """The SPEC §4.3 counter so far (see the module note on the cap)."""
        return self.work

    # -- one call at a time ------------------------------------------------------------

    cdef int _not_running(self) except -1:
        """Refuse a call while another one runs (from its progress callback, or
        another thread): the running one holds pointers into the stores."""
        if self._running:
            raise RuntimeError("this Kernel is already running "
                               "(use one Kernel per request, one call at a time)")
        return 0

    cdef int _enter(self) except -1:
        self._not_running()
        self._running = True
        return 0

    # -- values and assignment ---------------------------------------------------------

    cdef void _assign(self, lit_t lit, cref_t why) noexcept nogil:
        self.vals[lit] = TRUE
        self.vals[lit ^ 1] = FALSE
        self.reason[lit >> 1] = why
        self.trail_pos[lit >> 1] = self.trail_len
        self.trail[self.trail_len] = lit
        self.trail_len += 1
        self.work += 1

    cdef void _undo_to(self, int32_t length) noexcept nogil:
        cdef lit_t lit
        while self.trail_len > length:
            self.trail_len -= 1
            lit = self.trail[self.trail_len]
            self.vals[lit] = UNASSIGNED
            self.vals[lit ^ 1] = UNASSIGNED
        self.qhead = length

    cdef bint _inconsistent(self) noexcept nogil:
        return self.live_empty > 0 or self.conflict != NONE

    def concluded(self):
        """Return whether the check ended valid before the proof's end (the
        drat-trim reading, at an inconsistent level-0 state)."""
        return self.ended_early

    cdef bint _concludes(self) noexcept nogil:
        """§4.5: the drat-trim reading ends valid at the first step boundary where
        the level-0 state is inconsistent (the cap is checked before)."""
        if self.reading == READING_DRAT_TRIM and self._inconsistent():
            self.ended_early = True
            return True
        return False

    # -- the clause store --------------------------------------------------------------

    cdef int32_t _distinct(self, const lit_t* given, Py_ssize_t n, lit_t* out,
                           bint* tautology, uint64_t* h) noexcept nogil:
        """Write the distinct literals of ``given`` to ``out`` in order of first
        occurrence; return their number, set ``*tautology`` and ``*h`` (the hash
        of the set, for the table of literal sets)."""
        cdef uint8_t* marks = self.marks
        cdef Py_ssize_t i
        cdef int32_t k = 0
        cdef lit_t lit
        cdef bint taut = False
        cdef uint64_t sum = 0
        for i in range(n):
            lit = given[i]
            if not marks[lit]:
                marks[lit] = 1
                out[k] = lit
                k += 1
                sum += scc_lit_key(lit, _SET_SEED)
                if marks[lit ^ 1]:      # the second of a complementary pair sees the first
                    taut = True
        for i in range(k):
            marks[out[i]] = 0
        tautology[0] = taut
        h[0] = scc_set_hash(sum, k)
        return k

    cdef cref_t _store(self, const lit_t* given, Py_ssize_t n) except -2 nogil:
        """Store a clause under the next id and return its slot; no watching."""
        cdef bint tautology
        cdef uint64_t h
        cdef lit_t* out
        cdef int32_t k
        _reserve(self, n)
        out = self.arena + self.arena_len + 2
        k = self._distinct(given, n, out, &tautology, &h)
        return self._commit(k, tautology, h)

    cdef cref_t _commit(self, int32_t k, bint tautology, uint64_t h) except -2 nogil:
        """Store the next clause: its ``k`` distinct literals are already in the arena,
        after the room for its header (``_reserve``), and ``h`` is their set's hash."""
        cdef cref_t cid = _new_slot(self)
        cdef clause_t* c = &self.clauses[cid]
        cdef int32_t slot
        if self.lrat_ids != NULL:
            self.lrat_ids[cid] = self.next_id
        self.next_id += 1
        c.head = self.arena_len + 2
        self.arena[c.head - 2] = cid
        self.arena[c.head - 1] = k
        if tautology:
            c.kind = TAUTOLOGY
        elif k == 0:
            c.kind = EMPTY
        elif k == 1:
            c.kind = UNIT
        else:
            c.kind = LONG
        self.arena_len += k + 2
        if k > self.max_size:
            self.max_size = k
        # The stack of its literal set: clauses pushed in storing order, so the
        # table's entry is always the set's live clause with the highest id.
        if 2 * (<int64_t>self.live_sets + 1) > <int64_t>(self.table_mask + 1):
            _grow_table(self)
        slot = self._find_slot(self.arena + c.head, k, h)
        c.below = self.table[slot]
        if c.below == NONE:
            self.live_sets += 1
        self.table[slot] = cid
        if c.kind == EMPTY:
            self.live_empty += 1
            self.derived_empty = True
        elif c.kind == UNIT:
            if self.n_units == self.units_room:
                _grow(<void**>&self.units, 2 * <size_t>self.units_room, sizeof(cref_t))
                self.units_room *= 2
            self.units[self.n_units] = cid
            self.n_units += 1
        elif c.kind == LONG:
            self.n_long += 1
        return cid

    cdef int32_t _find_slot(self, const lit_t* lits, int32_t n,
                            uint64_t h) noexcept nogil:
        """The table slot holding the live clause with the set of the ``n``
        distinct literals at ``lits`` (hash ``h``), or the empty slot where it
        goes; an entry of the same size is compared with the set, with the
        marks (watching permutes a clause's literals; the set stays)."""
        cdef uint64_t i = h & self.table_mask
        cdef uint8_t* marks = self.marks
        cdef cref_t cid
        cdef int32_t t
        cdef lit_t* other
        cdef bint equal
        for t in range(n):
            marks[lits[t]] = 1
        while True:
            cid = self.table[i]
            if cid == NONE:
                break
            other = self.arena + self.clauses[cid].head
            if other[-1] == n:
                # Two sets of n distinct literals: equal when one holds the other.
                equal = True
                for t in range(n):
                    if not marks[other[t]]:
                        equal = False
                        break
                if equal:
                    break
            i = (i + 1) & self.table_mask
        for t in range(n):
            marks[lits[t]] = 0
        return <int32_t>i

    cdef uint64_t _hash_of(self, cref_t cid) noexcept nogil:
        """The hash of live clause ``cid``'s literal set (as ``_distinct`` makes it)."""
        cdef lit_t* L = self.arena + self.clauses[cid].head
        cdef int32_t t, n = L[-1]
        cdef uint64_t sum = 0
        for t in range(n):
            sum += scc_lit_key(L[t], _SET_SEED)
        return scc_set_hash(sum, n)

    cdef void _drop_slot(self, int32_t slot) noexcept nogil:
        """Empty a table slot (its set has no live clause left), moving later
        entries of its probe run back so every lookup still finds its set
        (deletion in linear probing, without tombstones)."""
        cdef uint64_t mask = self.table_mask
        cdef uint64_t i = <uint64_t>slot
        cdef uint64_t j = i
        cdef uint64_t home
        cdef cref_t cid
        self.table[i] = NONE
        while True:
            j = (j + 1) & mask
            cid = self.table[j]
            if cid == NONE:
                return
            home = self._hash_of(cid) & mask
            if ((j - home) & mask) < ((j - i) & mask):
                continue                                # its home is in (i, j]: it stays
            self.table[i] = cid
            self.table[j] = NONE
            i = j

    cdef int _watch(self, cref_t cid) except -1 nogil:
        cdef aref_t head = self.clauses[cid].head
        _ws_push(&self.wpool, &self.watches[self.arena[head]], head)
        _ws_push(&self.wpool, &self.watches[self.arena[head + 1]], head)
        return 0

    # -- SPEC §4.3 ---------------------------------------------------------------------

    cdef int _poll(self) except -1 nogil:
        """Take the GIL to run pending signal handlers (Ctrl-C raises
        KeyboardInterrupt here) and to call ``progress``; set the next poll.

        Either may raise: the exception goes up through every caller (they all
        propagate exceptions, as for MemoryError) and out of the call, which
        frees the arrays; the half-done state is never read again."""
        if self.work > INT64_MAX - self.poll_interval:
            self.next_poll = INT64_MAX
        else:
            self.next_poll = self.work + self.poll_interval
        with gil:
            PyErr_CheckSignals()
            if self._progress is not None:
                self._progress(self.steps_checked, self.work)
        return 0

    cdef cref_t _propagate(self) except -3 nogil:
        """Propagate the trail from qhead; return a falsified clause, NONE, or LIMIT
        as soon as the counter passes the cap (the watch list at hand is left whole).

        A large arena's clauses are prefetched ahead of their visits; a small
        one's loop is compiled without the test for it (7% of the loop's
        instructions on the contract tier)."""
        cdef prefetching_t prefetching
        cdef plain_t plain
        if self.arena_len > _prefetch_arena:
            return self._propagate_with(&prefetching)
        return self._propagate_with(&plain)

    cdef cref_t _propagate_with(self, prefetch_mode_t* mode) except -3 nogil:
        """``_propagate``, with or without the prefetch (``mode``'s type).

        The hot loop works on local copies of the fields it changes (the int8_t
        stores to vals would otherwise force the compiler to reload them) and
        writes them back on every way out.

        The cap is checked at the start of every clause visit (SPEC §4.3 allows
        stopping as soon as the counter passes it), but not one visit at a time:
        a visit costs at most ``max_size`` work (the visit, the literals
        inspected, one assignment), so a run of visits that cannot reach the cap
        goes without checking, and its visits are counted once, at its end.

        The same check serves the polls: a run of visits stops at ``limit``, the
        nearer of the cap and the next poll, so polling costs the hot loop
        nothing.  Stopping a run of visits early changes no count: the counter
        is exact at every run's start, and the cap is still checked at the
        first visit whose start is at or past it."""
        cdef int8_t* vals = self.vals
        cdef lit_t* arena = self.arena
        cdef watch_t* watches = self.watches
        cdef pool_t* wpool = &self.wpool
        cdef lit_t* trail = self.trail
        cdef cref_t* reason = self.reason
        cdef int32_t* trail_pos = self.trail_pos
        cdef int32_t trail_len = self.trail_len
        cdef int32_t qhead = self.qhead
        cdef int64_t work = self.work
        cdef int64_t max_work = self.max_work
        cdef int64_t limit = max_work if max_work < self.next_poll else self.next_poll
        cdef int64_t max_size = self.max_size
        cdef int64_t room, n
        cdef watch_t* ws
        cdef aref_t* i
        cdef aref_t* j
        cdef aref_t* end
        cdef aref_t* stop
        cdef aref_t* start
        cdef aref_t* ahead                          # prefetch while i < ahead
        cdef int32_t k, size
        cdef lit_t f, other
        cdef lit_t* L
        cdef aref_t h
        cdef cref_t found = NONE
        # §4.3 propagate: "while qhead < len(trail):"
        while qhead < trail_len:
            # §4.3 propagate: "p = trail[qhead]; qhead += 1; f = -p"
            f = trail[qhead] ^ 1                        # f just became FALSE
            qhead += 1
            # §4.3 propagate: "ws = watches[f]; i = j = 0"
            ws = &watches[f]
            if ws.dead:
                _ws_purge(ws, arena)                    # a visit meets no deleted clause
            i = ws.data
            j = i
            end = i + ws.len
            if prefetch_mode_t is prefetching_t:
                ahead = end - PREFETCH if ws.len > PREFETCH else i
            # §4.3 propagate: "while i < len(ws):"
            while i != end:
                # §4.3 "The cap": "an engine may stop earlier, as soon as the
                # counter passes the cap".  The visits that cannot pass the
                # limit (the cap or the next poll) run unchecked: all the rest,
                # usually.
                n = end - i
                room = limit - work
                if n * max_size > room:
                    if room < 1:
                        if work >= max_work:
                            # This visit passes the cap: stop at once, keeping
                            # this clause and the rest of ws.
                            work += 1
                            found = LIMIT
                            break
                        # The next poll is due (the counter is exact here).
                        self.work = work
                        self._poll()
                        limit = max_work if max_work < self.next_poll else self.next_poll
                        continue
                    n = room // max_size
                    if n == 0:
                        n = 1                           # its start is under the cap
                start = i
                stop = i + n
                while i != stop:
                    # §4.3 propagate: "c = ws[i]; i += 1; work += 1" (the visits
                    # of a run are counted at its end)
                    h = i[0]
                    if prefetch_mode_t is prefetching_t:
                        if i < ahead:
                            scc_prefetch(arena + i[PREFETCH])
                    i += 1
                    L = arena + h
                    # §4.3 propagate: "if L[0] == f: swap L[0], L[1]", without a
                    # branch: f goes to L[1], the other watched literal to L[0].
                    other = L[0] ^ L[1] ^ f
                    L[0] = other
                    L[1] = f
                    # §4.3 propagate: "if value(L[0]) == TRUE: ws[j] = c; j += 1;
                    # continue"
                    if vals[other] == TRUE:
                        j[0] = h
                        j += 1
                        continue
                    # §4.3 propagate: "for k in 2 .. len(L)-1: work += 1; if
                    # value(L[k]) != FALSE: swap L[1], L[k];
                    # watches[L[1]].append(c); goto next_c"
                    size = L[-1]
                    k = 2
                    # The first literal apart: its test, a branch of its own,
                    # is one the predictor learns apart from the loop's.
                    if size > 2 and vals[L[2]] == FALSE:
                        k = 3
                        while k < size and vals[L[k]] == FALSE:
                            k += 1
                    if k < size:
                        work += k - 1                   # L[2..k] inspected
                        L[1] = L[k]
                        L[k] = f
                        _ws_push(wpool, &watches[L[1]], h)  # it leaves ws (L[1] != f)
                        continue
                    work += size - 2                    # L[2..size-1] inspected
                    # §4.3 propagate: "ws[j] = c; j += 1"
                    j[0] = h
                    j += 1
                    # §4.3 propagate: "if value(L[0]) == FALSE: copy ws[i:] to
                    # ws[j:]; truncate ws; qhead = len(trail); return c" (below)
                    if vals[other] == FALSE:
                        found = L[-2]
                        break
                    # §4.3 propagate: "assign(L[0], reason=c)  # work += 1"
                    vals[other] = TRUE
                    vals[other ^ 1] = FALSE
                    reason[other >> 1] = L[-2]
                    trail_pos[other >> 1] = trail_len
                    trail[trail_len] = other
                    trail_len += 1
                    work += 1
                work += i - start                       # the visits
                if found != NONE:
                    break
            if found != NONE:
                # §4.3 propagate: "copy ws[i:] to ws[j:]"; on the cap, the same.
                while i != end:
                    j[0] = i[0]
                    j += 1
                    i += 1
                if found != LIMIT:
                    qhead = trail_len                   # "qhead = len(trail)"
            # §4.3 propagate: "truncate ws to j"
            ws.len = <int32_t>(j - ws.data)
            if found != NONE:
                break
        self.trail_len = trail_len
        self.qhead = qhead
        self.work = work
        return found

    cdef int _build(self) except -1 nogil:
        """The level-0 build: units in id order, then propagation."""
        cdef cref_t u
        cdef lit_t lit
        cdef int32_t i
        # §4.3 build: "unassign every trail literal; conflict = none"
        self._undo_to(0)
        self.conflict = NONE
        # §4.3 build: "for each live unit clause in id order: TRUE -> skip; FALSE
        # -> conflict = that clause, stop; else assign it"
        for i in range(self.n_units):
            u = self.units[i]
            if u < 0:
                continue                                # deleted (_units_drop)
            lit = self.arena[self.clauses[u].head]
            if self.vals[lit] == TRUE:
                continue
            if self.vals[lit] == FALSE:
                self.conflict = u
                return 0
            self._assign(lit, u)
        # §4.3 build: "If no conflict, conflict = propagate()"
        self.conflict = self._propagate()
        return 0

    cdef int _is_rup(self, const lit_t* lits, int32_t n,
                     bint tautology) except -1 nogil:
        """1 when the clause is RUP in the current multiset, else 0; no lasting change
        to the assignment."""
        cdef int32_t level0, i
        cdef bint rup = False
        cdef lit_t lit
        cdef cref_t found = NONE
        # §4.3 RUP step 1: "tautology or inconsistent state -> RUP, no work"
        if tautology or self._inconsistent():
            return 1
        level0 = self.trail_len
        # §4.3 RUP step 2: "l TRUE -> RUP (stop, undo); l FALSE -> skip; else
        # assign(-l)"
        for i in range(n):
            lit = lits[i]
            if self.vals[lit] == TRUE:
                rup = True
                break
            if self.vals[lit] == UNASSIGNED:
                self._assign(lit ^ 1, NONE)
        # §4.3 RUP step 3: "propagate(); a clause returned -> RUP"
        if not rup:
            found = self._propagate()
            rup = found != NONE
        # §10: the lemma's line, from the assignment that refutes it.
        if rup and self.lrat_open and found != LIMIT:
            _lrat_addition(self, lits, n, found)
        # §4.3 RUP step 4: "undo every assignment made after the level-0 trail"
        self._undo_to(level0)
        return rup

    cdef int _attach(self, cref_t cid) except -1 nogil:
        """Attach a successful lemma that _commit() has just stored."""
        cdef clause_t* c = &self.clauses[cid]
        cdef lit_t* L = self.arena + c.head
        cdef lit_t lit
        cdef int32_t pos, k, found = 0
        # §4.3 Attach: "Unit [u]: append to the unit list (_commit); if the
        # state is consistent: u FALSE -> conflict = it; u unassigned ->
        # assign(u) and conflict = propagate()"
        if c.kind == UNIT:
            if self._inconsistent():
                return 0
            lit = L[0]
            if self.vals[lit] == FALSE:
                self.conflict = cid
            elif self.vals[lit] == UNASSIGNED:
                self._assign(lit, cid)
                self.conflict = self._propagate()
            return 0
        # §4.3 Attach: "tautology: store only.  Empty: live_empty += 1" (_commit)
        if c.kind != LONG:
            return 0
        # §4.3 Attach: "long, inconsistent state: watch lits[0], lits[1] as they are"
        if self._inconsistent():
            self._watch(cid)
            return 0
        # §4.3 Attach: "swap the first non-FALSE literal into position 0, then the
        # next non-FALSE literal (searching from position 1 on) into position 1"
        for pos in range(2):
            for k in range(pos, L[-1]):
                if self.vals[L[k]] != FALSE:
                    lit = L[pos]
                    L[pos] = L[k]
                    L[k] = lit
                    found += 1
                    break
            if found == pos:                            # nothing for this position
                break
        self._watch(cid)
        # §4.3 Attach: "None found -> watch, conflict = it"; "One found: TRUE ->
        # watch; unassigned -> watch, assign(lits[0]), conflict = propagate()"
        if found == 0:
            self.conflict = cid
        elif found == 1 and self.vals[L[0]] == UNASSIGNED:
            self._assign(L[0], cid)
            self.conflict = self._propagate()
        return 0

    cdef int _delete(self, cref_t cid, int64_t s) except -1 nogil:
        """Remove a live clause (at step s) that _step has taken off its stack;
        rebuild the level-0 state when it held it up."""
        cdef clause_t* c = &self.clauses[cid]
        cdef lit_t* L = self.arena + c.head
        cdef bint rebuild = cid == self.conflict
        # Marked deleted in the arena first: the lists tell their dead entries
        # by it (_ws_purge).
        self.arena[c.head - 2] = NONE
        # §4.2: "Deleting a clause removes it from its watch lists or from the
        # unit list.  The level-0 state is then rebuilt if ..."
        if c.kind == EMPTY:
            # "... or was the last live empty clause"
            self.live_empty -= 1
            rebuild = rebuild or self.live_empty == 0
        elif c.kind == UNIT or c.kind == LONG:
            if c.kind == UNIT:
                _units_drop(self, cid)
            else:
                _ws_drop(&self.watches[L[0]], self.arena)
                _ws_drop(&self.watches[L[1]], self.arena)
                self.n_long -= 1
            # "... if the deleted clause was the reason of a level-0 literal
            # (reason[var(lits[0])] == id while lits[0] is TRUE)"
            if self.vals[L[0]] == TRUE and self.reason[L[0] >> 1] == cid:
                self.deletions[self.n_deletions] = s
                self.n_deletions += 1
                rebuild = True
        # Its room is reused: the slot goes to the free list at once, the
        # literals are dead arena space until _collect.  (Nothing refers to it
        # any more but the dead entries it leaves in its watch lists or the
        # unit list, which are never read as a clause; nor does its stack; a
        # reason or the conflict it was forces the rebuild below.)
        self.arena_dead += L[-1] + 2
        c.kind = FREE
        c.below = self.free_slots
        self.free_slots = cid
        if rebuild and not self.lazy:
            self._build()
        return 0

    # -- the whole check ---------------------------------------------------------------

    def start(self, progress=None, poll_interval=POLL_INTERVAL):
        """Store the CNF and make the initial build; return STATUS_VALID,
        STATUS_WORK_LIMIT when the build passed the cap, or (drat-trim reading)
        STATUS_CONCLUDED when the CNF alone is inconsistent.  Starts afresh.

        ``progress(steps_checked, work)``, when given, is called each time the
        counter has grown by ``poll_interval`` since the last call (checked
        between clause visits and before each step), from here on and across
        feed() calls.  An exception it raises, or KeyboardInterrupt on Ctrl-C,
        leaves the call it happens in and ends the check (start() again).
        """
        poll_interval = _check_polling(progress, poll_interval)
        self._enter()
        try:
            return self._start(progress, poll_interval)
        finally:
            self._running = False

    cdef object _start(self, object progress, object poll_interval,
                       Py_ssize_t more_clauses=0, Py_ssize_t more_lits=0):
        try:
            _free(self)
            self.phase = NEW
            self.reason_deletions = array("q")
            self.ignored_deletions = array("q")
            _load_cnf(self, more_clauses, more_lits)
            self._progress = progress
            self.poll_interval = INT64_MAX if poll_interval > INT64_MAX else poll_interval
            self.next_poll = INT64_MAX
            _set_polls(self)
            with nogil:
                self._start_check()
        except BaseException:
            _free(self)
            self._progress = None
            raise
        if self.ended_early:
            self.phase = STOPPED
            return STATUS_CONCLUDED
        self.phase = CHECKING if self.status == STATUS_VALID else STOPPED
        return self.status

    cdef int _start_check(self) except -1 nogil:
        """SPEC §4.1, §4.3: the CNF clauses under ids 0..m-1 (long ones watched),
        then the initial build and its cap."""
        cdef Py_ssize_t k, i, n
        cdef cref_t cid
        for k in range(self.n_steps):
            n = self.cnf_off[k + 1] - self.cnf_off[k]
            for i in range(n):                          # the clause, encoded
                self.step_lits[i] = _encode(self.cnf_lits[self.cnf_off[k] + i])
            cid = self._store(self.step_lits, n)
            if (self.lrat_open and self.clauses[cid].kind != TAUTOLOGY
                    and self.arena[self.clauses[cid].head - 1] < n):
                _lrat_copy(self, cid)                   # §10: it repeats a literal
        _watch_cnf(self)
        self.n_steps = 0
        self.cnf_off = NULL
        self.cnf_lits = NULL
        self._build()
        if self.work > self.max_work:
            self.status = STATUS_WORK_LIMIT
            self.step_index = -1
            return 0
        if self.lrat_open and self._inconsistent():
            _lrat_close(self)
        self._concludes()
        return 0

    def feed(self, kinds, offsets, lits):
        """Check a chunk of steps in order; return (STATUS_VALID, -1) when all
        succeeded, else (status, index in the chunk) of the step that failed or
        passed the cap, or (STATUS_CONCLUDED, index) of the step after which
        the drat-trim reading ends valid (the check stops there).

        ``kinds`` is a buffer of signed chars (array('b')) or C ints, one STEP_*
        per step; step ``i``'s literals are ``lits[offsets[i]:offsets[i + 1]]``
        (``offsets`` has one entry more than ``kinds``, never decreases, and
        need not start at 0).  Inputs the kernel cannot run on raise ValueError
        or TypeError, checking nothing: the check goes on.
        """
        cdef const signed char[::1] kb
        cdef const int[::1] ki
        cdef const int[::1] so = _int_buffer(offsets, "offsets")
        cdef const int[::1] sl = _int_buffer(lits, "lits")
        cdef Py_ssize_t n
        if kinds is None or isinstance(kinds, (list, tuple)):
            kinds = _int_buffer(kinds, "kinds")
        try:
            kb = kinds
            n = kb.shape[0]
            wide = False
        except (TypeError, ValueError, BufferError):
            ki = _int_buffer(kinds, "kinds")
            n = ki.shape[0]
            wide = True
        if so.shape[0] != n + 1:
            raise ValueError(f"{n} step kinds need {n + 1} offsets, got {so.shape[0]}")
        self._enter()
        try:
            if n == 0:
                return self._feed(NULL, NULL, 0, so, 0, sl)
            if wide:
                return self._feed(NULL, &ki[0], n, so, 0, sl)
            return self._feed(&kb[0], NULL, n, so, 0, sl)
        finally:
            self._running = False

    cdef object _feed(self, const signed char* kb, const int* ki, Py_ssize_t n,
                      const int[::1] so, Py_ssize_t a, const int[::1] sl):
        """Steps ``a .. a + n - 1``: their kinds at ``kb`` (signed chars) or ``ki``
        (ints), their offsets ``so[a .. a + n]`` into ``sl``."""
        if self.phase != CHECKING:
            raise RuntimeError(self._not_checking("feed()"))
        _load_chunk(self, kb, ki, n, so, a, sl)     # raises before anything is checked
        return self._check_loaded()

    cdef object _check_loaded(self):
        """Check the chunk that _load_chunk or _load_step copied; return
        (status, index in the chunk) as feed() does."""
        cdef Py_ssize_t k
        try:
            _set_polls(self)
            with nogil:
                self._feed_chunk()
        except BaseException:
            # A poll raised (Ctrl-C, the callback) or memory ran out midway:
            # the state is half-done and is never read again.
            _free(self)
            self._progress = None
            self.phase = BROKEN
            raise
        if self.n_deletions:
            self.reason_deletions.extend([self.deletions[k] for k in range(self.n_deletions)])
        if self.n_ignored:
            self.ignored_deletions.extend([self.ignored[k] for k in range(self.n_ignored)])
        if self.status != STATUS_VALID:
            self.phase = STOPPED
            return (self.status, self.chunk_index)
        if self.ended_early:
            self.phase = STOPPED
            return (STATUS_CONCLUDED, self.chunk_index)
        return _ALL_STEPS_VALID

    cdef int _feed_chunk(self) except -1 nogil:
        """SPEC §4.1: the chunk's steps in order, until one fails or passes the cap;
        between steps, a collection when one is due."""
        cdef Py_ssize_t i, written
        cdef int64_t last
        cdef int status
        self.n_deletions = 0
        self.n_ignored = 0
        self.chunk_index = -1
        if self.lazy:
            # After a strict replay: the level-0 state, built from the clauses alive.
            self.lazy = False
            self._build()
        for i in range(self.n_steps):
            written = self.lrat_buf.len
            last = self.lrat_last
            if self.work >= self.next_poll:
                # Work outside propagation (assignments of a RUP check, a rebuild's
                # units) counts towards the next poll too.
                self._poll()
            status = self._step(i, self.steps_checked)
            if self.work > self.max_work:
                # SPEC §4.3: a step that passes the cap ends the run, whatever
                # its verdict.
                status = STATUS_WORK_LIMIT
            if status != STATUS_VALID:
                self.lrat_buf.len = written     # a failing step writes nothing
                self.lrat_last = last
                self.status = status
                self.step_index = self.steps_checked
                self.chunk_index = i
                return 0
            self.steps_checked += 1
            if self.lrat_open:
                _lrat_step_done(self)
            if self._concludes():
                self.chunk_index = i
                return 0
            if _collect_due(self):
                _collect(self)
        return 0

    def feed_step(self, kind, lits, steps_left, literals_left):
        """One step, the common case (the Checker's add()/delete()): ``kind``
        STEP_ADD or STEP_DELETE, ``lits`` a plain list or tuple of literals.
        Return the step's status as feed() would (STATUS_WORK_LIMIT and
        STATUS_CONCLUDED included), or None, changing nothing, when the step
        is not one this takes: ``lits`` not a plain list or tuple, a literal
        not a plain int within ``1..num_vars`` in magnitude, no room for one
        more step (``steps_left < 1``) or for its literals (``len(lits) >
        literals_left``).  The caller then takes the exact way (validate,
        feed()), which finds the error or the step's own kind.
        """
        self._enter()
        try:
            if self.phase != CHECKING:
                raise RuntimeError(self._not_checking("feed_step()"))
            if type(kind) is not int or (kind != STEP_ADD and kind != STEP_DELETE):
                raise ValueError(f"kind is {kind!r}, not STEP_ADD or STEP_DELETE")
            if type(steps_left) is not int or type(literals_left) is not int:
                raise TypeError("steps_left and literals_left must be ints")
            if not _load_step(self, kind, lits, steps_left, literals_left):
                return None
            return self._check_loaded()[0]
        finally:
            self._running = False

    def finish(self):
        """End the check and release its memory; return (status, step_index,
        steps_checked, work), the conclusion included."""
        self._enter()
        try:
            return self._finish()
        finally:
            self._running = False

    cdef object _finish(self):
        if self.phase == NEW or self.phase == BROKEN:
            raise RuntimeError(self._not_checking("finish()"))
        if self.phase == CHECKING:
            self.phase = FINISHED
        if self.status != STATUS_VALID:
            out = (self.status, self.step_index, self.steps_checked, self.work)
        else:
            out = (STATUS_VALID if self.derived_empty or self.ended_early
                   else STATUS_EMPTY_CLAUSE_NOT_DERIVED, -1, self.steps_checked, self.work)
        try:
            _lrat_finish(self, out[0] == STATUS_VALID)
        finally:
            _free(self)
            self._progress = None
        return out

    cdef str _not_checking(self, str call):
        if self.phase == NEW:
            return f"start() the check before {call}"
        if self.phase == BROKEN:
            return f"an exception stopped the check: start() it again before {call}"
        if self.phase == STOPPED and self.ended_early:
            return f"the check has concluded (valid): {call} after its end"
        if self.phase == STOPPED:
            return f"the check has stopped: {call} after a failing step"
        return f"the check is finished: {call} after finish()"

    def run(self, progress=None, poll_interval=POLL_INTERVAL):
        """Check the proof given to the constructor; return (status, step_index,
        steps_checked, work).

        ``progress`` and ``poll_interval`` as for start().  An exception from a
        poll stops the run and propagates; the Kernel stays usable (a later
        run() starts afresh), and nothing stays allocated.
        """
        cdef Py_ssize_t n, a, b
        if not self._has_proof:
            raise TypeError("run() needs a Kernel made with the proof's three arrays")
        n = self._kinds_i.shape[0] if self._kinds_wide else self._kinds_b.shape[0]
        if n != self._step_offsets.shape[0] - 1:
            raise ValueError(f"step_kinds has {n} entries, step_offsets "
                             f"describes {self._step_offsets.shape[0] - 1} steps")
        _check_offsets(self._step_offsets, self._step_lits.shape[0], "step_offsets")
        poll_interval = _check_polling(progress, poll_interval)
        self._enter()
        try:
            if self._start(progress, poll_interval, n,
                           self._step_lits.shape[0]) == STATUS_VALID:
                a = 0
                while a < n:
                    b = n if n - a <= RUN_SLICE else a + RUN_SLICE
                    if self._kinds_wide:
                        out = self._feed(NULL, &self._kinds_i[a], b - a, self._step_offsets,
                                         a, self._step_lits)
                    else:
                        out = self._feed(&self._kinds_b[a], NULL, b - a, self._step_offsets,
                                         a, self._step_lits)
                    if out[0] != STATUS_VALID:
                        break
                    a = b
            return self._finish()
        except BaseException:
            # Nothing stays allocated, whatever stopped the run.
            _free(self)
            self._progress = None
            self.phase = NEW
            raise
        finally:
            self._running = False

    cdef int _step(self, Py_ssize_t i, int64_t s) except -1 nogil:
        """Step ``i`` of the chunk (step ``s`` of the proof); returns its STATUS_*."""
        cdef int8_t kind = self.step_kind[i]
        cdef const lit_t* given
        cdef Py_ssize_t n
        cdef lit_t* out
        cdef int32_t k, slot
        cdef bint tautology, rup
        cdef cref_t cid
        cdef uint64_t h
        # §4.1 add: "every literal must satisfy 1 <= |l| <= num_vars, else
        # literal_out_of_range"; delete: "an out-of-range literal simply matches
        # nothing" (the validator gave these steps their own kinds).
        if kind == STEP_ADD_OUT_OF_RANGE:
            return STATUS_LITERAL_OUT_OF_RANGE
        if kind == STEP_DELETE_NO_MATCH:
            return self._not_found(s)
        given = self.step_lits + self.step_off[i]
        n = self.step_off[i + 1] - self.step_off[i]
        # The step's distinct literals go to the arena's end: where _commit()
        # stores an add's.
        _reserve(self, n)
        out = self.arena + self.arena_len + 2
        k = self._distinct(given, n, out, &tautology, &h)
        if kind == STEP_DELETE:
            # §4.1 delete: "removes the live clause with the highest id whose
            # literal set equals C's literal set, else deleted_clause_not_found"
            slot = self._find_slot(out, k, h)
            if self.table[slot] == NONE:
                return self._not_found(s)
            if self.lenient and self._holds_up(self.table[slot]):
                # §4.4: "or when the clause it would remove ... is a unit clause
                # (§4.2), or is the reason of a level-0 literal": ignored.
                self.ignored[self.n_ignored] = s
                self.n_ignored += 1
                return STATUS_VALID
            self._remove_top(slot, s)
            return STATUS_VALID
        # §4.1 add: "Then C must be RUP (§4.3) in the current multiset, else
        # lemma_not_rup.  Then C is added with the next id."
        rup = self._is_rup(out, k, tautology)
        if self.work > self.max_work:
            # The cap passed inside the RUP check: the run ends at this step (SPEC
            # §4.3), so attaching the lemma would only add work nobody reports.
            return STATUS_WORK_LIMIT
        if not rup:
            return STATUS_LEMMA_NOT_RUP
        cid = self._commit(k, tautology, h)
        self._attach(cid)
        return STATUS_VALID

    cdef int _remove_top(self, int32_t slot, int64_t s) except -1 nogil:
        """Delete (at step s) the live clause with the highest id of a literal
        set (the table's entry at ``slot``)."""
        cdef cref_t cid = self.table[slot]
        if self.clauses[cid].below == NONE:
            # The set's last live clause: it leaves the table.
            self._drop_slot(slot)
            self.live_sets -= 1
        else:
            self.table[slot] = self.clauses[cid].below
        if self.lrat_open:
            _lrat_deletion(self, cid)
        self._delete(cid, s)
        return 0

    cdef int _not_found(self, int64_t s) noexcept nogil:
        """A delete (step s) that matches no live clause: §4.1 "else
        deleted_clause_not_found"; §4.4 (lenient): "ignored ... when no live
        clause has its literal set"."""
        if not self.lenient:
            return STATUS_DELETED_CLAUSE_NOT_FOUND
        self.ignored[self.n_ignored] = s
        self.n_ignored += 1
        return STATUS_VALID

    cdef bint _holds_up(self, cref_t cid) noexcept nogil:
        """§4.4: the live clause is a unit clause, or the reason of a level-0
        literal (the §4.2 test: reason[var(lits[0])] == id while lits[0] is TRUE)."""
        cdef clause_t* c = &self.clauses[cid]
        cdef lit_t* L = self.arena + c.head
        if c.kind == UNIT:
            return True
        return c.kind == LONG and self.vals[L[0]] == TRUE and self.reason[L[0] >> 1] == cid

    # -- replay: steps taken without their check (a proof checked in segments) ---------

    def replay(self, kinds, offsets, lits):
        """Take a chunk of steps as if each one succeeded, checking none of them;
        return (STATUS_VALID, -1), or (STATUS_CONCLUDED, i) when the drat-trim
        reading's level-0 state is inconsistent after step i.  Inputs as for
        feed(); see ``kernel_py.Kernel.replay``: strictly read, no level-0 state
        is kept until the next feed(); a kernel that has replayed has no cap;
        one that writes an LRAT cannot replay (RuntimeError)."""
        cdef const signed char[::1] kb
        cdef const int[::1] ki
        cdef const int[::1] so = _int_buffer(offsets, "offsets")
        cdef const int[::1] sl = _int_buffer(lits, "lits")
        cdef Py_ssize_t n
        if kinds is None or isinstance(kinds, (list, tuple)):
            kinds = _int_buffer(kinds, "kinds")
        try:
            kb = kinds
            n = kb.shape[0]
            wide = False
        except (TypeError, ValueError, BufferError):
            ki = _int_buffer(kinds, "kinds")
            n = ki.shape[0]
            wide = True
        if so.shape[0] != n + 1:
            raise ValueError(f"{n} step kinds need {n + 1} offsets, got {so.shape[0]}")
        self._enter()
        try:
            if self.phase != CHECKING:
                raise RuntimeError(self._not_checking("replay()"))
            if self._lrat is not None:
                raise RuntimeError("a Kernel that writes an LRAT cannot replay() steps")
            if n == 0:
                _load_chunk(self, NULL, NULL, 0, so, 0, sl)
            elif wide:
                _load_chunk(self, NULL, &ki[0], n, so, 0, sl)
            else:
                _load_chunk(self, &kb[0], NULL, n, so, 0, sl)
            return self._replay_loaded()
        finally:
            self._running = False

    cdef object _replay_loaded(self):
        """Replay the chunk _load_chunk copied; return (status, index) as replay()."""
        self.max_work = INT64_MAX
        if not self.lenient and not self.lazy:
            self._undo_to(0)
            self.conflict = NONE
            self.lazy = True
        try:
            _set_polls(self)
            with nogil:
                self._replay_chunk()
        except BaseException:
            _free(self)
            self._progress = None
            self.phase = BROKEN
            raise
        if self.ended_early:
            self.phase = STOPPED
            return (STATUS_CONCLUDED, self.chunk_index)
        return _ALL_STEPS_VALID

    cdef int _replay_chunk(self) except -1 nogil:
        """The chunk's steps taken in order; between steps, a collection when one
        is due, and the drat-trim reading's end."""
        cdef Py_ssize_t i
        self.chunk_index = -1
        for i in range(self.n_steps):
            if self.work >= self.next_poll:
                self._poll()
            self._take(i, self.steps_checked)
            self.steps_checked += 1
            if self._concludes():
                self.chunk_index = i
                return 0
            if _collect_due(self):
                _collect(self)
        return 0

    cdef int _take(self, Py_ssize_t i, int64_t s) except -1 nogil:
        """Replay step ``i`` of the chunk (step ``s``): what _step does when the
        step succeeds."""
        cdef int8_t kind = self.step_kind[i]
        cdef Py_ssize_t n
        cdef lit_t* out
        cdef int32_t k, slot
        cdef bint tautology
        cdef cref_t cid
        cdef uint64_t h
        if kind != STEP_ADD and kind != STEP_DELETE:
            return 0                    # a check fails (strict) or ignores it here
        n = self.step_off[i + 1] - self.step_off[i]
        _reserve(self, n)
        out = self.arena + self.arena_len + 2
        k = self._distinct(self.step_lits + self.step_off[i], n, out, &tautology, &h)
        if kind == STEP_DELETE:
            slot = self._find_slot(out, k, h)
            cid = self.table[slot]
            if cid != NONE and not (self.lenient and self._holds_up(cid)):
                self._remove_top(slot, s)
            return 0
        cid = self._commit(k, tautology, h)
        if not self.lazy:
            self._attach(cid)
        elif self.clauses[cid].kind == LONG:
            self._watch(cid)            # nothing is assigned: any two literals will do
        return 0

    # -- for the tests and the benchmarks ----------------------------------------------

    def _stats(self):
        """The stores' sizes now (entries, and bytes of the watch pool), for the
        memory tests and benchmarks: a dict."""
        self._not_running()
        if self.clauses == NULL:
            return {}
        return {"live_clauses": self.n_slots - self._free_count(), "slots": self.n_slots,
                "slots_room": self.slots_room, "arena_len": self.arena_len,
                "arena_room": self.arena_room, "arena_dead": self.arena_dead,
                "units_room": self.units_room, "literal_sets": self.live_sets,
                "table_slots": self.table_mask + 1, "longest_run": self._longest_run(),
                "pool_used": self.wpool.used,
                "chunk_steps_room": self.steps_room, "chunk_lits_room": self.lits_room,
                "collections": self.n_collections}

    cdef Py_ssize_t _longest_run(self):
        """The most table slots in a row that hold an entry (a lookup's longest
        walk), the run across the end included."""
        cdef Py_ssize_t t, run = 0, best = 0, slots = self.table_mask + 1
        for t in range(2 * slots):
            if self.table[t & self.table_mask] == NONE:
                run = 0
            else:
                run += 1
                if run > best:
                    best = run
        return best if best < slots else slots

    def _collect_now(self):
        """Collect now, whether or not one is due (for the tests); return None."""
        if self.phase != CHECKING and self.phase != STOPPED:
            raise RuntimeError(self._not_checking("_collect_now()"))
        self._enter()               # a collection moves what a running call points into
        try:
            _collect(self)
        finally:
            self._running = False

    cdef cref_t _free_count(self):
        cdef cref_t cid = self.free_slots, count = 0
        while cid != NONE and count <= self.n_slots:
            count += 1
            cid = self.clauses[cid].below
        return count

    cdef list _lits_of(self, cref_t cid):
        cdef clause_t* c = &self.clauses[cid]
        return [self.arena[c.head + t] for t in range(self.arena[c.head - 1])]

    def _check_invariants(self):
        """Raise AssertionError unless the stores agree with each other (tests call it
        between steps; not after a step passed the cap, which stops mid-step).

        The checks of ``kernel_py.Kernel._check_invariants``, on this kernel's
        structures, and its own: the arena (in storing order), the free slots,
        the table of literal sets, the watch pool's accounting and ``max_size``.
        """
        cdef cref_t cid, top
        cdef Py_ssize_t x, t, p
        cdef int32_t size
        cdef uint64_t s
        cdef watch_t* w
        cdef clause_t* c
        cdef aref_t h
        cdef lit_t lit
        self._not_running()
        if self.clauses == NULL:
            return
        nl = self.n_lits
        # Slots: live clauses, and the free list.
        free_slots = set()
        cid = self.free_slots
        while cid != NONE:
            assert 0 <= cid < self.n_slots and cid not in free_slots, cid
            assert self.clauses[cid].kind == FREE, cid
            free_slots.add(cid)
            cid = self.clauses[cid].below
        live = [x for x in range(self.n_slots) if self.clauses[<cref_t>x].kind != FREE]
        assert len(live) + len(free_slots) == self.n_slots
        lits = {}
        for cid in live:
            c = &self.clauses[cid]
            size = self.arena[c.head - 1] if 2 <= c.head <= self.arena_len else -1
            assert 0 <= size and c.head + size <= self.arena_len, cid
            assert self.arena[c.head - 2] == cid, cid
            L = self._lits_of(cid)
            assert len(set(L)) == len(L) and all(2 <= x < nl for x in L), cid
            taut = any(x ^ 1 in L for x in L)
            assert c.kind == (TAUTOLOGY if taut else EMPTY if not L
                              else UNIT if len(L) == 1 else LONG), cid
            assert size <= self.max_size, cid
            lits[cid] = L
        assert self.max_size >= 2
        # Ids: the arena is in storing order, so live clauses by arena position
        # are in id order (the LRAT's ids, when kept, say the same).
        by_head = sorted(live, key=lambda x: self.clauses[<cref_t>x].head)
        if self.lrat_ids != NULL:
            ids = [self.lrat_ids[<cref_t>x] for x in by_head]
            assert ids == sorted(set(ids)) and all(0 <= i < self.next_id for i in ids)
        # The arena: live regions and dead ones.
        dead = 0
        seen = set()
        p = 0
        while p < self.arena_len:
            cid = self.arena[p]
            size = self.arena[p + 1]
            assert size >= 0
            if cid == NONE:
                dead += size + 2
            else:
                assert cid in lits and self.clauses[cid].head == p + 2, p
                seen.add(cid)
            p += size + 2
        assert p == self.arena_len and dead == self.arena_dead
        assert seen == set(live)
        assert self.arena_len <= self.arena_room
        # Watch lists: each live long clause in those of lits[0] and lits[1], once.
        counts = {}
        used = 0
        for x in range(nl):
            w = &self.watches[x]
            assert 0 <= w.len <= w.cap
            used += w.cap * sizeof(aref_t)
            dead = 0
            for t in range(w.len):
                h = w.data[t]
                cid = self.arena[h - 2]
                if cid == NONE:                         # a deleted clause's (_ws_drop)
                    dead += 1
                    continue
                assert cid in lits and self.clauses[cid].head == h, (x, h)
                assert self.clauses[cid].kind == LONG, (x, cid)
                L = lits[cid]
                assert x in (L[0], L[1]), (x, cid)
                assert (cid, x) not in counts, (x, cid)
                counts[cid, x] = 1
            assert dead == w.dead and 2 * dead <= w.len, (x, dead, w.dead)
        longs = []
        for cid in live:
            if self.clauses[cid].kind == LONG:
                longs.append(cid)
        assert self.n_long == len(longs)
        assert len(counts) == 2 * len(longs)
        assert used <= self.wpool.used
        # Literal sets: each table entry the top of a stack of the live clauses
        # of one set, ids descending; every live clause in one stack.
        in_table = 0
        stacked = []
        for t in range(<Py_ssize_t>(self.table_mask + 1)):
            top = self.table[t]
            if top == NONE:
                continue
            assert top in lits, t
            in_table += 1
            key = sorted(lits[top])
            s = 0
            for lit in key:
                s += scc_lit_key(lit, _SET_SEED)
            assert self._hash_of(top) == scc_set_hash(s, len(key))
            marked = array("i", key)
            assert self._find_slot_of(marked) == t, top
            cid = top
            last = None
            while cid != NONE:
                assert cid in lits and sorted(lits[cid]) == key, (top, cid)
                assert last is None or self.clauses[cid].head < last, (top, cid)
                last = self.clauses[cid].head
                stacked.append(cid)
                cid = self.clauses[cid].below
        assert in_table == self.live_sets
        assert sorted(stacked) == sorted(live)
        # Units in id order; live empty clauses counted.
        units = [self.units[t] for t in range(self.n_units) if self.units[t] >= 0]
        heads = [_unit_head(self, self.units[t]) for t in range(self.n_units)]
        assert heads == sorted(heads) and len(set(heads)) == len(heads)
        assert self.n_units - len(units) == self.units_dead <= self.n_units // 2
        empties = 0
        for cid in live:
            empties += self.clauses[cid].kind == EMPTY
        assert units == [x for x in by_head if self.clauses[<cref_t>x].kind == UNIT]
        assert self.live_empty == empties
        # The trail, values and reasons.
        trail = [self.trail[t] for t in range(self.trail_len)]
        assert len({x >> 1 for x in trail}) == len(trail)
        assert sum(self.vals[x] == TRUE for x in range(nl)) == len(trail)
        for lit in trail:
            assert self.vals[lit] == TRUE and self.vals[lit ^ 1] == FALSE
            cid = self.reason[lit >> 1]
            assert cid in lits and lits[cid][0] == lit, _decode(lit)
        assert self.qhead == self.trail_len or self._inconsistent()
        if self.conflict != NONE:
            assert self.conflict in lits
            assert all(self.vals[x] == FALSE for x in lits[self.conflict])
        elif not self._inconsistent():
            for cid in longs:
                L = lits[cid]
                if FALSE in (self.vals[L[0]], self.vals[L[1]]):
                    assert TRUE in (self.vals[L[0]], self.vals[L[1]]), cid

    cdef int32_t _find_slot_of(self, const int[::1] lits) except? -1:
        """_find_slot for a Python-held set of encoded literals (the tests')."""
        cdef lit_t* tmp = <lit_t*>malloc((lits.shape[0] + 1) * sizeof(lit_t))
        cdef bint tautology
        cdef uint64_t h
        cdef int32_t k, slot
        cdef Py_ssize_t t
        if tmp == NULL:
            raise MemoryError()
        try:
            for t in range(lits.shape[0]):
                tmp[t] = lits[t]
            k = self._distinct(tmp, lits.shape[0], tmp, &tautology, &h)
            slot = self._find_slot(tmp, k, h)
        finally:
            free(tmp)
        return slot
