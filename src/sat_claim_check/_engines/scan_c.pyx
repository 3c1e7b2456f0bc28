"""DIMACS CNF and DRUP text into flat arrays: the compiled parser.

The same functions, return values and errors as ``scan_py``; the scanning
is ``csrc/dimacs_scan.h``, run without the GIL over the bytes as given (any
buffer: bytes, bytearray, memoryview).
"""

from cpython cimport array
from libc.stdint cimport int8_t, int32_t, int64_t
from libc.string cimport memcpy

import array as _array

from .._core.codes import SCAN_OK as OK
from .._core.codes import SCAN_STOPPED as STOPPED

cdef extern from "dimacs_scan.h" nogil:
    ctypedef struct scc_scan_t:
        int32_t* lits
        size_t n_lits
        int32_t* offsets
        size_t n_offsets
        int8_t* kinds
        size_t n_kinds
        int64_t num_vars
        int64_t num_clauses
        int code
        int64_t line
        size_t tok_start
        size_t tok_stop
        int has_token
        int64_t value
        int want_lines
        int64_t* lines
        size_t n_lines
        int64_t n_status
        int64_t status_line
        int64_t status_at
        int64_t steps_before
        int64_t lits_before
    void scc_scan_init(scc_scan_t* s)
    void scc_scan_free(scc_scan_t* s)
    void scc_scan_rest(scc_scan_t* s)
    int scc_scan(scc_scan_t* s, const unsigned char* data, size_t n, int is_cnf,
                 int64_t max_vars, int64_t max_steps, int64_t max_lits, int final)

cdef array.array _INT_TEMPLATE = _array.array("i")
cdef array.array _BYTE_TEMPLATE = _array.array("b")
cdef array.array _LONG_TEMPLATE = _array.array("q")


cdef array.array _ints(const int32_t* src, size_t n):
    cdef array.array out = array.clone(_INT_TEMPLATE, <Py_ssize_t>n, zero=False)
    if n:
        memcpy(out.data.as_ints, src, n * sizeof(int32_t))
    return out


cdef array.array _bytes(const int8_t* src, size_t n):
    cdef array.array out = array.clone(_BYTE_TEMPLATE, <Py_ssize_t>n, zero=False)
    if n:
        memcpy(out.data.as_schars, src, n)
    return out


cdef array.array _longs(const int64_t* src, size_t n):
    cdef array.array out = array.clone(_LONG_TEMPLATE, <Py_ssize_t>n, zero=False)
    if n:
        memcpy(out.data.as_longlongs, src, n * sizeof(int64_t))
    return out


cdef tuple _scan(data, int is_cnf, int64_t max_vars, int64_t max_steps,
                 int64_t max_lits):
    cdef const unsigned char[::1] view = data
    cdef const unsigned char* ptr = NULL
    cdef size_t n = view.shape[0]
    cdef scc_scan_t s
    cdef int r
    if n:
        ptr = &view[0]
    scc_scan_init(&s)
    try:
        with nogil:
            r = scc_scan(&s, ptr, n, is_cnf, max_vars, max_steps, max_lits, 1)
        if r < 0:
            raise MemoryError("not enough memory for the parsed arrays")
        if s.code != OK and s.code != STOPPED:
            token = bytes(view[s.tok_start:s.tok_stop]) if s.has_token else None
            if is_cnf:
                return (s.code, s.line, token, s.value, s.num_vars, s.num_clauses,
                        None, None)
            return s.code, s.line, token, s.value, None, None, None
        offsets = _ints(s.offsets, s.n_offsets)
        lits = _ints(s.lits, s.n_lits)
        if is_cnf:
            return s.code, s.line, None, 0, s.num_vars, s.num_clauses, offsets, lits
        return s.code, s.line, None, 0, _bytes(s.kinds, s.n_kinds), offsets, lits
    finally:
        scc_scan_free(&s)


def parse_cnf(data, max_vars=-1, max_clauses=-1, max_lits=-1):
    """DIMACS CNF bytes -> (code, line, token, value, num_vars, num_clauses,
    offsets, lits); the stop limits as in ``scan_py.parse_cnf``."""
    return _scan(data, 1, max_vars, max_clauses, max_lits)


def parse_drup(data, max_steps=-1, max_lits=-1):
    """DRUP bytes -> (code, line, token, value, kinds, offsets, lits); the stop
    limits as in ``scan_py.parse_drup``."""
    return _scan(data, 0, -1, max_steps, max_lits)


cdef tuple _scan_part(scc_scan_t* s, bint* ended, data, int is_cnf,
                      int64_t max_vars, int64_t max_steps, int64_t max_lits,
                      bint final):
    """The next part of a text stream, scanned into ``s``: the ``scan`` of
    ``DrupTextStream`` (``is_cnf`` 0) and of ``CnfTextStream`` (1), which
    returns without ``kinds`` and ``lines``; ``ended`` is the stream's flag."""
    cdef const unsigned char[::1] view = data
    cdef const unsigned char* ptr = NULL
    cdef size_t n = view.shape[0]
    cdef int r
    cdef size_t done
    if ended[0]:
        if is_cnf:
            raise RuntimeError("this CNF text stream has ended")
        raise RuntimeError("this DRUP text stream has ended")
    if n:
        ptr = &view[0]
    s.code = OK
    with nogil:
        r = scc_scan(s, ptr, n, is_cnf, max_vars, max_steps, max_lits, final)
    if r < 0:
        ended[0] = True
        raise MemoryError("not enough memory for the parsed arrays")
    done = <size_t>s.offsets[s.n_offsets - 1]
    kinds = None if is_cnf else _bytes(s.kinds, s.n_kinds)
    offsets = _ints(s.offsets, s.n_offsets)
    lits = _ints(s.lits, done)
    lines = None if is_cnf else _longs(s.lines, s.n_lines)
    scc_scan_rest(s)
    if s.code != OK or final:
        ended[0] = True
    code, line, token, value = OK, 0, None, 0
    if s.code != OK:
        code, line, value = s.code, s.line, s.value
        if s.has_token:
            token = bytes(view[s.tok_start:s.tok_stop])
    if is_cnf:
        return code, line, token, value, offsets, lits
    return code, line, token, value, kinds, offsets, lits, lines


cdef class DrupTextStream:
    """DRUP text scanned in parts, as it arrives (a proof on a pipe).

    ``scan(data, final)`` scans the next part and returns ``(code, line,
    token, value, kinds, offsets, lits, lines)`` for the steps completed in
    it (a step may span parts: its literals wait inside until its 0),
    ``offsets`` from 0, ``lines`` (array('q')) the 1-based line where each
    step starts.  Each part but the last (``final=False``) must end right after a
    whitespace byte, so that no token is cut.  On an error ``code`` is the
    scanner's code and the arrays hold the steps completed before it; after
    an error or the final part, ``scan`` raises RuntimeError.
    """

    cdef scc_scan_t s
    cdef bint ended

    def __cinit__(self):
        scc_scan_init(&self.s)
        self.s.want_lines = 1
        self.ended = False

    def __init__(self):
        """A stream at the start of a text (the state is set up in __cinit__)."""

    def __dealloc__(self):
        scc_scan_free(&self.s)

    @property
    def status_lines(self):
        """(count, line, at) of the status lines skipped so far: ``line`` the
        first one's, ``at`` its offset in the last part scanned (-1: not there)."""
        return self.s.n_status, self.s.status_line, self.s.status_at

    @property
    def open_literals(self):
        """The literals of the step still open after the last call (also after
        one that ran out of memory)."""
        if self.s.n_offsets == 0:
            return self.s.n_lits
        return self.s.n_lits - <size_t>self.s.offsets[self.s.n_offsets - 1]

    def scan(self, data, bint final):
        return _scan_part(&self.s, &self.ended, data, 0, -1, -1, -1, final)


cdef class CnfTextStream:
    """DIMACS CNF text scanned in parts, as it is read (a sat claim checked as
    the CNF streams).

    ``CnfTextStream(max_vars, max_clauses, max_lits)`` takes the stop limits
    of ``parse_cnf``, on the whole text.  ``scan(data, final)`` scans the next
    part and returns ``(code, line, token, value, offsets, lits)`` for the
    clauses completed in it (a clause may span parts), ``offsets`` from 0.
    Each part but the last must end right after a whitespace byte, and not
    inside a ``p`` line.  On an error or a stop the arrays hold the clauses
    completed before it (with a stop at ``max_lits``, the last one closed as it
    is); after an error, a stop or the final part, ``scan`` raises RuntimeError.
    ``header`` is (num_vars, num_clauses) of the header, -1 before it.
    """

    cdef scc_scan_t s
    cdef bint ended
    cdef int64_t max_vars, max_clauses, max_lits

    def __cinit__(self, max_vars=-1, max_clauses=-1, max_lits=-1):
        scc_scan_init(&self.s)
        self.ended = False
        self.max_vars = max_vars
        self.max_clauses = max_clauses
        self.max_lits = max_lits

    def __init__(self, max_vars=-1, max_clauses=-1, max_lits=-1):
        """A stream at the start of a text (the state is set up in __cinit__)."""

    def __dealloc__(self):
        scc_scan_free(&self.s)

    @property
    def header(self):
        """(num_vars, num_clauses) of the header; -1 each before it."""
        return self.s.num_vars, self.s.num_clauses

    def scan(self, data, bint final):
        return _scan_part(&self.s, &self.ended, data, 1, self.max_vars,
                          self.max_clauses, self.max_lits, final)


# -- binary DRUP, as a stream ---------------------------------------------------


cdef extern from "binary_scan.h" nogil:
    ctypedef struct scc_bin_t:
        int32_t* lits
        size_t n_lits
        int32_t* offsets
        size_t n_offsets
        int8_t* kinds
        size_t n_kinds
        int64_t* starts
        size_t n_starts
        int code
        int64_t where
        unsigned char token[5]
        int token_len
        int64_t value
        int64_t n_comment
        int64_t comment_where
        int64_t comment_at
        int64_t n_status
        int64_t status_where
        int64_t status_at
    void scc_bin_init(scc_bin_t* s)
    void scc_bin_free(scc_bin_t* s)
    int scc_bin_next(scc_bin_t* s)
    int scc_bin_scan(scc_bin_t* s, const unsigned char* data, size_t n, int final)


cdef class BinaryDrupStream:
    """Binary DRUP bytes, in chunks cut anywhere, into the arrays of
    ``parse_drup``: the same class, answers and errors as
    ``scan_py.BinaryDrupStream`` (the encoding: ``csrc/binary_scan.h``)."""

    cdef scc_bin_t s
    cdef bint ended

    def __cinit__(self):
        scc_bin_init(&self.s)

    def __dealloc__(self):
        scc_bin_free(&self.s)

    def __init__(self):
        self.ended = False

    @property
    def open_literals(self):
        """The literals of the step still open after the last call."""
        if self.s.n_offsets == 0:
            return 0
        return self.s.n_lits - <size_t>self.s.offsets[self.s.n_offsets - 1]

    @property
    def status_lines(self):
        """(count, where, at) of the status lines skipped so far: ``where`` the
        first one's stream offset, ``at`` its offset in the last call's data
        (-1: not there)."""
        return self.s.n_status, self.s.status_where, self.s.status_at

    @property
    def comment_lines(self):
        """(count, where, at) of the comment lines skipped so far, as
        ``status_lines``."""
        return self.s.n_comment, self.s.comment_where, self.s.comment_at

    def scan(self, data, final):
        """The next bytes -> (code, where, token, value, kinds, offsets, lits,
        starts) of the steps completed in this call; see
        ``scan_py.BinaryDrupStream``."""
        cdef const unsigned char[::1] view = data
        cdef const unsigned char* ptr = NULL
        cdef size_t n = view.shape[0]
        cdef int is_final = 1 if final else 0
        cdef int r
        cdef size_t done_lits
        if self.ended:
            raise RuntimeError("the binary proof stream has ended (an error or the final chunk)")
        if n:
            ptr = &view[0]
        with nogil:
            r = scc_bin_next(&self.s)
            if r == 0:
                r = scc_bin_scan(&self.s, ptr, n, is_final)
        if r < 0:
            self.ended = True
            raise MemoryError("not enough memory for the parsed arrays")
        if final or self.s.code != OK:
            self.ended = True
        token = None
        if self.s.token_len >= 0:
            token = bytes(self.s.token[:self.s.token_len])
        done_lits = <size_t>self.s.offsets[self.s.n_offsets - 1]
        return (self.s.code, self.s.where, token, self.s.value,
                _bytes(self.s.kinds, self.s.n_kinds), _ints(self.s.offsets, self.s.n_offsets),
                _ints(self.s.lits, done_lits), _longs(self.s.starts, self.s.n_starts))
