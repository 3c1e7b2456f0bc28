# kernel_lrat.pxi: LRAT out (SPEC §10) for the compiled kernel, included by
# kernel_c.pyx after kernel_arena.pxi.  The twin of kernel_py's "LRAT out"
# section and of lrat_py.py: the same lines, byte for byte.  Numbers are ids
# + 1 (the CNF's clauses are 1..m in file order), lemmas after the copies of
# the CNF clauses that repeat a literal (_lrat_number); nothing here counts work.

from cpython.bytes cimport PyBytes_FromStringAndSize
from libc.stdlib cimport qsort

# The buffer is written out between steps once it holds this many bytes.
cdef Py_ssize_t LRAT_FLUSH = 1 << 16


cdef int _bytes_room(bytes_t* b, Py_ssize_t more) except -1 nogil:
    """Room in ``b`` for ``more`` bytes beyond those in use."""
    cdef Py_ssize_t cap
    if b.len + more <= b.cap:
        return 0
    cap = 2 * b.cap
    if cap < b.len + more:
        cap = b.len + more
    if cap < 4096:
        cap = 4096
    _grow(<void**>&b.data, <size_t>cap, 1)
    b.cap = cap
    return 0


cdef inline char* _put_number(char* p, int64_t x, bint binary) noexcept nogil:
    """Write ``x`` at ``p``: text and a space, or binary (2*|x| + (x < 0) in
    base 128, little-endian); return the end."""
    cdef uint64_t u = <uint64_t>x if x >= 0 else <uint64_t>(-x)
    cdef char digits[24]
    cdef int n = 0
    if binary:
        u = 2 * u + (1 if x < 0 else 0)
        while u > 127:
            p[0] = <char>(128 | (u & 127))
            p += 1
            u >>= 7
        p[0] = <char>u
        return p + 1
    if x < 0:
        p[0] = c'-'
        p += 1
    while True:
        digits[n] = <char>(c'0' + u % 10)
        n += 1
        u //= 10
        if u == 0:
            break
    while n > 0:
        n -= 1
        p[0] = digits[n]
        p += 1
    p[0] = c' '
    return p + 1


cdef int _cmp_int32(const void* a, const void* b) noexcept nogil:
    cdef int32_t x = (<const int32_t*>a)[0]
    cdef int32_t y = (<const int32_t*>b)[0]
    return (x > y) - (x < y)


cdef int64_t _lrat_number(Kernel self, cref_t cid) noexcept nogil:
    """Clause ``cid``'s number in the LRAT."""
    cdef int64_t id = self.lrat_ids[cid]
    cdef Py_ssize_t lo = 0, hi = self.n_copied, mid
    if id >= self.n_cnf:
        return id + 1 + self.n_copied
    while lo < hi:
        mid = (lo + hi) // 2
        if self.lrat_copied[mid] < id:
            lo = mid + 1
        else:
            hi = mid
    if lo < self.n_copied and self.lrat_copied[lo] == id:
        return self.n_cnf + 1 + lo
    return id + 1


cdef int _lrat_copy(Kernel self, cref_t cid) except -1 nogil:
    """A CNF clause that repeats a literal (cake_lpr reads a clause as given,
    so "1 1 0" would not be unit): its copy without the repeats, next."""
    cdef clause_t* c = &self.clauses[cid]
    cdef Py_ssize_t room
    if self.n_copied == self.copied_room:
        room = 2 * self.copied_room + 16
        _grow(<void**>&self.lrat_copied, <size_t>room, sizeof(int64_t))
        self.copied_room = room
    self.lrat_copied[self.n_copied] = self.lrat_ids[cid]
    self.n_copied += 1
    self.lrat_last = self.n_cnf + self.n_copied
    return _lrat_put_line(self, &self.lrat_buf, self.lrat_last, self.arena + c.head,
                          self.arena[c.head - 1], 0, self.lrat_ids[cid] + 1)


cdef int32_t _lrat_justify(Kernel self, cref_t conflict, const lit_t* assumed,
                           int32_t n) noexcept nogil:
    """The hints refuting the current assignment at ``conflict`` (a falsified
    clause), the variables of the ``n`` literals at ``assumed`` taken as given:
    the trail positions of the literals it rests on, ascending, in
    ``lrat_vars``; return their number (the hints are their reasons, then
    ``conflict``).  A breadth-first walk of the reasons; marks cleared after."""
    cdef uint8_t* marks = self.marks
    cdef int32_t* vars = self.lrat_vars
    cdef int32_t top = 0, first, head, t, v, u, count = 0
    cdef cref_t why
    cdef clause_t* c
    cdef lit_t* L
    for t in range(n):
        v = assumed[t] >> 1
        if not marks[v << 1]:
            marks[v << 1] = 1
            vars[top] = v
            top += 1
    first = top
    c = &self.clauses[conflict]
    L = self.arena + c.head
    for t in range(L[-1]):
        v = L[t] >> 1
        if not marks[v << 1]:
            marks[v << 1] = 1
            vars[top] = v
            top += 1
    head = first
    while head < top:
        v = vars[head]
        head += 1
        why = self.reason[v]
        # Never, by the invariants (every literal walked is false, and only the
        # lemma's have no reason): the kernel does not trust them with memory.
        if self.vals[v << 1] == UNASSIGNED or why < 0 or why >= self.n_slots:
            continue
        c = &self.clauses[why]
        L = self.arena + c.head
        for t in range(L[-1]):
            u = L[t] >> 1
            if not marks[u << 1]:
                marks[u << 1] = 1
                vars[top] = u
                top += 1
    for t in range(top):
        marks[vars[t] << 1] = 0
    for t in range(first, top):
        v = vars[t]
        if self.vals[v << 1] != UNASSIGNED and self.reason[v] >= 0:
            vars[count] = self.trail_pos[v]     # count <= t - first: not yet read
            count += 1
    qsort(vars, count, sizeof(int32_t), _cmp_int32)
    return count


cdef int _lrat_put_line(Kernel self, bytes_t* b, int64_t number, const lit_t* lits,
                        int32_t n, int32_t count, int64_t last) except -1 nogil:
    """An addition's line at the end of ``b``: ``number``, the ``n`` literals
    at ``lits``, then the hints: the reasons at the ``count`` positions from
    _lrat_justify, then the number ``last``."""
    cdef bint binary = self.lrat_binary
    cdef char* p
    cdef int32_t t
    cdef cref_t why
    _bytes_room(b, 24 * (<Py_ssize_t>n + count + 4))
    p = b.data + b.len
    if binary:
        p[0] = c'a'
        p += 1
    p = _put_number(p, number, binary)
    for t in range(n):
        p = _put_number(p, _decode(lits[t]), binary)
    p = _put_number(p, 0, binary)
    for t in range(count):
        why = self.reason[self.trail[self.lrat_vars[t]] >> 1]
        if why >= 0:
            p = _put_number(p, _lrat_number(self, why), binary)
    p = _put_number(p, last, binary)
    p = _put_number(p, 0, binary)
    if not binary:
        (p - 1)[0] = c'\n'
    b.len = p - b.data
    return 0


cdef int _lrat_addition(Kernel self, const lit_t* lits, int32_t n,
                        cref_t conflict) except -1 nogil:
    """The line of a lemma found RUP (before its assumptions are undone):
    refuted at ``conflict``, or, when NONE, true at level 0 already."""
    cdef int32_t t, best = -1
    cdef int32_t count
    if conflict == NONE:
        # A literal TRUE at level 0: the first such on the trail, so that its
        # justification meets none of the lemma's other TRUE literals.
        for t in range(n):
            if self.vals[lits[t]] == TRUE and (
                    best < 0 or self.trail_pos[lits[t] >> 1] < self.trail_pos[lits[best] >> 1]):
                best = t
        if best < 0:
            return 0                    # never: a RUP lemma without a conflict has one
        conflict = self.reason[lits[best] >> 1]
    count = _lrat_justify(self, conflict, lits, n)
    self.lrat_last = self.next_id + 1 + self.n_copied   # the id _commit gives it, numbered
    return _lrat_put_line(self, &self.lrat_buf, self.lrat_last, lits, n, count,
                          _lrat_number(self, conflict))


cdef int _lrat_deletion(Kernel self, cref_t cid) except -1 nogil:
    """The line of a delete that removes clause ``cid`` (none for a lemma that
    is a tautology: those are never written)."""
    cdef clause_t* c = &self.clauses[cid]
    cdef bint binary = self.lrat_binary
    cdef char* p
    if self.lrat_ids[cid] >= self.n_cnf and c.kind == TAUTOLOGY:
        return 0
    _bytes_room(&self.lrat_buf, 64)
    p = self.lrat_buf.data + self.lrat_buf.len
    if binary:
        p[0] = c'd'
        p += 1
    else:
        p = _put_number(p, self.lrat_last, False)
        p[0] = c'd'
        p[1] = c' '
        p += 2
    p = _put_number(p, _lrat_number(self, cid), binary)
    p = _put_number(p, 0, binary)
    if not binary:
        (p - 1)[0] = c'\n'
    self.lrat_buf.len = p - self.lrat_buf.data
    return 0


cdef int _lrat_close(Kernel self) except -1 nogil:
    """The state is inconsistent: the LRAT ends with the empty clause, justified
    now and held back until the verdict is known."""
    cdef cref_t x, conflict = NONE
    cdef int32_t count = 0
    self.lrat_open = False
    if self.live_empty > 0:
        # Only a CNF's (a lemma comes once the LRAT is closed): the first one.
        for x in range(self.n_slots):
            if self.clauses[x].kind == EMPTY and (
                    conflict == NONE or self.lrat_ids[x] < self.lrat_ids[conflict]):
                conflict = x
    else:
        conflict = self.conflict
        count = _lrat_justify(self, conflict, NULL, 0)
    self.lrat_closing.len = 0
    return _lrat_put_line(self, &self.lrat_closing, self.next_id + 1 + self.n_copied, NULL, 0,
                          count, _lrat_number(self, conflict))


cdef int _lrat_write(Kernel self) except -1:
    """Hand the buffer to the sink, emptying it first."""
    data = PyBytes_FromStringAndSize(self.lrat_buf.data, self.lrat_buf.len)
    self.lrat_buf.len = 0
    self._lrat.write(data)
    return 0


cdef int _lrat_step_done(Kernel self) except -1 nogil:
    """After a step that succeeded: close at an inconsistent state, write out a
    full buffer."""
    if self._inconsistent():
        _lrat_close(self)
    if self.lrat_buf.len >= LRAT_FLUSH:
        with gil:
            _lrat_write(self)
    return 0


cdef int _lrat_finish(Kernel self, bint valid) except -1:
    """Write out the rest, with the closing line only when the verdict is valid."""
    if self._lrat is None or self.lrat_done:
        return 0
    self.lrat_done = True
    if valid and self.lrat_closing.len:
        _bytes_room(&self.lrat_buf, self.lrat_closing.len)
        memcpy(self.lrat_buf.data + self.lrat_buf.len, self.lrat_closing.data,
               self.lrat_closing.len)
        self.lrat_buf.len += self.lrat_closing.len
    if self.lrat_buf.len:
        _lrat_write(self)
    return 0


cdef void _lrat_free(Kernel self) noexcept:
    free(self.lrat_buf.data)
    self.lrat_buf.data = NULL
    self.lrat_buf.len = self.lrat_buf.cap = 0
    free(self.lrat_closing.data)
    self.lrat_closing.data = NULL
    self.lrat_closing.len = self.lrat_closing.cap = 0
    free(self.trail_pos)
    self.trail_pos = NULL
    free(self.lrat_vars)
    self.lrat_vars = NULL
    free(self.lrat_copied)
    self.lrat_copied = NULL
    self.n_copied = self.copied_room = 0
    free(self.lrat_ids)
    self.lrat_ids = NULL
