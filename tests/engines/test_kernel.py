"""The compiled Kernel against the reference Kernel, on the flat arrays.

Generated requests (mostly valid DRUP proofs from proofgen, and mutations of
them) must give the same run() tuple and the same reason_deletions on both
kernels, also with the work cap on both sides of each case's counter.  The
compiled entry point must reject garbage with an exception, never crash; and
run() must release the GIL.
"""

import collections
import importlib
import inspect
import os
import random
import subprocess
import sys
import threading
from array import array
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import ModuleType
from typing import Any

import proofgen
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sat_claim_check._core import codes
from sat_claim_check._engines import kernel_py as ref

pytestmark = pytest.mark.compiled

BIG = 10**12  # a cap no generated case reaches

# The default run checks CHUNKS * PER_CHUNK generated cases.
CHUNKS = 8
PER_CHUNK = 150


@pytest.fixture(scope="module")
def comp():
    """The compiled module; a missing extension is an error, not a skip."""
    return importlib.import_module("sat_claim_check._engines.kernel_c")


def run_both(comp, flat, max_work=BIG):
    kr = ref.Kernel(*flat, max_work)
    kc = comp.Kernel(*flat, max_work)
    return kr.run(), list(kr.reason_deletions), kc.run(), list(kc.reason_deletions)


def assert_agree(comp, flat, max_work=BIG, context=None):
    """Same outcome; same work too, except on WORK_LIMIT (the compiled kernel may
    stop inside the step, before the reference's end-of-step check)."""
    r, rd, c, cd = run_both(comp, flat, max_work)
    if r[0] == codes.STATUS_WORK_LIMIT:
        assert c[:3] == r[:3], context
        assert max_work < c[3] <= r[3], context
    else:
        assert c == r, context
    assert cd == rd, context
    return r


def check_case(comp, flat, rng, context=None):
    """Agreement without a cap, then with caps around the reference's counter."""
    r = assert_agree(comp, flat, BIG, context)
    work = r[3]
    # At the final counter the reference does not stop, and neither may the
    # compiled kernel; just below it both stop at the same step.
    for cap in {work, work + 1}:
        kc = comp.Kernel(*flat, cap)
        assert kc.run() == r, (context, cap)
    if work > 0:
        assert_agree(comp, flat, work - 1, context)
        assert_agree(comp, flat, rng.randrange(work), context)


# -- the two modules ------------------------------------------------------------------


def test_the_kernel_takes_its_codes_from_one_module(comp: ModuleType) -> None:
    # Both kernels name every status through _codes; none defines its own copy.
    assert not [n for n in dir(comp) if n.startswith(("STEP_", "STATUS_"))]
    own = {n: getattr(ref, n) for n in dir(ref) if n.startswith(("STEP_", "STATUS_"))}
    assert own == {n: getattr(codes, n) for n in own}
    # ...and the statuses they return are those codes.
    for clauses, proof, status in (
        ([[1], [-1]], [{"add": []}], codes.STATUS_VALID),
        ([[1, 2]], [{"add": [1]}], codes.STATUS_LEMMA_NOT_RUP),
    ):
        r, _, c, _ = run_both(comp, flat_of(2, clauses, proof))
        assert (r[0], c[0]) == (status, status)


# -- hand-made cases -------------------------------------------------------------------


def flat_of(num_vars, clauses, proof):
    return proofgen.to_flat(
        {"cnf": {"num_vars": num_vars, "clauses": clauses}, "claim": "unsat", "proof": proof}
    )


HAND_MADE = {
    # SPEC §6
    "example-1": (1, [[1], [-1]], [{"add": []}]),
    "example-2": (2, [[1, 2]], [{"add": [1]}]),
    "no-steps": (2, [[1, 2]], []),
    "empty-in-cnf": (1, [[1], []], []),
    "empty-cnf": (0, [], [{"add": []}]),
    # deletes match literal sets: highest id first, order and repeats ignored
    "delete-set": (
        3,
        [[1, 2], [2, 1, 1], [1, 2]],
        [{"delete": [2, 1]}, {"delete": [1, 1, 2]}, {"delete": [2, 1, 2]}, {"delete": [1, 2]}],
    ),
    "delete-absent": (3, [[1, 2]], [{"delete": [1, 3]}]),
    "delete-out-of-range": (3, [[1, 2]], [{"delete": [1, 4]}]),
    "delete-zero": (3, [[1, 2]], [{"delete": [0]}]),
    "add-out-of-range": (3, [[1, 2]], [{"add": [1, -7]}]),
    "tautology-is-rup": (2, [[1, 2]], [{"add": [1, -1]}, {"delete": [-1, 1]}]),
    # rebuilds: a level-0 reason, the conflict, the last empty clause
    "delete-reason": (3, [[1], [-1, 2], [-2, 3], [-3]], [{"delete": [-1, 2]}, {"add": []}]),
    "delete-unit-reason": (2, [[1], [-1, 2], [-2]], [{"delete": [1]}, {"add": [2]}, {"add": []}]),
    "delete-conflict": (2, [[1], [-1]], [{"delete": [-1]}, {"add": [1]}, {"add": []}]),
    "delete-last-empty": (
        2,
        [[], [1, 2], [-1]],
        [{"add": [1]}, {"delete": []}, {"add": [2]}, {"add": [1]}],
    ),
    "after-empty": (2, [[1], [-1]], [{"add": []}, {"add": [2]}, {"delete": [1]}, {"add": [-2, 1]}]),
    "steps-after-empty-fail": (2, [[1], [-1]], [{"add": []}, {"delete": [2]}]),
}


@pytest.mark.parametrize("name", sorted(HAND_MADE))
def test_hand_made(comp, name):
    flat = flat_of(*HAND_MADE[name])
    check_case(comp, flat, random.Random(name), name)


def test_delete_takes_the_highest_id(comp):
    # The second [1, 2] (id 2) goes first; the reason check then sees id 0 left.
    flat = flat_of(
        3, [[1, 2], [3], [2, 1]], [{"delete": [1, 2]}, {"delete": [2, 1]}, {"delete": [1, 2]}]
    )
    r, _, c, _ = run_both(comp, flat)
    assert r == c == (codes.STATUS_DELETED_CLAUSE_NOT_FOUND, 2, 2, 1)


def test_initial_build_passes_the_cap(comp):
    n, clauses = proofgen.chain(20)
    flat = flat_of(n, clauses, [{"add": []}])
    r, _, c, _ = run_both(comp, flat, 5)
    assert r[:3] == c[:3] == (codes.STATUS_WORK_LIMIT, -1, 0)


def test_reason_deletions_are_listed(comp):
    flat = flat_of(*HAND_MADE["delete-reason"])
    _, rd, _, cd = run_both(comp, flat)
    assert rd == cd == [0]


def test_corpus_like_chain(comp):
    n, clauses = proofgen.chain(300)
    proof = [{"add": [-1, n]} for _ in range(20)] + [{"add": []}]
    check_case(comp, flat_of(n, clauses[:-1], proof), random.Random(0))


# -- generated cases ---------------------------------------------------------------------


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_generated_agreement(comp, chunk):
    rng = random.Random(f"caps-{chunk}")
    for i, request in enumerate(proofgen.cases(f"kernel-{chunk}", PER_CHUNK)):
        check_case(comp, proofgen.to_flat(request), rng, (chunk, i))


def test_generators_mostly_prove(comp):
    """The CDCL generator's unsat proofs are valid: the generator is worth its name."""
    rng = random.Random(11)
    proved = valid = 0
    for _ in range(150):
        n, clauses = proofgen.random_cnf(rng)
        proof, verdict = proofgen.cdcl_proof(n, clauses, rng)
        if verdict:
            proved += 1
            flat = flat_of(n, clauses, proof)
            valid += comp.Kernel(*flat, BIG).run()[0] == codes.STATUS_VALID
    assert proved >= 50
    assert valid == proved


@pytest.mark.parametrize("kind", proofgen.MUTATIONS)
def test_each_mutation(comp, kind):
    rng = random.Random(kind)
    for _ in range(25):
        request = proofgen.mutate(proofgen.random_request(rng), rng, kind)
        check_case(comp, proofgen.to_flat(request), rng, kind)


@pytest.mark.fuzz
def test_agreement_campaign(comp):
    rng = random.Random("campaign")
    for i, request in enumerate(proofgen.cases("campaign", 20000)):
        check_case(comp, proofgen.to_flat(request), rng, i)


# -- input types ---------------------------------------------------------------------------


def test_accepts_buffers_and_sequences(comp):
    n, co, cl, kinds, so, sl = flat_of(*HAND_MADE["delete-reason"])
    expected = comp.Kernel(n, co, cl, kinds, so, sl, BIG).run()
    wide = array("i", kinds)
    variants = [
        (n, co, cl, wide, so, sl),
        (n, list(co), list(cl), list(kinds), list(so), list(sl)),
        (n, tuple(co), tuple(cl), tuple(kinds), tuple(so), tuple(sl)),
        (n, memoryview(co), memoryview(cl), memoryview(kinds), memoryview(so), memoryview(sl)),
    ]
    for args in variants:
        assert comp.Kernel(*args, BIG).run() == expected
        assert ref.Kernel(*args, BIG).run() == expected


def test_run_twice_gives_the_same_answer(comp):
    flat = flat_of(*HAND_MADE["delete-reason"])
    k = comp.Kernel(*flat, BIG)
    first = k.run()
    assert k.run() == first
    assert list(k.reason_deletions) == [0]


@pytest.mark.parametrize(
    "args, error",
    [
        ((-1, [0], [], [], [0], [], 0), ValueError),  # num_vars < 0
        ((2**31, [0], [], [], [0], [], 0), ValueError),  # num_vars too big
        ((1, [0], [], [], [0], [], -1), ValueError),  # max_work < 0
        ((1, [], [], [], [0], [], 0), ValueError),  # no offsets
        ((1, [1], [], [], [0], [], 0), ValueError),  # not starting at 0
        ((1, [0, 2, 1], [1, 1], [], [0], [], 0), ValueError),  # decreasing
        ((1, [0, 1], [1, 1], [], [0], [], 0), ValueError),  # not ending at len
        ((1, [0, 1], [2], [], [0], [], 0), ValueError),  # clause literal range
        ((1, [0, 1], [0], [], [0], [], 0), ValueError),  # clause literal 0
        ((1, [0, 1], [-(2**31)], [], [0], [], 0), ValueError),  # INT_MIN
        ((1, [0], [], [4], [0, 0], [], 0), ValueError),  # kind out of range
        ((1, [0], [], [-1], [0, 0], [], 0), ValueError),
        ((1, [0], [], [0], [0, 1], [2], 0), ValueError),  # add literal range
        ((1, [0], [], [1], [0, 1], [0], 0), ValueError),  # delete literal 0
        ((1, [0], [], [0, 0], [0, 0], [], 0), ValueError),  # kinds vs offsets
        ((1, [0], [], [], [0], [2**40], 0), ValueError),  # not a C int
        ((1.5, [0], [], [], [0], [], 0), TypeError),
        ((1, [0], [], [], [0], [], "9"), TypeError),
        ((1, None, [], [], [0], [], 0), TypeError),
        ((1, array("d", [0]), [], [], [0], [], 0), TypeError),
        ((1, array("q", [0]), [], [], [0], [], 0), TypeError),
        ((1, [0], [], b"\x00", [0, 0], [], 0), TypeError),  # unsigned bytes
        ((1, [0], ["1"], [], [0], [], 0), TypeError),
    ],
)
def test_entry_guard(comp, args, error):
    with pytest.raises(error):
        comp.Kernel(*args).run()


def test_out_of_range_literals_of_other_kinds_are_not_read(comp):
    # STEP_ADD_OUT_OF_RANGE / STEP_DELETE_NO_MATCH steps may hold anything.
    flat = (
        1,
        array("i", [0]),
        array("i"),
        array("b", [3, 2]),
        array("i", [0, 1, 2]),
        array("i", [-(2**31), 0]),
    )
    r, _, c, _ = run_both(comp, flat)
    assert r == c == (codes.STATUS_DELETED_CLAUSE_NOT_FOUND, 0, 0, 0)


_ints = st.one_of(st.integers(-6, 6), st.integers(-(2**31), 2**31 - 1))
_int_lists = st.lists(_ints, max_size=12)


def _container(draw, values, fmt="i"):
    kind = draw(st.sampled_from(["array", "list", "tuple", "double", "bytes", "none"]))
    if kind == "array":
        return array(fmt, values)
    if kind == "list":
        return list(values)
    if kind == "tuple":
        return tuple(values)
    if kind == "double":
        return array("d", values)
    if kind == "bytes":
        return bytes(v & 0xFF for v in values)
    return None


@st.composite
def garbage(draw):
    """Kernel arguments: a generated case with some fields replaced by junk."""
    seed = draw(st.integers(0, 2**32))
    request = proofgen.case(random.Random(seed))
    n, co, cl, kinds, so, sl = proofgen.to_flat(request)
    args = [n, co, cl, kinds, so, sl, draw(st.integers(0, 2000))]
    for i in draw(st.lists(st.integers(0, 6), max_size=3)):
        if i == 0:
            args[0] = draw(
                st.one_of(st.integers(-3, 40), st.sampled_from([2**31, 2**63, -(2**63), 1 << 80]))
            )
        elif i == 6:
            args[6] = draw(
                st.one_of(
                    st.integers(-3, 50), st.sampled_from([2**63 - 1, 2**63, 1 << 80, -(1 << 80)])
                )
            )
        elif i == 3:
            values = draw(st.lists(st.integers(-3, 6), max_size=len(kinds) + 2))
            args[3] = _container(draw, values, draw(st.sampled_from("bi")))
        else:
            values = [int(v) for v in args[i]] if args[i] is not None else []
            op = draw(st.sampled_from(["replace", "append", "drop", "poke"]))
            if op == "replace":
                values = draw(_int_lists)
            elif op == "append":
                values.append(draw(_ints))
            elif op == "drop" and values:
                values.pop(draw(st.integers(0, len(values) - 1)))
            elif op == "poke" and values:
                values[draw(st.integers(0, len(values) - 1))] = draw(_ints)
            args[i] = _container(draw, values)
    return args


def test_garbage_never_crashes(comp: ModuleType) -> None:
    seen = collections.Counter()

    @settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(args=garbage())
    def check(args: list[Any]) -> None:
        try:
            kc = comp.Kernel(*args)
            result = kc.run()
        except (ValueError, TypeError, MemoryError) as exc:
            seen[type(exc).__name__] += 1
            return
        seen["ran"] += 1
        # It ran: the inputs were well formed, so the reference agrees.
        kr = ref.Kernel(*[list(a) if not isinstance(a, int) else a for a in args])
        expected = kr.run()
        if expected[0] == codes.STATUS_WORK_LIMIT:
            assert result[:3] == expected[:3]
        else:
            assert result == expected
        assert list(kc.reason_deletions) == list(kr.reason_deletions)

    check()
    # About 40% of the cases reach the kernel's run and the rest are refused by
    # its entry guard, with both kinds of error: a guard that refused everything,
    # or a generator that no longer made garbage, would fail here.
    total = sum(seen.values())
    assert seen["ran"] >= total // 4, seen
    assert seen["ValueError"] >= total // 10 and seen["TypeError"] >= total // 10, seen


# -- threads -------------------------------------------------------------------------------


def heavy_case(length=4000, lemmas=1500):
    """Each lemma propagates the whole implication chain (and is deleted again, so
    the next one does too): about 4 * length * lemmas work."""
    n, clauses = proofgen.chain(length, closed=False)
    clauses = clauses[1:]  # no unit: nothing at level 0
    proof = [{"add": [-1, n]}, {"delete": [n, -1]}] * lemmas
    return flat_of(n, clauses, proof)


def test_run_releases_the_gil(comp):
    """With forced thread switches off, the main thread can run while a worker is
    inside run() only if run() released the GIL."""
    k = comp.Kernel(*heavy_case(), BIG)
    started = threading.Event()
    results = []

    def worker():
        started.set()
        results.append(k.run())

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1000.0)
    try:
        thread = threading.Thread(target=worker)
        thread.start()
        started.wait()
        # The worker keeps the GIL until run() releases it; so either it is inside
        # the nogil block now, or (GIL held throughout) it has already finished.
        inside = not results
        thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert inside
    assert results[0][0] == codes.STATUS_EMPTY_CLAUSE_NOT_DERIVED


def test_threads_agree_with_sequential(comp):
    flats = [proofgen.to_flat(r) for r in proofgen.cases("threads", 200)]
    flats.append(heavy_case(1000, 20))

    def run(flat):
        k = comp.Kernel(*flat, BIG)
        return k.run(), list(k.reason_deletions)

    expected = [run(f) for f in flats]
    with ThreadPoolExecutor(max_workers=4) as pool:
        assert list(pool.map(run, flats * 3)) == expected * 3


def test_one_kernel_refuses_a_second_concurrent_run(comp):
    k = comp.Kernel(*heavy_case(), BIG)
    started = threading.Event()
    errors = []

    def worker():
        started.set()
        k.run()

    thread = threading.Thread(target=worker)
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1000.0)
    try:
        thread.start()
        started.wait()
        try:
            k.run()
        except RuntimeError as exc:
            errors.append(exc)
        thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert errors


# -- polls: the progress callback (and, in the compiled kernel, signals) -------------------


class Recorder:
    """A progress callback that records its calls, and raises at call ``stop_at``."""

    class Stop(Exception):
        pass

    def __init__(self, stop_at=None):
        self.calls = []
        self.stop_at = stop_at

    def __call__(self, steps_checked, work):
        self.calls.append((steps_checked, work))
        if len(self.calls) == self.stop_at:
            raise Recorder.Stop(len(self.calls))

    def assert_spaced(self, interval, final_work):
        """Each call reports the counter at least ``interval`` past the one before,
        and the steps never go back."""
        works = [w for _, w in self.calls]
        steps = [s for s, _ in self.calls]
        assert all(b - a >= interval for a, b in zip(works, works[1:])), works
        assert steps == sorted(steps)
        assert not works or interval <= works[0] <= works[-1] <= final_work


def test_poll_interval_and_run_signature(comp):
    assert comp.POLL_INTERVAL == ref.POLL_INTERVAL == 2**20
    assert (
        list(inspect.signature(comp.Kernel.run).parameters)
        == list(inspect.signature(ref.Kernel.run).parameters)
        == ["self", "progress", "poll_interval"]
    )


def polled_runs(module, flat, cap, rng):
    """run() with polls every 1, 2 and a few units of work must give what run()
    without a callback gives: the same tuple, the same reason deletions."""
    plain = module.Kernel(*flat, cap)
    expected = plain.run(), list(plain.reason_deletions)
    for interval in (1, 2, rng.randint(3, 40)):
        recorder = Recorder()
        k = module.Kernel(*flat, cap)
        assert (k.run(recorder, interval), list(k.reason_deletions)) == expected, interval
        recorder.assert_spaced(interval, expected[0][3])
    return expected[0]


@pytest.mark.parametrize("chunk", range(4))
def test_polls_change_nothing(comp, chunk):
    # Polls every unit of work cut the compiled kernel's runs of visits down to
    # one visit each: the counter, the cap and every verdict must not notice.
    rng = random.Random(f"polls-{chunk}")
    for i, request in enumerate(proofgen.cases(f"polls-{chunk}", 100)):
        flat = proofgen.to_flat(request)
        work = polled_runs(ref, flat, BIG, rng)[3]
        assert polled_runs(comp, flat, BIG, rng)[3] == work, i
        for cap in {work, max(work - 1, 0), rng.randrange(work + 1)}:
            polled_runs(ref, flat, cap, rng)
            polled_runs(comp, flat, cap, rng)


@pytest.mark.parametrize("interval", [1, 97, 1000])
def test_polls_on_a_long_propagation(comp, interval):
    flat = heavy_case(300, 40)
    for module in (ref, comp):
        recorder = Recorder()
        outcome = module.Kernel(*flat, BIG).run()
        assert module.Kernel(*flat, BIG).run(recorder, interval) == outcome
        recorder.assert_spaced(interval, outcome[3])
        # Polls come at most a visit, an assignment and a step's start late.
        assert len(recorder.calls) >= outcome[3] // (interval + 3) - 1
        for cap in (outcome[3] // 3, outcome[3] // 2 + 1):
            assert (
                module.Kernel(*flat, cap).run(Recorder(), interval)
                == module.Kernel(*flat, cap).run()
            )


def test_polls_count_work_outside_propagation(comp):
    # Each lemma assigns 49 assumptions, then meets the TRUE unit literal: RUP
    # without a propagation, so only the polls before each step see that work.
    n = 50
    flat = flat_of(n, [[1]], [{"add": [*range(-2, -n - 1, -1), 1]}] * 200)
    for module in (ref, comp):
        recorder = Recorder()
        outcome = module.Kernel(*flat, BIG).run(recorder, 100)
        assert outcome == module.Kernel(*flat, BIG).run()
        assert outcome[3] == 1 + 200 * (n - 1)
        recorder.assert_spaced(100, outcome[3])
        assert len(recorder.calls) >= outcome[3] // (100 + n) - 1


def test_progress_exception_stops_the_run(comp):
    flat = heavy_case(300, 40)
    expected = comp.Kernel(*flat, BIG).run()
    for module in (ref, comp):
        recorder = Recorder(stop_at=3)
        with pytest.raises(Recorder.Stop):
            module.Kernel(*flat, BIG).run(recorder, 1000)
        assert len(recorder.calls) == 3
        assert recorder.calls[-1][1] < expected[3]
    # The same compiled Kernel runs again afterwards, from the start.
    k = comp.Kernel(*flat, BIG)
    for stop_at in (1, 2, 5):
        with pytest.raises(Recorder.Stop):
            k.run(Recorder(stop_at), 100)
        assert k.run() == expected
        assert list(k.reason_deletions) == []


def test_run_checks_its_poll_arguments(comp):
    flat = flat_of(*HAND_MADE["example-1"])
    for module in (ref, comp):
        with pytest.raises(TypeError, match="progress must be callable"):
            module.Kernel(*flat, BIG).run(42)
        with pytest.raises(ValueError, match="poll_interval"):
            module.Kernel(*flat, BIG).run(None, 0)
        assert module.Kernel(*flat, BIG).run(None, 1) == module.Kernel(*flat, BIG).run()


def _rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="needs /proc")
def test_an_exception_from_a_poll_frees_the_arrays(comp):
    # Every Kernel is kept alive: memory held after an interrupted run() (not just
    # until the Kernel is collected) would add up, some 5 MB a run.
    flat = heavy_case(100_000, 1)
    kernels = [comp.Kernel(*flat, BIG) for _ in range(30)]
    for k in kernels[:3]:
        with pytest.raises(Recorder.Stop):
            k.run(Recorder(stop_at=1), 1)
    before = _rss_bytes()
    for k in kernels[3:]:
        with pytest.raises(Recorder.Stop):
            k.run(Recorder(stop_at=1), 1)
    assert _rss_bytes() - before < 20 * 2**20


# -- a Kernel called again from its own progress callback -----------------------------

REENTRY = r"""
import sys
sys.path.insert(0, {tests!r})
import proofgen
from sat_claim_check._engines import kernel_c

n = 4000
clauses = [[-i, i + 1] for i in range(1, n)] + [[-n, -1]]
flat = proofgen.to_flat({{"cnf": {{"num_vars": n, "clauses": clauses}}, "claim": "unsat",
                         "proof": [{{"add": [-1]}}, {{"delete": [-1]}}] * 50}})
k = kernel_c.Kernel(*flat, 10**9)

def progress(steps, work):
    {call}

try:
    k.run(progress=progress, poll_interval=5)
except RuntimeError as exc:
    print("refused:", exc)
print("after:", k.run() == kernel_c.Kernel(*flat, 10**9).run())
"""


@pytest.mark.parametrize(
    "call",
    [
        "k._collect_now()",  # moved the arena under _propagate
        "k.__init__(n, flat[1], flat[2], flat[3][:1], flat[4], flat[5], 10**9)",  # kinds cut
        "k._check_invariants()",
        "k._stats()",
    ],
)
def test_a_kernel_refuses_calls_from_its_own_progress_callback(comp, call: str) -> None:
    code = REENTRY.format(tests=str(Path(__file__).parents[1]), call=call)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "refused: this Kernel is already running" in proc.stdout
    assert "after: True" in proc.stdout  # the Kernel stays usable
