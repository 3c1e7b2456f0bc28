"""The compiled engine: SPEC §4 as a two-watched-literal kernel in C.

This is a translation of ``_engine_py.Kernel`` with the same public names:
``Kernel(num_vars, clause_offsets, clause_lits, step_kinds, step_offsets,
step_lits, max_work).run()`` returns ``(status, step_index, steps_checked,
work)``, and ``reason_deletions`` lists the steps whose delete removed the
reason of a level-0 literal.  Verdicts and the work counter agree with the
reference engine to the unit, with one documented exception: on
``STATUS_WORK_LIMIT`` this engine stops as soon as the counter passes the cap
(inside propagation), so the ``work`` it reports is the counter at that moment,
not at the end of the step.  Status, step index and steps checked are the same;
callers ignore ``work`` for that status (it is an error, not a result).

``run()`` copies the inputs into C arrays while it holds the GIL, checking
them as it goes (a kernel never reads out of bounds, whatever it is given),
then runs the whole check in one ``with nogil:`` block: threads checking
different requests run in parallel.  One ``Kernel`` per request.

A run that holds no GIL would also never run Python's signal handlers, so
Ctrl-C could not stop it: ``_poll()`` takes the GIL back every
``poll_interval`` (2**20) units of work, at the points where the cap is
checked, to run them (``PyErr_CheckSignals``) and to call the optional
``progress(steps_checked, work)`` callback; an exception from either leaves
``run()``.  Polls change neither verdicts nor the counter.
"""

import threading
from array import array
from inspect import Parameter, Signature
from operator import index

from cpython.exc cimport PyErr_CheckSignals
from libc.stdint cimport INT32_MAX, INT64_MAX, SIZE_MAX
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memcpy, memmove, memset

# Step kinds and run outcomes: _codes is their one definition; C copies here.
from . import _codes

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

cdef enum:
    NONE = -1           # "no clause" for _propagate() and conflict
    LIMIT = -2          # _propagate() stopped: the counter passed the cap
    UNASSIGNED = 0
    TRUE = 1
    FALSE = -1
    # Kinds of stored clause (SPEC §4.2).
    TAUTOLOGY = 0
    EMPTY = 1
    UNIT = 2
    LONG = 3
    # The largest num_vars whose literals 2*var+1 fit a lit_t.
    MAX_VARS = 1073741823      # (INT32_MAX - 1) // 2

# Work between two polls (signals, progress) by default: about 4 ms of checking.
POLL_INTERVAL = 1 << 20


cdef int _grow(void** p, size_t nelems, size_t elsize) except -1 nogil:
    """Resize ``*p`` to ``nelems`` items of ``elsize`` bytes.

    Raises MemoryError when the size overflows or realloc fails.  It never
    frees: on failure ``*p`` is unchanged and still owned by the caller.
    """
    cdef void* tmp
    if nelems != 0 and elsize > SIZE_MAX // nelems:
        with gil:
            raise MemoryError(f"cannot allocate {nelems} items of {elsize} bytes")
    tmp = realloc(p[0], nelems * elsize if nelems else 1)
    if tmp == NULL:
        with gil:
            raise MemoryError(f"cannot allocate {nelems} items of {elsize} bytes")
    p[0] = tmp
    return 0


cdef int _zeroed(void** p, size_t nelems, size_t elsize) except -1 nogil:
    """Allocate ``*p`` (NULL on entry) as ``nelems`` zeroed items of ``elsize``
    bytes: calloc, so pages nobody touches cost nothing.  Raises MemoryError."""
    cdef void* tmp
    if nelems != 0 and elsize > SIZE_MAX // nelems:
        with gil:
            raise MemoryError(f"cannot allocate {nelems} items of {elsize} bytes")
    tmp = calloc(nelems if nelems else 1, elsize)
    if tmp == NULL:
        with gil:
            raise MemoryError(f"cannot allocate {nelems} items of {elsize} bytes")
    p[0] = tmp
    return 0


cdef char* _pool_take(pool_t* pool, size_t nbytes) except NULL nogil:
    """A piece of ``nbytes`` (a multiple of 8) from the pool; a new block when the
    current one is short.  Raises MemoryError."""
    cdef size_t size
    cdef char* block
    cdef char* piece
    if <size_t>(pool.end - pool.next) < nbytes:
        size = pool.block
        if size < nbytes + 16:
            size = nbytes + 16
        if size > SIZE_MAX // 2:
            with gil:
                raise MemoryError(f"cannot allocate {nbytes} bytes of watch lists")
        block = <char*>malloc(size)
        if block == NULL:
            with gil:
                raise MemoryError(f"cannot allocate {size} bytes of watch lists")
        (<void**>block)[0] = pool.last
        pool.last = block
        pool.next = block + 16
        pool.end = block + size
        pool.block = 2 * pool.block
    piece = pool.next
    pool.next += nbytes
    return piece


cdef void _pool_free(pool_t* pool) noexcept nogil:
    """Free every block of the pool (safe to call twice)."""
    cdef void* block = pool.last
    cdef void* before
    while block != NULL:
        before = (<void**>block)[0]
        free(block)
        block = before
    pool.last = NULL
    pool.next = NULL
    pool.end = NULL


cdef int _ws_grow(pool_t* pool, watch_t* w) except -1 nogil:
    """Move a full watch list to a piece of the pool with twice the room (out of
    line: it is rare)."""
    cdef int64_t cap = 2 * <int64_t>w.cap + 4
    cdef aref_t* data
    if cap > INT32_MAX - 1:
        cap = INT32_MAX - 1
    if cap <= w.len:
        with gil:
            raise MemoryError("watch list too long")
    cap += cap & 1                                  # pieces stay 8-byte aligned
    data = <aref_t*>_pool_take(pool, <size_t>cap * sizeof(aref_t))
    if w.len:
        memcpy(data, w.data, w.len * sizeof(aref_t))
    w.data = data
    w.cap = <int32_t>cap
    return 0


cdef inline int _ws_push(pool_t* pool, watch_t* w, aref_t head) except -1 nogil:
    """Append a clause to a watch list, growing it by doubling."""
    if w.len == w.cap:
        _ws_grow(pool, w)
    w.data[w.len] = head
    w.len += 1
    return 0


cdef inline void _ws_remove(watch_t* w, aref_t head) noexcept nogil:
    """Remove a clause from a watch list, keeping the order of the rest."""
    cdef int32_t i
    for i in range(w.len):
        if w.data[i] == head:
            memmove(w.data + i, w.data + i + 1, (w.len - i - 1) * sizeof(aref_t))
            w.len -= 1
            return


cdef inline lit_t _encode(int lit) noexcept nogil:
    """DIMACS literal (already range-checked) -> 2*var + sign."""
    if lit < 0:
        return 2 * (-lit) + 1
    return 2 * lit


cdef const int[::1] _int_buffer(object obj, str name) except *:
    """A contiguous buffer of C ints; a list or tuple of ints is copied first."""
    cdef const int[::1] view
    if obj is None:                     # a typed memoryview would take None
        raise TypeError(f"{name} must be a contiguous buffer of C ints, not None")
    if isinstance(obj, (list, tuple)):
        try:
            obj = array("i", obj)
        except OverflowError as exc:
            raise ValueError(f"{name}: {exc}") from None
    try:
        view = obj
    except (TypeError, ValueError, BufferError) as exc:
        raise TypeError(f"{name} must be a contiguous buffer of C ints "
                        f"(array('i')), not {type(obj).__name__}: {exc}") from None
    return view


cdef object _as_int(object obj, str name):
    try:
        return index(obj)
    except TypeError:
        raise TypeError(f"{name} must be an int, not {type(obj).__name__}") from None


cdef void _check_offsets(const int[::1] offsets, Py_ssize_t n_lits, str name) except *:
    """Offsets start at 0, never decrease, and end at the number of literals."""
    cdef Py_ssize_t k, n = offsets.shape[0]
    if n == 0:
        raise ValueError(f"{name} is empty: it needs one entry more than items")
    if offsets[0] != 0:
        raise ValueError(f"{name}[0] is {offsets[0]}, not 0")
    for k in range(n - 1):
        if offsets[k + 1] < offsets[k]:
            raise ValueError(f"{name} decreases at index {k + 1}")
    if offsets[n - 1] != n_lits:
        raise ValueError(f"{name} ends at {offsets[n - 1]}, "
                         f"but there are {n_lits} literals")


cdef class Kernel:
    """The clause multiset, watch lists and level-0 state of one unsat check."""

    def __cinit__(self):
        # Cython zeroes the C fields: every pointer is NULL until run() loads.
        self.reason_deletions = []

    def __init__(self, num_vars, clause_offsets, clause_lits,
                 step_kinds, step_offsets, step_lits, max_work):
        self._num_vars = _as_int(num_vars, "num_vars")
        self._max_work = _as_int(max_work, "max_work")
        self._clause_offsets = _int_buffer(clause_offsets, "clause_offsets")
        self._clause_lits = _int_buffer(clause_lits, "clause_lits")
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

    def __dealloc__(self):
        self._free()

    @property
    def work(self):
        """The SPEC §4.3 counter after the last run (see the module note on the cap)."""
        return self.work

    def run(self, progress=None, poll_interval=POLL_INTERVAL):
        """Check the proof; return (status, step_index, steps_checked, work).

        ``progress(steps_checked, work)``, when given, is called each time the
        counter has grown by ``poll_interval`` since the last call (checked
        between clause visits and before each step).  An exception it raises,
        or KeyboardInterrupt on Ctrl-C, stops the run and propagates; the
        Kernel stays usable (a later run() starts afresh).
        """
        if progress is not None and not callable(progress):
            raise TypeError(f"progress must be callable, not {type(progress).__name__}")
        poll_interval = _as_int(poll_interval, "poll_interval")
        if poll_interval < 1:
            raise ValueError(f"poll_interval must be >= 1, got {poll_interval}")
        if self._running:
            raise RuntimeError("this Kernel is already running "
                               "(use one Kernel per request)")
        self._running = True
        try:
            self._free()
            self.reason_deletions = []
            self._load()
            self._progress = progress
            self.poll_interval = INT64_MAX if poll_interval > INT64_MAX else poll_interval
            # Signal handlers run only in the main thread: elsewhere, without a
            # callback, a poll would take the GIL for nothing.
            if progress is not None or threading.current_thread() is threading.main_thread():
                self.next_poll = self.poll_interval
            else:
                self.next_poll = INT64_MAX
            with nogil:
                self._check()
            self.reason_deletions = [self.deletions[i] for i in range(self.n_deletions)]
            return (self.status, self.step_index, self.steps_checked, self.work)
        finally:
            # Also on an exception from a poll: nothing stays allocated.
            self._free()
            self._progress = None
            self._running = False

    # -- loading: the entry guard, with the GIL -----------------------------------

    cdef int _load(self) except -1:
        """Check the inputs, copy them into C arrays, size every store.

        Raises ValueError on inputs the kernel cannot run on, MemoryError when
        an allocation fails; on either, ``_free()`` releases what was taken.
        """
        cdef const int[::1] co = self._clause_offsets
        cdef const int[::1] cl = self._clause_lits
        cdef const int[::1] so = self._step_offsets
        cdef const int[::1] sl = self._step_lits
        cdef Py_ssize_t k, i, n_kinds, n_adds = 0, lits_max, scratch_max = 1, length
        cdef Py_ssize_t clauses_max, slots
        cdef int lit, kind, nv

        num_vars = self._num_vars
        if num_vars < 0:
            raise ValueError(f"num_vars must be >= 0, got {num_vars}")
        if num_vars > MAX_VARS:
            raise ValueError(f"num_vars must be <= {MAX_VARS}, got {num_vars}")
        nv = num_vars
        max_work = self._max_work
        if max_work < 0:
            raise ValueError(f"max_work must be >= 0, got {max_work}")
        self.max_work = INT64_MAX if max_work > INT64_MAX else max_work

        _check_offsets(co, cl.shape[0], "clause_offsets")
        _check_offsets(so, sl.shape[0], "step_offsets")
        n_kinds = self._kinds_i.shape[0] if self._kinds_wide else self._kinds_b.shape[0]
        if n_kinds != so.shape[0] - 1:
            raise ValueError(f"step_kinds has {n_kinds} entries, step_offsets "
                             f"describes {so.shape[0] - 1} steps")
        for i in range(cl.shape[0]):
            lit = cl[i]
            if lit == 0 or lit < -nv or lit > nv:
                raise ValueError(f"clause literal {lit} (index {i}) is out of range "
                                 f"for num_vars {nv}")
        for k in range(co.shape[0] - 1):
            length = co[k + 1] - co[k]
            if length > scratch_max:
                scratch_max = length
        lits_max = cl.shape[0]
        for k in range(n_kinds):
            kind = self._kinds_i[k] if self._kinds_wide else self._kinds_b[k]
            if kind < STEP_ADD or kind > STEP_DELETE_NO_MATCH:
                raise ValueError(f"step_kinds[{k}] is {kind}, not a step kind")
            if kind != STEP_ADD and kind != STEP_DELETE:
                continue
            for i in range(so[k], so[k + 1]):
                lit = sl[i]
                if lit == 0 or lit < -nv or lit > nv:
                    raise ValueError(f"literal {lit} of step {k} is out of range for "
                                     f"num_vars {nv}")
            length = so[k + 1] - so[k]
            if length > scratch_max:
                scratch_max = length
            if kind == STEP_ADD:
                n_adds += 1
                lits_max += length
        clauses_max = co.shape[0] - 1 + n_adds
        if clauses_max >= INT32_MAX // 4 or lits_max + 2 * clauses_max > INT32_MAX:
            raise ValueError(f"too many clauses or literals: {clauses_max} clauses, "
                             f"{lits_max} literals")

        # Owned copies: from here on nothing reads the caller's buffers.
        self.max_size = scratch_max if scratch_max > 2 else 2
        self.nvars = nv
        self.n_cnf = co.shape[0] - 1
        self.n_steps = n_kinds
        _grow(<void**>&self.cnf_off, self.n_cnf + 1, sizeof(Py_ssize_t))
        _grow(<void**>&self.cnf_lits, cl.shape[0], sizeof(lit_t))
        _grow(<void**>&self.step_kind, self.n_steps, sizeof(int8_t))
        _grow(<void**>&self.step_off, self.n_steps + 1, sizeof(Py_ssize_t))
        _grow(<void**>&self.step_lits, sl.shape[0], sizeof(lit_t))
        for k in range(self.n_cnf + 1):
            self.cnf_off[k] = co[k]
        for i in range(cl.shape[0]):
            self.cnf_lits[i] = _encode(cl[i])
        for k in range(self.n_steps + 1):
            self.step_off[k] = so[k]
        for k in range(self.n_steps):
            kind = self._kinds_i[k] if self._kinds_wide else self._kinds_b[k]
            self.step_kind[k] = <int8_t>kind
            for i in range(so[k], so[k + 1]):
                self.step_lits[i] = _encode(sl[i]) if kind <= STEP_DELETE else 0

        # The stores, sized for every clause the run can add.
        _grow(<void**>&self.clauses, clauses_max, sizeof(clause_t))
        _grow(<void**>&self.arena, lits_max + 2 * clauses_max, sizeof(lit_t))
        _grow(<void**>&self.units, clauses_max, sizeof(cref_t))
        _grow(<void**>&self.scratch, scratch_max, sizeof(lit_t))
        _grow(<void**>&self.below, clauses_max, sizeof(cref_t))
        _grow(<void**>&self.groups, clauses_max, sizeof(group_t))
        slots = 8
        while slots < 2 * clauses_max + 1:
            slots *= 2
        _grow(<void**>&self.table, slots, sizeof(int32_t))
        memset(self.table, 0xff, slots * sizeof(int32_t))      # every slot -1
        self.table_mask = slots - 1
        # Per literal and per variable (the watches first: the biggest).  reason
        # and trail need no initial values: a reason is read only for an
        # assigned variable, and the trail only below trail_len.
        self.n_lits = 2 * (<Py_ssize_t>nv + 1)
        _zeroed(<void**>&self.watches, self.n_lits, sizeof(watch_t))
        # The watch lists' first block: room for the CNF's watches, doubled.
        self.wpool.block = 16 + 8 * (4 * <size_t>self.n_cnf + 4 * <size_t>self.n_lits)
        if self.wpool.block < 4096:
            self.wpool.block = 4096
        _zeroed(<void**>&self.vals, self.n_lits, sizeof(int8_t))
        _zeroed(<void**>&self.marks, self.n_lits, sizeof(uint8_t))
        _grow(<void**>&self.reason, nv + 1, sizeof(cref_t))
        _grow(<void**>&self.trail, nv + 1, sizeof(lit_t))
        _grow(<void**>&self.deletions, self.n_steps, sizeof(int32_t))

        self.n_clauses = 0
        self.arena_len = 0
        self.n_units = 0
        self.live_empty = 0
        self.n_groups = 0
        self.trail_len = 0
        self.qhead = 0
        self.conflict = NONE
        self.work = 0
        self.n_deletions = 0
        self.status = STATUS_VALID
        self.step_index = -1
        self.steps_checked = 0
        return 0

    cdef void _free(self) noexcept:
        """Release every C array (safe to call twice); keeps the outcome fields."""
        _pool_free(&self.wpool)
        free(self.watches)
        self.watches = NULL
        free(self.cnf_off)
        self.cnf_off = NULL
        free(self.cnf_lits)
        self.cnf_lits = NULL
        free(self.step_kind)
        self.step_kind = NULL
        free(self.step_off)
        self.step_off = NULL
        free(self.step_lits)
        self.step_lits = NULL
        free(self.clauses)
        self.clauses = NULL
        free(self.arena)
        self.arena = NULL
        free(self.units)
        self.units = NULL
        free(self.scratch)
        self.scratch = NULL
        free(self.marks)
        self.marks = NULL
        free(self.table)
        self.table = NULL
        free(self.groups)
        self.groups = NULL
        free(self.below)
        self.below = NULL
        free(self.vals)
        self.vals = NULL
        free(self.reason)
        self.reason = NULL
        free(self.trail)
        self.trail = NULL
        free(self.deletions)
        self.deletions = NULL
        self.n_lits = 0

    # -- the whole check, without the GIL -------------------------------------------

    cdef int _check(self) except -1 nogil:
        """SPEC §4.1: the CNF, the initial build, then every step in order."""
        cdef bint derived_empty = False
        cdef Py_ssize_t k, s
        cdef cref_t cid
        cdef int status
        for k in range(self.n_cnf):
            cid = self._store(self.cnf_lits + self.cnf_off[k],
                              self.cnf_off[k + 1] - self.cnf_off[k])
            if self.clauses[cid].kind == EMPTY:
                derived_empty = True
            elif self.clauses[cid].kind == LONG:
                self._watch(cid)
        self._build()
        if self.work > self.max_work:
            self.status = STATUS_WORK_LIMIT
            self.step_index = -1
            self.steps_checked = 0
            return 0
        for s in range(self.n_steps):
            self.steps_checked = s              # what a poll reports
            if self.work >= self.next_poll:
                # Work outside propagation (assignments of a RUP check, a rebuild's
                # units) counts towards the next poll too.
                self._poll()
            status = self._step(s)
            if self.work > self.max_work:
                # SPEC §4.3: a step that passes the cap ends the run, whatever
                # its verdict.
                self.status = STATUS_WORK_LIMIT
                self.step_index = s
                self.steps_checked = s
                return 0
            if status == STATUS_VALID:
                if (self.step_kind[s] == STEP_ADD
                        and self.clauses[self.n_clauses - 1].kind == EMPTY):
                    derived_empty = True
                continue
            self.status = status
            self.step_index = s
            self.steps_checked = s
            return 0
        self.status = STATUS_VALID if derived_empty else STATUS_EMPTY_CLAUSE_NOT_DERIVED
        self.step_index = -1
        self.steps_checked = self.n_steps
        return 0

    cdef int _poll(self) except -1 nogil:
        """Take the GIL to run pending signal handlers (Ctrl-C raises
        KeyboardInterrupt here) and to call ``progress``; set the next poll.

        Either may raise: the exception goes up through every caller (they all
        propagate exceptions, as for MemoryError) and out of run(), which frees
        the arrays; the half-done state is never read again."""
        if self.work > INT64_MAX - self.poll_interval:
            self.next_poll = INT64_MAX
        else:
            self.next_poll = self.work + self.poll_interval
        with gil:
            PyErr_CheckSignals()
            if self._progress is not None:
                self._progress(self.steps_checked, self.work)
        return 0

    cdef int _step(self, Py_ssize_t s) except -1 nogil:
        """One proof step; returns its STATUS_*."""
        cdef int8_t kind = self.step_kind[s]
        cdef const lit_t* given
        cdef Py_ssize_t n
        cdef lit_t* out
        cdef int32_t k, slot, g
        cdef bint tautology, rup
        cdef cref_t cid
        cdef uint64_t h
        if kind == STEP_ADD_OUT_OF_RANGE:
            return STATUS_LITERAL_OUT_OF_RANGE
        if kind == STEP_DELETE_NO_MATCH:
            return STATUS_DELETED_CLAUSE_NOT_FOUND
        given = self.step_lits + self.step_off[s]
        n = self.step_off[s + 1] - self.step_off[s]
        if kind == STEP_DELETE:
            # SPEC §4.1: the live clause with this literal set and the highest id.
            k = self._distinct(given, n, self.scratch, &tautology, &h)
            slot = self._find_slot(self.scratch, k, h)
            g = self.table[slot]
            if g < 0 or self.groups[g].top == NONE:
                return STATUS_DELETED_CLAUSE_NOT_FOUND
            cid = self.groups[g].top
            self.groups[g].top = self.below[cid]
            self._delete(cid, s)
            return STATUS_VALID
        # An add: its distinct literals go where _commit() will store them.
        out = self.arena + self.arena_len + 2
        k = self._distinct(given, n, out, &tautology, &h)
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

    # -- the clause store ------------------------------------------------------------

    cdef int32_t _distinct(self, const lit_t* given, Py_ssize_t n, lit_t* out,
                           bint* tautology, uint64_t* h) noexcept nogil:
        """Write the distinct literals of ``given`` to ``out`` in order of first
        occurrence; return their number, set ``*tautology`` and ``*h`` (the hash
        of the set, for the table of groups)."""
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
                sum += scc_lit_key(lit)
        for i in range(k):
            if marks[out[i] ^ 1]:
                taut = True
                break
        for i in range(k):
            marks[out[i]] = 0
        tautology[0] = taut
        h[0] = scc_set_hash(sum, k)
        return k

    cdef cref_t _store(self, const lit_t* given, Py_ssize_t n) noexcept nogil:
        """Store a clause under the next id and return the id; no watching."""
        cdef bint tautology
        cdef uint64_t h
        cdef lit_t* out = self.arena + self.arena_len + 2
        cdef int32_t k = self._distinct(given, n, out, &tautology, &h)
        return self._commit(k, tautology, h)

    cdef cref_t _commit(self, int32_t k, bint tautology, uint64_t h) noexcept nogil:
        """Store the next clause: its ``k`` distinct literals are already in the arena,
        after the room for its header, and ``h`` is their set's hash."""
        cdef cref_t cid = self.n_clauses
        cdef clause_t* c = &self.clauses[cid]
        cdef int32_t slot, g
        c.head = self.arena_len + 2
        c.lits = self.arena + c.head
        c.size = k
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
        self.n_clauses += 1
        self.arena_len += k + 2
        # Its group of equal literal sets: ids pushed in ascending order, so the
        # group's top is always its live clause with the highest id.
        slot = self._find_slot(c.lits, k, h)
        g = self.table[slot]
        if g < 0:
            # A new set: its first clause's literals stand for it (watching
            # permutes them, but the set stays the same).
            g = self.n_groups
            self.n_groups += 1
            self.groups[g].hash = h
            self.groups[g].lits = c.lits
            self.groups[g].size = k
            self.groups[g].top = NONE
            self.table[slot] = g
        self.below[cid] = self.groups[g].top
        self.groups[g].top = cid
        if c.kind == EMPTY:
            self.live_empty += 1
        elif c.kind == UNIT:
            self.units[self.n_units] = cid
            self.n_units += 1
        return cid

    cdef int32_t _find_slot(self, const lit_t* lits, int32_t n,
                            uint64_t h) noexcept nogil:
        """The table slot holding the set of the ``n`` distinct literals at ``lits``
        (hash ``h``), or the empty slot where it goes; equal hashes and sizes are
        confirmed by comparing the sets, with the marks."""
        cdef uint64_t i = h & self.table_mask
        cdef uint8_t* marks = self.marks
        cdef int32_t g, t
        cdef lit_t* other
        cdef bint equal
        while True:
            g = self.table[i]
            if g < 0:
                return <int32_t>i
            if self.groups[g].hash == h and self.groups[g].size == n:
                # Two sets of n distinct literals: equal when one holds the other.
                for t in range(n):
                    marks[lits[t]] = 1
                other = self.groups[g].lits
                equal = True
                for t in range(n):
                    if not marks[other[t]]:
                        equal = False
                        break
                for t in range(n):
                    marks[lits[t]] = 0
                if equal:
                    return <int32_t>i
            i = (i + 1) & self.table_mask

    cdef int _watch(self, cref_t cid) except -1 nogil:
        cdef lit_t* lits = self.clauses[cid].lits
        _ws_push(&self.wpool, &self.watches[lits[0]], self.clauses[cid].head)
        _ws_push(&self.wpool, &self.watches[lits[1]], self.clauses[cid].head)
        return 0

    # -- values and assignment --------------------------------------------------------

    cdef void _assign(self, lit_t lit, cref_t why) noexcept nogil:
        self.vals[lit] = TRUE
        self.vals[lit ^ 1] = FALSE
        self.reason[lit >> 1] = why
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

    # -- SPEC §4.3 ---------------------------------------------------------------

    cdef cref_t _propagate(self) except -3 nogil:
        """Propagate the trail from qhead; return a falsified clause, NONE, or LIMIT
        as soon as the counter passes the cap (the watch list at hand is left whole).

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
        cdef int32_t k, size
        cdef lit_t f, other
        cdef lit_t* L
        cdef aref_t h
        cdef cref_t found = NONE
        while qhead < trail_len:
            f = trail[qhead] ^ 1                        # f just became FALSE
            qhead += 1
            ws = &watches[f]
            i = ws.data
            j = i
            end = i + ws.len
            while i != end:
                # The visits that cannot pass the limit: all the rest, usually.
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
                    h = i[0]
                    i += 1
                    L = arena + h
                    # SPEC §4.3's swap, without a branch: f goes to L[1], the other
                    # watched literal to L[0].
                    other = L[0] ^ L[1] ^ f
                    L[0] = other
                    L[1] = f
                    if vals[other] == TRUE:
                        j[0] = h
                        j += 1
                        continue
                    size = L[-1]
                    k = 2
                    while k < size and vals[L[k]] == FALSE:
                        k += 1
                    if k < size:
                        work += k - 1                   # L[2..k] inspected
                        L[1] = L[k]
                        L[k] = f
                        _ws_push(wpool, &watches[L[1]], h)  # it leaves ws (L[1] != f)
                        continue
                    work += size - 2                    # L[2..size-1] inspected
                    j[0] = h
                    j += 1
                    if vals[other] == FALSE:
                        # SPEC §4.3: on conflict keep the rest of ws, stop.
                        found = L[-2]
                        break
                    vals[other] = TRUE                 # assign(L[0], reason=the clause)
                    vals[other ^ 1] = FALSE
                    reason[other >> 1] = L[-2]
                    trail[trail_len] = other
                    trail_len += 1
                    work += 1
                work += i - start                       # the visits
                if found != NONE:
                    break
            if found != NONE:
                while i != end:                         # keep the rest of ws
                    j[0] = i[0]
                    j += 1
                    i += 1
                if found != LIMIT:
                    qhead = trail_len
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
        self._undo_to(0)
        self.conflict = NONE
        for i in range(self.n_units):
            u = self.units[i]
            lit = self.clauses[u].lits[0]
            if self.vals[lit] == TRUE:
                continue
            if self.vals[lit] == FALSE:
                self.conflict = u
                return 0
            self._assign(lit, u)
        self.conflict = self._propagate()
        return 0

    cdef int _is_rup(self, const lit_t* lits, int32_t n,
                     bint tautology) except -1 nogil:
        """1 when the clause is RUP in the current multiset, else 0; no lasting change
        to the assignment."""
        cdef int32_t level0, i
        cdef bint rup = False
        cdef lit_t lit
        if tautology or self._inconsistent():
            return 1
        level0 = self.trail_len
        for i in range(n):
            lit = lits[i]
            if self.vals[lit] == TRUE:
                rup = True
                break
            if self.vals[lit] == UNASSIGNED:
                self._assign(lit ^ 1, NONE)
        if not rup:
            rup = self._propagate() != NONE
        self._undo_to(level0)
        return rup

    cdef int _attach(self, cref_t cid) except -1 nogil:
        """Attach a successful lemma that _commit() has just stored."""
        cdef clause_t* c = &self.clauses[cid]
        cdef lit_t* L = c.lits
        cdef lit_t lit
        cdef int32_t pos, k, found = 0
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
        if c.kind != LONG:
            return 0                                    # tautology, or empty (counted)
        if self._inconsistent():
            self._watch(cid)
            return 0
        for pos in range(2):
            for k in range(pos, c.size):
                if self.vals[L[k]] != FALSE:
                    lit = L[pos]
                    L[pos] = L[k]
                    L[k] = lit
                    found += 1
                    break
            if found == pos:                            # nothing for this position
                break
        self._watch(cid)
        if found == 0:
            self.conflict = cid
        elif found == 1 and self.vals[L[0]] == UNASSIGNED:
            self._assign(L[0], cid)
            self.conflict = self._propagate()
        return 0

    cdef int _delete(self, cref_t cid, Py_ssize_t s) except -1 nogil:
        """Remove a live clause (at step s); rebuild the level-0 state when it
        held it up."""
        cdef clause_t* c = &self.clauses[cid]
        cdef lit_t* L = c.lits
        cdef bint rebuild = cid == self.conflict
        cdef int32_t lo, hi, mid
        if c.kind == EMPTY:
            self.live_empty -= 1
            rebuild = rebuild or self.live_empty == 0
        elif c.kind == UNIT or c.kind == LONG:
            if c.kind == UNIT:
                # The unit list is ascending: find cid by bisection, close the gap.
                lo = 0
                hi = self.n_units
                while lo < hi:
                    mid = (lo + hi) // 2
                    if self.units[mid] < cid:
                        lo = mid + 1
                    else:
                        hi = mid
                if lo < self.n_units and self.units[lo] == cid:
                    memmove(self.units + lo, self.units + lo + 1,
                            (self.n_units - lo - 1) * sizeof(cref_t))
                    self.n_units -= 1
            else:
                _ws_remove(&self.watches[L[0]], c.head)
                _ws_remove(&self.watches[L[1]], c.head)
            if self.vals[L[0]] == TRUE and self.reason[L[0] >> 1] == cid:
                self.deletions[self.n_deletions] = <int32_t>s
                self.n_deletions += 1
                rebuild = True
        if rebuild:
            self._build()
        return 0

    # inspect.signature(Kernel) works as for the reference's class.
    __signature__ = Signature([
        Parameter(name, Parameter.POSITIONAL_OR_KEYWORD)
        for name in ("num_vars", "clause_offsets", "clause_lits", "step_kinds",
                     "step_offsets", "step_lits", "max_work")])
