"""JSON text in and out: strict RFC 8259 reading, one compact line writing.

docs/semantics.md says what is read ("JSON text") and written ("Output bytes").
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, NoReturn

from ._engine import converter
from .errors import InvalidInput

__all__ = ["dumps", "loads"]

_BOM = "\ufeff"


def _constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not a JSON number")


# Refuses repeated keys and lone surrogates (see _convert_py.unique_keys).
_object_hook = converter().unique_keys


@contextmanager
def _any_integer_size() -> Iterator[None]:
    """Lift Python's guard on int <-> str conversion of very long integers.

    The command line is single-threaded; integers of any size are read exactly.
    """
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        yield
    finally:
        sys.set_int_max_str_digits(old)


def loads(data: bytes | bytearray | str) -> Any:
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
            return json.loads(data, object_pairs_hook=_object_hook,
                              parse_constant=_constant)
        except ValueError as exc:
            if "integer string conversion" not in str(exc):
                raise
            with _any_integer_size():      # a very long integer: parse again
                return json.loads(data, object_pairs_hook=_object_hook,
                                  parse_constant=_constant)
    except RecursionError:
        raise InvalidInput(None, "", "the JSON text is nested too deeply") from None
    except ValueError as exc:        # json.JSONDecodeError is a ValueError
        raise InvalidInput(None, "", f"malformed JSON: {exc}") from None


def dumps(obj: object, pretty: bool = False) -> str:
    """One compact line in the given key order, or indented with pretty."""
    kwargs: dict[str, Any] = {"indent": 2} if pretty else {"separators": (",", ":")}
    try:
        return json.dumps(obj, **kwargs)
    except ValueError:
        # An error's `actual` can be an integer too long for str().
        with _any_integer_size():
            return json.dumps(obj, **kwargs)
