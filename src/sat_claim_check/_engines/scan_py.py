"""DIMACS CNF and DRUP text into flat arrays: the pure-Python parser.

The twin of ``scan_c`` (``csrc/dimacs_scan.h``): the same language, the same
arrays, the same first error; ``_engines`` chooses one and ``dimacs`` turns an
error code into a ``DimacsError``.  The language is described in ``csrc/dimacs_scan.h``.

``parse_cnf(data)`` returns ``(code, line, token, value, num_vars,
num_clauses, offsets, lits)`` and ``parse_drup(data)`` returns ``(code, line,
token, value, kinds, offsets, lits)``: ``code`` is ``SCAN_OK``, ``SCAN_STOPPED``
or one of the ``SCAN_ERR_*`` of ``_core.codes``, ``line`` the 1-based line of the
error (or of the stop), ``token`` the offending token (bytes) or None, ``value``
the offending literal or the clause count found.  On an error the arrays are None.

Stop limits (-1: none) keep the arrays within the request limits: the scan
ends with ``SCAN_STOPPED`` at a CNF header with ``V > max_vars`` or
``C > max_clauses`` (arrays empty), at the literal that takes the count past
``max_lits`` (its step closed as it is), and at the DRUP step that takes the
count past ``max_steps``; the arrays hold what was read up to there.
"""

from __future__ import annotations

import io
import re
from array import array
from typing import TYPE_CHECKING, Any, Literal, cast, overload

from .._core.codes import (
    SCAN_ERR_BAD_HEADER as ERR_BAD_HEADER,
)
from .._core.codes import (
    SCAN_ERR_CLAUSE_COUNT as ERR_CLAUSE_COUNT,
)
from .._core.codes import (
    SCAN_ERR_INT_RANGE as ERR_INT_RANGE,
)
from .._core.codes import (
    SCAN_ERR_NO_HEADER as ERR_NO_HEADER,
)
from .._core.codes import (
    SCAN_ERR_SECOND_HEADER as ERR_SECOND_HEADER,
)
from .._core.codes import (
    SCAN_ERR_TOKEN as ERR_TOKEN,
)
from .._core.codes import (
    SCAN_ERR_UNTERMINATED as ERR_UNTERMINATED,
)
from .._core.codes import (
    SCAN_ERR_VAR_RANGE as ERR_VAR_RANGE,
)
from .._core.codes import (
    SCAN_OK as OK,
)
from .._core.codes import (
    SCAN_STOPPED as STOPPED,
)
from .tokens import int32

if TYPE_CHECKING:
    from .._core.types import CnfPart, CnfScan, DrupPart, DrupScan

_INT32_MAX = 2**31 - 1
_INTEGER = re.compile(rb"-?[0-9]+")
_COUNT = re.compile(rb"[0-9]+")


def parse_cnf(
    data: bytes, max_vars: int = -1, max_clauses: int = -1, max_lits: int = -1
) -> CnfScan:
    return _scan(bytes(data), True, max_vars, max_clauses, max_lits)


def parse_drup(data: bytes, max_steps: int = -1, max_lits: int = -1) -> DrupScan:
    return _scan(bytes(data), False, -1, max_steps, max_lits)


def _header(toks: list[bytes]) -> tuple[int, int] | None:
    """(V, C) of a well-formed "p cnf V C" line, else None."""
    if len(toks) != 4 or toks[1] != b"cnf":
        return None
    if not (_COUNT.fullmatch(toks[2]) and _COUNT.fullmatch(toks[3])):
        return None
    v, c = int32(toks[2]), int32(toks[3])
    if v is None or c is None:
        return None
    return v, c


@overload
def _scan(
    data: bytes, cnf: Literal[True], max_vars: int, max_steps: int, max_lits: int
) -> CnfScan: ...
@overload
def _scan(
    data: bytes, cnf: Literal[False], max_vars: int, max_steps: int, max_lits: int
) -> DrupScan: ...
def _scan(data: bytes, cnf: bool, max_vars: int, max_steps: int, max_lits: int) -> Any:
    scan = _Scan(cnf, max_vars, max_steps, max_lits)
    code, line, token, value, kinds, offsets, lits, _ = scan.part(data, True)
    if code not in (OK, STOPPED):  # no arrays for a text with an error
        kinds = offsets = lits = None
    if cnf:
        return code, line, token, value, scan.num_vars, scan.num_clauses, offsets, lits
    return code, line, token, value, kinds, offsets, lits


class DrupTextStream:
    """DRUP text scanned in parts, as it arrives (a proof on a pipe).

    ``scan(data, final)`` scans the next part and returns ``(code, line,
    token, value, kinds, offsets, lits, lines)`` for the steps completed in
    it (a step may span parts: its literals wait inside until its 0),
    ``offsets`` from 0, ``lines`` (array('q')) the 1-based line where each
    step starts.  Each part but the last (``final=False``) must end right after a
    whitespace byte, so that no token is cut.  On an error ``code`` is the
    scanner's code and the arrays hold the steps completed before it; after
    an error or the final part, ``scan`` raises RuntimeError.
    """

    # (count, line, at) of the status lines skipped so far: ``line`` the first
    # one's, ``at`` its offset in the last part scanned (-1: not there).
    status_lines: tuple[int, int, int]
    # The literals of the step still open after the last call.
    open_literals: int

    def __init__(self) -> None:
        self._scan = _Scan(False, -1, -1, -1)
        self._ended = False
        self.status_lines = (0, 0, -1)
        self.open_literals = 0

    def scan(self, data: bytes | bytearray | memoryview, final: bool) -> DrupPart:
        if self._ended:
            raise RuntimeError("this DRUP text stream has ended")
        scan = self._scan
        try:
            result = scan.part(bytes(data), final)
        finally:  # also after a part that ran out of memory
            self.open_literals = len(scan.open_lits)
        self._ended = final or result[0] != OK
        self.status_lines = (scan.n_status, scan.status_line, scan.status_at)
        return cast("DrupPart", result)


class CnfTextStream:
    """DIMACS CNF text scanned in parts, as it is read (a sat claim checked as
    the CNF streams).

    ``CnfTextStream(max_vars, max_clauses, max_lits)`` takes the stop limits
    of ``parse_cnf``, on the whole text.  ``scan(data, final)`` scans the next
    part and returns ``(code, line, token, value, offsets, lits)`` for the
    clauses completed in it (a clause may span parts), ``offsets`` from 0.
    Each part but the last must end right after a whitespace byte, and not
    inside a ``p`` line.  On an error or a stop the arrays hold the clauses
    completed before it (with a stop at ``max_lits``, the last one closed as it
    is); after an error, a stop or the final part, ``scan`` raises RuntimeError.
    ``header`` is (num_vars, num_clauses) of the header, -1 before it.
    """

    # (num_vars, num_clauses) of the header; -1 each before it.
    header: tuple[int, int]

    def __init__(self, max_vars: int = -1, max_clauses: int = -1, max_lits: int = -1) -> None:
        self._scan = _Scan(True, max_vars, max_clauses, max_lits)
        self._ended = False
        self.header = (-1, -1)

    def scan(self, data: bytes | bytearray | memoryview, final: bool) -> CnfPart:
        if self._ended:
            raise RuntimeError("this CNF text stream has ended")
        code, line, token, value, _, offsets, lits, _ = self._scan.part(bytes(data), final)
        self._ended = final or code != OK
        self.header = (self._scan.num_vars, self._scan.num_clauses)
        return code, line, token, value, offsets, lits


class _Scan:
    """One text's scan, whole or in parts; the state between parts is kept
    here as csrc/dimacs_scan.h keeps it in scc_scan_t."""

    def __init__(self, cnf: bool, max_vars: int, max_steps: int, max_lits: int) -> None:
        self.cnf = cnf
        self.max_vars, self.max_steps, self.max_lits = max_vars, max_steps, max_lits
        self.num_vars = self.num_clauses = -1
        self.header_line = 0
        self.bound = -1 if cnf else _INT32_MAX
        self.line = 1  # the current line
        self.at_line_start = True  # no token yet on the current line
        self.in_comment = False  # the current line is a comment
        self.open_line = 0  # line where the open step started; 0: none open
        self.delete = 0  # the open step started with 'd'
        self.open_lits: list[int] = []  # the open step's literals
        self.at_end = False  # CNF: a '%' line ended the formula; the rest is not read
        self.steps = 0  # steps completed, for max_steps
        self.lits_seen = 0  # literals read, for max_lits
        # DRUP: status lines skipped ("s ..."), the first one's line, and its
        # offset in the last part (-1: not there).
        self.n_status = self.status_line = 0
        self.status_at = -1

    def part(self, data: bytes, final: bool) -> tuple[Any, ...]:
        """Scan the next part: (code, line, token, value, kinds, offsets, lits,
        lines) of the steps completed in it (kinds is None for a CNF)."""
        cnf = self.cnf
        kinds = array("b")
        offsets = array("i", [0])
        lits = array("i")
        lines = array("q")
        max_steps, max_lits = self.max_steps, self.max_lits
        arrays = (None if cnf else kinds), offsets, lits, lines

        def close(delete: int, line: int) -> None:
            lits.extend(self.open_lits)
            self.open_lits = []
            offsets.append(len(lits))
            if not cnf:
                kinds.append(delete)
            lines.append(self.open_line or line)
            self.steps += 1

        def fail(
            code: int, line: int, token: bytes | None = None, value: int = 0
        ) -> tuple[Any, ...]:
            return (code, line, token, value, *arrays)

        # Lines one at a time (split() would hold every line of a big text at once).
        n = self.line - 1
        self.status_at = -1
        reader = io.BytesIO(b"" if self.at_end else data)
        for line in reader:
            n += 1
            ends = line[-1:] == b"\n"  # else the line goes on in the next part
            toks = line.split()
            if self.in_comment:  # the rest of a comment line from the last part
                self.in_comment = not ends
                self.at_line_start = ends
                continue
            line_start = self.at_line_start
            self.at_line_start = ends
            if not toks:
                self.at_line_start = ends or line_start
                continue
            t0 = toks[0]
            if line_start and (t0[:1] == b"c" or (t0 == b"s" and not cnf)):
                # A comment, or a solver's status line (noted once).
                if t0 == b"s" and not self.n_status:
                    self.status_line = n
                    self.status_at = reader.tell() - len(line.lstrip())
                self.n_status += t0 == b"s"
                self.in_comment = not ends
                continue
            if line_start and cnf:
                if t0[:1] == b"%":  # SATLIB end marker
                    self.at_end = True
                    break
                if t0 == b"p":
                    if self.num_vars >= 0:
                        return fail(ERR_SECOND_HEADER, n)
                    header = _header(toks)
                    if header is None:
                        return fail(ERR_BAD_HEADER, n, line.strip())
                    self.num_vars, self.num_clauses = header
                    self.header_line = n
                    self.bound = self.num_vars
                    if (0 <= self.max_vars < self.num_vars) or (0 <= max_steps < self.num_clauses):
                        return fail(STOPPED, n)
                    continue
            bound = self.bound

            # The common line: one whole step, "[d] l1 ... lk 0", of short tokens
            # (a long one is left to int32()), within the stop limits.
            if (
                line_start
                and ends
                and not self.open_line
                and toks[-1] == b"0"
                and b"+" not in line
                and b"_" not in line
                and max(map(len, toks)) <= 11
            ):
                is_delete = not cnf and t0 == b"d"
                try:
                    # int() also takes "+1" and "1_0": excluded above.
                    vals = list(map(int, toks[1:-1] if is_delete else toks[:-1]))
                except ValueError:
                    vals = None
                if (
                    vals is not None
                    and bound >= 0
                    and (not vals or (0 not in vals and max(vals) <= bound and min(vals) >= -bound))
                    and (max_lits < 0 or self.lits_seen + len(vals) <= max_lits)
                    and (cnf or max_steps < 0 or self.steps < max_steps)
                ):
                    self.open_lits = vals
                    self.lits_seen += len(vals)
                    close(is_delete, n)
                    continue

            # Anything else, token by token, for the exact first error.
            for tok in toks:
                if not cnf and tok == b"d":
                    if self.open_line:
                        return fail(ERR_TOKEN, n, tok)
                    self.delete = 1
                    self.open_line = n
                    continue
                if not _INTEGER.fullmatch(tok):
                    return fail(ERR_TOKEN, n, tok)
                v = int32(tok)
                if v is None:
                    return fail(ERR_INT_RANGE, n, tok)
                if cnf:
                    if self.num_vars < 0:
                        return fail(ERR_NO_HEADER, n, tok)
                    if not -bound <= v <= bound:
                        return fail(ERR_VAR_RANGE, n, tok, v)
                if v == 0:
                    close(self.delete, n)
                    self.delete = 0
                    self.open_line = 0
                    if not cnf and 0 <= max_steps < self.steps:
                        return fail(STOPPED, n)
                else:
                    if not self.open_line:
                        self.open_line = n
                    self.open_lits.append(v)
                    self.lits_seen += 1
                    if 0 <= max_lits < self.lits_seen:
                        close(self.delete, n)  # the step closed as it is
                        return fail(STOPPED, n)
        if data:
            self.line = n + 1 if data.endswith(b"\n") else n

        if not final:
            return (OK, 0, None, 0, *arrays)
        if self.open_line:
            return fail(ERR_UNTERMINATED, self.open_line)
        if cnf:
            if self.num_vars < 0:
                return fail(ERR_NO_HEADER, 1)
            if self.steps != self.num_clauses:
                return fail(ERR_CLAUSE_COUNT, self.header_line, None, self.steps)
        return (OK, 0, None, 0, *arrays)


# The binary twin is a module of its own; the chooser finds it here.
from .scan_binary_py import BinaryDrupStream as BinaryDrupStream  # noqa: E402
