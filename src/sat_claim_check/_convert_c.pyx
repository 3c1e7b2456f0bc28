"""Request arrays into flat C int arrays, checking every literal on the way.

The compiled twin of ``_convert_py`` (same functions, same answers).
``flatten`` and ``flatten_steps`` are the fast paths of ``_validate``: they
accept only the common case (plain lists or tuples of plain ints, all within
range) and return ``None`` on anything else, so that the plain Python walk in
``_validate`` finds the exact first error in document order.
"""

from cpython cimport array
from cpython.long cimport PyLong_AsLongAndOverflow
from cpython.list cimport PyList_GET_ITEM, PyList_GET_SIZE
from cpython.tuple cimport PyTuple_GET_ITEM, PyTuple_GET_SIZE
from cpython.ref cimport PyObject

import array as _array

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


def flatten(object arrays, long bound, bint zero_ok):
    """(offsets, literals) as array('i') for a list of literal arrays, or None.

    None means "not the common case": an item that is not a plain list or
    tuple, a literal that is not a plain int, or one with ``|l| > bound`` (or
    ``l == 0`` unless ``zero_ok``).
    """
    cdef Py_ssize_t n = _size(arrays)
    cdef Py_ssize_t i, j, m, total = 0, pos = 0
    cdef object item
    cdef PyObject* x
    cdef long value
    cdef int overflow
    cdef bint is_list
    if n < 0:
        return None
    for i in range(n):
        m = _size(arrays[i])
        if m < 0:
            return None
        total += m
        if total > _INT_MAX:
            return None
    cdef array.array offsets = array.clone(_INT_TEMPLATE, n + 1, zero=False)
    cdef array.array lits = array.clone(_INT_TEMPLATE, total, zero=False)
    cdef int* out_offsets = offsets.data.as_ints
    cdef int* out_lits = lits.data.as_ints
    for i in range(n):
        item = arrays[i]
        out_offsets[i] = <int>pos
        is_list = type(item) is list
        m = PyList_GET_SIZE(item) if is_list else PyTuple_GET_SIZE(item)
        if pos + m > total:             # the caller changed the lists meanwhile
            return None
        for j in range(m):
            x = PyList_GET_ITEM(item, j) if is_list else PyTuple_GET_ITEM(item, j)
            if type(<object>x) is not int:      # bool, float and the rest: slow path
                return None
            value = PyLong_AsLongAndOverflow(<object>x, &overflow)
            if overflow or value < -bound or value > bound:
                return None
            if value == 0 and not zero_ok:
                return None
            out_lits[pos] = <int>value
            pos += 1
    if pos != total:
        return None
    out_offsets[n] = <int>pos
    return offsets, lits


cdef extern from "Python.h":
    int PyDict_Next(object d, Py_ssize_t* pos, PyObject** key, PyObject** value)
    Py_ssize_t PyDict_GET_SIZE(object d)

from ._codes import (
    STEP_ADD, STEP_ADD_OUT_OF_RANGE, STEP_DELETE, STEP_DELETE_NO_MATCH,
)

cdef signed char _ADD = STEP_ADD
cdef signed char _DELETE = STEP_DELETE
cdef signed char _ADD_OUT = STEP_ADD_OUT_OF_RANGE
cdef signed char _DELETE_OUT = STEP_DELETE_NO_MATCH
cdef array.array _BYTE_TEMPLATE = _array.array("b")


def flatten_steps(object proof, long bound):
    """(kinds, offsets, literals) for proof steps, or None.

    The common case only: every step a plain dict with one key, "add" or
    "delete", holding a plain list or tuple of plain ints with ``|l| <= bound``.
    Kinds are STEP_ADD or STEP_DELETE (``mark_out_of_range`` classifies).
    """
    cdef Py_ssize_t n = _size(proof)
    cdef Py_ssize_t s, j, m, total = 0, pos = 0, dict_pos
    cdef PyObject* key
    cdef PyObject* value
    cdef PyObject* x
    cdef object step
    cdef long lit
    cdef int overflow
    cdef bint is_list
    if n < 0:
        return None
    # Pass 1: shapes, and the total literal count.
    for s in range(n):
        step = proof[s]
        if type(step) is not dict or PyDict_GET_SIZE(step) != 1:
            return None
        dict_pos = 0
        PyDict_Next(step, &dict_pos, &key, &value)
        if type(<object>key) is not str:
            return None
        if not (<object>key == "add" or <object>key == "delete"):
            return None
        m = _size(<object>value)
        if m < 0:
            return None
        total += m
        if total > _INT_MAX:
            return None
    cdef array.array kinds = array.clone(_BYTE_TEMPLATE, n, zero=False)
    cdef array.array offsets = array.clone(_INT_TEMPLATE, n + 1, zero=False)
    cdef array.array lits = array.clone(_INT_TEMPLATE, total, zero=False)
    cdef signed char* out_kinds = kinds.data.as_schars
    cdef int* out_offsets = offsets.data.as_ints
    cdef int* out_lits = lits.data.as_ints
    # Pass 2: literals, checked and copied.
    for s in range(n):
        step = proof[s]
        if type(step) is not dict or PyDict_GET_SIZE(step) != 1:
            return None                 # the caller changed the proof meanwhile
        dict_pos = 0
        PyDict_Next(step, &dict_pos, &key, &value)
        out_offsets[s] = <int>pos
        is_list = type(<object>value) is list
        if not is_list and type(<object>value) is not tuple:
            return None
        if is_list:
            m = PyList_GET_SIZE(<object>value)
        else:
            m = PyTuple_GET_SIZE(<object>value)
        if pos + m > total:
            return None
        for j in range(m):
            x = (PyList_GET_ITEM(<object>value, j) if is_list
                 else PyTuple_GET_ITEM(<object>value, j))
            if type(<object>x) is not int:
                return None
            lit = PyLong_AsLongAndOverflow(<object>x, &overflow)
            if overflow or lit < -bound or lit > bound:
                return None
            out_lits[pos] = <int>lit
            pos += 1
        out_kinds[s] = _ADD if <object>key == "add" else _DELETE
    if pos != total:
        return None
    out_offsets[n] = <int>pos
    return kinds, offsets, lits


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
    string with a lone surrogate (the compiled twin of _convert_py.unique_keys)."""
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
