"""Literal arrays, walked in document order: the exact first error, or the flat arrays.

The common case (every literal a plain ``int`` within range) is taken by the
converter twin over whole arrays; when it declines, the walk here finds the
first error, or normalizes integral floats (``3.0`` is 3).
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from .._engines import converter
from ..errors import InvalidInput
from .codes import step_key
from .values import array_items, as_integer, number_text, pointer, type_name

if TYPE_CHECKING:
    Flat = tuple[array[int], array[int]]  # (offsets, literals)
    PathOf = Callable[[int, int], str]  # (array, item) -> JSON Pointer

__all__ = ["check_literals", "flatten", "literal_array", "literal_error"]


def flatten(
    items_list: Any, bound: int, zero_ok: bool, field: str, path_of: PathOf, what: str
) -> Flat:
    """Validate the literals of several arrays; return (offsets, literals) as array('i').

    Every literal must be an integer with ``|l| <= bound`` (and non-zero unless
    ``zero_ok``); ``path_of(i, j)`` names item j of array i for errors.  The
    caller has checked the literal count against its limit.
    """
    fast = converter().flatten(items_list, bound, zero_ok, sys.maxsize)
    if fast is not None and not isinstance(fast, int):  # no count: sys.maxsize is no limit
        return fast
    offsets, lits = array("i", [0]), array("i")
    for i, items in enumerate(array_items(items_list)):
        _walk_literals(items, i, bound, zero_ok, field, path_of, what, lits)
        offsets.append(len(lits))  # what was walked, whatever the lengths said
    return offsets, lits


def literal_array(
    items_list: Any, bound: int, zero_ok: bool, field: str, path_of: PathOf, what: str
) -> array[int]:
    """The literals of ``flatten`` alone."""
    return flatten(items_list, bound, zero_ok, field, path_of, what)[1]


def check_literals(
    items_list: Any, bound: int, zero_ok: bool, field: str, path_of: PathOf, what: str
) -> None:
    """``flatten``'s checks with nothing copied (for arrays over a literal limit).

    Raises the first error in document order; an array given several times
    is read once.
    """
    if converter().flatten(items_list, bound, zero_ok, -1) is not None:
        return
    seen: set[int] = set()
    for i, items in enumerate(array_items(items_list)):
        if id(items) not in seen:
            seen.add(id(items))
            if converter().flatten((items,), bound, zero_ok, -1) is None:
                _walk_literals(items, i, bound, zero_ok, field, path_of, what, None)


def _walk_literals(
    items: Any,
    i: int,
    bound: int,
    zero_ok: bool,
    field: str,
    path_of: PathOf,
    what: str,
    out: array[int] | None,
) -> None:
    """Check array ``i``'s literals in order, appending them to ``out`` (if given)."""
    low = 0 if zero_ok else 1
    for j, x in enumerate(array_items(items)):
        v = as_integer(x)
        if v is None:
            raise InvalidInput(
                field, path_of(i, j), f"{what} must be an integer, got {type_name(x)}"
            )
        if not low <= abs(v) <= bound:
            raise InvalidInput(
                field,
                path_of(i, j),
                f"{what} {number_text(v)} is out of range: |l| must be in {low}..{bound}",
            )
        if out is not None:
            out.append(v)


def literal_error(
    kinds: Sequence[int], offsets: Sequence[int], lits: array[int], s: int, index: int, bound: int
) -> InvalidInput:
    """The error of step s of flat arrays (step ``index`` of the proof), which has a
    literal over ``bound``: worded as ``validate`` words it."""
    key = step_key(kinds[s])
    try:
        literal_array(
            (lits[offsets[s] : offsets[s + 1]].tolist(),),
            bound,
            True,
            "proof",
            lambda _, j: pointer("proof", index, key, j),
            "a proof literal",
        )
    except InvalidInput as exc:
        return exc
    raise AssertionError(f"step {index} has no literal over {bound}")  # pragma: no cover
