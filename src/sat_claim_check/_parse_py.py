"""DIMACS CNF and DRUP text into flat arrays: the pure-Python parser.

The twin of ``_parse_c`` (``csrc/dimacs_scan.h``): the same language, the same
arrays, the same first error; ``_engine`` chooses one and ``dimacs`` turns an
error code into a ``DimacsError``.  The language is described in ``csrc/dimacs_scan.h``.

``parse_cnf(data)`` returns ``(code, line, token, value, num_vars,
num_clauses, offsets, lits)`` and ``parse_drup(data)`` returns ``(code, line,
token, value, kinds, offsets, lits)``: ``code`` is ``SCAN_OK``, ``SCAN_STOPPED``
or one of the ``SCAN_ERR_*`` of ``_codes``, ``line`` the 1-based line of the
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
from typing import TYPE_CHECKING, Any, Literal, overload

from ._codes import (
    SCAN_ERR_BAD_HEADER as ERR_BAD_HEADER,
)
from ._codes import (
    SCAN_ERR_CLAUSE_COUNT as ERR_CLAUSE_COUNT,
)
from ._codes import (
    SCAN_ERR_INT_RANGE as ERR_INT_RANGE,
)
from ._codes import (
    SCAN_ERR_NO_HEADER as ERR_NO_HEADER,
)
from ._codes import (
    SCAN_ERR_SECOND_HEADER as ERR_SECOND_HEADER,
)
from ._codes import (
    SCAN_ERR_TOKEN as ERR_TOKEN,
)
from ._codes import (
    SCAN_ERR_UNTERMINATED as ERR_UNTERMINATED,
)
from ._codes import (
    SCAN_ERR_VAR_RANGE as ERR_VAR_RANGE,
)
from ._codes import (
    SCAN_OK as OK,
)
from ._codes import (
    SCAN_STOPPED as STOPPED,
)
from ._tokens import int32

if TYPE_CHECKING:
    from ._types import CnfScan, DrupScan

_INT32_MAX = 2**31 - 1
_INTEGER = re.compile(rb"-?[0-9]+")
_COUNT = re.compile(rb"[0-9]+")


def parse_cnf(data: bytes, max_vars: int = -1, max_clauses: int = -1,
              max_lits: int = -1) -> CnfScan:
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
def _scan(data: bytes, cnf: Literal[True], max_vars: int, max_steps: int,
          max_lits: int) -> CnfScan: ...
@overload
def _scan(data: bytes, cnf: Literal[False], max_vars: int, max_steps: int,
          max_lits: int) -> DrupScan: ...
def _scan(data: bytes, cnf: bool, max_vars: int, max_steps: int, max_lits: int) -> Any:
    kinds = array("b")
    offsets = array("i", [0])
    lits = array("i")
    num_vars = num_clauses = -1
    header_line = 0
    bound = -1 if cnf else _INT32_MAX
    open_line = 0           # line where the open step started; 0: none open
    delete = 0

    def fail(code: int, line: int, token: bytes | None = None, value: int = 0) -> tuple[Any, ...]:
        if cnf:
            return code, line, token, value, num_vars, num_clauses, None, None
        return code, line, token, value, None, None, None

    def stopped(line: int) -> tuple[Any, ...]:
        if cnf:
            return STOPPED, line, None, 0, num_vars, num_clauses, offsets, lits
        return STOPPED, line, None, 0, kinds, offsets, lits

    # Lines one at a time (split() would hold every line of a big text at once).
    for n, line in enumerate(io.BytesIO(data), 1):
        toks = line.split()
        if not toks:
            continue
        t0 = toks[0]
        if t0[:1] == b"c":                  # comment line
            continue
        if cnf:
            if t0[:1] == b"%":              # SATLIB end marker
                break
            if t0 == b"p":
                if num_vars >= 0:
                    return fail(ERR_SECOND_HEADER, n)
                header = _header(toks)
                if header is None:
                    return fail(ERR_BAD_HEADER, n, line.strip())
                num_vars, num_clauses = header
                header_line = n
                bound = num_vars
                if (0 <= max_vars < num_vars) or (0 <= max_steps < num_clauses):
                    return stopped(n)
                continue

        # The common line: one whole step, "[d] l1 ... lk 0", of short tokens
        # (a long one is left to int32()), within the stop limits.
        if (not open_line and toks[-1] == b"0" and b"+" not in line and b"_" not in line
                and max(map(len, toks)) <= 11):
            is_delete = not cnf and t0 == b"d"
            try:
                # int() also takes "+1" and "1_0": excluded above.
                vals = list(map(int, toks[1:-1] if is_delete else toks[:-1]))
            except ValueError:
                vals = None
            if vals is not None and bound >= 0 and (
                    not vals or (0 not in vals and max(vals) <= bound
                                 and min(vals) >= -bound)) and (
                    max_lits < 0 or len(lits) + len(vals) <= max_lits) and (
                    cnf or max_steps < 0 or len(offsets) <= max_steps):
                lits.extend(vals)
                offsets.append(len(lits))
                if not cnf:
                    kinds.append(is_delete)
                continue

        # Anything else, token by token, for the exact first error.
        for tok in toks:
            if not cnf and tok == b"d":
                if open_line:
                    return fail(ERR_TOKEN, n, tok)
                delete = 1
                open_line = n
                continue
            if not _INTEGER.fullmatch(tok):
                return fail(ERR_TOKEN, n, tok)
            v = int32(tok)
            if v is None:
                return fail(ERR_INT_RANGE, n, tok)
            if cnf:
                if num_vars < 0:
                    return fail(ERR_NO_HEADER, n, tok)
                if not -bound <= v <= bound:
                    return fail(ERR_VAR_RANGE, n, tok, v)
            if v == 0:
                offsets.append(len(lits))
                if not cnf:
                    kinds.append(delete)
                delete = 0
                open_line = 0
                if not cnf and 0 <= max_steps < len(offsets) - 1:
                    return stopped(n)
            else:
                if not open_line:
                    open_line = n
                lits.append(v)
                if 0 <= max_lits < len(lits):
                    offsets.append(len(lits))       # the step closed as it is
                    if not cnf:
                        kinds.append(delete)
                    return stopped(n)

    if open_line:
        return fail(ERR_UNTERMINATED, open_line)
    if cnf:
        if num_vars < 0:
            return fail(ERR_NO_HEADER, 1)
        if len(offsets) - 1 != num_clauses:
            return fail(ERR_CLAUSE_COUNT, header_line, None, len(offsets) - 1)
        return OK, 0, None, 0, num_vars, num_clauses, offsets, lits
    return OK, 0, None, 0, kinds, offsets, lits
