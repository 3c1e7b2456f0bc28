"""DIMACS CNF and DRUP text into flat arrays: the pure-Python parser.

The twin of ``_parse_c`` (``csrc/dimacs_scan.h``): the same language, the same
arrays, the same first error; ``_engine`` chooses one and ``dimacs`` turns an
error code into a ``DimacsError``.  The language is described in ``csrc/dimacs_scan.h``.

``parse_cnf(data)`` returns ``(code, line, token, value, num_vars,
num_clauses, offsets, lits)`` and ``parse_drup(data)`` returns ``(code, line,
token, value, kinds, offsets, lits)``: ``code`` is ``SCAN_OK`` or one of the
``SCAN_ERR_*`` of ``_codes``, ``line`` the 1-based line of the error, ``token``
the offending token (bytes) or None, ``value`` the offending literal or the clause
count found.  On an error the arrays are None.
"""

from __future__ import annotations

import re
from array import array
from typing import TYPE_CHECKING, Literal, overload

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

if TYPE_CHECKING:
    from ._types import CnfScan, DrupScan

_INT32_MAX = 2**31 - 1
_INTEGER = re.compile(rb"-?[0-9]+")
_COUNT = re.compile(rb"[0-9]+")


def parse_cnf(data: bytes) -> CnfScan:
    return _scan(bytes(data), True)


def parse_drup(data: bytes) -> DrupScan:
    return _scan(bytes(data), False)


def _header(toks: list[bytes]) -> tuple[int, int] | None:
    """(V, C) of a well-formed "p cnf V C" line, else None."""
    if len(toks) != 4 or toks[1] != b"cnf":
        return None
    if not (_COUNT.fullmatch(toks[2]) and _COUNT.fullmatch(toks[3])):
        return None
    v, c = int(toks[2]), int(toks[3])
    if v > _INT32_MAX or c > _INT32_MAX:
        return None
    return v, c


@overload
def _scan(data: bytes, cnf: Literal[True]) -> CnfScan: ...
@overload
def _scan(data: bytes, cnf: Literal[False]) -> DrupScan: ...
def _scan(data: bytes, cnf: bool) -> CnfScan | DrupScan:
    kinds = array("b")
    offsets = array("i", [0])
    lits = array("i")
    num_vars = num_clauses = -1
    header_line = 0
    bound = -1 if cnf else _INT32_MAX
    open_line = 0           # line where the open step started; 0: none open
    delete = 0

    def fail(code: int, line: int, token: bytes | None = None,
             value: int = 0) -> CnfScan | DrupScan:
        if cnf:
            return code, line, token, value, num_vars, num_clauses, None, None
        return code, line, token, value, None, None, None

    for n, line in enumerate(data.split(b"\n"), 1):
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
                continue

        # The common line: one whole step, "[d] l1 ... lk 0".
        if not open_line and toks[-1] == b"0" and b"+" not in line and b"_" not in line:
            is_delete = not cnf and t0 == b"d"
            try:
                # int() also takes "+1" and "1_0": excluded above.
                vals = list(map(int, toks[1:-1] if is_delete else toks[:-1]))
            except ValueError:
                vals = None
            if vals is not None and bound >= 0 and (
                    not vals or (0 not in vals and max(vals) <= bound
                                 and min(vals) >= -bound)):
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
            v = int(tok)
            if not -_INT32_MAX <= v <= _INT32_MAX:
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
            else:
                if not open_line:
                    open_line = n
                lits.append(v)

    if open_line:
        return fail(ERR_UNTERMINATED, open_line)
    if cnf:
        if num_vars < 0:
            return fail(ERR_NO_HEADER, 1)
        if len(offsets) - 1 != num_clauses:
            return fail(ERR_CLAUSE_COUNT, header_line, None, len(offsets) - 1)
        return OK, 0, None, 0, num_vars, num_clauses, offsets, lits
    return OK, 0, None, 0, kinds, offsets, lits
