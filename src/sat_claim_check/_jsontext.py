"""JSON text in and out: strict RFC 8259 reading, one compact line writing.

docs/semantics.md says what is read ("JSON text") and written ("Output bytes").
``validated_from_text`` is the way in for a request's text: every entry point
that reads JSON text calls it.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, NoReturn

from ._engine import converter, request_reader
from ._validate import Validated, validate
from .errors import InvalidInput

if TYPE_CHECKING:
    from .limits import Limits

__all__ = ["dumps", "loads", "validated_from_text"]

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


# The compiled reader of the common case, or the pure twin that declines all.
_read_request = request_reader().read_request


def validated_from_text(data: bytes | bytearray | str, limits: Limits) -> Validated:
    """One request's JSON text, read and validated: a Validated, or CheckError.

    Always the answer of ``validate(loads(data), limits)``.  The compiled reader
    (``_request_c``) reads the common case straight into the arrays, without
    the GIL; it declines anything else (an error, an escape, ``3.0``...), and
    the exact path reads the text then.
    """
    raw: bytes | bytearray | None
    if isinstance(data, str):
        try:
            raw = data.encode("utf-8")
        except UnicodeEncodeError:          # a lone surrogate: the exact path says so
            raw = None
    else:
        raw = data
    arrays = None if raw is None else _read_request(raw, limits)
    if arrays is None:
        return validate(loads(data), limits)
    claim, num_vars, clause_offsets, clause_lits, assignment, kinds, offsets, lits = arrays
    out = Validated(claim, num_vars, clause_offsets, clause_lits)
    out.assignment = assignment
    out.step_kinds = kinds
    out.step_offsets = offsets
    out.step_lits = lits
    return out


def dumps(obj: object, pretty: bool = False) -> str:
    """One compact line in the given key order, or indented with pretty."""
    kwargs: dict[str, Any] = {"indent": 2} if pretty else {"separators": (",", ":")}
    try:
        return json.dumps(obj, **kwargs)
    except ValueError:
        # An error's `actual` can be an integer too long for str().
        with _any_integer_size():
            return json.dumps(obj, **kwargs)
