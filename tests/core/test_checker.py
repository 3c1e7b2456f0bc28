"""Checker: an unsat proof checked step by step gives run()'s answer.

The oracle is run() itself.  For a well-formed request within limits,
feeding its proof in any split (single add()/delete() calls, feed() chunks of
random sizes as lists, tuples or generators, one feed(), _feed_arrays()
windows) must give run()'s Report exactly, for both engines.  For any other
proof, the answer is the first problem in stream order: the first step q
such that validate() rejects the proof's first q + 1 steps is where it is;
the Checker must then answer what run() answers for the steps before it when
one of them fails or passes the work cap, and otherwise raise what run()
raises for the steps up to it.  Cases: the corpus's unsat requests (and their
DRUP files, through the array door), proofgen's proofs (mostly valid, some
mutated) under limits at the boundaries of each case's work, steps and
literals, and hypothesis's small arbitrary ones, with junk steps.
"""

from __future__ import annotations

import copy
import importlib
import json
import os
import random
import subprocess
import sys
import textwrap
from array import array
from collections.abc import Iterator
from typing import Any

import proofgen
import pytest
from _helpers import corpus_dir, corpus_expected, corpus_instances, observe
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sat_claim_check as scc
from sat_claim_check import dimacs
from sat_claim_check._core import checker as _checker
from sat_claim_check._core import codes as _codes
from sat_claim_check._core import validate as _validate

BIG = scc.Limits.unlimited()
CORPUS = corpus_dir()


@pytest.fixture(
    scope="module", params=[pytest.param("compiled", marks=pytest.mark.compiled), "reference"]
)
def engine(request: pytest.FixtureRequest) -> str:
    if request.param == "compiled":
        importlib.import_module("sat_claim_check._engines.kernel_c")
    return str(request.param)


# -- the oracle ---------------------------------------------------------------------


def request_of(cnf: Any, proof: list[Any]) -> dict[str, Any]:
    return {"cnf": cnf, "claim": "unsat", "proof": proof}


def rejected(cnf: Any, proof: list[Any], limits: scc.Limits) -> bool:
    try:
        _validate.validate(request_of(cnf, proof), limits)
    except scc.CheckError:
        return True
    return False


def stream_answer(cnf: Any, proof: list[Any], engine: str, limits: scc.Limits) -> tuple[Any, ...]:
    """What the Checker must answer, from run() and validate() alone."""

    def run(steps: list[Any]) -> tuple[Any, ...]:
        return observe(lambda: scc.run(request_of(cnf, steps), engine=engine, limits=limits))

    if not rejected(cnf, proof, limits):
        return run(proof)
    # The smallest q with proof[:q] rejected (rejection only grows with q).
    lo, hi = 0, len(proof)
    while lo < hi:
        mid = (lo + hi) // 2
        if rejected(cnf, proof[:mid], limits):
            hi = mid
        else:
            lo = mid + 1
    if lo == 0:
        return run([])  # the cnf itself
    before = run(proof[: lo - 1])
    if before[0] == "error" or before[1]["reason"] not in (None, "empty_clause_not_derived"):
        return before  # a failing step, or the cap, first
    return run(proof[:lo])


# -- feeding the Checker ------------------------------------------------------------


def as_arrays(proof: list[dict[str, list[int]]]) -> tuple[array[int], array[int], array[int]]:
    """The proof as the DIMACS scanner gives it: STEP_ADD/STEP_DELETE, any int32."""
    kinds, offsets, lits = array("b"), array("i", [0]), array("i")
    for step in proof:
        ((key, values),) = step.items()
        kinds.append(_codes.STEP_ADD if key == "add" else _codes.STEP_DELETE)
        lits.extend(values)
        offsets.append(len(lits))
    return kinds, offsets, lits


def arrays_ok(proof: list[Any]) -> bool:
    """Can the array door carry this proof (well-formed steps of int32 literals)?"""
    for step in proof:
        if type(step) is not dict or len(step) != 1:
            return False
        ((key, values),) = step.items()
        if key not in ("add", "delete") or type(values) is not list:
            return False
        if not all(type(x) is int and -(2**31) < x < 2**31 for x in values):
            return False
    return True


def chunks(n: int, rng: random.Random) -> Iterator[tuple[int, int]]:
    a = 0
    while a < n:
        b = min(n, a + rng.choice((0, 1, 2, 5, 13, 40)))
        yield a, b
        a = b


def feed(checker: scc.Checker, proof: list[Any], mode: str, rng: random.Random) -> None:
    """Feed the whole proof in one of the splits."""
    if mode == "steps":
        for step in proof:
            if (
                type(step) is dict
                and len(step) == 1
                and next(iter(step)) in ("add", "delete")
                and rng.random() < 0.9
            ):
                ((key, values),) = step.items()
                getattr(checker, key)(values)
            else:
                checker.feed([step])
    elif mode == "chunks":
        for a, b in chunks(len(proof), rng):
            form = rng.randrange(3)
            part = proof[a:b]
            checker.feed(part if form == 0 else tuple(part) if form == 1 else iter(part))
    elif mode == "one":
        checker.feed(proof)
    elif mode == "generator":
        checker.feed(step for step in proof)
    else:
        assert mode == "arrays"
        kinds, offsets, lits = as_arrays(proof)
        # _feed_arrays cuts its arrays into chunks of its own: small ones too.
        _checker.ARRAY_CHUNK = rng.choice((1, 3, 1 << 16))
        for a, b in chunks(len(proof), rng):
            if rng.random() < 0.5:  # a window into the whole arrays
                checker._feed_arrays(kinds[a:b], offsets[a : b + 1], lits)
            else:  # arrays of their own
                base = offsets[a]
                rebased = array("i", [x - base for x in offsets[a : b + 1]])
                checker._feed_arrays(kinds[a:b], rebased, lits[offsets[a] : offsets[b]])


def checker_answer(
    cnf: Any, proof: list[Any], engine: str, limits: scc.Limits, mode: str, rng: random.Random
) -> tuple[Any, ...]:
    """What the Checker answers, as observe() words run()'s, and checks that it has
    ended afterwards."""
    checker: scc.Checker | None = None

    def go() -> scc.Report:
        nonlocal checker
        checker = scc.Checker(cnf, engine=engine, limits=limits)
        feed(checker, proof, mode, rng)
        return checker.finish()

    try:
        answer = observe(go)
    finally:
        _checker.ARRAY_CHUNK = 1 << 16
    if checker is not None:
        with pytest.raises(RuntimeError, match="ended"):
            checker.add([])
        with pytest.raises(RuntimeError, match="ended"):
            checker.finish()
    return answer


MODES = ("steps", "chunks", "one", "generator", "arrays")


def assert_stream(
    cnf: Any,
    proof: list[Any],
    engine: str,
    limits: scc.Limits,
    rng: random.Random,
    modes: tuple[str, ...] = MODES,
    context: object = None,
) -> tuple[Any, ...]:
    want = stream_answer(cnf, proof, engine, limits)
    for mode in modes:
        if mode == "arrays" and not arrays_ok(proof):
            continue
        got = checker_answer(cnf, proof, engine, limits, mode, rng)
        assert got == want, (context, mode)
    return want


# -- generated proofs, at the limits' boundaries ---------------------------------------


def boundary_limits(
    request: dict[str, Any], report: tuple[Any, ...], rng: random.Random
) -> list[scc.Limits]:
    """Limits one below, at and one above the case's work, steps and literals."""
    steps = len(request["proof"])
    literals = sum(
        len(v) for s in request["proof"] if type(s) is dict for v in s.values() if type(v) is list
    )
    base = dict(
        max_vars=max(request["cnf"]["num_vars"], 64),
        max_clauses=10**6,
        max_total_literals=10**7,
        max_proof_steps=10**6,
        max_proof_literals=10**7,
        max_propagation_work=10**12,
    )
    out = [scc.Limits(**base)]
    if report[0] == "report":
        work = report[2]
        out += [
            scc.Limits(**{**base, "max_propagation_work": w})
            for w in (work - 1, work, work + 1)
            if w >= 0
        ]
    out += [
        scc.Limits(**{**base, "max_proof_steps": n})
        for n in {steps - 1, steps, rng.randrange(steps + 1)}
        if n >= 0
    ]
    out += [
        scc.Limits(**{**base, "max_proof_literals": n})
        for n in {literals - 1, literals, rng.randrange(literals + 1)}
        if n >= 0
    ]
    return out


JUNK_STEPS = [
    None,
    7,
    [1],
    {},
    {"add": [1], "delete": [1]},
    {"Add": [1]},
    {"add": 1},
    {"add": [1.5]},
    {"delete": [True]},
    {"add": ["1"]},
    {"add": [2.0, -1.0]},
    {"delete": [10**30]},
    {"add": [65]},
]


def spoil(request: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A copy with a junk step or two somewhere (some well formed: 2.0 is 2)."""
    out = copy.deepcopy(request)
    for _ in range(rng.choice((1, 1, 2))):
        junk = copy.deepcopy(rng.choice(JUNK_STEPS))
        out["proof"].insert(rng.randint(0, len(out["proof"])), junk)
    return out


@pytest.mark.parametrize("chunk", range(4))
def test_generated_proofs_in_every_split(engine: str, chunk: int) -> None:
    rng = random.Random(f"checker-{chunk}")
    count = 25 if engine == "compiled" else 10
    for i, request in enumerate(proofgen.cases(f"checker-{chunk}", count)):
        if rng.random() < 0.3:
            request = spoil(request, rng)
        cnf, proof = request["cnf"], request["proof"]
        whole = assert_stream(cnf, proof, engine, BIG, rng, context=(chunk, i))
        for limits in boundary_limits(request, whole, rng):
            assert_stream(
                cnf,
                proof,
                engine,
                limits,
                rng,
                modes=(rng.choice(MODES), rng.choice(MODES)),
                context=(chunk, i, limits),
            )


def test_the_work_cap_in_the_initial_build(engine: str) -> None:
    cnf = {"num_vars": 3, "clauses": [[1], [-1, 2], [-2, 3]]}
    limits = scc.Limits(max_propagation_work=2)
    with pytest.raises(scc.LimitExceeded) as caught:
        scc.Checker(cnf, engine=engine, limits=limits)
    with pytest.raises(scc.LimitExceeded) as expected:
        scc.run(request_of(cnf, []), engine=engine, limits=limits)
    assert caught.value.to_dict() == expected.value.to_dict()
    assert caught.value.step_index is None


# -- stream order, by hand ------------------------------------------------------------


CNF = {"num_vars": 2, "clauses": [[1, 2], [-1, 2], [1, -2]]}


@pytest.mark.parametrize(
    "proof, expected",
    [
        # A failing step before a malformed one: the verdict.
        ([{"add": [2]}, {"add": [-1]}, {"add": "x"}], ("report", "lemma_not_rup", 1)),
        # A malformed step before a failing one: the error, at its index.
        (
            [{"add": [2]}, {"add": [1.5]}, {"add": [-1]}],
            ("error", "InvalidInput", "/proof/1/add/0"),
        ),
        ([{"add": [2]}, {"Add": [1]}], ("error", "InvalidInput", "/proof/1/Add")),
        ([{"add": [2]}, {"add": [], "delete": []}], ("error", "InvalidInput", "/proof/1")),
        # Out of range for num_vars is a verdict (the contract's), not an error.
        ([{"add": [2]}, {"add": [1, 3]}, {"add": [9.5]}], ("report", "literal_out_of_range", 1)),
        # Over max_vars is an error.
        ([{"add": [2]}, {"delete": [99]}], ("error", "InvalidInput", "/proof/1/delete/0")),
    ],
)
def test_stream_order(engine: str, proof: list[Any], expected: tuple[Any, ...]) -> None:
    limits = scc.Limits(max_vars=10)
    checker = scc.Checker(CNF, engine=engine, limits=limits)
    try:
        for step in proof:
            checker.feed([step])
        report = checker.finish()
    except scc.CheckError as exc:
        assert ("error", type(exc).__name__, exc.path) == expected
    else:
        assert (
            "report",
            report.result["reason"],
            report.result["first_discrepancy"]["step_index"],
        ) == expected
    assert checker_answer(CNF, proof, engine, limits, "steps", random.Random(0)) == stream_answer(
        CNF, proof, engine, limits
    )


@pytest.mark.parametrize(
    "proof",
    [
        [{"add": []}, {"delete": [99]}],
        [{"add": []}, {"delete": []}, {"add": [2, 99, 1]}],
        [{"add": [2]}, {"add": [2, 1]}, {"delete": [2, 1]}, {"add": [1, 99]}, {"add": [-1]}],
        [{"add": [2]}, {"add": [-1]}, {"add": [99]}],
        [{"add": [2]}, {"add": [1, 3]}, {"delete": [-99]}],
    ],
)
@pytest.mark.parametrize("max_steps", [1, 2, 3, 10])
def test_stream_order_through_every_door(engine: str, proof: list[Any], max_steps: int) -> None:
    limits = scc.Limits(max_vars=10, max_proof_steps=max_steps, max_proof_literals=4)
    rng = random.Random(f"{proof}-{max_steps}")
    for _ in range(3):
        assert_stream(CNF, proof, engine, limits, rng)


def test_the_step_past_a_size_limit_raises(engine: str) -> None:
    proof = [{"add": [2]}, {"add": [2, 1]}, {"add": [2, -1]}, {"add": []}]
    checker = scc.Checker(CNF, engine=engine, limits=scc.Limits(max_proof_steps=2))
    checker.add([2])
    checker.add([2, 1])
    with pytest.raises(scc.LimitExceeded) as caught:
        checker.add([2, -1])
    assert caught.value.to_dict() == {
        "error": "limit_exceeded",
        "field": "proof",
        "path": "/proof",
        "limit": "max_proof_steps",
        "max": 2,
        "actual": 3,
        "message": caught.value.message,
    }
    checker = scc.Checker(CNF, engine=engine, limits=scc.Limits(max_proof_literals=3))
    checker.feed(proof[:2])
    with pytest.raises(scc.LimitExceeded) as caught:
        checker.feed(proof[2:])
    assert (caught.value.limit, caught.value.actual) == ("max_proof_literals", 5)


def test_steps_after_a_failing_step_are_ignored(engine: str) -> None:
    checker = scc.Checker(CNF, engine=engine, limits=scc.Limits(max_proof_steps=3))
    checker.add([-1])  # not RUP: the verdict
    checker.add("not a step")
    checker.feed([None, {"zzz": 1}] * 10)  # past max_proof_steps too
    taken = []

    def steps() -> Iterator[dict[str, list[int]]]:
        while True:
            taken.append(1)
            yield {"add": []}

    checker.feed(steps())  # not read at all
    checker._feed_arrays(array("b", [0]), array("i", [0, 1]), array("i", [99]))
    assert taken == []
    report = checker.finish()
    assert report == scc.run(request_of(CNF, [{"add": [-1]}]), engine=engine)
    assert report.result["steps_checked"] == 0


def test_calls_after_the_end_raise(engine: str) -> None:
    checker = scc.Checker(CNF, engine=engine)
    checker.add([2])
    with pytest.raises(scc.InvalidInput):
        checker.add([1.5])
    for call in (
        lambda: checker.add([2]),
        lambda: checker.delete([2]),
        lambda: checker.feed([]),
        checker.finish,
        lambda: checker._feed_arrays(array("b"), array("i", [0]), array("i")),
    ):
        with pytest.raises(RuntimeError, match="ended"):
            call()
    done = scc.Checker(CNF, engine=engine)
    done.finish()
    with pytest.raises(RuntimeError, match="finish"):
        done.feed([{"add": [2]}])


def test_arguments(engine: str) -> None:
    with pytest.raises(ValueError, match="'strict' or 'lenient', got 'loose'"):
        scc.Checker(CNF, engine=engine, deletions="loose")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="strict"):
        scc.Checker(CNF, engine=engine, deletions=None)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        scc.Checker(CNF, engine=engine, limits={"max_vars": 5})  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        scc.Checker(CNF, engine=engine, progress=3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="engine"):
        scc.Checker(CNF, engine="fast")  # type: ignore[arg-type]
    with pytest.raises(scc.InvalidInput) as caught:
        scc.Checker({"num_vars": 1, "clauses": [[2]]}, engine=engine)
    assert caught.value.path == "/cnf/clauses/0/0"
    checker = scc.Checker(CNF, engine=engine)
    checker.add([2])
    with pytest.raises(TypeError):
        checker.feed(42)  # type: ignore[arg-type]
    # After any call has raised, every later call raises (docs/semantics.md).
    with pytest.raises(RuntimeError, match=r"has ended \(feed\(\) raised TypeError\)"):
        checker.add([])
    with pytest.raises(RuntimeError):
        checker.finish()
    assert repr(checker) == f"<Checker {engine} engine, 1 steps, ended>"


# -- progress ---------------------------------------------------------------------------


def chain(length: int, lemmas: int) -> tuple[dict[str, Any], list[dict[str, list[int]]]]:
    clauses = [[-i, i + 1] for i in range(1, length)]
    proof = [{"add": [-1, length]}, {"delete": [length, -1]}] * lemmas
    return {"num_vars": length, "clauses": clauses}, proof


def test_progress_across_calls(engine: str) -> None:
    cnf, proof = chain(3000, 400 if engine == "compiled" else 200)
    calls: list[tuple[int, int]] = []
    checker = scc.Checker(
        cnf, engine=engine, limits=BIG, progress=lambda s, w: calls.append((s, w))
    )
    for step in proof:
        ((key, values),) = step.items()
        getattr(checker, key)(values)
    report = checker.finish()
    assert report == scc.run(request_of(cnf, proof), engine=engine, limits=BIG)
    assert len(calls) >= max(1, report.work // (2**20 + 6000) - 1)
    works = [w for _, w in calls]
    assert all(b - a >= 2**20 for a, b in zip(works, works[1:]))
    # Each call names the step being checked: lemma q's step 2q has done its work.
    for steps_checked, work in calls:
        assert steps_checked in (2 * (work // 5999) - 1, 2 * (work // 5999)), (steps_checked, work)


def test_an_exception_from_progress_ends_the_checker(engine: str) -> None:
    cnf, proof = chain(3000, 200)

    def stop(steps_checked: int, work: int) -> None:
        raise KeyboardInterrupt

    checker = scc.Checker(cnf, engine=engine, limits=BIG, progress=stop)
    with pytest.raises(KeyboardInterrupt):
        checker.feed(proof)
    with pytest.raises(RuntimeError, match="KeyboardInterrupt"):
        checker.finish()


# -- the corpus ------------------------------------------------------------------------------


def corpus_unsat() -> list[Any]:
    if CORPUS is None:
        return [pytest.param(None, marks=pytest.mark.skip(reason="no corpus"), id="no-corpus")]
    rows = corpus_expected(CORPUS)
    return [
        pytest.param(i, id=i["name"])
        for i in corpus_instances(CORPUS)
        if i["tier"] == "contract" and i["expected_claim"] == "unsat" and i["name"] in rows
    ]


@pytest.mark.compiled
@pytest.mark.parametrize("instance", corpus_unsat())
def test_corpus_requests_in_every_split(instance: dict[str, Any]) -> None:
    assert CORPUS is not None
    row = corpus_expected(CORPUS)[instance["name"]]
    with open(CORPUS / instance["files"]["json"], encoding="utf-8") as f:
        request = json.load(f)
    rng = random.Random(instance["name"])
    want = ("report", row["result"], row["work"])
    for mode in ("steps", "chunks", "one", "arrays"):
        got = checker_answer(request["cnf"], request["proof"], "compiled", scc.Limits(), mode, rng)
        assert got[:3] == want, mode
        assert got == observe(lambda: scc.run(request, engine="compiled")), mode
    # The DRUP file through the array door, from the scanner's arrays.
    cnf_arrays, proof_arrays, _ = dimacs.parse_files(
        CORPUS / instance["files"]["cnf"], CORPUS / instance["files"]["drup"], None
    )
    assert proof_arrays is not None
    kinds, offsets, lits = proof_arrays
    checker = scc.Checker._from_arrays(*cnf_arrays, engine="compiled")
    for a, b in chunks(len(kinds), rng):
        checker._feed_arrays(kinds[a:b], offsets[a : b + 1], lits)
    report = checker.finish()
    files = dimacs.run_files(
        CORPUS / instance["files"]["cnf"], CORPUS / instance["files"]["drup"], engine="compiled"
    )
    assert report == files
    assert (report.result, report.work) == (row["result"], row["work"])


def test_corpus_with_the_reference_engine() -> None:
    if CORPUS is None:
        pytest.skip("no corpus")
    rows = corpus_expected(CORPUS)
    small = sorted(
        (
            i
            for i in corpus_instances(CORPUS)
            if i["tier"] == "contract" and i["expected_claim"] == "unsat" and i["name"] in rows
        ),
        key=lambda i: rows[i["name"]]["work"],
    )[:4]
    for instance in small:
        with open(CORPUS / instance["files"]["json"], encoding="utf-8") as f:
            request = json.load(f)
        row = rows[instance["name"]]
        for mode in ("steps", "chunks"):
            got = checker_answer(
                request["cnf"],
                request["proof"],
                "reference",
                scc.Limits(),
                mode,
                random.Random(mode),
            )
            assert got == ("report", row["result"], row["work"], got[3]), instance["name"]


# -- hypothesis: small arbitrary cases -----------------------------------------------------------


_lits = st.one_of(st.integers(-5, 5), st.sampled_from([2.0, -1.0, 2.5, True, None, "1", 99]))
_step = st.one_of(
    st.builds(
        lambda k, v: {k: v},
        st.sampled_from(["add", "add", "delete"]),
        st.lists(st.integers(-4, 4), max_size=4),
    ),
    st.builds(
        lambda k, v: {k: v}, st.sampled_from(["add", "delete", "Add"]), st.lists(_lits, max_size=3)
    ),
    st.sampled_from(JUNK_STEPS),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    clauses=st.lists(st.lists(st.integers(-3, 3).filter(bool), max_size=3), max_size=6),
    proof=st.lists(_step, max_size=8),
    seed=st.integers(0, 2**16),
    steps=st.integers(0, 9),
    literals=st.integers(0, 20),
    work=st.integers(0, 60),
)
def test_small_arbitrary_cases(
    engine: str,
    clauses: list[list[int]],
    proof: list[Any],
    seed: int,
    steps: int,
    literals: int,
    work: int,
) -> None:
    rng = random.Random(seed)
    cnf = {"num_vars": 3, "clauses": clauses}
    limits = scc.Limits(
        max_vars=5, max_proof_steps=steps, max_proof_literals=literals, max_propagation_work=work
    )
    want = stream_answer(cnf, proof, engine, limits)
    for mode in (rng.choice(MODES), rng.choice(MODES)):
        if mode == "arrays" and not arrays_ok(proof):
            continue
        assert checker_answer(cnf, proof, engine, limits, mode, rng) == want, mode


# -- memory ---------------------------------------------------------------------------------------


@pytest.mark.compiled
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs ru_maxrss in KiB")
def test_peak_memory_does_not_grow_with_the_steps() -> None:
    """In a child process: a Checker fed, from a generator, the same lemmas deleted
    and added 10 or 200 times over; the peak RSS is the same."""
    code = textwrap.dedent("""
        import resource, sys
        import sat_claim_check as scc
        rounds = int(sys.argv[1])
        clauses = [[1 + (i + j) % 60 for j in range(30)] for i in range(200)]
        checker = scc.Checker({"num_vars": 60, "clauses": clauses * 2},
                              engine="compiled", limits=scc.Limits.unlimited())
        checker.feed([{"delete": c} for c in clauses] + [{"add": c} for c in clauses])
        base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        def steps():
            for _ in range(rounds):
                for c in clauses:
                    yield {"delete": c}
                    yield {"add": c}
        checker.feed(steps())
        report = checker.finish()
        assert report.result["reason"] == "empty_clause_not_derived", report
        print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base)
    """)
    grown = []
    for rounds in (10, 200):
        out = subprocess.run(
            [sys.executable, "-c", code, str(rounds)],
            check=True,
            capture_output=True,
            text=True,
            timeout=120,
            env=dict(os.environ),
        )
        grown.append(int(out.stdout))
    # 76,000 more steps of 30 literals: over 9 MB in a kernel sized for every
    # step, more as requests; nothing of it stays.
    assert grown[1] <= grown[0] + 2048, grown


# -- the long campaign -----------------------------------------------------------------------------


@pytest.mark.fuzz
@pytest.mark.parametrize("chunk", range(8))
def test_campaign(engine: str, chunk: int) -> None:
    rng = random.Random(f"campaign-{chunk}")
    for i, request in enumerate(proofgen.cases(f"checker-campaign-{chunk}", 400)):
        if rng.random() < 0.3:
            request = spoil(request, rng)
        cnf, proof = request["cnf"], request["proof"]
        whole = assert_stream(cnf, proof, engine, BIG, rng, context=(chunk, i))
        for limits in boundary_limits(request, whole, rng):
            assert_stream(cnf, proof, engine, limits, rng, context=(chunk, i, limits))


# -- feed(): how much of an iterable is held ------------------------------------


def test_feed_holds_a_batch_of_literals_not_of_steps(engine: str) -> None:
    # Steps of 2**18 literals: feed() reads at most 2**20 literals of them
    # ahead (4 steps), not 4096 steps (gigabytes, before the first was
    # checked).  The first step fails, so nothing past its batch is read.
    size = 1 << 18
    big = list(range(1, size + 1))
    read = 0

    def steps() -> Iterator[dict[str, list[int]]]:
        nonlocal read
        for _ in range(100):
            read += 1
            yield {"delete": big}  # no such clause: fails

    checker = scc.Checker(
        {"num_vars": size, "clauses": [[1, 2]]}, engine=engine, limits=scc.Limits.unlimited()
    )
    checker.feed(steps())
    assert checker.failed
    assert read == 4  # steps.BATCH_LITERALS (2**20) // size
    assert checker.finish().result["steps_checked"] == 0


def test_feed_of_small_steps_still_reads_4096_at_a_time(engine: str) -> None:
    read = 0

    def steps() -> Iterator[dict[str, list[int]]]:
        nonlocal read
        for _ in range(10_000):
            read += 1
            yield {"delete": [1, 3]}  # no such clause: fails

    checker = scc.Checker(CNF, engine=engine)
    checker.feed(steps())
    assert checker.failed and read == 4096
