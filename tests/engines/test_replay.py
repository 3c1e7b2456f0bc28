"""Both kernels' replay(): a proof checked in segments gives the whole check's verdict.

A segment's kernel starts from the CNF, replays the steps before the segment
without checking them, then checks its own steps with feed().  Strictly read
and under the drat-trim reading, the first segment whose check does not pass
(a failing step, or the drat-trim reading's end) gives exactly what one
check of the whole proof gives: status, failing step and steps checked
(docs/semantics.md, "One proof on every core").  The twins agree on every
replay to the unit, the lenient reading included.
"""

from __future__ import annotations

import importlib
import random
from typing import Any

import proofgen
import pytest

from sat_claim_check._core import codes
from sat_claim_check._engines import kernel_py as ref

BIG = 10**12
EXACT_READINGS = (codes.READING_STRICT, codes.READING_DRAT_TRIM)


@pytest.fixture(
    scope="module", params=[pytest.param("compiled", marks=pytest.mark.compiled), "reference"]
)
def module(request: pytest.FixtureRequest) -> Any:
    if request.param == "compiled":
        return importlib.import_module("sat_claim_check._engines.kernel_c")
    return ref


def whole(flat: Any, reading: int) -> tuple[int, int, int]:
    """(status, step_index, steps_checked) of one check of the whole proof."""
    return ref.Kernel(*flat, BIG, reading).run()[:3]


def segment_kernel(module: Any, flat: Any, reading: int, a: int) -> tuple[Any, int]:
    """A kernel that has replayed steps 0..a-1, and the status of its replay
    (STATUS_CONCLUDED when the drat-trim reading ended there)."""
    n, co, cl, kinds, so, sl = flat
    k = module.Kernel(n, co, cl, None, None, None, BIG, reading)
    status = k.start()
    if status != codes.STATUS_VALID:
        return k, status
    status, i = k.replay(kinds[:a], so[: a + 1], sl)
    assert (status == codes.STATUS_CONCLUDED) == (i >= 0)
    return k, status


def in_segments(module: Any, flat: Any, reading: int, cuts: list[int]) -> tuple[int, int, int]:
    """The verdict of the segments between ``cuts`` (0 < ... <= steps): the first
    segment whose own steps do not all pass, or the last one, finished."""
    kinds, so, sl = flat[3], flat[4], flat[5]
    bounds = [0, *cuts]
    k = None
    for a, b in zip(bounds, bounds[1:]):
        k, status = segment_kernel(module, flat, reading, a)
        if status != codes.STATUS_VALID:  # the CNF alone, or the steps before, end it
            break
        status = k.feed(kinds[a:b], so[a : b + 1], sl)[0]
        if status != codes.STATUS_VALID:
            break
    assert k is not None
    return k.finish()[:3]


def random_cuts(rng: random.Random, steps: int) -> list[int]:
    """Segment ends: empty segments, single steps and long ones, ending at ``steps``."""
    cuts = sorted(rng.sample(range(steps + 1), min(steps + 1, rng.randint(0, 6))))
    return [*cuts, steps]


@pytest.mark.parametrize("chunk", range(3))
def test_segments_give_the_whole_verdict(module: Any, chunk: int) -> None:
    rng = random.Random(f"segments-{chunk}")
    for i, request in enumerate(proofgen.cases(f"replay-{chunk}", 80)):
        flat = proofgen.to_flat(request)
        steps = len(flat[3])
        for reading in EXACT_READINGS:
            want = whole(flat, reading)
            for _ in range(3):
                cuts = random_cuts(rng, steps)
                assert in_segments(module, flat, reading, cuts) == want, (chunk, i, cuts)
            one_each = list(range(1, steps + 1))
            assert in_segments(module, flat, reading, one_each or [0]) == want, (chunk, i)


HAND_MADE = {
    # A reason deleted before the segment: its literal is gone from level 0.
    "reason-deleted": (3, [[1], [-1, 2], [-2, 3]], [{"delete": [-1, 2]}, {"add": [3]}]),
    # The conflict clause deleted before the segment: consistent again.
    "conflict-deleted": (2, [[1], [-1]], [{"delete": [-1]}, {"add": [-1]}, {"add": []}]),
    # The empty clause added, then deleted: derived, but no longer live.
    "empty-added-then-deleted": (
        2,
        [[1, 2], [-1, 2], [1, -2], [-1, -2]],
        [{"add": [2]}, {"add": []}, {"delete": []}, {"add": [1]}],
    ),
    # Steps that fail a check are skipped by a replay: a later segment must
    # not hide the earlier failure.
    "failure-before": (2, [[1, 2]], [{"add": [1]}, {"add": [3]}, {"delete": [2]}, {"add": [2]}]),
    # A unit lemma that makes the state inconsistent: the drat-trim reading ends.
    "ends-at-conflict": (2, [[1, 2], [-1, 2], [1, -2], [-1, -2]], [{"add": [2]}, {"add": [1]}]),
}


@pytest.mark.parametrize("name", sorted(HAND_MADE))
def test_hand_made_cases_in_every_cut(module: Any, name: str) -> None:
    n, clauses, proof = HAND_MADE[name]
    flat = proofgen.to_flat(
        {"cnf": {"num_vars": n, "clauses": clauses}, "claim": "unsat", "proof": proof}
    )
    steps = len(proof)
    for reading in EXACT_READINGS:
        want = whole(flat, reading)
        for a in range(steps + 1):
            for b in range(a, steps + 1):
                cuts = [c for c in (a, b, steps) if c > 0]
                assert in_segments(module, flat, reading, sorted(set(cuts)) or [0]) == want, (
                    name,
                    reading,
                    a,
                    b,
                )


@pytest.mark.compiled
@pytest.mark.parametrize("reading", [0, 1, 2])
def test_the_twins_replay_alike(reading: int) -> None:
    comp = importlib.import_module("sat_claim_check._engines.kernel_c")
    rng = random.Random(f"twins-{reading}")
    for i, request in enumerate(proofgen.cases(f"replay-twins-{reading}", 120)):
        flat = proofgen.to_flat(request)
        kinds, so, sl = flat[3], flat[4], flat[5]
        a = rng.randint(0, len(kinds))
        kernels = [segment_kernel(m, flat, reading, a) for m in (comp, ref)]
        (kc, sc), (kr, sr) = kernels
        assert sc == sr, i
        assert kc.work == kr.work, i
        if sc == codes.STATUS_VALID:
            assert kc.feed(kinds[a:], so[a:], sl) == kr.feed(kinds[a:], so[a:], sl), i
        assert kc.finish() == kr.finish(), i
        assert list(kc.ignored_deletions) == list(kr.ignored_deletions), i
        assert list(kc.reason_deletions) == list(kr.reason_deletions), i


def test_a_strict_replay_keeps_no_level0_state_until_a_check(module: Any) -> None:
    # [1] is a unit: the build assigns 1.  A strict replay unassigns it; the
    # next feed() builds the state again, and the invariants hold throughout.
    flat = proofgen.to_flat(
        {
            "cnf": {"num_vars": 3, "clauses": [[1], [-1, 2], [-2, 3, 1]]},
            "claim": "unsat",
            "proof": [{"add": [2]}, {"delete": [-1, 2]}, {"add": [3, 1]}, {"add": [-3, 1]}],
        }
    )
    k, status = segment_kernel(module, flat, codes.READING_STRICT, 2)
    assert status == codes.STATUS_VALID
    k._check_invariants()
    kinds, so, sl = flat[3], flat[4], flat[5]
    assert k.feed(kinds[2:], so[2:], sl) == (codes.STATUS_VALID, -1)
    k._check_invariants()
    assert k.finish()[:3] == whole(flat, codes.READING_STRICT)


def test_a_replay_lifts_the_cap(module: Any) -> None:
    flat = proofgen.to_flat(
        {
            "cnf": {"num_vars": 2, "clauses": [[1, 2], [-1, 2], [1, -2], [-1, -2]]},
            "claim": "unsat",
            "proof": [{"add": [2]}, {"add": []}],
        }
    )
    n, co, cl, kinds, so, sl = flat
    k = module.Kernel(n, co, cl, None, None, None, 0, codes.READING_LENIENT)
    assert k.start() == codes.STATUS_VALID
    k.replay(kinds[:1], so[:2], sl)  # its propagation passes 0: no limit
    assert k.work > 0
    assert k.feed(kinds[1:], so[1:], sl) == (codes.STATUS_VALID, -1)
    assert k.finish()[0] == codes.STATUS_VALID


def test_replay_refuses_what_feed_refuses(module: Any) -> None:
    flat = proofgen.to_flat(
        {"cnf": {"num_vars": 2, "clauses": [[1, 2]]}, "claim": "unsat", "proof": [{"add": [1]}]}
    )
    n, co, cl, kinds, so, sl = flat
    k = module.Kernel(n, co, cl, None, None, None, BIG)
    with pytest.raises(RuntimeError, match="start"):
        k.replay(kinds, so, sl)
    k.start()
    with pytest.raises(ValueError):
        k.replay(kinds, so[:1], sl)
    assert k.feed(kinds, so, sl) == (codes.STATUS_LEMMA_NOT_RUP, 0)
    with pytest.raises(RuntimeError, match="stopped"):
        k.replay(kinds, so, sl)
    k.finish()
    with pytest.raises(RuntimeError, match=r"replay\(\) after"):
        k.replay(kinds, so, sl)


def test_a_kernel_writing_an_lrat_cannot_replay(module: Any) -> None:
    import io

    flat = proofgen.to_flat(
        {"cnf": {"num_vars": 1, "clauses": [[1], [-1]]}, "claim": "unsat", "proof": [{"add": []}]}
    )
    n, co, cl, kinds, so, sl = flat
    k = module.Kernel(n, co, cl, None, None, None, BIG, 0, lrat=io.BytesIO())
    k.start()
    with pytest.raises(RuntimeError, match="LRAT"):
        k.replay(kinds, so, sl)
