"""An independent LRAT proof checker, for the tests only.

Written from the LRAT format's definition, sharing no code with sat_claim_check,
so that a proof the package writes is judged by a second, simple reading.  It is
strict on purpose: RAT hints, tautological additions, satisfied or non-unit
hints and hints after the conflict are all rejected, because a correct RUP
writer never needs them.

Text LRAT, one entry a line::

    ID l1 ... lk 0 h1 ... hn 0      an addition
    ID d i1 ... in 0                a deletion (ID is not checked)

Binary LRAT: ``a`` ID lits 0 hints 0 and ``d`` ids 0, each number x written as
the varint of 2*|x| + (x < 0), 7 bits a byte, least significant first.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

# A text token: 0 or a signed decimal without leading zeros or a plus sign.
_INT = re.compile(r"0|-?[1-9][0-9]*")
# ("a", clause_id, lits, hints) or ("d", ids).
Entry = tuple[Any, ...]


class LratRejected(Exception):
    """The proof (or its encoding) is not a valid LRAT refutation."""


def parse_dimacs(text: str) -> list[list[int]]:
    """The clauses of a DIMACS CNF, in file order; ValueError if malformed."""
    header: tuple[int, int] | None = None
    clauses: list[list[int]] = []
    current: list[int] = []
    for number, line in enumerate(text.splitlines(), 1):
        words = line.split()
        if not words or words[0].startswith("c"):
            continue
        if words[0] == "p":
            if header is not None or clauses or current:
                raise ValueError(f"line {number}: the header must come once, first")
            if len(words) != 4 or words[1] != "cnf" or not all(w.isdigit() for w in words[2:]):
                raise ValueError(f"line {number}: bad header {line!r}")
            header = (int(words[2]), int(words[3]))
            continue
        if header is None:
            raise ValueError(f"line {number}: clause before the 'p cnf' header")
        for word in words:
            if not _INT.fullmatch(word):
                raise ValueError(f"line {number}: bad token {word!r}")
            lit = int(word)
            if lit == 0:
                clauses.append(current)
                current = []
            elif abs(lit) > header[0]:
                raise ValueError(f"line {number}: literal {lit} exceeds {header[0]} variables")
            else:
                current.append(lit)
    if header is None:
        raise ValueError("no 'p cnf' header")
    if current:
        raise ValueError("the last clause is not ended by 0")
    if len(clauses) != header[1]:
        raise ValueError(f"the header says {header[1]} clauses, the file has {len(clauses)}")
    return clauses


# -- parsing: (where, entry) pairs, `where` naming the line or byte for messages --


def _parse_text(data: bytes) -> Iterator[tuple[str, Entry]]:
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError as error:
        raise LratRejected(f"byte {error.start}: not ASCII text") from None
    # Only "\n" ends a line: a stray "\r" or other control byte is a bad token.
    for number, line in enumerate(text.split("\n"), 1):
        where = f"line {number}"
        words = [word for word in line.split(" ") if word]
        if not words:
            continue
        for word in words:
            if word != "d" and not _INT.fullmatch(word):
                raise LratRejected(f"{where}: bad token {word!r}")
        if words[0] == "d" or int(words[0]) <= 0:
            raise LratRejected(f"{where}: the line must start with a positive id")
        if len(words) > 1 and words[1] == "d":
            ids = _numbers(words[2:], where, "deletion")
            if len(ids) != len(words) - 3:
                raise LratRejected(f"{where}: text after the deletion's 0")
            yield where, ("d", ids)
            continue
        rest = words[1:]
        lits = _numbers(rest, where, "literals")
        hints = _numbers(rest[len(lits) + 1 :], where, "hints")
        if len(lits) + len(hints) + 2 != len(rest):
            raise LratRejected(f"{where}: text after the hints' 0")
        yield where, ("a", int(words[0]), lits, hints)


def _numbers(words: list[str], where: str, what: str) -> list[int]:
    """The ints of `words` up to the first 0, which must be there."""
    out: list[int] = []
    for word in words:
        if word == "d":
            raise LratRejected(f"{where}: 'd' among the {what}")
        if word == "0":
            return out
        out.append(int(word))
    raise LratRejected(f"{where}: the {what} are not ended by 0")


def _parse_binary(data: bytes) -> Iterator[tuple[str, Entry]]:
    pos = 0

    def number() -> int:
        nonlocal pos
        start, value, shift = pos, 0, 0
        while True:
            if pos >= len(data):
                raise LratRejected(f"byte {start}: truncated entry or varint")
            byte = data[pos]
            pos += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                break
        if byte == 0 and pos - start > 1:  # a correct encoder never pads
            raise LratRejected(f"byte {start}: overlong varint")
        if value == 1:  # "minus zero"
            raise LratRejected(f"byte {start}: the varint 1 encodes no number")
        return -(value >> 1) if value & 1 else value >> 1

    def until_zero() -> list[int]:
        out: list[int] = []
        while (x := number()) != 0:
            out.append(x)
        return out

    while pos < len(data):
        where, kind = f"byte {pos}", data[pos]
        pos += 1
        if kind == ord("a"):
            clause_id = number()
            if clause_id <= 0:
                raise LratRejected(f"{where}: addition id {clause_id} is not positive")
            lits = until_zero()
            yield where, ("a", clause_id, lits, until_zero())
        elif kind == ord("d"):
            yield where, ("d", until_zero())
        else:
            raise LratRejected(f"{where}: unknown byte {kind:#04x}, expected 'a' or 'd'")


def _entries(data: bytes) -> Iterator[tuple[str, Entry]]:
    binary = data[:1] in (b"a", b"d")
    return _parse_binary(data) if binary else _parse_text(data)


def parse_lrat(data: bytes) -> list[Entry]:
    """("a", id, lits, hints) and ("d", ids) entries, in order; text or binary."""
    return [entry for _, entry in _entries(data)]


# -- checking ----------------------------------------------------------------------


def _rup(lits: list[int], hints: list[int], clauses: dict[int, list[int]], where: str) -> None:
    """Reject unless unit propagation over `hints`, in order, refutes not-`lits`."""
    true: set[int] = set()  # the literals assigned true
    for lit in lits:
        if lit in true:
            raise LratRejected(f"{where}: tautology, {-lit} and {lit} both in the clause")
        true.add(-lit)
    for index, hint in enumerate(hints):
        if hint < 0:
            raise LratRejected(f"{where}: negative hint {hint} (RAT) is not supported")
        clause = clauses.get(hint)
        if clause is None:
            raise LratRejected(f"{where}: hint {hint} is not a live clause")
        unassigned: set[int] = set()
        for lit in clause:
            if lit in true:
                raise LratRejected(f"{where}: hint {hint} is satisfied")
            if -lit not in true:
                unassigned.add(lit)
        if not unassigned:
            if index != len(hints) - 1:
                raise LratRejected(f"{where}: hints after the conflict at hint {hint}")
            return
        if len(unassigned) > 1:
            raise LratRejected(f"{where}: hint {hint} is not unit")
        true.add(unassigned.pop())
    raise LratRejected(f"{where}: the hints end without a conflict")


def check_lrat(cnf: list[list[int]], data: bytes) -> int:
    """Check the LRAT proof `data` refutes `cnf`; the number of additions checked."""
    clauses: dict[int, list[int]] = {}  # the live clauses by id
    for clause_id, clause in enumerate(cnf, 1):
        if any(not isinstance(lit, int) or lit == 0 for lit in clause):
            raise LratRejected(f"CNF clause {clause_id}: literals must be non-zero ints")
        clauses[clause_id] = list(clause)
    last_id, added, refuted = len(cnf), 0, False
    for where, entry in _entries(data):
        if entry[0] == "d":
            for clause_id in entry[1]:
                if clauses.pop(clause_id, None) is None:
                    raise LratRejected(f"{where}: deleting {clause_id}, not a live clause")
            continue
        _, clause_id, lits, hints = entry
        here = f"{where} (clause {clause_id})"
        if clause_id <= last_id:
            raise LratRejected(f"{here}: id not larger than {last_id}, the largest so far")
        _rup(lits, hints, clauses, here)
        clauses[clause_id], last_id, added = lits, clause_id, added + 1
        refuted = refuted or not lits
    if not refuted:
        raise LratRejected("no addition of the empty clause")
    return added
