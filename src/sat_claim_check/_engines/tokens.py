"""Integer tokens of DIMACS text, read the way both scanners read them."""

from __future__ import annotations

__all__ = ["int32"]

_INT32_MAX = 2**31 - 1


def int32(token: bytes) -> int | None:
    """The value of an integer token (``-?[0-9]+``, leading zeros allowed), or
    None beyond 32 bits; a long token is never given to int() (Python refuses
    long digit strings, and converts them in quadratic time)."""
    digits = token.lstrip(b"-").lstrip(b"0")
    if len(digits) > 10:
        return None
    value = int(digits) if digits else 0
    if value > _INT32_MAX:
        return None
    return -value if token[:1] == b"-" else value
