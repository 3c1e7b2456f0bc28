"""Reading JSON values as validation does: types, integers, objects and JSON Pointers.

Subclasses of the JSON types are read through their base type's methods, so
that nothing they override changes what is checked.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from ..errors import InvalidInput
from .jsontext import LongInteger

if TYPE_CHECKING:
    Flat = tuple[array[int], array[int]]  # (offsets, literals)
    Steps = tuple[array[int], array[int], array[int]]  # (kinds, offsets, literals)
    PathOf = Callable[[int, int], str]  # (array, item) -> JSON Pointer


__all__ = [
    "array_items",
    "array_length",
    "as_integer",
    "is_array",
    "is_object",
    "number_text",
    "pointer",
    "read_object",
    "type_name",
]

_class_name = type.__dict__["__name__"].__get__  # type's own, not a metaclass's


def is_array(x: Any) -> bool:
    return issubclass(type(x), (list, tuple))


def is_object(x: Any) -> bool:
    return issubclass(type(x), dict)


def array_length(x: Any) -> int:
    """The length of an array as its base type holds it; -1 for a non-array."""
    cls = type(x)
    if cls is list or issubclass(cls, list):
        return list.__len__(x)
    if cls is tuple or issubclass(cls, tuple):
        return tuple.__len__(x)
    return -1


def array_items(x: Any) -> Iterator[Any]:
    """The items of an array, read through its base type (nothing is copied)."""
    return list.__iter__(x) if issubclass(type(x), list) else tuple.__iter__(x)


def as_integer(x: Any) -> int | None:
    """The int value of a JSON Schema integer, or None (bools, NaN, fractions...).

    A LongInteger stays one: it is its own value (see ``_core.jsontext``).
    """
    cls = type(x)
    if cls is int:
        plain: int = x
        return plain
    if cls is bool:
        return None
    if cls is LongInteger:  # a JSON integer too long to convert: its own value
        long: LongInteger = x
        return long
    if issubclass(cls, int):
        return int.__index__(x)
    if issubclass(cls, float):
        value = float.__float__(x)
        return int(value) if value.is_integer() else None  # False for NaN, infinities
    return None


def pointer(*parts: str | int) -> str:
    """A JSON Pointer (RFC 6901) from path segments (plain str and int)."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def number_text(v: int) -> str:
    """An int for a message; very long ones are summarized (str() may refuse
    them, and a message is one line for people)."""
    if isinstance(v, LongInteger):
        digits = v.digits()
    elif v.bit_length() > 2000:
        digits = _digit_count(abs(v))
    else:
        return str(v)
    return f"{'-' if v < 0 else ''}(an integer of {digits} digits)"


def _digit_count(v: int) -> int:
    """The number of decimal digits of v > 0, without str()."""
    d = (v.bit_length() - 1) * 30102999 // 10**8  # 10**d <= v: 0.30102999 < log10(2)
    while v >= 10 ** (d + 1):
        d += 1
    return d + 1


def type_name(x: Any) -> str:
    """What ``x`` is, for a message (read as ``as_integer`` reads it)."""
    cls = type(x)
    if x is None:
        return "null"
    if cls is bool:
        return "a boolean"
    if cls is LongInteger:
        return f"the number {number_text(x)}"
    if issubclass(cls, int):
        return f"the number {number_text(int.__index__(x))}"
    if issubclass(cls, float):
        return f"the number {float.__repr__(x)}"
    if issubclass(cls, str):
        return "a string"
    if is_array(x):
        return "an array"
    if is_object(x):
        return "an object"
    return f"a {str.__str__(_class_name(cls))}"


def read_object(
    obj: Any,
    allowed: tuple[str, ...],
    required: tuple[str, ...],
    field: str | None,
    path: tuple[str | int, ...],
    *,
    exactly_one: bool = False,
) -> dict[str, Any]:
    """``obj`` as a plain dict with plain str keys, after the checks of its key set.

    In order: a key that is not a string (a dict with one is not a JSON object
    at all); then, in the object's own order, the first key that is unknown or
    repeats an earlier one (only str subclasses with their own ``__hash__`` or
    ``__eq__`` can repeat); then missing keys in listed order, or, with
    ``exactly_one``, a key count other than one.  ``field`` None is the request
    itself: its key errors name the key as the field.
    """
    if type(obj) is dict and all(type(key) is str for key in obj):
        plain = obj
        for key in obj:
            if key not in allowed:
                raise _unknown_key(key, allowed, field, path)
    else:
        items = list(dict.items(obj))
        if not all(issubclass(type(key), str) for key, _ in items):
            raise InvalidInput(field, pointer(*path), "object keys must be strings")
        plain = {}
        for key, value in items:
            key = str.__str__(key)
            if key in plain:
                raise InvalidInput(
                    key if field is None else field,
                    pointer(*path, key),
                    f"key {key!r} is repeated in the object",
                )
            if key not in allowed:
                raise _unknown_key(key, allowed, field, path)
            plain[key] = value
    if exactly_one:
        if len(plain) != 1:
            raise InvalidInput(
                field,
                pointer(*path),
                f"a proof step must have exactly one key, add or delete; got {len(plain)}",
            )
        return plain
    for key in required:
        if key not in plain:
            raise InvalidInput(
                key if field is None else field,
                pointer(*path, key),
                f"missing required key {key!r}",
            )
    return plain


def _unknown_key(
    key: str, allowed: tuple[str, ...], field: str | None, path: tuple[str | int, ...]
) -> InvalidInput:
    return InvalidInput(
        key if field is None else field,
        pointer(*path, key),
        f"unknown key {key!r}; allowed: {', '.join(allowed)}",
    )


# -- size limits and step kinds (shared with the DIMACS front door) ------------
