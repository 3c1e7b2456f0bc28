"""Request JSON text into flat arrays: the pure-Python twin of ``request_c``.

The compiled reader is a shortcut that may decline any text (None); this twin
declines every text, so that the exact path (``_core.jsontext.loads`` +
``_core.validate.validate``) reads it all.  A pure-Python scanner would be slower
than that path, whose ``json.loads`` is itself compiled.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .._core.types import RequestArrays
    from ..limits import Limits

__all__ = ["read_request"]


def read_request(data: bytes | bytearray, limits: Limits) -> RequestArrays | None:
    """None: decline, always (see ``request_c.read_request`` for what is returned
    when the compiled reader accepts)."""
    return None
