"""Both kernels fed step by step: start(), feed() in any split, finish().

Generated requests (proofgen: mostly valid DRUP proofs, some mutated) are fed
in random splits, one step at a time, in random chunks and in one chunk, with
the invariant check after every feed, and must give what the reference
kernel's run() gives: the same tuple (work too, except under the work cap,
where the compiled kernel stops inside the step), the same reason deletions,
and the failing step at the right place in the right chunk.  The compiled
kernel's collector (arena and watch pool compaction) runs at random step
boundaries too, and its stores stay the same size however many times a proof
deletes and adds the same lemmas.
"""

from __future__ import annotations

import importlib
import os
import random
import subprocess
import sys
import textwrap
from array import array
from typing import Any

import proofgen
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sat_claim_check._core import codes
from sat_claim_check._engines import kernel_py as ref

BIG = 10**12

Flat = tuple[int, Any, Any, Any, Any, Any]


@pytest.fixture(
    scope="module", params=[pytest.param("compiled", marks=pytest.mark.compiled), "reference"]
)
def module(request: pytest.FixtureRequest) -> Any:
    """Each kernel module; a missing compiled extension is an error, not a skip."""
    if request.param == "compiled":
        return importlib.import_module("sat_claim_check._engines.kernel_c")
    return ref


@pytest.fixture(scope="module")
def comp() -> Any:
    return importlib.import_module("sat_claim_check._engines.kernel_c")


def sizes_of(n: int, rng: random.Random, mode: str) -> list[int]:
    """Chunk sizes adding up to n: single steps, random chunks, one chunk, or a mix
    with empty chunks."""
    if mode == "single":
        return [1] * n
    if mode == "one":
        return [n]
    out = []
    left = n
    while left > 0:
        size = rng.choice((0, 1, 1, 2, 3, 7, 20)) if mode == "mixed" else rng.randint(1, 12)
        size = min(size, left)
        out.append(size)
        left -= size
    return out


def fed(
    module: Any,
    flat: Flat,
    cap: int,
    sizes: list[int],
    *,
    check: bool = False,
    rng: random.Random | None = None,
) -> tuple[tuple[int, ...], list[int]]:
    """finish() and reason_deletions after feeding the proof in chunks of ``sizes``
    (windows into the whole arrays); asserts what each feed() returns."""
    n, co, cl, kinds, so, sl = flat
    k = module.Kernel(n, co, cl, None, None, None, cap)
    status = k.start()
    if check and status == codes.STATUS_VALID:
        k._check_invariants()
    a = 0
    if status == codes.STATUS_VALID:
        for size in sizes:
            b = a + size
            status, i = k.feed(kinds[a:b], so[a : b + 1], sl)
            if status != codes.STATUS_VALID:
                assert 0 <= i < size
                a += i
                break
            assert i == -1
            if check:
                k._check_invariants()
                if rng is not None and module is not ref and rng.random() < 0.3:
                    k._collect_now()
                    k._check_invariants()
            a = b
        if status not in (codes.STATUS_VALID, codes.STATUS_WORK_LIMIT) and check:
            k._check_invariants()  # a failing step leaves the state whole
    out = k.finish()
    assert k.finish() == out  # asked again: the same
    if out[0] not in (codes.STATUS_VALID, codes.STATUS_EMPTY_CLAUSE_NOT_DERIVED):
        assert out[1] == (a if out[1] >= 0 else -1)
        assert out[1] >= 0 or out[0] == codes.STATUS_WORK_LIMIT
    return out, list(k.reason_deletions)


def expected(flat: Flat, cap: int) -> tuple[tuple[int, int, int, int], list[int]]:
    k = ref.Kernel(*flat, cap)
    return k.run(), list(k.reason_deletions)


def assert_same(
    got: tuple[tuple[int, ...], list[int]],
    want: tuple[tuple[int, int, int, int], list[int]],
    cap: int,
    context: object,
) -> None:
    (g, gd), (w, wd) = got, want
    if w[0] == codes.STATUS_WORK_LIMIT:
        assert g[:3] == w[:3], context
        assert cap < g[3] <= w[3], context
    else:
        assert g == w, context
    assert gd == wd, context


def check_case(module: Any, flat: Flat, rng: random.Random, context: object) -> None:
    want = expected(flat, BIG)
    steps = len(flat[3])
    for mode in ("single", "random", "one", "mixed"):
        got = fed(module, flat, BIG, sizes_of(steps, rng, mode), check=mode == "single", rng=rng)
        assert_same(got, want, BIG, (context, mode))
    work = want[0][3]
    for cap in {work - 1, work, work + 1} - {-1}:
        capped = expected(flat, cap)
        got = fed(module, flat, cap, sizes_of(steps, rng, rng.choice(("single", "random"))))
        assert_same(got, capped, cap, (context, cap))


# -- differential ----------------------------------------------------------------


@pytest.mark.parametrize("chunk", range(4))
def test_any_split_gives_run(module: Any, chunk: int) -> None:
    rng = random.Random(f"split-{chunk}")
    for i, request in enumerate(proofgen.cases(f"incremental-{chunk}", 60)):
        check_case(module, proofgen.to_flat(request), rng, (chunk, i))


HAND_MADE = {
    "example-1": (1, [[1], [-1]], [{"add": []}]),
    "example-2": (2, [[1, 2]], [{"add": [1]}]),
    "no-steps": (2, [[1, 2]], []),
    "empty-in-cnf": (1, [[1], []], []),
    "delete-set": (
        3,
        [[1, 2], [2, 1, 1], [1, 2]],
        [{"delete": [2, 1]}, {"delete": [1, 1, 2]}, {"delete": [2, 1, 2]}, {"delete": [1, 2]}],
    ),
    "delete-reason": (3, [[1], [-1, 2], [-2, 3], [-3]], [{"delete": [-1, 2]}, {"add": []}]),
    "delete-unit-reason": (2, [[1], [-1, 2], [-2]], [{"delete": [1]}, {"add": [2]}, {"add": []}]),
    "delete-conflict": (2, [[1], [-1]], [{"delete": [-1]}, {"add": [1]}, {"add": []}]),
    "delete-last-empty": (
        2,
        [[], [1, 2], [-1]],
        [{"add": [1]}, {"delete": []}, {"add": [2]}, {"add": [1]}],
    ),
    # A slot freed by a delete is taken by the next add, whose own delete must
    # not be mistaken for the old clause's (reasons, group order, unit order).
    "reuse-slots": (
        3,
        [[1, 2], [-1, 2], [3], [1, -3]],
        [
            {"delete": [1, 2]},
            {"add": [1, 2]},
            {"add": [2]},
            {"delete": [3]},
            {"add": [3, 2]},
            {"delete": [2]},
            {"add": [2, 1]},
            {"delete": [1, 2]},
            {"delete": [1, 2]},
            {"add": [-1, -3]},
            {"add": [2]},
        ],
    ),
}


@pytest.mark.parametrize("name", sorted(HAND_MADE))
def test_hand_made_cases_in_every_split(module: Any, name: str) -> None:
    n, clauses, proof = HAND_MADE[name]
    flat = proofgen.to_flat(
        {"cnf": {"num_vars": n, "clauses": clauses}, "claim": "unsat", "proof": proof}
    )
    check_case(module, flat, random.Random(name), name)


def test_reason_deletions_are_numbered_across_feeds(module: Any) -> None:
    # Each pair deletes the reason of x2 (step 2q) and puts it back (step 2q+1:
    # RUP through [2, 3] and [2, -3]), where it is x2's reason again.
    proof = [{"delete": [-1, 2]}, {"add": [-1, 2]}] * 5 + [{"add": [2]}]
    flat = proofgen.to_flat(
        {
            "cnf": {"num_vars": 3, "clauses": [[1], [-1, 2], [2, 3], [2, -3]]},
            "claim": "unsat",
            "proof": proof,
        }
    )
    got = fed(module, flat, BIG, [3, 1, 4, 3])
    assert got[1] == [0, 2, 4, 6, 8]
    assert got == expected(flat, BIG)


def test_feed_takes_windows_and_any_buffer(module: Any) -> None:
    flat = proofgen.to_flat(proofgen.case(random.Random("windows")))
    want = expected(flat, BIG)
    n, co, cl, kinds, so, sl = flat
    # Each step on its own, its literals somewhere in a bigger array, as lists,
    # tuples, int kinds: the same answer.
    k = module.Kernel(n, co, cl, None, None, None, BIG)
    assert k.start() == codes.STATUS_VALID
    for s in range(len(kinds)):
        pad = [7] * (s % 3)
        lits = array("i", pad + list(sl[so[s] : so[s + 1]]) + pad)
        variants = [
            (array("b", [kinds[s]]), array("i", [len(pad), len(lits) - len(pad)]), lits),
            ([kinds[s]], [len(pad), len(lits) - len(pad)], list(lits)),
            (array("i", [kinds[s]]), (len(pad), len(lits) - len(pad)), tuple(lits)),
        ]
        status, _ = k.feed(*variants[s % 3])
        if status != codes.STATUS_VALID:
            break
    assert (k.finish(), list(k.reason_deletions)) == want


# -- the kernel's state machine ----------------------------------------------------------


def tiny(module: Any, cap: int = BIG) -> Any:
    return module.Kernel(2, array("i", [0, 2, 3]), array("i", [1, 2, -1]), None, None, None, cap)


def one(kind: int, *lits: int) -> tuple[array[int], array[int], array[int]]:
    return array("b", [kind]), array("i", [0, len(lits)]), array("i", lits)


def test_calls_out_of_order_raise(module: Any) -> None:
    k = tiny(module)
    with pytest.raises(RuntimeError, match="start"):
        k.feed(*one(codes.STEP_ADD, 2))
    with pytest.raises(RuntimeError, match="start"):
        k.finish()
    with pytest.raises(TypeError, match="run"):
        k.run()  # no proof held
    assert k.start() == codes.STATUS_VALID
    assert k.feed(*one(codes.STEP_ADD, 1)) == (codes.STATUS_LEMMA_NOT_RUP, 0)
    with pytest.raises(RuntimeError, match="failing step"):
        k.feed(*one(codes.STEP_ADD, 2))
    assert k.finish() == (codes.STATUS_LEMMA_NOT_RUP, 0, 0, k.work)
    # start() starts afresh.
    assert k.start() == codes.STATUS_VALID
    assert k.feed(*one(codes.STEP_ADD, 2)) == (codes.STATUS_VALID, -1)
    assert k.feed(*one(codes.STEP_DELETE, 2)) == (codes.STATUS_VALID, -1)
    out = k.finish()
    assert out == (codes.STATUS_EMPTY_CLAUSE_NOT_DERIVED, -1, 2, k.work)
    with pytest.raises(RuntimeError, match="finish"):
        k.feed(*one(codes.STEP_ADD, 2))
    assert k.finish() == out


def test_the_build_passing_the_cap_stops_the_check(module: Any) -> None:
    k = tiny(module, cap=0)
    assert k.start() == codes.STATUS_WORK_LIMIT
    with pytest.raises(RuntimeError, match="stopped"):
        k.feed(*one(codes.STEP_ADD, 2))
    assert k.finish()[:3] == (codes.STATUS_WORK_LIMIT, -1, 0)


def test_a_step_passing_the_cap_stops_the_check(module: Any) -> None:
    k = module.Kernel(2, array("i", [0, 2]), array("i", [1, 2]), None, None, None, 1)
    assert k.start() == codes.STATUS_VALID  # no units: no work
    assert k.feed(*one(codes.STEP_ADD, 1, -1)) == (codes.STATUS_VALID, -1)  # a tautology
    # Two assumptions and a visit: the counter passes 1 in the RUP check.
    assert k.feed(*one(codes.STEP_ADD, 1, 2)) == (codes.STATUS_WORK_LIMIT, 0)
    assert k.finish()[:3] == (codes.STATUS_WORK_LIMIT, 1, 1)


class Stop(Exception):
    pass


def test_an_exception_from_a_poll_ends_the_check(module: Any) -> None:
    flat = heavy(200, 10)
    n, co, cl, kinds, so, sl = flat
    want = expected(flat, BIG)
    k = module.Kernel(n, co, cl, None, None, None, BIG)

    def stop(steps_checked: int, work: int) -> None:
        raise Stop(steps_checked)

    assert k.start(stop, 50) == codes.STATUS_VALID
    with pytest.raises(Stop):
        k.feed(kinds, so, sl)
    with pytest.raises(RuntimeError):
        k.feed(kinds, so, sl)
    with pytest.raises(RuntimeError):
        k.finish()
    assert k.start() == codes.STATUS_VALID  # usable again, from the start
    assert k.feed(kinds, so, sl)[0] == codes.STATUS_VALID
    assert (k.finish(), list(k.reason_deletions)) == want


def heavy(length: int, lemmas: int) -> Flat:
    """A chain x1 -> ... -> xn, and a lemma that walks it, added and deleted."""
    n, clauses = proofgen.chain(length, closed=False)
    proof = [{"add": [-1, n]}, {"delete": [n, -1]}] * lemmas
    return proofgen.to_flat(
        {"cnf": {"num_vars": n, "clauses": clauses[1:]}, "claim": "unsat", "proof": proof}
    )


@pytest.mark.parametrize("interval", [1, 37, 1000])
def test_polls_run_across_feeds(module: Any, interval: int) -> None:
    flat = heavy(150, 12)
    n, co, cl, kinds, so, sl = flat
    want = expected(flat, BIG)
    calls: list[tuple[int, int]] = []
    k = module.Kernel(n, co, cl, None, None, None, BIG)
    k.start(lambda s, w: calls.append((s, w)), interval)
    for s in range(len(kinds)):
        assert k.feed(kinds[s : s + 1], so[s : s + 2], sl) == (codes.STATUS_VALID, -1)
    assert (k.finish(), list(k.reason_deletions)) == want
    works = [w for _, w in calls]
    assert all(b - a >= interval for a, b in zip(works, works[1:]))
    assert [s for s, _ in calls] == sorted(s for s, _ in calls)
    # As many as in one run: the schedule goes on from feed to feed.
    assert len(calls) >= want[0][3] // (interval + 3) - 1


# -- the entry guard of feed() -------------------------------------------------------------


@pytest.mark.parametrize(
    "args, error",
    [
        ((array("b", [0]), array("i", [0]), array("i")), ValueError),  # offsets short
        ((array("b", [0]), array("i", [0, 1, 1]), array("i", [1])), ValueError),
        ((array("b", [0]), array("i", [1, 0]), array("i", [1])), ValueError),  # decreasing
        ((array("b", [0]), array("i", [-1, 0]), array("i", [1])), ValueError),  # negative
        ((array("b", [0]), array("i", [0, 2]), array("i", [1])), ValueError),  # past the end
        ((array("b", [0, 0]), array("i", [0, 1, 0]), array("i", [1])), ValueError),
        ((array("b", [4]), array("i", [0, 0]), array("i")), ValueError),  # not a kind
        ((array("b", [-1]), array("i", [0, 0]), array("i")), ValueError),
        ((array("b", [0]), array("i", [0, 1]), array("i", [3])), ValueError),  # literal range
        ((array("b", [1]), array("i", [0, 1]), array("i", [0])), ValueError),  # literal 0
        ((array("b", [0]), array("i", [0, 1]), array("i", [-(2**31)])), ValueError),
        ((b"\x00", array("i", [0, 0]), array("i")), TypeError),  # unsigned bytes
        ((array("b", [0]), array("d", [0, 0]), array("i")), TypeError),
        ((array("b", [0]), array("i", [0, 0]), None), TypeError),
        ((None, array("i", [0]), array("i")), TypeError),
        ((array("b", [0]), [0, 1], [2**40]), ValueError),  # not a C int
    ],
)
def test_feed_refuses_garbage_and_goes_on(
    comp: Any, args: tuple[Any, ...], error: type[Exception]
) -> None:
    k = tiny(comp)
    assert k.start() == codes.STATUS_VALID
    with pytest.raises(error):
        k.feed(*args)
    # Nothing was checked: the check goes on, as if the call had not happened.
    assert k.feed(*one(codes.STEP_ADD, 2)) == (codes.STATUS_VALID, -1)
    assert k.feed(*one(codes.STEP_ADD)) == (codes.STATUS_LEMMA_NOT_RUP, 0)
    assert k.finish()[:3] == (codes.STATUS_LEMMA_NOT_RUP, 1, 1)


def test_other_kinds_literals_are_never_read(module: Any) -> None:
    k = tiny(module)
    k.start()
    chunk = (
        array("b", [codes.STEP_DELETE_NO_MATCH, codes.STEP_ADD_OUT_OF_RANGE]),
        array("i", [0, 1, 2]),
        array("i", [-(2**31), 0]),
    )
    assert k.feed(*chunk) == (codes.STATUS_DELETED_CLAUSE_NOT_FOUND, 0)


_ints = st.one_of(st.integers(-6, 6), st.integers(-(2**31), 2**31 - 1))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32),
    junk=st.lists(
        st.tuples(
            st.integers(0, 2),
            st.sampled_from(["replace", "append", "drop", "poke"]),
            st.lists(_ints, max_size=8),
        ),
        max_size=3,
    ),
)
def test_garbage_chunks_never_crash(
    comp: Any, seed: int, junk: list[tuple[int, str, list[int]]]
) -> None:
    """A generated proof fed in chunks, some of them spoiled: a spoiled chunk raises
    (and is skipped), or it runs as it is on both kernels."""
    rng = random.Random(seed)
    n, co, cl, kinds, so, sl = proofgen.to_flat(proofgen.case(rng))
    kc = comp.Kernel(n, co, cl, None, None, None, BIG)
    kr = ref.Kernel(n, co, cl, None, None, None, BIG)
    assert kc.start() == kr.start()
    a = 0
    spoil = dict(enumerate(junk))
    chunk_no = 0
    while a < len(kinds) and kr.phase == ref.CHECKING:
        b = min(len(kinds), a + rng.randint(1, 5))
        parts = [list(kinds[a:b]), [x - so[a] for x in so[a : b + 1]], list(sl[so[a] : so[b]])]
        if chunk_no in spoil:
            which, op, values = spoil[chunk_no]
            if op == "replace":
                parts[which] = values
            elif op == "append":
                parts[which].append(values[0] if values else 1)
            elif op == "drop" and parts[which]:
                parts[which].pop(rng.randrange(len(parts[which])))
            elif op == "poke" and parts[which] and values:
                parts[which][rng.randrange(len(parts[which]))] = values[0]
        chunk_no += 1
        try:
            got = kc.feed(parts[0], parts[1], parts[2])
        except (ValueError, TypeError):
            a = b
            continue
        # It ran: so the chunk was well formed, and the reference agrees.
        assert got == kr.feed(parts[0], parts[1], parts[2])
        kc._check_invariants()
        a = b
    assert kc.finish() == kr.finish()
    assert list(kc.reason_deletions) == list(kr.reason_deletions)


# -- memory: the compiled kernel's stores follow the live clauses -------------------------


def churn(lemmas: int, rounds: int, width: int = 30) -> Flat:
    """A CNF of ``lemmas`` long clauses, each twice, and a proof that deletes each
    and adds it again (RUP: its twin is there), ``rounds`` times: the live
    clauses never change."""
    clauses = [[1 + (i + j) % (2 * width) for j in range(width)] for i in range(lemmas)]
    proof = []
    for _ in range(rounds):
        for clause in clauses:
            proof += [{"delete": clause}, {"add": clause}]
    return proofgen.to_flat(
        {"cnf": {"num_vars": 2 * width, "clauses": clauses * 2}, "claim": "unsat", "proof": proof}
    )


def stats_after(comp: Any, flat: Flat, chunk: int) -> dict[str, int]:
    n, co, cl, kinds, so, sl = flat
    k = comp.Kernel(n, co, cl, None, None, None, BIG)
    k.start()
    for a in range(0, len(kinds), chunk):
        assert k.feed(kinds[a : a + chunk], so[a : a + chunk + 1], sl)[0] == codes.STATUS_VALID
    stats: dict[str, int] = k._stats()
    k._check_invariants()
    assert k.finish()[0] == codes.STATUS_EMPTY_CLAUSE_NOT_DERIVED
    return stats


def test_stores_stay_the_same_size_however_long_the_proof(comp: Any) -> None:
    short = stats_after(comp, churn(300, 8), 500)
    long = stats_after(comp, churn(300, 40), 500)
    assert long["collections"] > short["collections"] >= 1
    assert long["live_clauses"] == short["live_clauses"] == 600
    # Slots are reused: a delete frees one, the add after it takes it.
    assert long["slots"] == short["slots"] == 600
    for key in ("slots_room", "units_room", "table_slots", "chunk_steps_room"):
        assert long[key] == short[key], key
    # The arena and the watch pool are collected: both stay within a bound of
    # the live clauses, whatever the number of steps.
    live_entries = 600 * 32
    assert long["arena_room"] <= 4 * live_entries + 2 * 65536
    assert long["pool_used"] <= 4 * (1 << 20)


def test_a_formula_is_watched_in_lists_that_fit(comp: Any) -> None:
    """The CNF's watch lists are sized from their lengths, in one piece: a list
    grown by doubling would leave its old pieces in the pool (about twice the
    room the watches need, for a big formula)."""
    rng = random.Random(23)
    n, m = 2000, 20000
    clauses = [rng.sample(range(1, n + 1), 3) for _ in range(m)]
    clauses = [[v if rng.random() < 0.5 else -v for v in c] for c in clauses]
    co, cl = array("i", [0]), array("i")
    for c in clauses:
        cl.extend(c)
        co.append(len(cl))
    k = comp.Kernel(n, co, cl, None, None, None, BIG)
    k.start()
    k._check_invariants()
    stats = k._stats()
    lists = 2 * (n + 1)  # one entry each at most for an odd length (pieces are even)
    assert stats["pool_used"] <= 4 * (2 * m + lists) + 16
    # The table holds each live literal set once, as the reference engine counts them.
    pure = ref.Kernel(n, co, cl, None, None, None, BIG)
    pure.start()
    assert (
        stats["literal_sets"]
        == pure._stats()["literal_sets"]
        == len({frozenset(c) for c in clauses})
    )


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs ru_maxrss in KiB")
def test_peak_memory_does_not_grow_with_the_steps(comp: Any) -> None:
    """In a child process: the same lemmas deleted and added 10 or 200 times over,
    fed chunk by chunk; the peak RSS is the same."""
    code = textwrap.dedent("""
        import resource, sys
        from array import array
        from sat_claim_check._engines import kernel_c
        rounds = int(sys.argv[1])
        width, lemmas = 40, 200
        clauses = [[1 + (i + j) % 80 for j in range(width)] for i in range(lemmas)]
        co = array("i", [0]); cl = array("i")
        for c in clauses * 2:
            cl.extend(c); co.append(len(cl))
        k = kernel_c.Kernel(80, co, cl, None, None, None, 10 ** 15)
        k.start()
        kinds = array("b", [1, 0] * lemmas)
        lits = array("i"); offs = array("i", [0])
        for c in clauses:
            for _ in range(2):
                lits.extend(c); offs.append(len(lits))
        base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        for _ in range(rounds):
            assert k.feed(kinds, offs, lits) == (0, -1)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print(peak - base)
    """)
    grown = []
    for rounds in (10, 200):
        out = subprocess.run(
            [sys.executable, "-c", code, str(rounds)],
            check=True,
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "PYTHONHASHSEED": "0"},
        )
        grown.append(int(out.stdout))
    # 76,000 steps of 40 literals more would be 12 MB of proof: nothing of it stays.
    assert grown[1] <= grown[0] + 2048, grown
