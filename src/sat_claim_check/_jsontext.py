"""JSON text in and out (SPEC §8): strict RFC 8259 reading, §5 bytes writing."""

import json
import sys
from decimal import Decimal

from .errors import InvalidInput

__all__ = ["dumps", "loads"]

_BOM = "\ufeff"


def _constant(name):
    raise ValueError(f"{name} is not a JSON number")


def _unique_keys(pairs):
    obj = {}
    for key, value in pairs:
        if key in obj:
            raise ValueError(f"key {key!r} is repeated in an object")
        obj[key] = value
    return obj


def _integer(text):
    # Integers of any size are read exactly; Python's int() refuses very long
    # digit strings, Decimal does not.
    return int(text) if len(text) <= 4000 else int(Decimal(text))


def loads(data):
    """Parse one JSON text (bytes or str); raise InvalidInput (field null) if unusable."""
    if isinstance(data, (bytes, bytearray)):
        try:
            data = bytes(data).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InvalidInput(None, "", f"the input is not UTF-8: {exc}") from None
    if data.startswith(_BOM):       # RFC 8259 §8.1 lets a parser ignore a BOM
        data = data[1:]
    try:
        try:
            return json.loads(data, object_pairs_hook=_unique_keys,
                              parse_constant=_constant)
        except ValueError as exc:
            if "integer string conversion" not in str(exc):
                raise
            # A very long integer: parse again, reading integers one by one
            # (slower, so only when needed).
            return json.loads(data, object_pairs_hook=_unique_keys,
                              parse_constant=_constant, parse_int=_integer)
    except RecursionError:
        raise InvalidInput(None, "", "the JSON text is nested too deeply") from None
    except ValueError as exc:        # json.JSONDecodeError is a ValueError
        raise InvalidInput(None, "", f"malformed JSON: {exc}") from None


def dumps(obj, pretty=False):
    """One compact line in the given key order (SPEC §5), or indented with pretty."""
    kwargs = {"indent": 2} if pretty else {"separators": (",", ":")}
    try:
        return json.dumps(obj, **kwargs)
    except ValueError:
        # An error's `actual` can be an integer too long for str(); lift the
        # guard just for this write (the command line is single-threaded).
        old = sys.get_int_max_str_digits()
        sys.set_int_max_str_digits(0)
        try:
            return json.dumps(obj, **kwargs)
        finally:
            sys.set_int_max_str_digits(old)
