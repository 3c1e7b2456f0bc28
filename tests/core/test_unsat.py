"""SPEC §4: the unsat claim, the §4.3 work counter traced by hand, and the cap.

Each trace below follows SPEC §4.3 line by line: ``w`` is the work counter,
``watches[l]`` the ordered watch list of literal ``l``, ``L`` a clause's
``lits`` as watch maintenance permutes them.
"""

import pytest
from _contract import assert_error, check_result, over_work, result, unsat
from _helpers import agree

import sat_claim_check as scc

STEP = "step"


def not_rup(step, clause, steps=None):
    return result(
        False,
        "lemma_not_rup",
        {"kind": STEP, "step_index": step, "clause": clause},
        claim="unsat",
        steps=step if steps is None else steps,
    )


def not_derived(step_count):
    return result(
        False,
        "empty_clause_not_derived",
        {"kind": "conclusion", "step_count": step_count},
        claim="unsat",
        steps=step_count,
    )


def not_found(step, clause):
    return result(
        False,
        "deleted_clause_not_found",
        {"kind": STEP, "step_index": step, "clause": clause},
        claim="unsat",
        steps=step,
    )


def out_of_range(step, literal, clause):
    return result(
        False,
        "literal_out_of_range",
        {"kind": STEP, "step_index": step, "literal": literal, "clause": clause},
        claim="unsat",
        steps=step,
    )


def valid(steps):
    return result(claim="unsat", steps=steps)


# Each trace: (id, request, expected result, work, reason_deletions,
#              {cap: step_index of the error, None for the initial build})
TRACES = [
    # clauses 0:[1] 1:[-1], both units, nothing watched.
    # build: unit 0: assign(1) w=1; unit 1: -1 FALSE -> conflict=1, stop.
    # step 0 add []: inconsistent -> RUP, no work; live_empty=1.      work 1
    ("example-1", unsat(1, [[1], [-1]], [{"add": []}]), valid(1), 1, (), {0: None}),
    # clause 0:[1,2]; watches[1]=[0] watches[2]=[0]; build: nothing, w=0.
    # step 0 add [1]: assign(-1) w=1; propagate p=-1 f=1 ws=[0]: visit 0 w=2,
    #   L=[2,1], 2 unassigned, no k, keep, assign(2) w=3; p=2 f=-2: empty.
    #   NONE: not RUP.                                                   work 3
    ("example-2", unsat(2, [[1, 2]], [{"add": [1]}]), not_rup(0, [1]), 3, (), {2: 0, 0: 0}),
    # 0:[1,2] 1:[-1,2] 2:[1,-2] 3:[-1,-2]; watches[1]=[0,2] [2]=[0,1]
    # [-1]=[1,3] [-2]=[2,3]; build: w=0.
    # step 0 add [1]: assign(-1) w=1; p=-1 f=1 ws=[0,2]: visit 0 w=2, L=[2,1],
    #   assign(2) w=3; visit 2 w=4, L=[-2,1], -2 FALSE -> conflict: RUP; undo.
    #   attach unit id 4: assign(1) w=5; p=1 f=-1 ws=[1,3]: visit 1 w=6,
    #   L=[2,-1], assign(2) w=7; visit 3 w=8, L=[-2,-1] -> conflict=3.
    # step 1 add []: inconsistent -> RUP, no work.                       work 8
    (
        "two-vars",
        unsat(2, [[1, 2], [-1, 2], [1, -2], [-1, -2]], [{"add": [1]}, {"add": []}]),
        valid(2),
        8,
        (),
        {7: 0, 1: 0},
    ),
    # 0:[1,2,3] 1:[-1] 2:[-2] 3:[-3]; watches[1]=[0] watches[2]=[0].
    # build: assign(-1) w=1, assign(-2) w=2, assign(-3) w=3; p=-1 f=1 ws=[0]:
    #   visit 0 w=4, L=[2,1,3], 2 FALSE; k=2 w=5: 3 FALSE; keep; L[0] FALSE:
    #   conflict=0.
    # step 0 add []: inconsistent -> RUP.                                work 5
    (
        "conflict-in-build",
        unsat(3, [[1, 2, 3], [-1], [-2], [-3]], [{"add": []}]),
        valid(1),
        5,
        (),
        {4: None, 0: None},
    ),
    # 0:[-1] 1:[1,2,3] 2:[1,2,-3]; watches[1]=[1,2] watches[2]=[1,2].
    # build: assign(-1) w=1; p=-1 f=1 ws=[1,2]: visit 1 w=2, L=[2,1,3],
    #   k=2 w=3: 3 not FALSE -> L=[2,3,1], watches[3]=[1]; visit 2 w=4,
    #   L=[2,1,-3], k=2 w=5: -3 -> L=[2,-3,1], watches[-3]=[2]; watches[1]=[].
    # step 0 add [2,1]: assign(-2) w=6; 1 FALSE: skip; p=-2 f=2 ws=[1,2]:
    #   visit 1 w=7, L=[3,2,1], k=2 w=8: 1 FALSE; keep; assign(3) w=9;
    #   visit 2 w=10, L=[-3,2,1], k=2 w=11: 1 FALSE; keep; -3 FALSE: conflict.
    #   RUP; undo to [-1]. attach id 3 [2,1]: position 0 finds 2, position 1
    #   finds nothing (1 FALSE); 2 unassigned: assign(2) w=12; p=2: nothing.
    # step 1 add []: consistent, nothing to assign, propagate: NONE.     work 12
    (
        "replacement-watch",
        unsat(3, [[-1], [1, 2, 3], [1, 2, -3]], [{"add": [2, 1]}, {"add": []}]),
        not_rup(1, []),
        12,
        (),
        {11: 0, 5: 0, 4: None},
    ),
    # 0:[1] 1:[-1,2]; watches[-1]=[1] watches[2]=[1].
    # build: assign(1) w=1; p=1 f=-1 ws=[1]: visit 1 w=2, L=[2,-1],
    #   assign(2) w=3 (reason 1).
    # step 0 delete [1]: unit 0 is the reason of 1 -> rebuild: no units, w=3.
    # step 1 add [2]: assign(-2) w=4; p=-2 f=2 ws=[1]: visit 1 w=5, L=[-1,2],
    #   assign(-1) w=6; p=-1 f=1: nothing. NONE: not RUP.              work 6
    (
        "reason-deleted",
        unsat(2, [[1], [-1, 2]], [{"delete": [1]}, {"add": [2]}]),
        not_rup(1, [2]),
        6,
        (0,),
        {5: 1, 3: 1, 2: None},
    ),
    # 0:[1] 1:[-1,2] 2:[2,-1]; watches[-1]=[1,2] watches[2]=[1,2].
    # build: assign(1) w=1; p=1 f=-1 ws=[1,2]: visit 1 w=2, L=[2,-1],
    #   assign(2) w=3 (reason 1); visit 2 w=4, L=[2,-1], 2 TRUE: keep.
    # step 0 delete [2,-1]: two live clauses have that set; the highest id, 2,
    #   goes. reason[2] is 1: no rebuild, w=4.
    # step 1 delete [-1,2]: clause 1, the reason of 2 -> rebuild: assign(1)
    #   w=5; watches[-1]=[]: nothing.
    # step 2 add [2]: assign(-2) w=6; watches[2]=[]: NONE, not RUP.     work 6
    # (Removing clause 1 at step 0 would rebuild there: work 9, deletions (0, 1).)
    (
        "equal-clauses",
        unsat(2, [[1], [-1, 2], [2, -1]], [{"delete": [2, -1]}, {"delete": [-1, 2]}, {"add": [2]}]),
        not_rup(2, [2]),
        6,
        (1,),
        {5: 2, 4: 1, 3: None},
    ),
    # 0:[1,2] 1:[1,-2]; watches[1]=[0,1] watches[2]=[0] watches[-2]=[1].
    # step 0 add [1,1] (distinct [1]): assign(-1) w=1; p=-1 f=1 ws=[0,1]:
    #   visit 0 w=2, L=[2,1], assign(2) w=3; visit 1 w=4, L=[-2,1] conflict.
    #   RUP; undo. attach unit id 2: assign(1) w=5; watches[-1]: nothing.
    # step 1 delete [1,1,1] (set {1}): unit 2, reason of 1 -> rebuild, w=5.
    # end: no empty clause.                                              work 5
    (
        "duplicate-literals",
        unsat(2, [[1, 2], [1, -2]], [{"add": [1, 1]}, {"delete": [1, 1, 1]}]),
        not_derived(2),
        5,
        (1,),
        {4: 0},
    ),
    # 0:[1,2]. step 0 add [1,2,2]: assign(-1) w=1, assign(-2) w=2; p=-1 f=1
    #   ws=[0]: visit 0 w=3, L=[2,1], 2 FALSE: conflict. RUP; undo. attach
    #   long id 1: two non-FALSE literals, watched, no work.            work 3
    ("long-lemma", unsat(2, [[1, 2]], [{"add": [1, 2, 2]}]), not_derived(1), 3, (), {2: 0}),
    # 0:[1] 1:[-1]; build: assign(1) w=1, conflict=1.
    # step 0 add [1,2]: inconsistent -> RUP; watched on 1 and 2 as given.
    # step 1 delete [-1]: clause 1 is the conflict -> rebuild: assign(1) w=2.
    #   (not a reason deletion: -1 is FALSE)
    # step 2 add [2]: assign(-2) w=3; p=-2 f=2 ws=[2]: visit 2 w=4, L=[1,2],
    #   1 TRUE: keep. NONE: not RUP.                                     work 4
    (
        "conflict-deleted",
        unsat(2, [[1], [-1]], [{"add": [1, 2]}, {"delete": [-1]}, {"add": [2]}]),
        not_rup(2, [2]),
        4,
        (),
        {3: 2, 1: 1, 0: None},
    ),
    # step 0 add []: inconsistent; live_empty=1. step 1 delete []: the last
    # live empty clause -> rebuild: assign(1) w=2, -1 FALSE: conflict.
    # Valid: an add added the empty clause, even though it was deleted. work 2
    (
        "empty-added-then-deleted",
        unsat(1, [[1], [-1]], [{"add": []}, {"delete": []}]),
        valid(2),
        2,
        (),
        {1: 1},
    ),
    # 0:[] 1:[1,2]: build runs anyway (no units): w=0.
    # step 0 delete []: live_empty 0 -> rebuild, w=0.
    # step 1 add [1]: assign(-1) w=1; p=-1 f=1 ws=[1]: visit w=2, L=[2,1],
    #   assign(2) w=3; NONE: not RUP. The CNF's empty clause does not save it.
    (
        "cnf-empty-then-bad-step",
        unsat(2, [[], [1, 2]], [{"delete": []}, {"add": [1]}]),
        not_rup(1, [1]),
        3,
        (),
        {2: 1},
    ),
    # 0:[1] 1:[]: build assigns 1, w=1; no steps; the CNF has the empty clause.
    ("cnf-empty-zero-steps", unsat(1, [[1], []], []), valid(0), 1, (), {0: None}),
]


@pytest.mark.parametrize(
    "request_, expected, work, deletions, caps", [t[1:] for t in TRACES], ids=[t[0] for t in TRACES]
)
def test_hand_traced_work(engine, request_, expected, work, deletions, caps):
    report = check_result(request_, engine, expected, work=work)
    assert report.reason_deletions == deletions


@pytest.mark.parametrize(
    "request_, expected, work, deletions, caps", [t[1:] for t in TRACES], ids=[t[0] for t in TRACES]
)
def test_cap_at_its_exact_boundary(engine, request_, expected, work, deletions, caps):
    # at the cap: the same result; one below: the error of the step that passed it
    check_result(
        request_, engine, expected, work=work, limits=scc.Limits(max_propagation_work=work)
    )
    assert work - 1 in caps
    for cap, step_index in caps.items():
        assert_error(
            request_, over_work(cap, step_index), engine, scc.Limits(max_propagation_work=cap)
        )


def test_cap_wins_over_the_verdict(engine):
    # example 2 would be lemma_not_rup at step 0; with the cap at 2 it is an error
    request = unsat(2, [[1, 2]], [{"add": [1]}])
    assert_error(request, over_work(2, 0), engine, scc.Limits(max_propagation_work=2))


def test_work_cap_exactly_at_the_initial_build(
    engine: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Attaching the clauses propagates the unit before step 0: 1 assigned (1),
    # [-1,2] visited (2), 2 implied (3), [-2,3] visited (4), 3 implied (5).
    request = unsat(3, [[1], [-1, 2], [-2, 3]], [])
    at, below = scc.Limits(max_propagation_work=5), scc.Limits(max_propagation_work=4)
    check_result(request, engine, not_derived(0), work=5, limits=at)
    assert_error(request, over_work(4, None), engine, below)
    for limits in (at, below):  # the Python validation walk too
        agree(request, engine, monkeypatch, limits)


def test_sat_claim_does_no_work(engine):
    request = {
        "cnf": {"num_vars": 2, "clauses": [[1, 2], [-1]]},
        "claim": "sat",
        "assignment": [-1, 2],
    }
    check_result(
        request,
        engine,
        result(claim="sat", clauses=2),
        work=0,
        limits=scc.Limits(max_propagation_work=0),
    )


def test_zero_cap_with_no_work(engine):
    check_result(
        unsat(0, [[]], []), engine, valid(0), work=0, limits=scc.Limits(max_propagation_work=0)
    )
    check_result(
        unsat(3, [[1, 2, 3]], [{"add": [1, -1]}, {"delete": [3, 2, 1]}]),
        engine,
        not_derived(2),
        work=0,
        limits=scc.Limits(max_propagation_work=0),
    )


# -- literals in steps: 0, out of range, the order of checks ----------------------


def test_literal_zero_in_add(engine):
    check_result(unsat(2, [[1, 2]], [{"add": [1, 0]}]), engine, out_of_range(0, 0, [1, 0]))


def test_literal_zero_in_delete(engine):
    check_result(unsat(2, [[1, 2]], [{"delete": [0]}]), engine, not_found(0, [0]))
    # 0 matches nothing, even beside the literals of a live clause
    check_result(unsat(2, [[1, 2]], [{"delete": [1, 2, 0]}]), engine, not_found(0, [1, 2, 0]))


def test_out_of_range_in_add_first_offending(engine):
    check_result(
        unsat(2, [[1, 2]], [{"add": [-1, -3, 4]}]), engine, out_of_range(0, -3, [-1, -3, 4])
    )
    # range check before the tautology rule
    check_result(unsat(2, [[1, 2]], [{"add": [3, -3]}]), engine, out_of_range(0, 3, [3, -3]))
    # and after the empty clause is in: every step is still checked
    check_result(
        unsat(1, [[1], [-1]], [{"add": []}, {"add": [1]}, {"add": [0]}]),
        engine,
        out_of_range(2, 0, [0]),
    )


def test_out_of_range_in_delete_matches_nothing(engine):
    check_result(unsat(2, [[1, 2]], [{"delete": [1, 2, 3]}]), engine, not_found(0, [1, 2, 3]))
    check_result(unsat(2, [[1, 2]], [{"delete": [-10000]}]), engine, not_found(0, [-10000]))


def test_steps_after_the_empty_clause(engine):
    # a later bad step fails the claim
    check_result(
        unsat(1, [[1], [-1]], [{"add": []}, {"add": [1]}, {"delete": [5]}]),
        engine,
        not_found(2, [5]),
        work=1,
    )
    check_result(unsat(0, [[]], [{"delete": [1]}]), engine, not_found(0, [1]), work=0)
    # good steps after it: still valid
    check_result(
        unsat(1, [[1], [-1]], [{"add": []}, {"add": [1]}, {"delete": [1]}, {"delete": [1]}]),
        engine,
        valid(4),
    )


def test_empty_clause_in_the_cnf(engine):
    check_result(unsat(0, [[]], []), engine, valid(0), work=0)
    check_result(unsat(0, [[]], [{"delete": []}]), engine, valid(1), work=0)
    check_result(unsat(0, [[], []], [{"delete": []}, {"delete": []}]), engine, valid(2))
    check_result(unsat(0, [[]], [{"delete": []}, {"delete": []}]), engine, not_found(1, []))
    # a lemma is RUP while the CNF's empty clause is live
    check_result(unsat(3, [[1, 2], []], [{"add": [3]}, {"add": [-3]}]), engine, valid(2), work=0)


def test_no_empty_clause(engine):
    check_result(unsat(0, [], []), engine, not_derived(0), work=0)
    check_result(unsat(2, [[1, 2]], []), engine, not_derived(0), work=0)


# -- tautologies, repeats, deletion by literal set ------------------------------------------


def test_tautological_lemmas(engine):
    check_result(
        unsat(2, [[1, 2]], [{"add": [1, -1]}, {"add": [2, -2, 2]}]), engine, not_derived(2), work=0
    )
    # stored: a delete finds it (as a set), once
    check_result(
        unsat(2, [[1, 2]], [{"add": [1, -1]}, {"delete": [-1, 1]}, {"delete": [1, -1]}]),
        engine,
        not_found(2, [1, -1]),
        work=0,
    )
    # a tautology in the CNF never propagates: [2] is not RUP
    check_result(unsat(2, [[1, -1, 2], [-1]], [{"add": [2]}]), engine, not_rup(0, [2]))


def test_delete_by_literal_set(engine):
    # order and repeats ignored; one clause removed per delete
    request = unsat(
        3,
        [[1, 2, 3], [3, 2, 1]],
        [{"delete": [2, 3, 1, 1]}, {"delete": [3, 1, 2]}, {"delete": [1, 2, 3]}],
    )
    check_result(request, engine, not_found(2, [1, 2, 3]), work=0)
    # a subset or superset is not equal
    check_result(unsat(3, [[1, 2, 3]], [{"delete": [1, 2]}]), engine, not_found(0, [1, 2]))
    check_result(unsat(3, [[1, 2]], [{"delete": [1, 2, 3]}]), engine, not_found(0, [1, 2, 3]))


def test_deleted_clause_no_longer_propagates(engine):
    # [2] is RUP from [1] and [-1,2]; not once [-1,2] is gone
    check_result(unsat(2, [[1], [-1, 2]], [{"add": [2]}]), engine, not_derived(1))
    check_result(
        unsat(2, [[1], [-1, 2]], [{"delete": [2, -1]}, {"add": [2]}]), engine, not_rup(1, [2])
    )
    # a lemma deleted is gone too
    check_result(
        unsat(
            2,
            [[1, 2], [-1, 2], [1, -2], [-1, -2]],
            [{"add": [1]}, {"delete": [1]}, {"add": [-2]}, {"add": []}],
        ),
        engine,
        valid(4),
    )


def test_reason_deletion_makes_a_later_lemma_fail(engine):
    # x1 is a unit; [-1,2] makes 2 TRUE at level 0, so [2] is RUP...
    base = [[1], [-1, 2], [-2, 3]]
    report = check_result(unsat(3, base, [{"add": [3]}]), engine, not_derived(1))
    assert report.reason_deletions == ()
    # ...until step 1 deletes the reason of 2 (clause [-1,2]): [3] fails at step 2
    report = check_result(
        unsat(3, base, [{"add": [1, 3]}, {"delete": [-1, 2]}, {"add": [3]}]),
        engine,
        not_rup(2, [3]),
    )
    assert report.reason_deletions == (1,)


def test_the_readme_example(engine):
    # assume -2 (1); [1,2] visited (2), 1 implied (3); [-1,2] visited (4): conflict.
    # Attach unit [2]: 2 assigned (5); [1,-2] visited (6), 1 implied (7);
    # [-1,-2] visited (8): a level-0 conflict, so the empty clause is RUP at no cost.
    request = {
        "cnf": {"num_vars": 2, "clauses": [[1, 2], [-1, 2], [1, -2], [-1, -2]]},
        "claim": "unsat",
        "proof": [{"add": [2]}, {"add": []}],
    }
    report = scc.run(request, engine=engine)
    assert report.result["valid"] is True
    assert report.result["steps_checked"] == 2
    assert report.work == 8
