"""Request arrays into flat int arrays: the pure-Python twin of ``convert_c``.

The same functions with the same answers.  ``flatten`` and ``flatten_steps``
accept only the common case (plain lists or tuples of plain ints, all within
range; a subclass is not plain) and return ``None`` on anything else, so that
the plain Python walk in ``_core.literals`` finds the exact first error in document
order.  Types are compared by identity (``is``), never hashed or compared with
``==``: a class whose metaclass overrides those cannot pass for a plain one.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from itertools import accumulate, chain, repeat
from operator import is_
from typing import TYPE_CHECKING, Any

from .._core.codes import STEP_ADD, STEP_ADD_OUT_OF_RANGE, STEP_DELETE, STEP_DELETE_NO_MATCH

__all__ = ["first_step_over", "flatten", "flatten_steps", "mark_out_of_range", "unique_keys"]

_STEP_KINDS = {"add": STEP_ADD, "delete": STEP_DELETE}

if TYPE_CHECKING:
    Flat = tuple[array[int], array[int]]  # (offsets, literals)
    Steps = tuple[array[int], array[int], array[int]]  # (kinds, offsets, literals)

_INT_MAX = 2**31 - 1


def _all_are(objects: Any, cls: type) -> bool:
    """Every object's type is exactly ``cls``."""
    return all(map(is_, map(type, objects), repeat(cls)))


def _plain_arrays(arrays: Any) -> bool:
    """Every item is a plain list or tuple."""
    return _all_are(arrays, list) or all(type(a) is list or type(a) is tuple for a in arrays)


def _literals_pass(arrays: list[list[Any] | tuple[Any, ...]], bound: int, zero_ok: bool) -> bool:
    """Every literal of the plain arrays is a plain int with ``|l| <= bound``
    (and non-zero unless ``zero_ok``); nothing is copied, and an array given
    several times is read once."""
    distinct = list({id(a): a for a in arrays}.values())
    literals = chain.from_iterable
    if not _all_are(literals(distinct), int):
        return False
    if not any(distinct):  # no literal at all
        return True
    return (
        -bound <= min(literals(distinct))
        and max(literals(distinct)) <= bound
        and (zero_ok or not any(0 in a for a in distinct))
    )


def flatten(
    arrays: Any, bound: int, zero_ok: bool, max_total: int
) -> tuple[array[int], array[int]] | int | None:
    """(offsets, literals) as array('i') for a list of literal arrays, or None.

    When the literal count is over ``max_total``, nothing is copied: the
    count is returned instead, if every literal passes (else None).
    """
    if (type(arrays) is not list and type(arrays) is not tuple) or not _plain_arrays(arrays):
        return None
    total = sum(map(len, arrays))
    if total > max_total:
        return total if _literals_pass(list(arrays), bound, zero_ok) else None
    if total > _INT_MAX:  # offsets are C ints: the Python walk says why
        return None
    flat = list(chain.from_iterable(arrays))
    if not _all_are(flat, int):
        return None
    if flat and not (-bound <= min(flat) and max(flat) <= bound and (zero_ok or 0 not in flat)):
        return None
    return array("i", accumulate(map(len, arrays), initial=0)), array("i", flat)


def flatten_steps(
    proof: Any, bound: int, max_total: int
) -> tuple[array[int], array[int], array[int]] | int | None:
    """(kinds, offsets, literals) for proof steps, or None (see ``convert_c``)."""
    if type(proof) is not list and type(proof) is not tuple:
        return None
    if not _all_are(proof, dict) or not set(map(len, proof)) <= {1}:
        return None
    keys = list(map(next, map(iter, proof)))
    if not _all_are(keys, str) or not set(keys) <= _STEP_KINDS.keys():
        return None
    values = list(chain.from_iterable(map(dict.values, proof)))
    flat = flatten(values, bound, True, max_total)
    if flat is None or isinstance(flat, int):
        return flat
    offsets, lits = flat
    return array("b", map(_STEP_KINDS.__getitem__, keys)), offsets, lits


def first_step_over(
    offsets: array[int], lits: array[int], bound: int, a: int, b: int
) -> int | None:
    """The first of steps a..b-1 (``lits[offsets[s]:offsets[s + 1]]``) with a
    literal over ``bound`` in magnitude, or None."""
    window = lits[offsets[a] : offsets[b]]
    if not window or (-bound <= min(window) and max(window) <= bound):
        return None
    i = offsets[a] + next(i for i, lit in enumerate(window) if not -bound <= lit <= bound)
    return bisect_right(offsets, i, a, b + 1) - 1  # offsets[s] <= i < offsets[s + 1]


def mark_out_of_range(
    kinds: array[int], offsets: array[int], lits: array[int], num_vars: int
) -> None:
    """Give each step with a literal outside 1..num_vars its own kind, in place,
    so that the engines never see such a literal.  The steps' literals are
    ``lits[offsets[0]:offsets[-1]]`` (offsets need not start at 0)."""
    window = lits[offsets[0] : offsets[-1]]
    if not window or (-num_vars <= min(window) and max(window) <= num_vars and 0 not in window):
        return
    for s in range(len(kinds)):
        part = lits[offsets[s] : offsets[s + 1]]
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
