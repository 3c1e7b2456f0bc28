"""SPEC §3: the sat claim, scan first, then the clauses in order."""

import pytest
from _contract import check_result, result, sat


def assignment_error(reason, index, literal, previous=None, clauses=0):
    d = {"kind": "assignment", "assignment_index": index, "literal": literal}
    if previous is not None:
        d["previous_index"] = previous
    return result(False, reason, d, claim="sat", clauses=clauses)


def falsified(k, clause):
    return result(
        False,
        "clause_falsified",
        {"kind": "clause", "clause_index": k, "clause": clause},
        claim="sat",
        clauses=k,
    )


def undetermined(k, clause, unassigned):
    return result(
        False,
        "clause_undetermined",
        {"kind": "clause", "clause_index": k, "clause": clause, "unassigned_literals": unassigned},
        claim="sat",
        clauses=k,
    )


OOR = "assignment_variable_out_of_range"
DUP = "duplicate_assignment_literal"
CONFLICT = "conflicting_assignment"


@pytest.mark.parametrize(
    "num_vars, assignment, expected",
    [
        (2, [0], assignment_error(OOR, 0, 0)),
        (2, [1, 0, 0], assignment_error(OOR, 1, 0)),
        (2, [1, -2, 3], assignment_error(OOR, 2, 3)),
        (2, [-3], assignment_error(OOR, 0, -3)),
        (0, [1], assignment_error(OOR, 0, 1)),
        (2, [1, 2, 1], assignment_error(DUP, 2, 1, 0)),
        (2, [-2, 1, -2, -2], assignment_error(DUP, 2, -2, 0)),
        (2, [1, 2, -2], assignment_error(CONFLICT, 2, -2, 1)),
        (2, [-1, 2, 1], assignment_error(CONFLICT, 2, 1, 0)),
        # the scan goes index by index: the first bad index wins, whatever the kind
        (2, [1, 1, 3], assignment_error(DUP, 1, 1, 0)),
        (2, [1, -1, 1], assignment_error(CONFLICT, 1, -1, 0)),
        (2, [1, 3, 1], assignment_error(OOR, 1, 3)),
        # a literal both repeated and negated: whichever index comes first decides
        (3, [2, -2, 2], assignment_error(CONFLICT, 1, -2, 0)),
        (3, [2, 3, 2, -2], assignment_error(DUP, 2, 2, 0)),
    ],
)
def test_assignment_scan(engine, num_vars, assignment, expected):
    # the clauses would fail too (an empty clause): the scan comes first
    check_result(sat(num_vars, [[]], assignment), engine, expected)


def test_clause_falsified(engine):
    check_result(sat(2, [[1, 2], [-1, -2]], [1, 2]), engine, falsified(1, [-1, -2]))
    check_result(sat(2, [[-1, -1]], [1]), engine, falsified(0, [-1, -1]))


def test_empty_clause_is_falsified(engine):
    check_result(sat(0, [[]], []), engine, falsified(0, []))
    check_result(sat(1, [[1], [], [1]], [1]), engine, falsified(1, []))


def test_clause_undetermined(engine):
    # literals whose variable is unassigned, in clause order, repeats kept, as given
    check_result(
        sat(3, [[1], [-1, 2, -3, 2]], [1]), engine, undetermined(1, [-1, 2, -3, 2], [2, -3, 2])
    )
    check_result(sat(3, [[3, -3, 2]], [-2]), engine, undetermined(0, [3, -3, 2], [3, -3]))
    check_result(sat(3, [[1, 2, 3]], []), engine, undetermined(0, [1, 2, 3], [1, 2, 3]))


def test_first_failing_clause_wins(engine):
    # clause 1 is undetermined, clause 2 falsified: the first one is reported
    check_result(sat(3, [[1], [3, -1], [-1]], [1]), engine, undetermined(1, [3, -1], [3]))
    check_result(sat(3, [[1], [-1], [3]], [1]), engine, falsified(1, [-1]))


def test_partial_assignment_is_enough(engine):
    check_result(sat(3, [[1, 2], [1, -3], [2, 1]], [1]), engine, result(claim="sat", clauses=3))
    check_result(sat(5, [], []), engine, result(claim="sat", clauses=0))
    check_result(sat(0, [], []), engine, result(claim="sat", clauses=0))


def test_tautology_clause_needs_an_assigned_literal(engine):
    # a clause passes only if one of its literals is TRUE (no special case)
    check_result(sat(1, [[1, -1]], []), engine, undetermined(0, [1, -1], [1, -1]))
    check_result(sat(1, [[1, -1]], [-1]), engine, result(claim="sat", clauses=1))


def test_sat_claim_ignores_work_and_returns_zero_steps(engine):
    r = check_result(sat(2, [[1], [-2]], [1, -2]), engine, result(claim="sat", clauses=2), work=0)
    assert r.reason_deletions == ()


@pytest.mark.parametrize("block", [1, 2, 3, 7])
def test_the_clauses_are_read_in_blocks_with_the_same_answer(monkeypatch, block):
    # The clauses become lists a block of literals at a time: every block size
    # gives the answer of the whole at once, the first failing clause included.
    import random

    import sat_claim_check as scc
    from sat_claim_check._core import sat as _sat

    rng = random.Random(block)
    requests = []
    for _ in range(300):
        n = rng.randint(1, 6)
        clauses = [
            [rng.choice((1, -1)) * rng.randint(1, n) for _ in range(rng.randint(0, 4))]
            for _ in range(rng.randint(0, 8))
        ]
        model = [v if rng.random() < 0.5 else -v for v in range(1, n + 1) if rng.random() < 0.9]
        request = {"cnf": {"num_vars": n, "clauses": clauses}, "claim": "sat"}
        requests.append({**request, "assignment": model})
    whole = [scc.check(r) for r in requests]
    monkeypatch.setattr(_sat, "BLOCK", block)
    assert [scc.check(r) for r in requests] == whole
    assert any(r["valid"] for r in whole) and any(not r["valid"] for r in whole)
