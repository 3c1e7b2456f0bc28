# The compiled engine's C layout: typedefs, structs, the Kernel's fields and
# the csrc/ helpers.  The algorithm is in kernel_c.pyx, its C-only parts
# (memory, collection, loading) in kernel_arena.pxi.

cimport cython
from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint64_t

ctypedef int32_t lit_t      # a literal: 2*var + (1 if negative else 0)
ctypedef int32_t cref_t     # a clause slot, or NONE
ctypedef int32_t aref_t     # arena index of a clause's literals (after its slot, size)


cdef extern from "prefetch.h" nogil:
    void scc_prefetch(const void* p)


cdef extern from "litset.h" nogil:
    uint64_t scc_lit_key(int32_t lit, uint64_t seed)
    uint64_t scc_set_hash(uint64_t sum, int32_t n)


cdef struct watch_t:
    aref_t* data            # the long clauses watching this literal, in order
    int32_t len             # entries in use
    int32_t cap             # entries allocated
    int32_t dead            # entries of deleted clauses among them (_ws_drop)


cdef struct pool_t:
    # Where the watch lists live: blocks taken with malloc and handed out in
    # pieces, never one by one freed (a list that grows moves to a new piece);
    # the collector moves every list into a fresh pool and frees the old one.
    char* next              # the current block's first free byte
    char* end               # the current block's end
    void* last              # the current block; each starts with the one before
    size_t block            # the size of the next block to take
    size_t used             # bytes handed out (tails of blocks left behind included)


cdef struct clause_t:
    # A slot of the clause table (12 bytes: a formula's clauses are millions).
    # Slots of deleted clauses are reused, so a slot is not the clause's id
    # (its order of storing); the arena is in storing order (the collector
    # keeps it), so of two live clauses the one with the higher ``head`` has
    # the higher id.  The LRAT, which prints ids, keeps them (lrat_ids).
    aref_t head             # arena[head - 2] is the slot, arena[head - 1] the size
    cref_t below            # the next lower live clause of its literal set; free: next free slot
    int8_t kind             # TAUTOLOGY, EMPTY, UNIT, LONG, or FREE (no clause here)


# The two ways _propagate_with is compiled (a fused type: each gets its own
# copy of the loop, the test for the prefetch resolved at compile time).
cdef struct prefetching_t:
    char unused
cdef struct plain_t:
    char unused
ctypedef fused prefetch_mode_t:
    prefetching_t
    plain_t


cdef struct bytes_t:
    # A growable byte buffer (the LRAT's lines).
    char* data
    Py_ssize_t len          # bytes in use
    Py_ssize_t cap          # bytes allocated


@cython.final
cdef class Kernel:
    # The constructor's arguments (checked and copied by start() and run()).
    cdef object _num_vars               # an int
    cdef object _max_work               # an int
    cdef const int[::1] _clause_offsets
    cdef const int[::1] _clause_lits
    cdef bint _has_proof                # run()'s proof was given (else: feed() only)
    cdef const signed char[::1] _kinds_b   # its step kinds from a signed char buffer, or
    cdef const int[::1] _kinds_i           # from an int buffer (_kinds_wide)
    cdef bint _kinds_wide
    cdef const int[::1] _step_offsets
    cdef const int[::1] _step_lits
    cdef bint _running                  # a call is in progress (one at a time)
    cdef int phase                      # NEW, CHECKING, STOPPED, FINISHED or BROKEN
    cdef public object reason_deletions  # array("q"): steps whose delete removed a reason
    cdef public object ignored_deletions  # array("q"): steps whose delete was ignored
    cdef readonly int reading           # a READING_* code (SPEC §4.4, §4.5)
    cdef readonly bint lenient          # SPEC §4.4: deletions read leniently (not strict)

    cdef int32_t nvars                  # num_vars
    cdef int64_t max_work               # the cap, clamped to INT64_MAX
    cdef int64_t max_size               # >= 2, >= every stored clause's size: bounds a visit

    # The chunk at hand (each feed()'s steps; in start(), one CNF clause): owned,
    # encoded copies, read by the nogil check; the buffers are reused.
    cdef Py_ssize_t n_steps             # steps (or CNF clauses) in the chunk
    cdef int8_t* step_kind              # STEP_* per step
    cdef Py_ssize_t* step_off           # n_steps + 1 offsets into step_lits
    cdef lit_t* step_lits               # literals, encoded (none kept for other kinds)
    cdef Py_ssize_t steps_room          # entries allocated in step_kind (step_off: + 1)
    cdef Py_ssize_t lits_room           # entries allocated in step_lits
    cdef Py_ssize_t chunk_index         # the chunk's failing step, or -1
    # The CNF's offsets and literals, in its buffers (_clause_offsets and
    # _clause_lits) from _load_cnf to the end of _start_check, else NULL.
    cdef const int* cnf_off
    cdef const int* cnf_lits

    # The clause store (SPEC §4.2): grows by doubling, reuses deleted clauses' room.
    cdef clause_t* clauses              # per slot
    cdef cref_t n_slots                 # slots ever used
    cdef cref_t slots_room              # slots allocated
    cdef cref_t free_slots              # the first free slot (a list through below), or NONE
    cdef int64_t next_id                # the id of the next clause stored
    cdef int32_t n_long                 # live long clauses (each in two watch lists)
    cdef lit_t* arena                   # per clause [slot, size, lits...]; deleted: slot NONE
    cdef aref_t arena_len               # arena entries in use
    cdef aref_t arena_room              # arena entries allocated
    cdef aref_t arena_dead              # entries of deleted clauses, reclaimed by _collect
    cdef int64_t n_collections          # _collect calls so far (for the tests)
    cdef cref_t* units                  # live unit clauses, ids ascending (_units_drop)
    cdef int32_t n_units                # entries in use
    cdef int32_t units_dead             # entries of deleted units among them
    cdef int32_t units_room             # entries allocated
    cdef int32_t live_empty             # live empty clauses
    cdef readonly bint derived_empty    # the CNF or an add taken held the empty clause
    cdef uint8_t* marks                 # per literal: seen in the clause at hand

    # Delete by literal set: open addressing over the live literal sets, each
    # entry the set's live clause with the highest id (the top of its stack
    # through clause_t.below); an entry's place comes from its set's hash.
    cdef cref_t* table                  # slots: a clause slot, or NONE
    cdef uint64_t table_mask            # slots - 1 (slots is a power of two)
    cdef int32_t live_sets              # entries in the table (each a live clause)

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

    # Polls (Kernel._poll): signals and the progress callback during the nogil check.
    cdef object _progress               # progress(steps_checked, work), or None
    cdef int64_t poll_interval          # work between two polls
    cdef int64_t next_poll              # the counter's value due for a poll (INT64_MAX: never)

    # The outcome.
    cdef int64_t* deletions             # this chunk's reason deletions (step indices)
    cdef Py_ssize_t n_deletions         # entries in use
    cdef int64_t* ignored               # this chunk's ignored deletions (step indices)
    cdef Py_ssize_t n_ignored           # entries in use
    cdef int status                     # STATUS_VALID, or the failing step's STATUS_*
    cdef int64_t step_index             # the failing step, or -1
    cdef int64_t steps_checked          # steps that succeeded (the next step's index)
    cdef bint ended_early               # SPEC §4.5: stopped valid at an inconsistent state
    cdef bint lazy                      # replayed strictly: no level-0 state until a check

    # LRAT out (SPEC §10, kernel_lrat.pxi).
    cdef object _lrat                   # the sink: write(bytes), or None
    cdef bint lrat_binary               # binary LRAT, not text
    cdef bint lrat_open                 # lines are still being made (no inconsistent state yet)
    cdef bint lrat_done                 # finish() has written it out
    cdef int64_t lrat_last              # the last number written
    cdef int64_t n_cnf                  # the CNF's clauses: numbers 1..n_cnf
    cdef bytes_t lrat_buf               # lines not yet written
    cdef bytes_t lrat_closing           # the empty clause's line, held back until valid
    cdef int32_t* trail_pos             # per variable: its index on the trail
    cdef int32_t* lrat_vars             # per walk: the variables it marked (nvars + 1)
    # CNF clauses that repeat a literal, ids ascending: the r-th is numbered
    # n_cnf + 1 + r in the LRAT (its copy without the repeats), and lemmas
    # after the copies.
    cdef int64_t* lrat_copied
    cdef int64_t* lrat_ids              # per slot: its clause's id (with an LRAT sink only)
    cdef Py_ssize_t n_copied
    cdef Py_ssize_t copied_room

    # The methods, in the order of kernel_c.pyx (the Kernel's C-only parts are
    # functions of it, in kernel_arena.pxi).
    cdef int _not_running(self) except -1
    cdef int _enter(self) except -1
    cdef void _assign(self, lit_t lit, cref_t why) noexcept nogil
    cdef void _undo_to(self, int32_t length) noexcept nogil
    cdef bint _inconsistent(self) noexcept nogil
    cdef bint _concludes(self) noexcept nogil
    cdef int32_t _distinct(self, const lit_t* given, Py_ssize_t n, lit_t* out,
                           bint* tautology, uint64_t* h) noexcept nogil
    cdef cref_t _store(self, const lit_t* given, Py_ssize_t n) except -2 nogil
    cdef cref_t _commit(self, int32_t k, bint tautology, uint64_t h) except -2 nogil
    cdef int32_t _find_slot(self, const lit_t* lits, int32_t n,
                            uint64_t h) noexcept nogil
    cdef void _drop_slot(self, int32_t slot) noexcept nogil
    cdef int _watch(self, cref_t cid) except -1 nogil
    cdef int _poll(self) except -1 nogil
    cdef cref_t _propagate(self) except -3 nogil
    cdef cref_t _propagate_with(self, prefetch_mode_t* mode) except -3 nogil
    cdef int _build(self) except -1 nogil
    cdef int _is_rup(self, const lit_t* lits, int32_t n, bint tautology) except -1 nogil
    cdef int _attach(self, cref_t cid) except -1 nogil
    cdef int _delete(self, cref_t cid, int64_t s) except -1 nogil
    cdef object _start(self, object progress, object poll_interval,
                       Py_ssize_t more_clauses=*, Py_ssize_t more_lits=*)
    cdef int _start_check(self) except -1 nogil
    cdef object _feed(self, const signed char* kb, const int* ki, Py_ssize_t n,
                      const int[::1] so, Py_ssize_t a, const int[::1] sl)
    cdef object _check_loaded(self)
    cdef int _feed_chunk(self) except -1 nogil
    cdef object _finish(self)
    cdef str _not_checking(self, str call)
    cdef int _step(self, Py_ssize_t i, int64_t s) except -1 nogil
    cdef int _not_found(self, int64_t s) noexcept nogil
    cdef uint64_t _hash_of(self, cref_t cid) noexcept nogil
    cdef int _remove_top(self, int32_t slot, int64_t s) except -1 nogil
    cdef object _replay_loaded(self)
    cdef int _replay_chunk(self) except -1 nogil
    cdef int _take(self, Py_ssize_t i, int64_t s) except -1 nogil
    cdef bint _holds_up(self, cref_t cid) noexcept nogil
    cdef cref_t _free_count(self)
    cdef Py_ssize_t _longest_run(self)
    cdef list _lits_of(self, cref_t cid)
    cdef int32_t _find_slot_of(self, const int[::1] lits) except? -1
