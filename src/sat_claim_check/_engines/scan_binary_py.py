"""Binary DRUP bytes into flat arrays: the pure-Python twin of
``scan_c.BinaryDrupStream`` (``csrc/binary_scan.h`` describes the encoding
and its errors); ``scan_py`` holds the text scanners and names this one too.
"""

from __future__ import annotations

import re
from array import array
from typing import TYPE_CHECKING

from .._core.codes import SCAN_ERR_INT_RANGE as ERR_INT_RANGE
from .._core.codes import SCAN_ERR_TOKEN as ERR_TOKEN
from .._core.codes import SCAN_ERR_UNTERMINATED as ERR_UNTERMINATED
from .._core.codes import SCAN_OK as OK

if TYPE_CHECKING:
    from .._core.types import DrupPart

_MAX_INT_BYTES = 5  # 35 bits: room for any u <= 2^32 - 1
_MAX_U = 2**32 - 1  # u = 2|l| + (l < 0) with |l| <= 2^31 - 1


class BinaryDrupStream:
    """Binary DRUP bytes, in chunks cut anywhere, into the arrays of ``parse_drup``.

    The twin of ``scan_c.BinaryDrupStream``; the encoding and its errors are
    described in ``csrc/binary_scan.h``.  ``scan(data, final)`` takes the next
    bytes of the stream (any buffer) and returns ``(code, where, token, value,
    kinds, offsets, lits, starts)`` for the steps completed during this call
    (``offsets`` starts at 0 each call; ``starts``, array('q'), the byte offset
    of each step's 'a' or 'd').  ``code`` is ``SCAN_OK``,
    ``SCAN_ERR_TOKEN`` (a byte other than 'a'/'d' where a step starts, 'c'
    and 's' excepted: they open a line of text, skipped; or a literal encoded
    as u = 1, "-0"), ``SCAN_ERR_INT_RANGE`` (an integer of more than 5 bytes
    or above 2^32 - 1) or ``SCAN_ERR_UNTERMINATED`` (``final`` and a step
    still open).  ``where`` is the 0-based byte offset in the whole
    stream of the offending byte, integer or step (after ``SCAN_OK``: the
    number of bytes read so far); ``token`` the offending bytes or None;
    ``value`` the offending integer u, or 0.  On an error the arrays hold the
    steps completed before it in this call.  After an error or a ``final``
    call, ``scan`` raises RuntimeError.  ``open_literals`` is the number of
    literals of the step still open (kept for the next call).
    """

    open_literals: int
    # (count, where, at) of the status and the comment lines skipped so far:
    # ``where`` the first one's stream offset, ``at`` its offset in the last
    # call's data (-1: not there).
    status_lines: tuple[int, int, int]
    comment_lines: tuple[int, int, int]

    def __init__(self) -> None:
        self.open_literals = 0
        self._pending = array("i")  # the open step's literals
        self._pos = 0  # stream offset of the next byte
        self._open = False
        self._kind = 0
        self._step_start = 0
        self._int = bytearray()  # the partial integer's bytes
        self._int_start = 0
        self._ended = False
        self._in_text = False  # inside a comment or status line
        # (count, first stream offset, offset in the last call's data or -1)
        self._text = {0x63: [0, 0, -1], 0x73: [0, 0, -1]}
        self.status_lines = self.comment_lines = (0, 0, -1)

    def scan(self, data: bytes | bytearray | memoryview, final: bool) -> DrupPart:
        if self._ended:
            raise RuntimeError("the binary proof stream has ended (an error or the final chunk)")
        kinds = array("b")
        offsets = array("i", [0])
        starts = array("q")
        lits = self._pending
        base = self._pos
        is_open, kind, part = self._open, self._kind, self._int
        code, where, token, value = OK, 0, None, 0
        buf = bytes(data)
        i, n = 0, len(buf)
        for seen in self._text.values():
            seen[2] = -1
        if self._in_text:  # a line of text goes on
            nl = buf.find(b"\n")
            self._in_text = nl < 0
            i = n if nl < 0 else nl + 1
        while i < n:
            if not is_open:
                # A run of whole steps of short literals, at once (the loop
                # below reads the same bytes the same way, one at a time).
                run = _SHORT_STEPS.match(buf, i)
                if run:
                    at = base + i
                    for step in run.group().split(b"\x00")[:-1]:
                        lits.extend(
                            [
                                _SHORT_LITS.get(t) or _short_literal(t)
                                for t in _INTEGERS.findall(step, 1)
                            ]
                        )
                        offsets.append(len(lits))
                        kinds.append(step[0] == 0x64)
                        starts.append(at)
                        at += len(step) + 1
                    i = run.end()
                    continue
            b = buf[i]
            i += 1
            if not is_open:
                if b == 0x63 or b == 0x73:  # 'c', 's': a line of text between steps
                    seen = self._text[b]
                    if not seen[0]:
                        seen[1:] = [base + i - 1, i - 1]
                    seen[0] += 1
                    nl = buf.find(b"\n", i)
                    self._in_text = nl < 0
                    i = n if nl < 0 else nl + 1
                    continue
                if b != 0x61 and b != 0x64:  # 'a', 'd'
                    code, where, token = ERR_TOKEN, base + i - 1, bytes([b])
                    break
                is_open, kind = True, int(b == 0x64)
                self._step_start = base + i - 1
                continue
            if not part:
                self._int_start = base + i - 1
            part.append(b)
            if b & 0x80:
                if len(part) == _MAX_INT_BYTES:
                    code, where, token = ERR_INT_RANGE, self._int_start, bytes(part)
                    value = _leb128(part)
                    break
                continue
            u = _leb128(part)
            if u > _MAX_U:
                code, where, token, value = ERR_INT_RANGE, self._int_start, bytes(part), u
                break
            if u == 1:
                code, where, token, value = ERR_TOKEN, self._int_start, bytes(part), 1
                break
            part.clear()
            if u == 0:  # the end of the step
                offsets.append(len(lits))
                kinds.append(kind)
                starts.append(self._step_start)
                is_open = False
            else:
                lits.append(-(u >> 1) if u & 1 else u >> 1)
        else:
            self._pos = base + len(buf)
            if final and is_open:
                code, where = ERR_UNTERMINATED, self._step_start
            else:
                where = self._pos
        if code != OK or final:
            self._ended = True
        self._open, self._kind = is_open, kind
        done = offsets[-1]
        if done:
            self._pending = lits[done:]
            del lits[done:]
        else:  # no step closed: the open one is kept as it is, not copied (as binary_scan.h)
            self._pending, lits = lits, array("i")
        self.open_literals = len(self._pending)
        count, first, at = self._text[0x73]
        self.status_lines = (count, first, at)
        count, first, at = self._text[0x63]
        self.comment_lines = (count, first, at)
        return code, where, token, value, kinds, offsets, lits, starts


# Whole steps whose integers have 1 to 4 bytes, the last not zero (no
# redundant high group), and are neither 0 nor 1: no error is possible in them.
_SHORT_STEPS = re.compile(rb"(?:[ad](?:[\x02-\x7f]|[\x80-\xff]{1,3}[\x01-\x7f])*\x00)+")
_INTEGERS = re.compile(rb"[\x80-\xff]*[\x00-\x7f]")
_SHORT_LITS: dict[bytes, int] = {}  # the literal of each integer's bytes, as met


def _short_literal(integer: bytes) -> int:
    u = _leb128(integer)
    lit = -(u >> 1) if u & 1 else u >> 1
    if len(_SHORT_LITS) < 1 << 16:
        _SHORT_LITS[integer] = lit
    return lit


def _leb128(part: bytes | bytearray) -> int:
    """The unsigned LEB128 value of the bytes (7 bits each, lowest first)."""
    return sum((b & 0x7F) << (7 * k) for k, b in enumerate(part))
