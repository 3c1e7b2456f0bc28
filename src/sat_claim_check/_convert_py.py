"""Request arrays into flat int arrays: the pure-Python twin of ``_convert_c``.

The same functions with the same answers.  ``flatten`` and ``flatten_steps``
accept only the common case (plain lists or tuples of plain ints, all within
range) and return ``None`` on anything else, so that the plain walk in
``_validate`` finds the exact first error in document order.
"""

from __future__ import annotations

from array import array
from itertools import accumulate, chain
from typing import Any

from ._codes import STEP_ADD, STEP_ADD_OUT_OF_RANGE, STEP_DELETE, STEP_DELETE_NO_MATCH

__all__ = ["flatten", "flatten_steps", "mark_out_of_range", "unique_keys"]

_STEP_KINDS = {"add": STEP_ADD, "delete": STEP_DELETE}


def flatten(arrays: Any, bound: int, zero_ok: bool) -> tuple[array[int], array[int]] | None:
    """(offsets, literals) as array('i') for a list of literal arrays, or None."""
    if type(arrays) not in (list, tuple) or not set(map(type, arrays)) <= {list, tuple}:
        return None
    flat = list(chain.from_iterable(arrays))
    if not set(map(type, flat)) <= {int}:
        return None
    if flat and not (-bound <= min(flat) and max(flat) <= bound
                     and (zero_ok or 0 not in flat)):
        return None
    return array("i", accumulate(map(len, arrays), initial=0)), array("i", flat)


def flatten_steps(proof: Any, bound: int) -> tuple[array[int], array[int], array[int]] | None:
    """(kinds, offsets, literals) for proof steps, or None (see ``_convert_c``)."""
    if type(proof) not in (list, tuple):
        return None
    if not set(map(type, proof)) <= {dict} or not set(map(len, proof)) <= {1}:
        return None
    keys = list(map(next, map(iter, proof)))
    if not set(map(type, keys)) <= {str} or not set(keys) <= _STEP_KINDS.keys():
        return None
    values = list(chain.from_iterable(map(dict.values, proof)))
    flat = flatten(values, bound, True)
    if flat is None:
        return None
    return array("b", map(_STEP_KINDS.__getitem__, keys)), *flat


def mark_out_of_range(kinds: array[int], offsets: array[int], lits: array[int],
                      num_vars: int) -> None:
    """Give each step with a literal outside 1..num_vars its own kind, in place,
    so that the engines never see such a literal.  The steps' literals are
    ``lits[offsets[0]:offsets[-1]]`` (offsets need not start at 0)."""
    window = lits[offsets[0]:offsets[-1]]
    if not window or (-num_vars <= min(window) and max(window) <= num_vars
                      and 0 not in window):
        return
    for s in range(len(kinds)):
        part = lits[offsets[s]:offsets[s + 1]]
        if part and not (-num_vars <= min(part) and max(part) <= num_vars and 0 not in part):
            add = kinds[s] in (STEP_ADD, STEP_ADD_OUT_OF_RANGE)
            kinds[s] = STEP_ADD_OUT_OF_RANGE if add else STEP_DELETE_NO_MATCH


def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """json's object_pairs_hook: a dict, or ValueError for a repeated key or a
    string with a lone surrogate (other parsers replace or refuse such strings,
    so they could see a different request)."""
    obj = {}
    for key, value in pairs:
        if key in obj:
            raise ValueError(f"key {key!r} is repeated in an object")
        _check_unicode(key)
        if type(value) is str:
            _check_unicode(value)
        obj[key] = value
    return obj


def _check_unicode(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(f"the string {text!r} holds a lone surrogate") from None
