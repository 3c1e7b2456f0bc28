"""JSON text in and out : strict RFC 8259 reading, one compact line writing.

docs/semantics.md says what is read ("JSON text") and written ("Output bytes").

Integers of any size are read exactly and in linear time, without touching
Python's interpreter-wide guard on int <-> str conversion: an integer of more
than ``SHORT_DIGITS`` digits becomes a ``LongInteger``, which keeps its digits
as text and writes them back verbatim.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from .._engines import converter
from ..errors import InvalidInput

__all__ = ["SHORT_DIGITS", "LongInteger", "dumps", "loads"]

_BOM = "\ufeff"

# int() of this many digits is cheap and allowed whatever the guard is set to
# (its smallest setting is 640).
SHORT_DIGITS = 640
_STAND_IN = 10**SHORT_DIGITS


class LongInteger(int):
    """A JSON integer of more than ``SHORT_DIGITS`` digits, kept as its text.

    Converting such text to an int takes quadratic time, so it is never done.
    The int value is a stand-in of the same sign, ``±10**SHORT_DIGITS``, which
    the true value exceeds in magnitude (JSON has no leading zeros): every
    comparison with an integer smaller than that in magnitude (every limit and
    every range of the contract) comes out as it would for the true value.
    ``text`` holds the exact digits, and ``dumps`` writes them back.
    """

    text: str

    def __new__(cls, text: str) -> LongInteger:
        self = super().__new__(cls, -_STAND_IN if text.startswith("-") else _STAND_IN)
        self.text = text
        return self

    def digits(self) -> int:
        """How many digits the integer has."""
        return len(self.text.lstrip("-"))

    def __reduce__(self) -> tuple[type[LongInteger], tuple[str]]:
        return LongInteger, (self.text,)  # copies and pickles keep the digits

    def __repr__(self) -> str:
        return self.text

    __str__ = __repr__


def _parse_int(text: str) -> int:
    return int(text) if len(text.lstrip("-")) <= SHORT_DIGITS else LongInteger(text)


def _native_ints_are_cheap() -> bool:
    """Whether json's own int() is safe on any text: true when Python's digit
    guard is on at its default or lower (older Pythons have no guard)."""
    get_limit = getattr(sys, "get_int_max_str_digits", None)
    return get_limit is not None and 0 < get_limit() <= 4300


def _constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _decode(text: str) -> Any:
    # The object hook refuses repeated keys and lone surrogates (see
    # convert_py.unique_keys).
    hook = converter().unique_keys
    if _native_ints_are_cheap():
        try:  # the fast path: json's own int(), which the guard keeps short
            return json.loads(text, object_pairs_hook=hook, parse_constant=_constant)
        except ValueError as exc:
            if "integer string conversion" not in str(exc):
                raise
    return json.loads(text, object_pairs_hook=hook, parse_constant=_constant, parse_int=_parse_int)


def loads(data: bytes | bytearray | str) -> Any:
    """Parse one JSON text (bytes or str); raise InvalidInput (field null) if unusable."""
    if isinstance(data, (bytes, bytearray)):
        try:
            data = bytes(data).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InvalidInput(None, "", f"the input is not UTF-8: {exc}") from None
    if data.startswith(_BOM):  # RFC 8259 §8.1 lets a parser ignore a BOM
        data = data[1:]
    try:
        return _decode(data)
    except RecursionError:
        raise InvalidInput(None, "", "the JSON text is nested too deeply") from None
    except ValueError as exc:  # json.JSONDecodeError is a ValueError
        raise InvalidInput(None, "", f"malformed JSON: {exc}") from None


# int.__repr__ writes every int of this many bits, whatever the guard is set to.
_SHORT_BITS = 2000


def _is_long(value: Any) -> bool:
    return isinstance(value, LongInteger) or (
        type(value) is int and value.bit_length() > _SHORT_BITS
    )


def _decimal(value: int) -> str:
    """str() of an int of any size, without the digit guard (halving the digits)."""
    if value < 0:
        return "-" + _decimal(-value)
    if value.bit_length() <= _SHORT_BITS:
        return str(value)
    half = int(value.bit_length() * 0.30103) // 2  # about half its digits
    high, low = divmod(value, 10**half)
    return _decimal(high) + _decimal(low).zfill(half)


def dumps(obj: Any, pretty: bool = False) -> str:
    """One compact line in the given key order, or indented with pretty.

    An error's ``actual`` can be a LongInteger or an int too long for
    int.__repr__: such values, at the top level of a dict, are written by hand.
    """
    kwargs: dict[str, Any] = {"indent": 2} if pretty else {"separators": (",", ":")}
    if not (isinstance(obj, dict) and any(map(_is_long, obj.values()))):
        return json.dumps(obj, **kwargs)
    items = []
    for key, value in obj.items():
        if isinstance(value, LongInteger):
            text = value.text
        elif _is_long(value):
            text = _decimal(value)
        else:
            text = json.dumps(value, **kwargs)
            if pretty:
                text = text.replace("\n", "\n  ")  # one level deeper
        items.append(json.dumps(key) + (": " if pretty else ":") + text)
    if pretty:
        return "{\n  " + ",\n  ".join(items) + "\n}"
    return "{" + ",".join(items) + "}"
