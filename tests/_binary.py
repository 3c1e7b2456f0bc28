"""Binary DRUP for the tests: an encoder, and a reader that feeds a stream in chunks.

The encoder is written from the format's description (drat-trim's binary
DRAT), independently of the scanners: 'a' or 'd', each literal l as the
unsigned LEB128 number 2|l| + (l < 0), then the number 0.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Sequence
from typing import Any

Step = tuple[int, Sequence[int]]  # (0 add / 1 delete, literals)


def leb128(u: int) -> bytes:
    """The unsigned LEB128 bytes of u >= 0 (shortest form)."""
    out = bytearray()
    while True:
        low, u = u & 0x7F, u >> 7
        if u:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)


def encode(steps: Iterable[Step]) -> bytes:
    """The binary DRUP bytes of the steps."""
    out = bytearray()
    for kind, lits in steps:
        out += b"d" if kind else b"a"
        for lit in lits:
            out += leb128(2 * abs(lit) + (lit < 0))
        out += b"\x00"
    return bytes(out)


def text(steps: Iterable[Step]) -> bytes:
    """The DRUP text of the same steps."""
    return b"".join(
        (b"d " if kind else b"") + b"".join(b"%d " % lit for lit in lits) + b"0\n"
        for kind, lits in steps
    )


def steps_of(kinds: Sequence[int], offsets: Sequence[int], lits: Sequence[int]) -> list[Step]:
    """The steps held by the flat arrays."""
    return [(kinds[i], list(lits[offsets[i] : offsets[i + 1]])) for i in range(len(kinds))]


def cut(data: bytes, points: Iterable[int]) -> list[bytes]:
    """data cut at the given offsets (any ints: taken modulo len + 1, sorted)."""
    marks = sorted({p % (len(data) + 1) for p in points})
    bounds = [0, *marks, len(data)]
    return [data[a:b] for a, b in zip(bounds, bounds[1:])]


def scan_chunks(stream: Any, chunks: Iterable[bytes], with_starts: bool = False) -> tuple[Any, ...]:
    """Feed the chunks to a BinaryDrupStream (the last one final); the whole
    stream's (code, where, token, value, kinds, offsets, lits), the arrays
    joined over the calls (and the steps' start offsets, with ``with_starts``).
    Each start must be the offset of an 'a' or 'd' byte of the stream."""
    chunks = list(chunks) or [b""]
    data = b"".join(chunks)
    kinds, offsets, lits, starts = array("b"), array("i", [0]), array("i"), array("q")
    result: tuple[Any, ...] = ()
    for i, chunk in enumerate(chunks):
        result = stream.scan(chunk, i == len(chunks) - 1)
        code, _, _, _, k, o, ls, st = result
        assert o[0] == 0 and len(o) == len(k) + 1 == len(st) + 1 and o[-1] == len(ls)
        base = len(lits)
        kinds.extend(k)
        offsets.extend(base + x for x in o[1:])
        lits.extend(ls)
        starts.extend(st)
        if code:
            break
    assert all(data[s : s + 1] in (b"a", b"d") for s in starts)
    assert list(starts) == sorted(set(starts))
    out = (*result[:4], kinds, offsets, lits)
    return (*out, starts) if with_starts else out
