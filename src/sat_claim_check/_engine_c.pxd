# The compiled engine's C layout: typedefs, structs, the Kernel's fields and
# the csrc/ helpers.  The algorithm is in _engine_c.pyx.

cimport cython
from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint64_t

ctypedef int32_t lit_t      # a literal: 2*var + (1 if negative else 0)
ctypedef int32_t cref_t     # a clause id, or NONE
ctypedef int32_t aref_t     # arena index of a clause's literals (after its id, size)


cdef extern from "litset.h" nogil:
    uint64_t scc_lit_key(int32_t lit)
    uint64_t scc_set_hash(uint64_t sum, int32_t n)


cdef struct watch_t:
    aref_t* data            # the long clauses watching this literal, in order
    int32_t len             # entries in use
    int32_t cap             # entries allocated


cdef struct pool_t:
    # Where the watch lists live: blocks taken with malloc and handed out in
    # pieces, never one by one freed (a list that grows moves to a new piece).
    char* next              # the current block's first free byte
    char* end               # the current block's end
    void* last              # the current block; each starts with the one before
    size_t block            # the size of the next block to take


cdef struct clause_t:
    aref_t head             # arena[head - 2] is the id, arena[head - 1] the size
    lit_t* lits             # arena + head: distinct literals (permuted by watching)
    int32_t size            # number of distinct literals
    int8_t kind             # TAUTOLOGY, EMPTY, UNIT or LONG


cdef struct group_t:
    uint64_t hash           # scc_set_hash of the literal set
    lit_t* lits             # the set: the literals of its first clause, in the arena
    int32_t size            # its size
    cref_t top              # the live clause of this set with the highest id, or NONE


@cython.final
cdef class Kernel:
    # The request, as given to the constructor (copied and checked by run()).
    cdef object _num_vars               # an int, checked by run()
    cdef object _max_work               # an int, checked by run()
    cdef const int[::1] _clause_offsets
    cdef const int[::1] _clause_lits
    cdef const signed char[::1] _kinds_b   # step kinds from a signed char buffer, or
    cdef const int[::1] _kinds_i           # from an int buffer (_kinds_wide)
    cdef bint _kinds_wide
    cdef const int[::1] _step_offsets
    cdef const int[::1] _step_lits
    cdef bint _running                  # run() is in progress (one run at a time)
    cdef public list reason_deletions   # steps whose delete removed a level-0 reason

    # Owned copies of the request (literals encoded), read by the nogil run.
    cdef int32_t nvars                  # num_vars
    cdef int64_t max_work               # the cap, clamped to INT64_MAX
    cdef int64_t max_size               # >= 2, >= every clause's size: bounds a visit
    cdef Py_ssize_t n_cnf               # number of CNF clauses
    cdef Py_ssize_t* cnf_off            # n_cnf + 1 offsets into cnf_lits
    cdef lit_t* cnf_lits                # CNF literals, encoded
    cdef Py_ssize_t n_steps             # number of proof steps
    cdef int8_t* step_kind              # STEP_* per step
    cdef Py_ssize_t* step_off           # n_steps + 1 offsets into step_lits
    cdef lit_t* step_lits               # step literals, encoded (0 where never read)

    # The clause store (SPEC §4.2); sized once from the request, never grown.
    cdef clause_t* clauses              # per clause id
    cdef cref_t n_clauses               # ids in use
    cdef lit_t* arena                   # per clause [id, size, lits...]
    cdef aref_t arena_len               # arena entries in use
    cdef cref_t* units                  # live unit clauses, ids ascending
    cdef cref_t n_units                 # entries in use
    cdef int32_t live_empty             # live empty clauses
    cdef lit_t* scratch                 # one delete step's distinct literals
    cdef uint8_t* marks                 # per literal: seen in the clause at hand

    # Delete by literal set: open addressing over groups of equal literal sets.
    cdef int32_t* table                 # slots: a group index, or -1
    cdef uint64_t table_mask            # slots - 1 (slots is a power of two)
    cdef group_t* groups                # one per distinct literal set stored
    cdef int32_t n_groups               # groups in use
    cdef cref_t* below                  # per clause id: next lower live id of its group

    # Watches and the level-0 state (SPEC §4.2, §4.3).
    cdef watch_t* watches               # per literal
    cdef pool_t wpool                   # the watch lists' memory
    cdef Py_ssize_t n_lits              # 2 * (nvars + 1): size of watches, vals, marks
    cdef int8_t* vals                   # per literal: TRUE, FALSE or UNASSIGNED
    cdef cref_t* reason                 # per variable: the clause that made it TRUE
    cdef lit_t* trail                   # literals made TRUE, in order (at most nvars)
    cdef int32_t trail_len              # entries in use
    cdef int32_t qhead                  # next trail entry to propagate
    cdef cref_t conflict                # a level-0 falsified clause, or NONE
    cdef int64_t work                   # the SPEC §4.3 counter

    # Polls (Kernel._poll): signals and the progress callback during the nogil run.
    cdef object _progress               # progress(steps_checked, work), or None
    cdef int64_t poll_interval          # work between two polls
    cdef int64_t next_poll              # the counter's value due for a poll (INT64_MAX: never)

    # The outcome.
    cdef int32_t* deletions             # reason deletions (step indices), <= 1 per step
    cdef Py_ssize_t n_deletions         # entries in use
    cdef int status                     # STATUS_*
    cdef Py_ssize_t step_index          # failing step, or -1
    cdef Py_ssize_t steps_checked       # steps that succeeded

    cdef int _load(self) except -1
    cdef void _free(self) noexcept
    cdef int _check(self) except -1 nogil
    cdef int _step(self, Py_ssize_t s) except -1 nogil
    cdef int _poll(self) except -1 nogil
    cdef cref_t _store(self, const lit_t* given, Py_ssize_t n) noexcept nogil
    cdef cref_t _commit(self, int32_t k, bint tautology, uint64_t h) noexcept nogil
    cdef int32_t _distinct(self, const lit_t* given, Py_ssize_t n, lit_t* out,
                           bint* tautology, uint64_t* h) noexcept nogil
    cdef int32_t _find_slot(self, const lit_t* lits, int32_t n,
                            uint64_t h) noexcept nogil
    cdef void _assign(self, lit_t lit, cref_t why) noexcept nogil
    cdef void _undo_to(self, int32_t length) noexcept nogil
    cdef bint _inconsistent(self) noexcept nogil
    cdef int _watch(self, cref_t cid) except -1 nogil
    cdef cref_t _propagate(self) except -3 nogil
    cdef int _build(self) except -1 nogil
    cdef int _is_rup(self, const lit_t* lits, int32_t n, bint tautology) except -1 nogil
    cdef int _attach(self, cref_t cid) except -1 nogil
    cdef int _delete(self, cref_t cid, Py_ssize_t s) except -1 nogil
