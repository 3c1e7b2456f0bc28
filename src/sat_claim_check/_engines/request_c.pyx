"""Request JSON text straight into flat arrays: the compiled reader.

The twin of ``request_py``.  The scanning is ``csrc/request_scan.h``, run
without the GIL over the bytes as given; it reads the common case of a
request and declines (None) on anything else, so that the exact path
(``_core.jsontext.loads`` + ``_core.validate.validate``) answers it.
"""

from cpython cimport array
from libc.stdint cimport int8_t, int32_t, int64_t
from libc.string cimport memcpy

import array as _array

from .._core.codes import STEP_ADD, STEP_ADD_OUT_OF_RANGE, STEP_DELETE, STEP_DELETE_NO_MATCH

cdef extern from "request_scan.h" nogil:
    ctypedef struct rq_ints:
        int32_t* v
        size_t n
    ctypedef struct rq_bytes:
        int8_t* v
        size_t n
    ctypedef struct rq_read_t:
        int64_t max_vars
        int64_t max_clauses
        int64_t max_total_literals
        int64_t max_assignment_literals
        int64_t max_proof_steps
        int64_t max_proof_literals
        int8_t kind_add
        int8_t kind_delete
        int8_t kind_add_out
        int8_t kind_delete_out
        int claim
        int64_t num_vars
        rq_ints clause_offsets
        rq_ints clause_lits
        rq_ints assignment
        rq_bytes step_kinds
        rq_ints step_offsets
        rq_ints step_lits
    int RQ_ACCEPT
    int RQ_NOMEM
    int RQ_SAT
    void rq_init(rq_read_t* r)
    void rq_free(rq_read_t* r)
    int rq_read(rq_read_t* r, const unsigned char* data, size_t n)

cdef array.array _INT_TEMPLATE = _array.array("i")
cdef array.array _BYTE_TEMPLATE = _array.array("b")


cdef array.array _ints(const rq_ints* src):
    cdef array.array out = array.clone(_INT_TEMPLATE, <Py_ssize_t>src.n, zero=False)
    if src.n:
        memcpy(out.data.as_ints, src.v, src.n * sizeof(int32_t))
    return out


cdef array.array _kinds(const rq_bytes* src):
    cdef array.array out = array.clone(_BYTE_TEMPLATE, <Py_ssize_t>src.n, zero=False)
    if src.n:
        memcpy(out.data.as_schars, src.v, src.n)
    return out


def read_request(data, limits):
    """(claim, num_vars, clause_offsets, clause_lits, assignment, step_kinds,
    step_offsets, step_lits) for JSON text in bytes, or None to decline.

    Accepting means ``validate(loads(data), limits)`` gives exactly these
    fields (assignment for a sat claim, the step arrays for an unsat one,
    None for the others); None means "not the common case" (an error, an
    escape, a fraction, a limit passed, anything unusual): the exact path
    answers then.  Any object without a byte buffer (a str) is declined.
    """
    cdef const unsigned char[::1] view
    cdef const unsigned char* ptr = NULL
    cdef size_t n
    cdef rq_read_t r
    cdef int rc
    try:
        view = data
    except (TypeError, ValueError, BufferError):
        return None
    n = view.shape[0]
    if n:
        ptr = &view[0]
    rq_init(&r)
    r.max_vars = limits.max_vars
    r.max_clauses = limits.max_clauses
    r.max_total_literals = limits.max_total_literals
    r.max_assignment_literals = limits.max_assignment_literals
    r.max_proof_steps = limits.max_proof_steps
    r.max_proof_literals = limits.max_proof_literals
    r.kind_add = STEP_ADD
    r.kind_delete = STEP_DELETE
    r.kind_add_out = STEP_ADD_OUT_OF_RANGE
    r.kind_delete_out = STEP_DELETE_NO_MATCH
    try:
        with nogil:
            rc = rq_read(&r, ptr, n)
        if rc == RQ_NOMEM:
            raise MemoryError("not enough memory for the request's arrays")
        if rc != RQ_ACCEPT:
            return None
        clause_offsets = _ints(&r.clause_offsets)
        clause_lits = _ints(&r.clause_lits)
        if r.claim == RQ_SAT:
            return ("sat", r.num_vars, clause_offsets, clause_lits,
                    _ints(&r.assignment), None, None, None)
        return ("unsat", r.num_vars, clause_offsets, clause_lits, None,
                _kinds(&r.step_kinds), _ints(&r.step_offsets), _ints(&r.step_lits))
    finally:
        rq_free(&r)
