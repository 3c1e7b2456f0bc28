"""Checker.add()/delete() through the kernel's feed_step: exactly the exact way.

add() and delete() hand the kernel's ``feed_step`` the common step (a plain
list or tuple of plain ints within 1..num_vars, with room left under
max_proof_steps and max_proof_literals), which checks it in one call; it
declines any other step, changing nothing, and the Checker then validates the
step (``one_step``) and feeds it as it always did.

The oracle is that exact way itself: a Checker whose kernel declines every
step (``Spy(decline=True)``) must answer every call, and then finish(),
exactly as the fast one does (errors, results, work, reason and ignored
deletions), on both engines and both readings of deletions.  The spy also
records which steps the fast path took, so that a value the fast path must
decline cannot pass by being taken, nor a plain one by being declined; and for
well-formed proofs fed in random mixes of add()/delete() calls and feed()
chunks, the answer is run()'s Report.
"""

from __future__ import annotations

import importlib
import random
from array import array
from collections.abc import Callable
from typing import Any

import proofgen
import pytest

import sat_claim_check as scc
from sat_claim_check._core import codes as _codes
from sat_claim_check._core import validate as _validate

ENGINES = [pytest.param("compiled", marks=pytest.mark.compiled), "reference"]
DELETIONS = ["strict", "lenient"]

# Unsat: [2] then [] is a proof.  Variable 3 is in no clause; max_vars is 5,
# so 4 and 5 are in the validator's range but out of the engine's.
CNF = {"num_vars": 3, "clauses": [[1, 2], [-1, 2], [1, -2], [-1, -2], [3]]}
LIMITS = scc.Limits(max_vars=5)


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    if request.param == "compiled":
        importlib.import_module("sat_claim_check._engines.kernel_c")
    return str(request.param)


@pytest.fixture(params=DELETIONS)
def deletions(request: pytest.FixtureRequest) -> str:
    return str(request.param)


class Spy:
    """A kernel whose feed_step records whether it took each step; with
    ``decline``, it declines them all (the Checker then takes the exact way)."""

    def __init__(self, kernel: Any, decline: bool) -> None:
        self.kernel = kernel
        self.decline = decline
        self.taken: list[bool] = []

    def feed_step(self, kind: int, lits: Any, steps_left: int, literals_left: int) -> Any:
        status = (
            None if self.decline else self.kernel.feed_step(kind, lits, steps_left, literals_left)
        )
        self.taken.append(status is not None)
        return status

    def __getattr__(self, name: str) -> Any:
        return getattr(self.kernel, name)


def act(fn: Callable[[], Any]) -> tuple[Any, ...]:
    """What a caller observes of one call: its return value, or the error."""
    try:
        out = fn()
    except scc.CheckError as err:
        return ("error", type(err).__name__, err.to_dict())
    except RuntimeError as err:
        return ("runtime", str(err))
    if isinstance(out, scc.Report):
        return (
            "report",
            out.result,
            out.work,
            out.engine,
            out.reason_deletions,
            out.ignored_deletions,
        )
    return ("returned", out)


Call = tuple[str, Any]


def play(
    engine: str,
    deletions: str,
    limits: scc.Limits,
    calls: list[Call],
    decline: bool,
    cnf: Any = CNF,
) -> tuple[list[tuple[Any, ...]], list[bool]]:
    """Each call's outcome (then the checker's steps, failed and work), and which
    steps feed_step took."""
    checker = scc.Checker(cnf, engine=engine, limits=limits, deletions=deletions)
    spy = Spy(checker._kernel, decline)
    checker._kernel = spy
    out = []
    for name, value in calls:
        if name == "finish":
            out.append(act(checker.finish))
        else:
            out.append(act(lambda name=name, value=value: getattr(checker, name)(value)))
        state = act(lambda: checker.work) if checker._closed is None else ("closed",)
        out.append((checker.steps, checker.failed, state))
    return out, spy.taken


def same_as_exact(
    engine: str, deletions: str, limits: scc.Limits, calls: list[Call]
) -> tuple[list[tuple[Any, ...]], list[bool]]:
    """The fast Checker's outcomes, asserted equal to the exact way's."""
    fast, taken = play(engine, deletions, limits, calls, decline=False)
    exact, _ = play(engine, deletions, limits, calls, decline=True)
    assert fast == exact
    return fast, taken


class IntSub(int):
    pass


class ListSub(list):
    pass


class TupleSub(tuple):
    pass


# Steps the fast path must decline: not plain, or a literal out of 1..num_vars.
DECLINED = [
    [True],
    [1, False],
    (False,),
    [3.0],
    [-2.0],
    [1, 2.0],
    [1.5],
    [IntSub(1)],
    [1, IntSub(-2)],
    [2**70],
    [-(2**70)],
    [2**63],
    [2**31],
    [-(2**31)],
    [0],
    [1, 0],
    [4],
    [-4],
    [5],
    [-5],
    [6],
    [-6],
    [1, 2**40],
    ListSub([1]),
    TupleSub((1,)),
    None,
    "ab",
    b"\x01",
    range(1, 2),
    array("i", [1]),
    {1: 1},
    1,
    [[1]],
    [None],
    ["1"],
]
# Steps it takes: plain lists and tuples of plain ints in range.
TAKEN = [[1, 2], (1, 2), [], (), [-3, 3], [3, 3, 3], [-1], (2, -1), [1, -1, 2, -2, 3]]


@pytest.mark.parametrize("key", ["add", "delete"])
@pytest.mark.parametrize("value", DECLINED, ids=repr)
def test_declined_steps_give_the_exact_answer(
    engine: str, deletions: str, key: str, value: Any
) -> None:
    calls = [("add", [2]), (key, value), ("add", []), ("finish", None)]
    _, taken = same_as_exact(engine, deletions, LIMITS, calls)
    # The first add was taken, the odd step declined; then the add of [] was
    # taken unless the odd step raised or failed.
    assert taken[:2] == [True, False]
    assert all(taken[2:])


@pytest.mark.parametrize("key", ["add", "delete"])
@pytest.mark.parametrize("value", TAKEN, ids=repr)
def test_plain_steps_take_the_fast_path(engine: str, deletions: str, key: str, value: Any) -> None:
    calls = [("add", [2]), (key, value), ("delete", [3]), ("add", []), ("finish", None)]
    _, taken = same_as_exact(engine, deletions, LIMITS, calls)
    assert taken[:2] == [True, True]


def test_a_declined_step_checks_as_its_value(engine: str) -> None:
    # 3.0 counts as 3 and True is an error: the exact way's answers, pinned.
    out, _ = same_as_exact(engine, "strict", LIMITS, [("add", [3.0]), ("add", [True])])
    assert out[0] == ("returned", None) and out[1][0] == 1
    assert out[2][0] == "error" and out[2][2]["path"] == "/proof/1/add/0"
    out, _ = same_as_exact(engine, "strict", LIMITS, [("add", [4]), ("finish", None)])
    assert out[2][1]["reason"] == "literal_out_of_range"


@pytest.mark.parametrize("max_steps", [0, 1, 2, 5])
def test_the_step_limit_at_its_boundary(engine: str, deletions: str, max_steps: int) -> None:
    limits = scc.Limits(max_vars=5, max_proof_steps=max_steps)
    calls: list[Call] = [("add", [1, -1])] * max_steps + [("add", [2]), ("finish", None)]
    out, taken = same_as_exact(engine, deletions, limits, calls)
    assert taken == [True] * max_steps + [False]
    assert out[2 * max_steps][:2] == ("error", "LimitExceeded")
    assert out[2 * max_steps][2]["limit"] == "max_proof_steps"


@pytest.mark.parametrize("sizes", [[2, 2], [4], [1, 3, 0], [0], [3, 1, 0, 0]])
def test_the_literal_limit_at_its_boundary(engine: str, deletions: str, sizes: list[int]) -> None:
    # The steps reach the limit exactly (empty steps too), the next literal is
    # over.  After [2] every lemma is RUP (level 0 is inconsistent).
    limits = scc.Limits(max_vars=5, max_proof_literals=1 + sum(sizes))
    lemmas = [[2]] + [[1, -1] * (n // 2) + [1] * (n % 2) for n in sizes]
    calls: list[Call] = [("add", lemma) for lemma in lemmas]
    calls += [("delete", [1]), ("finish", None)]
    out, taken = same_as_exact(engine, deletions, limits, calls)
    assert taken == [True] * len(lemmas) + [False]
    assert out[2 * len(lemmas)][:2] == ("error", "LimitExceeded")
    assert out[2 * len(lemmas)][2]["limit"] == "max_proof_literals"


@pytest.mark.parametrize("value", [[2], [True], None, [9]], ids=repr)
def test_after_finish(engine: str, deletions: str, value: Any) -> None:
    calls = [("add", [2]), ("finish", None), ("add", value), ("delete", value), ("add", [])]
    out, taken = same_as_exact(engine, deletions, LIMITS, calls)
    assert taken == [True]
    assert all(o[0] == "runtime" and "finish() was called" in o[1] for o in out[4::2])


@pytest.mark.parametrize("value", [[2], [True], None, [9], [0]], ids=repr)
def test_after_a_failing_step(engine: str, deletions: str, value: Any) -> None:
    # [-3] is not RUP: the verdict is fixed, later steps are ignored (not even
    # validated), finish() gives the failure.
    calls = [("add", [-3]), ("add", value), ("delete", value), ("finish", None)]
    out, taken = same_as_exact(engine, deletions, LIMITS, calls)
    assert taken == [True]
    assert out[2] == out[4] == ("returned", None)
    assert out[6][1]["reason"] == "lemma_not_rup"
    assert out[6][1]["first_discrepancy"]["step_index"] == 0


@pytest.mark.parametrize("value", [[2], [True], [9]], ids=repr)
def test_after_an_error(engine: str, deletions: str, value: Any) -> None:
    calls = [("add", [2]), ("add", [7]), ("add", value), ("finish", None)]
    out, taken = same_as_exact(engine, deletions, LIMITS, calls)
    assert taken == [True, False]
    assert out[2][:2] == ("error", "InvalidInput")
    assert out[4] == out[6] == ("runtime", "this Checker has ended (step 1 raised InvalidInput)")


def test_lenient_deletions_ignored_on_the_fast_path(engine: str) -> None:
    # Step 1 would remove the unit [3] and step 2 matches nothing: both ignored.
    calls = [("add", [2]), ("delete", [3]), ("delete", [1, 3]), ("add", []), ("finish", None)]
    out, taken = same_as_exact(engine, "lenient", LIMITS, calls)
    assert taken == [True] * 4
    assert out[8][0] == "report" and out[8][5] == (1, 2)


def test_the_work_cap_on_the_fast_path(engine: str, deletions: str) -> None:
    request = {"cnf": CNF, "claim": "unsat", "proof": [{"add": [2]}, {"add": []}]}
    work = scc.run(request, engine=engine).work
    for cap in range(work):
        limits = scc.Limits(max_vars=5, max_propagation_work=cap)
        try:
            scc.Checker(CNF, engine=engine, limits=limits)
        except scc.LimitExceeded:
            continue  # the initial build passed it
        calls = [("add", [2]), ("add", []), ("finish", None)]
        out, _ = same_as_exact(engine, deletions, limits, calls)
        assert any(o[:2] == ("error", "LimitExceeded") for o in out[0:4:2]), cap


# -- random proofs, random mixes of calls -------------------------------------------------


def report_of(
    request: dict[str, Any], engine: str, deletions: str, limits: scc.Limits
) -> tuple[Any, ...]:
    return act(lambda: scc.run(request, engine=engine, limits=limits, deletions=deletions))


def mixed(
    request: dict[str, Any], engine: str, deletions: str, limits: scc.Limits, rng: random.Random
) -> tuple[Any, ...]:
    """The Checker's Report for the request's proof fed in a random mix of
    add()/delete() calls (lists or tuples) and feed() chunks."""

    def go() -> scc.Report:
        checker = scc.Checker(request["cnf"], engine=engine, limits=limits, deletions=deletions)
        proof = request["proof"]
        a = 0
        while a < len(proof):
            if rng.random() < 0.7:
                ((key, lits),) = proof[a].items()
                getattr(checker, key)(tuple(lits) if rng.random() < 0.3 else lits)
                a += 1
            else:
                b = min(len(proof), a + rng.choice((1, 2, 5)))
                checker.feed(proof[a:b])
                a = b
        return checker.finish()

    return act(go)


@pytest.mark.parametrize("seed", range(4))
def test_random_mixes_give_runs_report(engine: str, deletions: str, seed: int) -> None:
    rng = random.Random(f"fast-path-{seed}")
    checked = 0
    while checked < 40:
        request = proofgen.case(rng)
        try:
            _validate.validate(request, scc.Limits.unlimited())
        except scc.CheckError:
            continue
        checked += 1
        limits = scc.Limits.unlimited()
        want = report_of(request, engine, deletions, limits)
        assert mixed(request, engine, deletions, limits, rng) == want, request
        if want[0] == "report" and want[2] > 0:  # a cap inside the check
            capped = scc.Limits(
                **{**limits.as_dict(), "max_propagation_work": rng.randrange(want[2])}
            )
            assert mixed(request, engine, deletions, capped, rng) == report_of(
                request, engine, deletions, capped
            ), request


# -- the kernel's feed_step itself --------------------------------------------------------


def kernel(engine: str, lenient: bool = False) -> Any:
    module = importlib.import_module(
        "sat_claim_check._engines.kernel_c"
        if engine == "compiled"
        else "sat_claim_check._engines.kernel_py"
    )
    return module.Kernel(
        3,
        array("i", [0, 2, 4, 6, 8, 9]),
        array("i", [1, 2, -1, 2, 1, -2, -1, -2, 3]),
        None,
        None,
        None,
        10**9,
        lenient,
    )


@pytest.mark.parametrize("lenient", [False, True])
@pytest.mark.parametrize("value", DECLINED, ids=repr)
def test_a_declined_step_changes_nothing(engine: str, lenient: bool, value: Any) -> None:
    def rest(k: Any) -> tuple[Any, ...]:
        statuses = [
            k.feed_step(_codes.STEP_DELETE, [3], 9, 9),
            k.feed_step(_codes.STEP_ADD, [2], 9, 9),
            k.feed_step(_codes.STEP_ADD, [], 9, 9),
        ]
        return (statuses, k.finish(), k.reason_deletions, k.ignored_deletions)

    plain, odd = kernel(engine, lenient), kernel(engine, lenient)
    plain.start()
    odd.start()
    for kind in (_codes.STEP_ADD, _codes.STEP_DELETE):
        assert odd.feed_step(kind, value, 9, 9) is None
    assert rest(odd) == rest(plain)


@pytest.mark.parametrize(
    "steps_left, literals_left, taken",
    [
        (1, 2, True),
        (0, 2, False),
        (-5, 2, False),
        (1, 1, False),
        (1, -1, False),
        (2**80, 2**80, True),
        (1, 2**80, True),
        (-(2**80), 2, False),
    ],
)
def test_the_rooms(engine: str, steps_left: int, literals_left: int, taken: bool) -> None:
    k = kernel(engine)
    k.start()
    status = k.feed_step(_codes.STEP_ADD, [2, 1], steps_left, literals_left)
    assert (status is not None) == taken
    assert status in (None, _codes.STATUS_VALID)


def test_feed_step_refuses_what_no_caller_gives(engine: str) -> None:
    k = kernel(engine)
    with pytest.raises(RuntimeError, match=r"start\(\) the check before feed_step"):
        k.feed_step(_codes.STEP_ADD, [2], 1, 1)
    k.start()
    for kind in (
        _codes.STEP_ADD_OUT_OF_RANGE,
        _codes.STEP_DELETE_NO_MATCH,
        -1,
        7,
        True,
        0.0,
        None,
        IntSub(0),
    ):
        with pytest.raises(ValueError, match="not STEP_ADD or STEP_DELETE"):
            k.feed_step(kind, [2], 1, 1)
    for rooms in ((1.0, 1), (1, None), (True, 1), (IntSub(1), 1), (1, "1")):
        with pytest.raises(TypeError, match="must be ints"):
            k.feed_step(_codes.STEP_ADD, [2], *rooms)
    assert k.feed_step(_codes.STEP_ADD, [-3], 1, 1) == _codes.STATUS_LEMMA_NOT_RUP
    with pytest.raises(RuntimeError, match="after a failing step"):
        k.feed_step(_codes.STEP_ADD, [2], 1, 1)
    assert k.finish()[:3] == (_codes.STATUS_LEMMA_NOT_RUP, 0, 0)
    with pytest.raises(RuntimeError, match="after a failing step"):
        k.feed_step(_codes.STEP_ADD, [2], 1, 1)
    k = kernel(engine)
    k.start()
    k.finish()
    with pytest.raises(RuntimeError, match=r"after finish\(\)"):
        k.feed_step(_codes.STEP_ADD, [2], 1, 1)


def test_long_steps_and_both_engines_agree(engine: str) -> None:
    # Steps far longer than the buffers' first size, and repeats: the statuses
    # and the work of both engines, through feed_step, match feed()'s.
    rng = random.Random(7)
    steps = [
        [rng.choice((1, -1, 2, -2, 3, -3)) for _ in range(rng.choice((0, 1, 3, 300, 5000)))]
        for _ in range(30)
    ]

    def statuses(k: Any, one: bool) -> tuple[Any, ...]:
        k.start()
        out = []
        for s in steps:
            if one:
                out.append(k.feed_step(_codes.STEP_ADD, s, 1, len(s)))
            else:
                out.append(
                    k.feed(array("b", [_codes.STEP_ADD]), array("i", [0, len(s)]), array("i", s))[0]
                )
            if out[-1] != _codes.STATUS_VALID:
                break
        return tuple(out), k.work, k.finish()

    assert statuses(kernel(engine), True) == statuses(kernel(engine), False)
    assert statuses(kernel(engine), True) == statuses(kernel("reference"), True)
