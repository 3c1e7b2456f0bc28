"""The tests' own LRAT checker (tests/_lrat.py), checked on tiny hand-derived proofs.

Each valid proof below was derived by hand, the unit propagation written out in
its comment; both were also accepted by cake_lpr, a formally verified checker.
The rejections each break one rule, and the message says which.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from _lrat import LratRejected, check_lrat, parse_dimacs, parse_lrat

# {1 2} {-1 2} {1 -2} {-1 -2}: every assignment of two variables is excluded.
CNF2 = [[1, 2], [-1, 2], [1, -2], [-1, -2]]
# 5 (2):  2=F; hint 1 (1 2) gives 1=T; hint 2 (-1 2) is falsified.
# 6 ():   hint 5 (2) gives 2=T; hint 3 (1 -2) gives 1=T; hint 4 (-1 -2) is falsified.
PROOF2 = "5 2 0 1 2 0\n5 d 1 2 0\n6 0 5 3 4 0\n"

DIMACS4 = """\
c the 4-variable example
p cnf 4 8
1 2 -3 0
-1 -2 3 0
2 3 -4 0
-2 -3 4 0
1 3 4 0
-1 -3 -4 0
-1 2 4 0
1 -2 -4 0
"""
CNF4 = [[1, 2, -3], [-1, -2, 3], [2, 3, -4], [-2, -3, 4]]
CNF4 += [[1, 3, 4], [-1, -3, -4], [-1, 2, 4], [1, -2, -4]]
# 9 (-1 2):  1=T 2=F; 7 gives 4=T; 6 gives 3=F; 3 (2 3 -4) is falsified.
# 10 (-1):   1=T; 9 gives 2=T; 2 gives 3=T; 4 gives 4=T; 6 (-1 -3 -4) is falsified.
# 11 (2):    2=F; 10 gives 1=F; 1 gives 3=F; 5 gives 4=T; 3 (2 3 -4) is falsified.
# 12 ():     10 gives 1=F; 11 gives 2=T; 8 gives 4=F; 4 gives 3=F; 5 (1 3 4) is falsified.
PROOF4 = """\
9 -1 2 0 7 6 3 0
10 -1 0 9 2 4 6 0
10 d 9 2 6 7 0
11 2 0 10 1 5 3 0
11 d 1 3 0
12 0 10 11 8 4 5 0
"""


def varint(x: int) -> bytes:
    """The binary LRAT encoding of one number: 2|x| + sign, base 128, low first."""
    u = 2 * abs(x) + (x < 0)
    out = bytearray()
    while u >= 0x80:
        out.append(u & 0x7F | 0x80)
        u >>= 7
    out.append(u)
    return bytes(out)


def to_binary(entries: list[tuple]) -> bytes:
    """Parsed entries, written back as binary LRAT."""
    out = bytearray()
    for entry in entries:
        if entry[0] == "a":
            _, clause_id, lits, hints = entry
            numbers = [clause_id, *lits, 0, *hints, 0]
        else:
            numbers = [*entry[1], 0]
        out += entry[0].encode() + b"".join(varint(x) for x in numbers)
    return bytes(out)


def text_to_binary(text: str) -> bytes:
    return to_binary(parse_lrat(text.encode()))


def rejects(cnf: list[list[int]], proof: str | bytes, match: str) -> None:
    data = proof.encode() if isinstance(proof, str) else proof
    with pytest.raises(LratRejected, match=match):
        check_lrat(cnf, data)


# -- DIMACS ------------------------------------------------------------------------


def test_parse_dimacs_the_4_variable_example() -> None:
    assert parse_dimacs(DIMACS4) == CNF4


def test_parse_dimacs_comments_and_clauses_spanning_lines() -> None:
    text = "c first\nc\np cnf 3 3\n1 -2\n 3 0 -1\ncbetween\n0 2 2 -2 0\n"
    assert parse_dimacs(text) == [[1, -2, 3], [-1], [2, 2, -2]]


@pytest.mark.parametrize(
    "text",
    [
        "1 2 0\n",  # no header
        "p cnf 2 1\n1 2\n",  # the clause is not ended
        "p cnf 2 2\n1 2 0\n",  # too few clauses
        "p cnf 2 1\n1 3 0\n",  # variable out of range
        "p cnf 2 1\np cnf 2 1\n1 0\n",  # two headers
        "p cnf 2 1\n1 x 0\n",
    ],
)
def test_parse_dimacs_rejects(text: str) -> None:
    with pytest.raises(ValueError):
        parse_dimacs(text)


# -- parsing LRAT ------------------------------------------------------------------


def test_parse_text() -> None:
    text = b"5 2 0 1 2 0  \n\n5 d 1 2 0\n \n6 0 5 -3 4 0"
    assert parse_lrat(text) == [("a", 5, [2], [1, 2]), ("d", [1, 2]), ("a", 6, [], [5, -3, 4])]


def test_parse_binary_hand_encoded() -> None:
    # a 5, 2, 0, 1 2 0 | d 1 2 0 | a 6 0 5 -3 4 0 | a 100 -100 0 64 0
    data = b"a\x0a\x04\x00\x02\x04\x00" + b"d\x02\x04\x00" + b"a\x0c\x00\x0a\x07\x08\x00"
    data += b"a\xc8\x01\xc9\x01\x00\x80\x01\x00"
    assert parse_lrat(data) == [
        ("a", 5, [2], [1, 2]),
        ("d", [1, 2]),
        ("a", 6, [], [5, -3, 4]),
        ("a", 100, [-100], [64]),
    ]
    assert to_binary(parse_lrat(data)) == data  # the test encoder agrees


# -- accepted proofs ---------------------------------------------------------------


@pytest.mark.parametrize(("cnf", "proof", "added"), [(CNF2, PROOF2, 2), (CNF4, PROOF4, 4)])
def test_accepts_text_and_binary(cnf: list[list[int]], proof: str, added: int) -> None:
    assert check_lrat(cnf, proof.encode()) == added
    binary = text_to_binary(proof)
    assert binary[:1] == b"a"
    assert check_lrat(cnf, binary) == added


def test_accepts_binary_starting_with_a_deletion() -> None:
    binary = b"d\x08\x00" + text_to_binary(PROOF2.replace("5 d 1 2 0", "5 d 1 0"))
    assert parse_lrat(binary)[0] == ("d", [4])
    rejects(CNF2, binary, "hint 4 is not a live clause")
    assert check_lrat(CNF2, b"d\x00" + text_to_binary(PROOF2)) == 2


def test_accepts_gaps_in_ids_and_no_deletions() -> None:
    assert check_lrat(CNF2, b"50 2 0 1 2 0\n70 0 50 3 4 0\n") == 2


def test_accepts_repeated_literals_and_tautologies_in_the_cnf() -> None:
    # Clause 1 is a tautology (never usable as a hint) yet takes id 1; clause 2's
    # repeated 1 counts once, so it is unit.
    cnf = [[1, -1], [1, 1], [-1]]
    assert check_lrat(cnf, b"4 0 2 3 0\n") == 1
    rejects(cnf, "4 0 1 3 0\n", "hint 1 is not unit")


def test_lines_after_the_empty_clause_are_checked() -> None:
    assert check_lrat(CNF2, (PROOF2 + "7 1 0 6 0\n6 d 3 0\n").encode()) == 3
    rejects(CNF2, PROOF2 + "7 1 0 3 0\n", r"line 4 \(clause 7\): the hints end")
    rejects(CNF2, PROOF2 + "6 d 1 0\n", "line 4: deleting 1, not a live clause")
    rejects(CNF2, PROOF2 + "7 x 0\n", "line 4: bad token 'x'")


# -- rejected proofs: one rule broken each -----------------------------------------


def test_rejects_a_hint_removed() -> None:
    rejects(
        CNF4, PROOF4.replace("9 2 4 6 0", "9 4 6 0"), r"line 2 \(clause 10\): hint 4 is not unit"
    )


def test_rejects_the_conflict_hint_removed() -> None:
    rejects(CNF2, PROOF2.replace("5 3 4 0", "5 3 0"), "clause 6.*the hints end without a conflict")
    rejects(CNF2, "5 2 0 0\n6 0 5 3 4 0\n", "clause 5.*without a conflict")


def test_rejects_a_hint_to_a_deleted_clause() -> None:
    rejects(CNF2, PROOF2.replace("5 d 1 2 0", "5 d 1 2 3 0"), "hint 3 is not a live clause")


def test_rejects_a_hint_to_a_missing_clause() -> None:
    rejects(CNF2, "5 2 0 1 2 0\n6 0 7 3 4 0\n7 1 0 1 0\n", "hint 7 is not a live clause")


def test_rejects_a_satisfied_hint() -> None:
    # With 2=F and then 1=T from hint 1, hint 3 (1 -2) is satisfied.
    rejects(CNF2, "5 2 0 1 3 2 0\n6 0 5 3 4 0\n", "hint 3 is satisfied")
    rejects(CNF2, "5 2 0 1 1 2 0\n6 0 5 3 4 0\n", "hint 1 is satisfied")


def test_rejects_a_hint_after_the_conflict() -> None:
    rejects(CNF2, PROOF2.replace("5 3 4 0", "5 3 4 1 0"), "hints after the conflict at hint 4")


def test_rejects_a_non_increasing_id() -> None:
    rejects(CNF2, "4 2 0 1 2 0\n6 0 4 3 4 0\n", r"clause 4\): id not larger than 4")
    rejects(CNF4, PROOF4.replace("11 2 0", "10 2 0"), "id not larger than 10")
    rejects(CNF4, PROOF4.replace("11 2 0", "9 2 0"), "id not larger than 10")


def test_rejects_no_empty_clause() -> None:
    rejects(CNF2, "5 2 0 1 2 0\n", "no addition of the empty clause")
    rejects(CNF2, "", "no addition of the empty clause")
    rejects(CNF4, PROOF4[: PROOF4.index("12 0")], "no addition of the empty clause")


def test_rejects_every_truncated_binary_proof() -> None:
    binary = text_to_binary(PROOF4)
    assert check_lrat(CNF4, binary) == 4
    for end in range(1, len(binary)):
        rejects(CNF4, binary[:end], "truncated|no addition of the empty clause")
    rejects(CNF2, b"a\x80", r"byte 1: truncated")


@pytest.mark.parametrize(
    ("data", "match"),
    [
        (b"hello\n", "line 1: bad token 'hello'"),
        (b"5 2 0 1 2\n", "line 1: the hints are not ended by 0"),
        (b"5 2\n", "line 1: the literals are not ended by 0"),
        (b"5 2 0 1 2 0 6\n", "line 1: text after the hints' 0"),
        (b"5 d 1 0 2\n", "line 1: text after the deletion's 0"),
        (b"5 d 1 d 0\n", "'d' among the deletion"),
        (b"5 2 0 1 2 0\r\n", r"bad token '0\\r'"),
        (b"5 2 0 +1 2 0\n", "bad token '\\+1'"),
        (b"5 2 0 01 2 0\n", "bad token '01'"),
        (b"0 2 0 1 2 0\n", "positive id"),
        (b" d 1 0\n", "positive id"),  # a first byte "d" would mean binary
        (b"5\t2 0 1 2 0\n", "bad token"),
        (b"5 2 0 1 2 0\n\xff\n", "not ASCII"),
        (b"a\x0a\x04\x00\x02\x04\x00x", "byte 7: unknown byte 0x78"),
        (b"a\x0a\x04\x00\x02\x04\x00\n", "unknown byte 0x0a"),
        (b"a\x0b\x04\x00\x02\x04\x00", "addition id -5 is not positive"),
        (b"a\x0a\x84\x00\x00\x02\x04\x00", "overlong varint"),
        (b"a\x0a\x01\x00\x02\x04\x00", "encodes no number"),
    ],
)
def test_rejects_malformed_input(data: bytes, match: str) -> None:
    with pytest.raises(LratRejected, match=match):
        parse_lrat(data)
    rejects(CNF2, data, match)


def test_rejects_a_negative_hint() -> None:
    rejects(CNF2, "5 2 0 1 -2 0\n6 0 5 3 4 0\n", "negative hint -2")
    binary = text_to_binary("5 2 0 1 -2 0\n")
    rejects(CNF2, binary, r"byte 0 \(clause 5\): negative hint -2")


def test_rejects_a_tautological_addition() -> None:
    rejects(CNF2, "5 2 -2 0 1 2 0\n6 0 5 3 4 0\n", "clause 5.*tautology")
    rejects(CNF2, "5 1 2 -1 0 1 0\n6 0 5 3 4 0\n", "tautology")


def test_rejects_deleting_a_missing_or_deleted_clause() -> None:
    rejects(CNF2, PROOF2.replace("5 d 1 2 0", "5 d 1 1 0"), "deleting 1, not a live clause")
    rejects(CNF2, PROOF2.replace("5 d 1 2 0", "5 d 9 0"), "deleting 9, not a live clause")
    rejects(CNF2, PROOF2 + "6 d 5 0\n7 d 5 0\n", "line 5: deleting 5")


def test_rejects_a_zero_literal_in_the_cnf() -> None:
    rejects([[1, 0], [-1]], "3 0 1 2 0\n", "CNF clause 1")


def test_shares_no_code_with_the_package() -> None:
    source = Path(__file__).parents[1] / "_lrat.py"
    modules = set()
    for node in ast.walk(ast.parse(source.read_text())):
        if isinstance(node, ast.Import):
            modules.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            modules.add((node.module or "").split(".")[0])
    assert modules <= {"__future__", "collections", "re", "typing"}  # the standard library
