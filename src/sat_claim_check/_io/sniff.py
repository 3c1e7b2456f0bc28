"""Is a proof binary DRUP or text?  drat-trim's rule, from the first bytes.

Pure Python and free of the compiled/pure selection, so any front door can
import it.
"""

from __future__ import annotations

__all__ = ["SNIFF_BYTES", "TEXT_BYTES", "looks_binary"]

# How many bytes the rule looks at: the first 2, then 10 more.
SNIFF_BYTES = 12

# The bytes of DRUP text, as drat-trim sees it: '\n', '\r', ' ', '-', '0'-'9',
# 'c' and 'd'.  Any other byte is "binary".
_TEXT_BYTES = frozenset(b"\n\r -0123456789cd")
TEXT_BYTES = _TEXT_BYTES


def looks_binary(head: bytes) -> bool:
    """True when drat-trim would read a proof starting with ``head`` as binary.

    ``head`` is the first ``SNIFF_BYTES`` (12) bytes of the proof (after
    decompression), or the whole proof when it is shorter.  The rule is
    drat-trim's (``drat-trim.c``, ``main``, when neither ``-i`` nor ``-I``
    forces a mode), where a byte is *binary* unless it is one of ``\\n \\r
    space - 0-9 c d``:

    1. a proof of 0 or 1 bytes is binary (drat-trim's end-of-file case;
       an empty proof has no steps either way);
    2. binary if byte 1 or byte 2 is binary;
    3. otherwise, binary if any of bytes 3 to 12 is binary, except that when
       the proof starts with ``"c "`` (a comment), bytes in ``A``-``z``
       (65-122) do not count.

    So every binary proof that starts with an addition (``'a'``) is seen as
    binary at its first byte; one that starts with a deletion (``'d'``)
    needs a byte outside the text set among its first 12 bytes.
    """
    if len(head) < 2:
        return True
    if head[0] not in _TEXT_BYTES or head[1] not in _TEXT_BYTES:
        return True
    comment = head[:2] == b"c "
    return any(
        c not in _TEXT_BYTES and not (comment and 65 <= c <= 122) for c in head[2:SNIFF_BYTES]
    )
