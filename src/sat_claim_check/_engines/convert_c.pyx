"""Request arrays into flat C int arrays, checking every literal on the way.

The compiled twin of ``convert_py`` (same functions, same answers).
``flatten`` and ``flatten_steps`` are the fast paths of ``_core.validate``: they
accept only the common case (plain lists or tuples of plain ints, all within
range; a subclass is not plain) and return ``None`` on anything else, so that
the plain Python walk in ``_core.literals`` finds the exact first error in document
order.  They count before they copy: over the caller's literal limit they
only check, and return the count.
"""

from cpython cimport array
from cpython.long cimport PyLong_AsLongAndOverflow
from cpython.list cimport PyList_GET_ITEM, PyList_GET_SIZE
from cpython.tuple cimport PyTuple_GET_ITEM, PyTuple_GET_SIZE
from cpython.ref cimport PyObject

import array as _array

cdef extern from "Python.h":
    const Py_ssize_t PY_SSIZE_T_MAX

cdef array.array _INT_TEMPLATE = _array.array("i")
# Offsets and literal counts are C ints: longer inputs take the Python path.
cdef Py_ssize_t _INT_MAX = 2147483647


cdef inline Py_ssize_t _size(object seq) noexcept:
    """Length of a plain list or tuple, -1 for anything else."""
    if type(seq) is list:
        return PyList_GET_SIZE(seq)
    if type(seq) is tuple:
        return PyTuple_GET_SIZE(seq)
    return -1


cdef Py_ssize_t _literals(object seq, long bound, bint zero_ok, int* out,
                          Py_ssize_t room) noexcept:
    """Check the literals of a plain list or tuple, copying them to ``out``
    unless it is NULL; their count, or -1 when one is not a plain int with
    ``|l| <= bound`` (and non-zero unless ``zero_ok``), or there are more than
    ``room``."""
    cdef bint is_list = type(seq) is list
    cdef Py_ssize_t j, m = PyList_GET_SIZE(seq) if is_list else PyTuple_GET_SIZE(seq)
    cdef PyObject* x
    cdef long value
    cdef int overflow
    if m > room:
        return -1
    for j in range(m):
        x = PyList_GET_ITEM(seq, j) if is_list else PyTuple_GET_ITEM(seq, j)
        if type(<object>x) is not int:      # bool, float, subclasses: the walk
            return -1
        value = PyLong_AsLongAndOverflow(<object>x, &overflow)
        if overflow or value < -bound or value > bound or (value == 0 and not zero_ok):
            return -1
        if out != NULL:
            out[j] = <int>value
    return m


cdef object _count_if_plain(list arrays, long bound, bint zero_ok, Py_ssize_t total):
    """``total`` when every literal of the plain lists or tuples ``arrays`` passes,
    else None; nothing is copied, and an array given several times is read once."""
    cdef dict distinct = {id(seq): seq for seq in arrays}
    cdef object seq
    for seq in distinct.values():
        if _size(seq) < 0:              # the caller changed the lists meanwhile
            return None
        if _literals(seq, bound, zero_ok, NULL, PY_SSIZE_T_MAX) < 0:
            return None
    return total


def flatten(object arrays, long bound, bint zero_ok, Py_ssize_t max_total):
    """(offsets, literals) as array('i') for a list of literal arrays, or None.

    None means "not the common case": an item that is not a plain list or
    tuple, a literal that is not a plain int, or one with ``|l| > bound`` (or
    ``l == 0`` unless ``zero_ok``).  When the literal count is over
    ``max_total``, nothing is copied: the count is returned instead, if every
    literal passes (else None).
    """
    cdef Py_ssize_t n = _size(arrays)
    cdef Py_ssize_t i, m, total = 0, pos = 0
    cdef object item
    if n < 0:
        return None
    for i in range(n):
        m = _size(arrays[i])
        if m < 0:
            return None
        total += m
    if total > max_total:
        return _count_if_plain(list(arrays), bound, zero_ok, total)
    if total > _INT_MAX:
        return None
    cdef array.array offsets = array.clone(_INT_TEMPLATE, n + 1, zero=False)
    cdef array.array lits = array.clone(_INT_TEMPLATE, total, zero=False)
    cdef int* out_offsets = offsets.data.as_ints
    cdef int* out_lits = lits.data.as_ints
    if _size(arrays) != n:              # the caller changed the lists meanwhile
        return None
    for i in range(n):
        item = arrays[i]
        if _size(item) < 0:
            return None
        out_offsets[i] = <int>pos
        m = _literals(item, bound, zero_ok, out_lits + pos, total - pos)
        if m < 0:
            return None
        pos += m
    if pos != total:
        return None
    out_offsets[n] = <int>pos
    return offsets, lits


cdef extern from "Python.h":
    int PyDict_Next(object d, Py_ssize_t* pos, PyObject** key, PyObject** value)
    Py_ssize_t PyDict_GET_SIZE(object d)

from .._core.codes import (
    STEP_ADD, STEP_ADD_OUT_OF_RANGE, STEP_DELETE, STEP_DELETE_NO_MATCH,
)

cdef signed char _ADD = STEP_ADD
cdef signed char _DELETE = STEP_DELETE
cdef signed char _ADD_OUT = STEP_ADD_OUT_OF_RANGE
cdef signed char _DELETE_OUT = STEP_DELETE_NO_MATCH
cdef array.array _BYTE_TEMPLATE = _array.array("b")


cdef object _step_value(object step):
    """The value of a plain dict with one plain str key, "add" or "delete"
    (a new reference), or None for any other step."""
    cdef Py_ssize_t dict_pos = 0
    cdef PyObject* key
    cdef PyObject* value
    if type(step) is not dict or PyDict_GET_SIZE(step) != 1:
        return None
    PyDict_Next(step, &dict_pos, &key, &value)
    if type(<object>key) is not str:
        return None
    if not (<object>key == "add" or <object>key == "delete"):
        return None
    return <object>value


def flatten_steps(object proof, long bound, Py_ssize_t max_total):
    """(kinds, offsets, literals) for proof steps, or None.

    The common case only: every step a plain dict with one key, "add" or
    "delete", holding a plain list or tuple of plain ints with ``|l| <= bound``.
    Kinds are STEP_ADD or STEP_DELETE (``mark_out_of_range`` classifies).
    When the literal count is over ``max_total``, nothing is copied: the count
    is returned instead, if every literal passes (else None).
    """
    cdef Py_ssize_t n = _size(proof)
    cdef Py_ssize_t s, m, total = 0, pos = 0
    cdef object step, value
    if n < 0:
        return None
    # Pass 1: shapes, and the total literal count.
    for s in range(n):
        value = _step_value(proof[s])
        if value is None:
            return None
        m = _size(value)
        if m < 0:
            return None
        total += m
    if total > max_total:
        return _count_if_plain([_step_value(step) for step in proof], bound, True, total)
    if total > _INT_MAX:
        return None
    cdef array.array kinds = array.clone(_BYTE_TEMPLATE, n, zero=False)
    cdef array.array offsets = array.clone(_INT_TEMPLATE, n + 1, zero=False)
    cdef array.array lits = array.clone(_INT_TEMPLATE, total, zero=False)
    cdef signed char* out_kinds = kinds.data.as_schars
    cdef int* out_offsets = offsets.data.as_ints
    cdef int* out_lits = lits.data.as_ints
    if _size(proof) != n:               # the caller changed the proof meanwhile
        return None
    # Pass 2: literals, checked and copied.
    for s in range(n):
        step = proof[s]
        value = _step_value(step)
        if value is None or _size(value) < 0:
            return None
        out_offsets[s] = <int>pos
        m = _literals(value, bound, True, out_lits + pos, total - pos)
        if m < 0:
            return None
        pos += m
        out_kinds[s] = _ADD if "add" in <dict>step else _DELETE
    if pos != total:
        return None
    out_offsets[n] = <int>pos
    return kinds, offsets, lits


def first_step_over(const int[::1] offsets, const int[::1] lits, bound, Py_ssize_t a,
                    Py_ssize_t b):
    """The first of steps a..b-1 with a literal over ``bound`` in magnitude, or
    None (the compiled twin of convert_py.first_step_over)."""
    cdef Py_ssize_t s, i
    cdef long long most
    cdef int lit
    if bound >= 2147483648:         # no 32-bit literal is over it
        return None
    most = bound
    if a < 0 or b < a or b >= offsets.shape[0] or offsets[b] > lits.shape[0]:
        raise ValueError("offsets do not describe the steps")
    for s in range(a, b):
        if offsets[s] < 0 or offsets[s] > offsets[s + 1]:
            raise ValueError("offsets do not describe the steps")
        for i in range(offsets[s], offsets[s + 1]):
            lit = lits[i]
            if lit < -most or lit > most:
                return s
    return None


def mark_out_of_range(signed char[::1] kinds, const int[::1] offsets,
                      const int[::1] lits, long num_vars):
    """Give each step with a literal outside 1..num_vars its own kind, in place,
    so that the engines never see such a literal."""
    cdef Py_ssize_t s, i, n = kinds.shape[0]
    cdef int lit
    if offsets.shape[0] != n + 1 or offsets[n] > lits.shape[0]:
        raise ValueError("offsets do not describe the steps")
    for s in range(n):
        if offsets[s] < 0 or offsets[s] > offsets[s + 1]:
            raise ValueError("offsets do not describe the steps")
        for i in range(offsets[s], offsets[s + 1]):
            lit = lits[i]
            if lit == 0 or lit < -num_vars or lit > num_vars:
                kinds[s] = (_ADD_OUT if kinds[s] == _ADD or kinds[s] == _ADD_OUT
                            else _DELETE_OUT)
                break


def unique_keys(list pairs):
    """json's object_pairs_hook: a dict, or ValueError for a repeated key or a
    string with a lone surrogate (the compiled twin of convert_py.unique_keys)."""
    cdef dict obj = {}
    cdef Py_ssize_t i, n = PyList_GET_SIZE(pairs)
    cdef object key, value
    for i in range(n):
        key, value = <object>PyList_GET_ITEM(pairs, i)
        if key in obj:
            raise ValueError(f"key {key!r} is repeated in an object")
        _check_unicode(key)
        if type(value) is str:
            _check_unicode(value)
        obj[key] = value
    return obj


cdef inline int _check_unicode(str text) except -1:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(f"the string {text!r} holds a lone surrogate") from None
    return 0
