"""Ids on batch lines: the envelope ``{"id": ..., "request": {...}}``.

An object whose keys are exactly ``id`` and ``request`` is an envelope (a
request has neither key, so nothing else is one: ``{"id": 1}`` alone, or an
envelope with one more key, is a request with an unknown key and is rejected
as any other).  Its output line is the request's, result or error object,
with ``"id"`` put first.  An id is a JSON string or integer.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, Union

from .._core.values import type_name
from ..errors import InvalidInput

__all__ = ["Ident", "check_id", "line_id", "split_envelope", "with_id"]

Ident = Union[str, int]  # what an id may be
ENVELOPE_KEYS = frozenset(("id", "request"))


def check_id(value: object) -> Ident:
    """``value`` if it is an id (a string, or an integer but not a boolean), else
    InvalidInput (field ``id``)."""
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    raise InvalidInput(
        "id", "/id", f"the id must be a string or an integer, got {type_name(value)}"
    )


def split_envelope(value: Any) -> tuple[Ident | None, Any]:
    """(id, request) of an envelope; (None, value) for anything else."""
    if isinstance(value, dict) and value.keys() == ENVELOPE_KEYS:
        return check_id(value["id"]), value["request"]
    return None, value


def with_id(ident: Ident | None, obj: Mapping[str, object]) -> Mapping[str, object]:
    """``obj`` with ``"id"`` as its first key (``obj`` itself when there is no id)."""
    return obj if ident is None else {"id": ident, **obj}


# -- the id of a line that was never checked -------------------------------------

# Strings (escapes included) and brackets: enough to walk the top level of a JSON
# object without building its values.  A string with no closing quote runs to
# the end of the line: tried again from each quote inside it, it made the walk
# of a line such as '"\\"\\"\\"...' take time quadratic in its length.
_TOKEN = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{}]', re.DOTALL)
_COLON = re.compile(rb"[ \t\r\n]*:[ \t\r\n]*")
_INTEGER = re.compile(rb"-?(?:0|[1-9][0-9]*)(?![0-9.eE])")


def line_id(line: bytes | str, manifest: bool = False) -> Ident | None:
    """The id of an envelope line (of a manifest line with ``manifest``), read
    without parsing the request: for a line whose check never finished (its
    worker died), which may be too big to parse here.  None when the line has
    no readable id, or is not an envelope (or is a refused line's reason, a str).
    """
    if isinstance(line, str):
        return None
    keys: list[bytes] = []
    ident: Ident | None = None
    depth = 0
    for match in _TOKEN.finditer(line):
        token = match.group()
        if token in (b"{", b"["):
            depth += 1
        elif token in (b"}", b"]"):
            depth -= 1
            if depth == 0:
                break
        elif depth == 1:
            colon = _COLON.match(line, match.end())
            if colon is None:
                continue  # a string value, not a key
            keys.append(token)
            if token == b'"id"':
                ident = _id_at(line, colon.end())
    if depth != 0 or len(keys) != len(set(keys)):
        return None
    if not manifest and {json.loads(k) for k in keys} != ENVELOPE_KEYS:
        return None
    return ident


def _id_at(line: bytes, start: int) -> Ident | None:
    """The string or integer that starts at ``start``, else None."""
    match = _INTEGER.match(line, start)
    if match is not None:
        return int(match.group())
    match = _TOKEN.match(line, start)
    if match is None or match.group()[:1] != b'"':
        return None
    try:
        value = json.loads(match.group())
    except ValueError:
        return None
    return value if isinstance(value, str) else None
