"""LRAT lines for the reference engine (docs/semantics.md, "LRAT out"), text or binary.

The compiled engine writes the same bytes from C (``kernel_lrat.pxi``).

Text: ``N l1 .. lk 0 h1 .. hj 0`` for an addition, ``N d K 0`` for a
deletion (N the last number written).  Binary: ``a`` then N, the literals,
0, the hints, 0; ``d`` then K, 0; every number x as ``2*|x| + (x < 0)`` in
little-endian base-128 (the format drat-trim's ``-L`` and cake_lpr read).

Lines go to a buffer; the kernel hands it to the sink (``write(bytes)``)
between steps once it holds ``FLUSH_BYTES``, and takes back the lines of a
step that failed (``truncate``).
"""

from __future__ import annotations

from collections.abc import Sequence

FLUSH_BYTES = 1 << 16  # the buffer is written out between steps past this size


def _varint(x: int, out: bytearray) -> None:
    u = 2 * x if x >= 0 else -2 * x + 1
    while u > 127:
        out.append(128 | (u & 127))
        u >>= 7
    out.append(u)


class LratLines:
    """The LRAT of one check so far, not yet written out."""

    def __init__(self, binary: bool) -> None:
        self.binary = binary
        self.buf = bytearray()

    def addition(self, number: int, lits: Sequence[int], hints: Sequence[int]) -> None:
        self.buf += self.addition_bytes(number, lits, hints)

    def addition_bytes(self, number: int, lits: Sequence[int], hints: Sequence[int]) -> bytes:
        if not self.binary:
            words = [number, *lits, 0, *hints, 0]
            return (" ".join(map(str, words)) + "\n").encode()
        out = bytearray(b"a")
        for x in (number, *lits, 0, *hints, 0):
            _varint(x, out)
        return bytes(out)

    def deletion(self, last: int, number: int) -> None:
        if not self.binary:
            self.buf += f"{last} d {number} 0\n".encode()
            return
        self.buf += b"d"
        _varint(number, self.buf)
        self.buf.append(0)

    def take(self) -> bytes:
        """The buffer's bytes, emptying it."""
        out = bytes(self.buf)
        self.buf.clear()
        return out
