# kernel_arena.pxi: the compiled kernel's C-only parts, included by kernel_c.pyx
# (before the Kernel class), which reads beside kernel_py.py.  Nothing here has a
# counterpart in the reference engine: C memory and its growth, the watch lists'
# pool, the collection of deleted clauses' room, and loading: the inputs checked
# and copied, encoded, into C memory while the GIL is held.  The Kernel's parts
# here are functions of the Kernel (``_reserve(self, n)``), called from the class.

import threading
from operator import index

from cpython.list cimport PyList_GET_ITEM, PyList_GET_SIZE
from cpython.long cimport PyLong_AsLongAndOverflow, PyLong_CheckExact
from cpython.pythread cimport PyThread_get_thread_ident
from cpython.tuple cimport PyTuple_GET_ITEM, PyTuple_GET_SIZE
from libc.stdint cimport INT32_MAX, SIZE_MAX
from libc.stdlib cimport calloc, realloc
from libc.string cimport memcpy, memset

cdef enum:
    # The largest num_vars whose literals 2*var+1 fit a lit_t.
    MAX_VARS = 1073741823      # (INT32_MAX - 1) // 2
    # The most slots and arena entries the int32 references can name.
    MAX_SLOTS = 2147483646
    MAX_ARENA = 2147483647
    # Dead arena entries tolerated whatever the live ones (collections stay rare
    # on small formulas; _collect_due adds the number of literals).
    ARENA_FLOOR = 65536

# The watch pool's bytes handed out beyond three times what the live watches
# need, tolerated before a collection (see _collect_due).
cdef size_t POOL_FLOOR = 1 << 20

# The thread whose signal handlers run (see _set_polls).
cdef unsigned long _MAIN_THREAD = threading.main_thread().ident


# -- C memory --------------------------------------------------------------------------


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


cdef int64_t _table_room(int64_t full, const char* what) except -1 nogil:
    """The room for a full table of slots: twice as much and 16
    more, up to MAX_SLOTS; MemoryError (too many ``what``) past that."""
    cdef int64_t room = 2 * full + 16
    if room > MAX_SLOTS:
        room = MAX_SLOTS
    if room <= full:
        with gil:
            raise MemoryError(f"too many {what.decode('ascii')}")
    return room


# -- the watch lists: pieces of a pool -------------------------------------------------


cdef char* _pool_take(pool_t* pool, size_t nbytes) except NULL nogil:
    """A piece of ``nbytes`` (a multiple of 8) from the pool; a new block when the
    current one is short (its tail counts as used: it is never handed out).
    Raises MemoryError."""
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
        pool.used += <size_t>(pool.end - pool.next)
        (<void**>block)[0] = pool.last
        pool.last = block
        pool.next = block + 16
        pool.end = block + size
        pool.block = 2 * pool.block
    piece = pool.next
    pool.next += nbytes
    pool.used += nbytes
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
    pool.used = 0


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


# A deleted clause leaves its watch lists lazily: finding it in a list costs
# the list's length, and deleting the clauses of one long list one by one
# would cost its square (deletions count no work: no cap would bound it).
# Its entries stay where they are, counted in the list's ``dead``, until the
# list is purged: before it is next visited (a visit never meets one), when
# half of it is dead, or by _collect.  A purge keeps the order of the rest.


cdef inline void _ws_drop(watch_t* w, const lit_t* arena) noexcept nogil:
    """A clause of ``w``, just marked deleted in the arena, leaves it (lazily)."""
    w.dead += 1
    if 2 * w.dead > w.len:
        _ws_purge(w, arena)


cdef void _ws_purge(watch_t* w, const lit_t* arena) noexcept nogil:
    """Remove the deleted clauses' entries from a watch list, keeping the order
    of the rest (out of line: it is rare)."""
    cdef int32_t i, n = 0
    cdef aref_t h
    for i in range(w.len):
        h = w.data[i]
        if arena[h - 2] != NONE:
            w.data[n] = h
            n += 1
    w.len = n
    w.dead = 0


# The unit list is in id order (arena order), and a unit's deletion finds it
# by bisection; closing the gap at once would cost the length of the list
# after it.  Its entry becomes ``-2 - head`` (its place in the order kept, and
# told apart from a slot) until half the list is dead, or _collect.


cdef inline aref_t _unit_head(Kernel self, cref_t entry) noexcept nogil:
    """The arena head a unit list entry is ordered by (live or deleted)."""
    return self.clauses[entry].head if entry >= 0 else -2 - entry


cdef void _units_drop(Kernel self, cref_t cid) noexcept nogil:
    """A live unit clause, about to be freed, leaves the unit list (lazily)."""
    cdef aref_t head = self.clauses[cid].head
    cdef int32_t lo = 0, hi = self.n_units, mid
    while lo < hi:
        mid = (lo + hi) // 2
        if _unit_head(self, self.units[mid]) < head:
            lo = mid + 1
        else:
            hi = mid
    if lo < self.n_units and self.units[lo] == cid:
        self.units[lo] = -2 - head
        self.units_dead += 1
        if 2 * self.units_dead > self.n_units:
            _units_purge(self)


cdef void _units_purge(Kernel self) noexcept nogil:
    """Remove the deleted units' entries from the unit list, keeping the order."""
    cdef int32_t i, n = 0
    for i in range(self.n_units):
        if self.units[i] >= 0:
            self.units[n] = self.units[i]
            n += 1
    self.n_units = n
    self.units_dead = 0


cdef int _watch_cnf(Kernel self) except -1 nogil:
    """Watch the CNF's long clauses (slots 0.. in storing order, just stored)
    in lists sized to fit, in one block: a list grown by doubling leaves its
    old pieces behind, which for a big formula is most of the pool.  The
    lists' contents and order are those of a _watch per clause."""
    cdef watch_t* watches = self.watches
    cdef cref_t cid
    cdef aref_t h
    cdef Py_ssize_t x
    cdef size_t total = 0
    cdef int64_t cap
    cdef char* base
    for cid in range(self.n_slots):                 # the lists' lengths, in cap
        if self.clauses[cid].kind == LONG:
            h = self.clauses[cid].head
            watches[self.arena[h]].cap += 1
            watches[self.arena[h + 1]].cap += 1
    for x in range(self.n_lits):
        cap = watches[x].cap
        cap += cap & 1                              # pieces stay 8-byte aligned
        watches[x].cap = <int32_t>cap
        total += <size_t>cap
    if total:
        base = _pool_take(&self.wpool, total * sizeof(aref_t))
        for x in range(self.n_lits):
            watches[x].data = <aref_t*>base
            base += <size_t>watches[x].cap * sizeof(aref_t)
    self.wpool.block = total * sizeof(aref_t) // 2 + 4096
    for cid in range(self.n_slots):
        if self.clauses[cid].kind == LONG:
            self._watch(cid)
    return 0


cdef inline int32_t _compact_cap(int32_t length) noexcept nogil:
    """A watch list's room after a collection: half as much again, and even."""
    cdef int64_t cap
    if length == 0:
        return 0
    cap = <int64_t>length + length // 2 + 2
    cap += cap & 1
    if cap > INT32_MAX - 1:
        cap = INT32_MAX - 1
    return <int32_t>cap


# -- the clause store's memory: growth and reuse ---------------------------------------


cdef int _reserve(Kernel self, Py_ssize_t n) except -1 nogil:
    """Room at the arena's end for a clause of ``n`` literals (at most the
    number of distinct literals) and its header."""
    cdef int64_t need, room
    if n > self.n_lits:
        n = self.n_lits
    need = <int64_t>self.arena_len + n + 2
    if need <= self.arena_room:
        return 0
    if need > MAX_ARENA:
        with gil:
            raise MemoryError(f"too many live literals for the arena ({need})")
    room = 2 * <int64_t>self.arena_room
    if room < need:
        room = need
    if room > MAX_ARENA:
        room = MAX_ARENA
    _grow(<void**>&self.arena, <size_t>room, sizeof(lit_t))
    self.arena_room = <aref_t>room
    return 0


cdef cref_t _new_slot(Kernel self) except -2 nogil:
    """A slot for a new clause: a deleted clause's, else the next one."""
    cdef cref_t cid = self.free_slots
    cdef int64_t room
    if cid != NONE:
        self.free_slots = self.clauses[cid].below
        return cid
    if self.n_slots == self.slots_room:
        room = _table_room(self.slots_room, "live clauses")
        if self.lrat_ids != NULL:               # first: the room is the smaller one's
            _grow(<void**>&self.lrat_ids, <size_t>room, sizeof(int64_t))
        _grow(<void**>&self.clauses, <size_t>room, sizeof(clause_t))
        self.slots_room = <cref_t>room
    cid = self.n_slots
    self.n_slots += 1
    return cid


cdef int _grow_table(Kernel self) except -1 nogil:
    """Double the table of literal sets and place every entry again by its hash."""
    cdef uint64_t slots = 2 * (self.table_mask + 1)
    cdef uint64_t mask = slots - 1
    cdef uint64_t k, i
    cdef cref_t* old = self.table
    cdef cref_t* table = NULL
    cdef cref_t cid
    if slots > (<uint64_t>1 << 32):
        with gil:
            raise MemoryError("too many literal sets")
    _grow(<void**>&table, <size_t>slots, sizeof(cref_t))
    memset(table, 0xff, <size_t>slots * sizeof(cref_t))     # every slot NONE
    for k in range(self.table_mask + 1):
        cid = old[k]
        if cid != NONE:
            i = self._hash_of(cid) & mask
            while table[i] != NONE:
                i = (i + 1) & mask
            table[i] = cid
    free(old)
    self.table = table
    self.table_mask = mask
    return 0


# -- the collection: the room of deleted clauses reclaimed -----------------------------


cdef bint _collect_due(Kernel self) noexcept nogil:
    """Is it time for _collect: deleted clauses' literals take more arena room
    than the live ones, or the watch pool has handed out three times what the
    live watches need (lists that moved when they grew leave their old piece
    behind)?  Both beyond a floor that grows with the number of literals, so
    a collection's cost is paid for by the steps before it."""
    cdef size_t need = 4 * (3 * <size_t>self.n_long + 2 * <size_t>self.n_lits)
    if (self.arena_dead > ARENA_FLOOR + self.n_lits
            and 2 * <int64_t>self.arena_dead > self.arena_len):
        return True
    return self.wpool.used > POOL_FLOOR + 3 * need


cdef int _collect(Kernel self) except -1 nogil:
    """Reclaim the room of deleted clauses: move the live clauses to the front
    of the arena (in arena order, in place), and the watch lists into one new
    pool block, rewriting their arena references and leaving the deleted
    clauses' entries behind; then free the old pool and give the arena's
    spare room back.  The unit list loses its deleted units' entries (they
    name arena positions); slots and the table do not change, only arena
    positions (their order stays: storing order).
    Raises MemoryError, changing nothing, when the new block cannot be had."""
    cdef lit_t* arena = self.arena
    cdef aref_t p = 0, q = 0
    cdef int64_t room
    cdef int32_t size, t, cap, n
    cdef cref_t cid
    cdef pool_t pool
    cdef Py_ssize_t x
    cdef size_t nbytes = 0
    cdef char* base = NULL
    cdef char* block
    cdef watch_t* w
    cdef aref_t* data
    for x in range(self.n_lits):
        w = &self.watches[x]
        nbytes += <size_t>_compact_cap(w.len - w.dead) * sizeof(aref_t)
    memset(&pool, 0, sizeof(pool_t))
    if nbytes:
        block = <char*>malloc(nbytes + 16)
        if block == NULL:
            with gil:
                raise MemoryError(f"cannot allocate {nbytes} bytes of watch lists")
        (<void**>block)[0] = NULL
        pool.last = block
        base = block + 16
        pool.next = base + nbytes                   # the block is full
        pool.end = pool.next
        pool.used = nbytes
    pool.block = nbytes // 2 + 4096
    _units_purge(self)                              # its entries name old heads
    # Where each live clause goes (its header still names its slot)...
    while p < self.arena_len:
        cid = arena[p]
        size = arena[p + 1]
        if cid != NONE:
            self.clauses[cid].head = q + 2
            q += size + 2
        p += size + 2
    # ... the watch lists follow (read through the headers, still in place;
    # the deleted clauses' entries left behind) ...
    for x in range(self.n_lits):
        w = &self.watches[x]
        cap = _compact_cap(w.len - w.dead)
        data = <aref_t*>base if cap else NULL
        n = 0
        for t in range(w.len):
            cid = arena[w.data[t] - 2]
            if cid != NONE:
                data[n] = self.clauses[cid].head
                n += 1
        w.data = data
        w.len = n
        w.cap = cap
        w.dead = 0
        base += <size_t>cap * sizeof(aref_t)
    _pool_free(&self.wpool)
    self.wpool = pool
    # ... and the clauses move, each to a place at or before its own.
    p = 0
    q = 0
    while p < self.arena_len:
        cid = arena[p]
        size = arena[p + 1]
        if cid != NONE:
            memmove(arena + q, arena + p, (size + 2) * sizeof(lit_t))
            q += size + 2
        p += size + 2
    self.arena_len = q
    self.arena_dead = 0
    # Room for as much again as is live, half of it, and some; the rest goes back.
    room = <int64_t>q + q // 2 + 1024
    if room < self.arena_room:
        _grow(<void**>&self.arena, <size_t>room, sizeof(lit_t))
        self.arena_room = <aref_t>room
    self.n_collections += 1
    return 0


# -- loading: the entry guard, with the GIL --------------------------------------------


cdef inline lit_t _encode(int lit) noexcept nogil:
    """DIMACS literal (already range-checked) -> 2*var + sign."""
    if lit < 0:
        return 2 * (-lit) + 1
    return 2 * lit


cdef inline int _decode(lit_t lit) noexcept nogil:
    """2*var + sign -> the DIMACS literal."""
    return -(lit >> 1) if lit & 1 else lit >> 1


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


cdef int _load_cnf(Kernel self, Py_ssize_t more_clauses, Py_ssize_t more_lits) except -1:
    """Check the numbers and the CNF, allocate the per-literal arrays and the
    stores (sized for the CNF and ``more_clauses`` clauses of ``more_lits``
    literals in all; they grow), and point _start_check at the CNF's buffers
    (held by the Kernel): it encodes one clause at a time into the chunk
    buffer, so the CNF is never copied whole.

    Raises ValueError on inputs the kernel cannot run on, MemoryError when
    an allocation fails; the caller then frees.
    """
    cdef const int[::1] co = self._clause_offsets
    cdef const int[::1] cl = self._clause_lits
    cdef Py_ssize_t k, i, m, total, slots, room, longest = 0
    cdef int lit, nv

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
    for i in range(cl.shape[0]):
        lit = cl[i]
        if lit == 0 or lit < -nv or lit > nv:
            raise ValueError(f"clause literal {lit} (index {i}) is out of range "
                             f"for num_vars {nv}")
    m = co.shape[0] - 1
    total = cl.shape[0]
    if m >= INT32_MAX // 4 or total + 2 * m > INT32_MAX // 2:
        raise ValueError(f"too many clauses or literals: {m} clauses, "
                         f"{total} literals")
    self.nvars = nv
    self.max_size = 2

    # The CNF, read in place by _start_check; the chunk buffer holds one clause.
    for k in range(m):
        if co[k + 1] - co[k] > longest:
            longest = co[k + 1] - co[k]
    _room_for_chunk(self, 0, longest)
    self.cnf_off = &co[0]
    self.cnf_lits = &cl[0] if total else NULL
    self.n_steps = m

    # Per literal and per variable (the watches first: the biggest).  reason
    # and trail need no initial values: a reason is read only for an
    # assigned variable, and the trail only below trail_len.
    self.n_lits = 2 * (<Py_ssize_t>nv + 1)
    _zeroed(<void**>&self.watches, self.n_lits, sizeof(watch_t))
    self.wpool.block = 4096                     # the CNF's lists: _watch_cnf
    _zeroed(<void**>&self.vals, self.n_lits, sizeof(int8_t))
    _zeroed(<void**>&self.marks, self.n_lits, sizeof(uint8_t))
    _grow(<void**>&self.reason, nv + 1, sizeof(cref_t))
    _grow(<void**>&self.trail, nv + 1, sizeof(lit_t))
    _zeroed(<void**>&self.trail_pos, nv + 1, sizeof(int32_t))
    if self._lrat is not None:
        _grow(<void**>&self.lrat_vars, nv + 1, sizeof(int32_t))

    # The stores: room for the CNF and some more (for run(), room for every
    # step as well: it holds the whole proof anyway, and growing costs time).
    if more_clauses > INT32_MAX // 4 - m or more_lits > INT32_MAX // 2 - total:
        more_clauses = more_lits = 0
    self.slots_room = <cref_t>(m + more_clauses + 64)
    _grow(<void**>&self.clauses, self.slots_room, sizeof(clause_t))
    room = total + more_lits + 2 * (m + more_clauses) + 1024      # Py_ssize_t: no wrap
    self.arena_room = <aref_t>(room if room < MAX_ARENA else MAX_ARENA)
    _grow(<void**>&self.arena, self.arena_room, sizeof(lit_t))
    self.units_room = 64
    _grow(<void**>&self.units, self.units_room, sizeof(cref_t))
    if self._lrat is not None:
        _grow(<void**>&self.lrat_ids, self.slots_room, sizeof(int64_t))
    slots = 16
    while slots < 2 * <Py_ssize_t>self.slots_room:
        slots *= 2
    _grow(<void**>&self.table, slots, sizeof(cref_t))
    memset(self.table, 0xff, slots * sizeof(cref_t))       # every slot NONE
    self.table_mask = slots - 1

    self.n_collections = 0
    self.n_slots = 0
    self.free_slots = NONE
    self.next_id = 0
    self.n_long = 0
    self.arena_len = 0
    self.arena_dead = 0
    self.n_units = 0
    self.units_dead = 0
    self.live_empty = 0
    self.derived_empty = False
    self.live_sets = 0
    self.trail_len = 0
    self.qhead = 0
    self.conflict = NONE
    self.work = 0
    self.n_deletions = 0
    self.n_ignored = 0
    self.status = STATUS_VALID
    self.step_index = -1
    self.steps_checked = 0
    self.ended_early = False
    self.lazy = False
    self.chunk_index = -1
    self.lrat_open = self._lrat is not None
    self.lrat_done = False
    self.lrat_last = m
    self.n_cnf = m
    self.lrat_buf.len = 0
    self.lrat_closing.len = 0
    return 0


cdef int _load_chunk(Kernel self, const signed char* kb, const int* ki, Py_ssize_t n,
                     const int[::1] so, Py_ssize_t a, const int[::1] sl) except -1:
    """Check steps ``a .. a + n - 1`` (see _feed) and copy them, encoded, into
    the chunk buffers (the literals of steps of other kinds than add and
    delete are never read, and not copied).  Raises ValueError on inputs
    the kernel cannot run on, MemoryError; the check itself is untouched."""
    cdef Py_ssize_t k, i, pos = 0
    cdef int lit, kind, nv = self.nvars
    if a < 0 or a + n >= so.shape[0]:
        raise ValueError(f"{n} step kinds need {n + 1} offsets")
    if so[a] < 0 or so[a + n] < so[a] or so[a + n] > sl.shape[0]:
        raise ValueError(f"offsets run from {so[a]} to {so[a + n]}, outside the "
                         f"{sl.shape[0]} literals")
    _room_for_chunk(self, n, so[a + n] - so[a])
    for k in range(n):
        kind = ki[k] if ki != NULL else kb[k]
        if kind < STEP_ADD or kind > STEP_DELETE_NO_MATCH:
            raise ValueError(f"kinds[{k}] is {kind}, not a step kind")
        if so[a + k + 1] < so[a + k] or so[a + k + 1] > so[a + n]:
            raise ValueError(f"offsets decrease at index {k + 1}")
        self.step_kind[k] = <int8_t>kind
        self.step_off[k] = pos
        if kind != STEP_ADD and kind != STEP_DELETE:
            continue
        for i in range(so[a + k], so[a + k + 1]):
            lit = sl[i]
            if lit == 0 or lit < -nv or lit > nv:
                raise ValueError(f"literal {lit} of step {k} is out of range for "
                                 f"num_vars {nv}")
            self.step_lits[pos] = _encode(lit)
            pos += 1
    self.step_off[n] = pos
    self.n_steps = n
    return 0


cdef int _load_step(Kernel self, int kind, object lits, object steps_left,
                    object literals_left) except -1:
    """feed_step's guard: copy the step, encoded, into the chunk buffers as a
    chunk of one (kind checked by the caller); return 1, or 0 with nothing
    loaded when feed_step declines it (see there).  The rooms are plain ints
    (checked by the caller): no Python code runs between reading the size
    of ``lits`` and reading its items."""
    cdef Py_ssize_t i, n
    cdef object item
    cdef long lit
    cdef int overflow = 0
    cdef int nv = self.nvars
    cdef bint is_list = type(lits) is list
    if not is_list and type(lits) is not tuple:
        return 0
    n = PyList_GET_SIZE(lits) if is_list else PyTuple_GET_SIZE(lits)
    if steps_left < 1 or n > literals_left:
        return 0
    _room_for_chunk(self, 1, n)
    for i in range(n):
        item = <object>(PyList_GET_ITEM(lits, i) if is_list else PyTuple_GET_ITEM(lits, i))
        # Plain ints only: a bool, an int subclass, a float such as 3.0 is
        # the validator's to read; a literal outside 1..num_vars (0, out of
        # range, too big for a C long) gets its error or its own step kind
        # there.
        if not PyLong_CheckExact(item):
            return 0
        lit = PyLong_AsLongAndOverflow(item, &overflow)
        if overflow or lit == 0 or lit < -nv or lit > nv:
            return 0
        self.step_lits[i] = _encode(<int>lit)
    self.step_kind[0] = <int8_t>kind
    self.step_off[0] = 0
    self.step_off[1] = n
    self.n_steps = 1
    return 1


cdef int _room_for_chunk(Kernel self, Py_ssize_t n_steps, Py_ssize_t n_lits) except -1:
    """Room in the chunk buffers (and for its reason deletions and ignored
    deletions: at most one per step) for ``n_steps`` steps of ``n_lits`` literals in all."""
    cdef Py_ssize_t room
    if n_steps + 1 > self.steps_room:
        room = max(n_steps + 1, 2 * self.steps_room, 64)
        _grow(<void**>&self.step_kind, room, sizeof(int8_t))
        _grow(<void**>&self.step_off, room + 1, sizeof(Py_ssize_t))
        _grow(<void**>&self.deletions, room, sizeof(int64_t))
        _grow(<void**>&self.ignored, room, sizeof(int64_t))
        self.steps_room = room
    if n_lits > self.lits_room:
        room = max(n_lits, 2 * self.lits_room, 256)
        _grow(<void**>&self.step_lits, room, sizeof(lit_t))
        self.lits_room = room
    return 0


cdef int _set_polls(Kernel self) except -1:
    """Polls on for this call (from the counter's next poll due), or off."""
    # Signal handlers run only in the main thread: elsewhere, without a
    # callback, a poll would take the GIL for nothing.
    if self._progress is None and PyThread_get_thread_ident() != _MAIN_THREAD:
        self.next_poll = INT64_MAX
    elif self.next_poll == INT64_MAX:
        if self.work > INT64_MAX - self.poll_interval:
            self.next_poll = INT64_MAX
        else:
            self.next_poll = self.work + self.poll_interval
    return 0


cdef void _free(Kernel self) noexcept:
    """Release every C array (safe to call twice); keeps the outcome fields."""
    _pool_free(&self.wpool)
    free(self.watches)
    self.watches = NULL
    free(self.step_kind)
    self.step_kind = NULL
    free(self.step_off)
    self.step_off = NULL
    free(self.step_lits)
    self.step_lits = NULL
    self.steps_room = 0
    self.lits_room = 0
    self.n_steps = 0
    free(self.clauses)
    self.clauses = NULL
    free(self.arena)
    self.arena = NULL
    free(self.units)
    self.units = NULL
    free(self.marks)
    self.marks = NULL
    free(self.table)
    self.table = NULL
    free(self.vals)
    self.vals = NULL
    free(self.reason)
    self.reason = NULL
    free(self.trail)
    self.trail = NULL
    free(self.deletions)
    self.deletions = NULL
    free(self.ignored)
    self.ignored = NULL
    _lrat_free(self)
    self.n_lits = 0
