"""The drat-trim reading on both kernels, on generated requests and on the corpus.

* The kernels' surface: ``reading`` codes (bools too), STATUS_CONCLUDED from
  start() and feed(), ``concluded()``, and nothing accepted but the codes.
* Generated requests (tests/proofgen.py), as they are, without their final
  empty clause and cut short: both kernels and both engines agree, under caps
  at and near their work counter, fed whole or in random splits; and the
  reading relates to the lenient one as docs/semantics.md says (the same check
  up to the end, so a proof valid when lenient is valid here, and one that
  fails here fails the same way when lenient).
* The corpus: proofs without their final empty clause stay valid.
"""

from __future__ import annotations

import importlib
import json
import random
from array import array
from collections.abc import Iterator
from typing import Any

import proofgen
import pytest
from _helpers import CORPUS_ABSENT, corpus_dir, corpus_instances
from proofgen import small_requests

import sat_claim_check as scc
from sat_claim_check._core import codes as _codes
from sat_claim_check._engines import kernel_py

BIG = 10**12
DRAT = _codes.READING_DRAT_TRIM
CORPUS = corpus_dir()


def _kernels() -> list[Any]:
    modules: list[Any] = [kernel_py]
    if scc._engines.compiled_available():
        modules.append(importlib.import_module("sat_claim_check._engines.kernel_c"))
    return modules


def _flat(clauses: list[list[int]], n: int) -> tuple[int, array[int], array[int]]:
    offsets, lits = array("i", [0]), array("i")
    for clause in clauses:
        lits.extend(clause)
        offsets.append(len(lits))
    return n, offsets, lits


# -- the kernels' surface -------------------------------------------------------------


@pytest.mark.parametrize("bad", [3, -1, 2**70, None, "drat-trim", 2.0, b"\x02", [2], object()])
def test_kernels_refuse_an_unknown_reading(bad: Any) -> None:
    for module in _kernels():
        with pytest.raises(ValueError, match="reading must be READING_STRICT"):
            module.Kernel(*_flat([], 1), None, None, None, BIG, bad)


def test_kernels_refuse_int_likes_and_keep_their_reading() -> None:
    class Sneaky(int):
        def __index__(self) -> int:
            raise RuntimeError("never asked")

    for module in _kernels():
        k = module.Kernel(*_flat([[1]], 1), None, None, None, BIG, DRAT)
        with pytest.raises(ValueError):
            k.__init__(*_flat([], 1), None, None, None, BIG, Sneaky(1))
        assert (k.reading, k.lenient) == (DRAT, True)  # unchanged
        for value, code in ((False, 0), (True, 1), (0, 0), (1, 1), (2, 2)):
            k = module.Kernel(*_flat([], 1), None, None, None, BIG, value)
            assert (k.reading, k.lenient) == (code, code != 0)
        assert module.Kernel(*_flat([], 1), None, None, None, BIG, reading=2).reading == 2


def test_the_cnf_alone_ends_the_check_at_start() -> None:
    flat = _flat([[1], [-1, 2], [-2]], 2)
    kinds = array("b", [_codes.STEP_ADD_OUT_OF_RANGE])
    offsets, lits = array("i", [0, 1]), array("i", [9])
    for module in _kernels():
        k = module.Kernel(*flat, None, None, None, BIG, DRAT)
        assert not k.concluded()
        assert k.start() == _codes.STATUS_CONCLUDED
        assert k.concluded()
        k._check_invariants()
        with pytest.raises(RuntimeError, match="concluded"):
            k.feed(kinds, offsets, lits)
        with pytest.raises(RuntimeError, match="concluded"):
            k.feed_step(_codes.STEP_ADD, [1], 5, 5)
        assert k.finish() == (_codes.STATUS_VALID, -1, 0, 3)
        assert k.finish() == (_codes.STATUS_VALID, -1, 0, 3)
        # Capped below the build's work: the cap first.
        assert module.Kernel(*flat, None, None, None, 2, DRAT).start() == _codes.STATUS_WORK_LIMIT
        # start() starts afresh; run() with a proof whose first step is bad.
        whole = module.Kernel(*flat, kinds, offsets, lits, BIG, DRAT)
        assert whole.run() == (_codes.STATUS_VALID, -1, 0, 3)
        assert whole.concluded()
        lenient = module.Kernel(*flat, kinds, offsets, lits, BIG, True).run()
        assert lenient[0] == _codes.STATUS_LITERAL_OUT_OF_RANGE


def test_feed_returns_the_index_of_the_step_that_ends_the_check() -> None:
    flat = _flat([[1, 2], [-1, 2], [1, -2], [-1, -2], [3]], 3)
    steps = [[3], [2, 1], [1], [9], [-3]]  # delete (ignored), add, add (the end), ...
    kinds = array("b", [_codes.STEP_DELETE, 0, 0, _codes.STEP_ADD_OUT_OF_RANGE, 0])
    offsets, lits = array("i", [0]), array("i")
    for step in steps:
        lits.extend(step)
        offsets.append(len(lits))
    for module in _kernels():
        k = module.Kernel(*flat, None, None, None, BIG, DRAT)
        assert k.start() == _codes.STATUS_VALID
        assert k.feed(kinds[:1], offsets[:2], lits) == (_codes.STATUS_VALID, -1)
        assert k.feed(kinds[1:], offsets[1:], lits) == (_codes.STATUS_CONCLUDED, 1)
        k._check_invariants()
        with pytest.raises(RuntimeError):
            k.feed(kinds[3:], offsets[3:], lits)
        assert k.finish()[:3] == (_codes.STATUS_VALID, -1, 3)
        assert list(k.ignored_deletions) == [0]
        # One step at a time through feed_step: the same end.
        one = module.Kernel(*flat, None, None, None, BIG, DRAT)
        one.start()
        got = [one.feed_step(int(kinds[s]), steps[s], 9, 9) for s in range(3)]
        assert got == [_codes.STATUS_VALID, _codes.STATUS_VALID, _codes.STATUS_CONCLUDED]
        assert one.finish() == k.finish()
        assert module.Kernel(*flat, kinds, offsets, lits, BIG, DRAT).run() == k.finish()


# -- generated requests ------------------------------------------------------------------


def _variants(request: dict[str, Any], rng: random.Random) -> Iterator[dict[str, Any]]:
    """The request, without its final empty clause, and cut at 50% and 80%
    (and at a random point)."""
    yield request
    proof = request.get("proof")
    if request.get("claim") != "unsat" or not isinstance(proof, list):
        return
    if proof and proof[-1] == {"add": []}:
        yield request | {"proof": proof[:-1]}
    for cut in {len(proof) // 2, len(proof) * 4 // 5, rng.randrange(len(proof) + 1)}:
        yield request | {"proof": proof[:cut]}


def _outcome(request: Any, engine: str, reading: str, limits: Any = None) -> tuple[Any, ...]:
    try:
        r = scc.run(request, engine=engine, limits=limits, reading=reading)  # type: ignore[arg-type]
    except scc.CheckError as err:
        return ("error", err.to_dict())
    return ("report", r.result, r.work, r.reason_deletions, r.ignored_deletions)


def _agree(request: Any, reading: str, limits: Any = None) -> tuple[Any, ...]:
    reference = _outcome(request, "reference", reading, limits)
    if scc._engines.compiled_available():
        assert _outcome(request, "compiled", reading, limits) == reference, request
    return reference


def _relate(lenient: tuple[Any, ...], drat: tuple[Any, ...]) -> None:
    """Up to the end the same check: lenient valid -> valid here; a failure here
    is lenient's; the lists and the work are prefixes of lenient's."""
    if lenient[0] != "report" or drat[0] != "report":
        return
    if lenient[1]["valid"]:
        assert drat[1]["valid"]
    if not drat[1]["valid"]:
        assert drat == lenient
    assert drat[2] <= lenient[2] and drat[3] == ()
    assert drat[4] == lenient[4][: len(drat[4])]


def _near_the_cap(request: Any, work: int, rng: random.Random) -> None:
    for cap in {work - 1, work, rng.randrange(work + 1)}:
        if cap >= 0:
            _agree(request, "drat-trim", scc.Limits(max_propagation_work=cap))


@pytest.mark.parametrize("chunk", range(4))
def test_generated_requests_agree_near_the_cap(chunk: int) -> None:
    rng = random.Random(f"drat-trim-{chunk}")
    ended_early = 0
    for base in proofgen.cases(f"drat-trim-{chunk}", 60):
        for request in _variants(base, rng):
            drat = _agree(request, "drat-trim")
            _relate(_agree(request, "lenient"), drat)
            if drat[0] == "report":
                proof = request.get("proof") or []
                ended_early += drat[1]["valid"] and drat[1]["steps_checked"] < len(proof)
                _near_the_cap(request, drat[2], rng)
    assert ended_early >= 20


def _splits(n: int, rng: random.Random) -> Iterator[tuple[int, int]]:
    a = 0
    while a < n:
        b = min(n, a + rng.choice((1, 1, 2, 7, 50, n)))
        yield a, b
        a = b


def _kernel_fed(module: Any, flat: tuple[Any, ...], cap: int, rng: random.Random) -> Any:
    """start, feed in random splits (single steps often through feed_step), finish."""
    n, co, cl, kinds, so, sl = flat
    k = module.Kernel(n, co, cl, None, None, None, cap, DRAT)
    if k.start() == _codes.STATUS_VALID:
        for a, b in _splits(len(kinds), rng):
            status = None
            if b == a + 1 and kinds[a] in (_codes.STEP_ADD, _codes.STEP_DELETE):
                status = k.feed_step(int(kinds[a]), list(sl[so[a] : so[a + 1]]), 1, 10**6)
            if status is None:
                status = k.feed(kinds[a:b], so[a : b + 1], sl)[0]
            if status != _codes.STATUS_VALID:
                break
            if rng.random() < 0.2:
                k._check_invariants()
                if hasattr(k, "_collect_now") and rng.random() < 0.3:
                    k._collect_now()
    return k.finish(), list(k.ignored_deletions), k.concluded()


@pytest.mark.parametrize("chunk", range(3))
def test_kernels_fed_in_splits_agree_with_run(chunk: int) -> None:
    rng = random.Random(f"drat-trim-kernels-{chunk}")
    for base in proofgen.cases(f"drat-trim-kernels-{chunk}", 50):
        for request in _variants(base, rng):
            if request.get("claim") != "unsat":
                continue
            flat = proofgen.to_flat(request)
            ref = kernel_py.Kernel(*flat, BIG, DRAT)
            want = (ref.run(), list(ref.ignored_deletions), ref.concluded())
            assert ref.reason_deletions.tolist() == []
            for cap in (BIG, want[0][3], want[0][3] - 1):
                capped = kernel_py.Kernel(*flat, max(cap, 0), DRAT)
                expect = (capped.run(), list(capped.ignored_deletions), capped.concluded())
                for module in _kernels():
                    got = _kernel_fed(module, flat, max(cap, 0), rng)
                    if expect[0][0] == _codes.STATUS_WORK_LIMIT:  # the compiled one stops sooner
                        assert got[0][:3] == expect[0][:3], module
                    else:
                        assert got == expect, module


def _fed(request: dict[str, Any], engine: str, rng: random.Random, limits: Any = None) -> Any:
    try:
        checker = scc.Checker(request["cnf"], engine=engine, limits=limits, reading="drat-trim")
        proof = request["proof"]
        for a, b in _splits(len(proof), rng):
            if b - a == 1:
                ((key, lits),) = proof[a].items()
                (checker.add if key == "add" else checker.delete)(lits)
            else:
                checker.feed(iter(proof[a:b]) if rng.random() < 0.5 else proof[a:b])
        return checker.finish()
    except scc.CheckError as err:
        return err.to_dict()


@pytest.mark.parametrize("chunk", range(2))
def test_checker_in_random_splits_gives_run(engine: str, chunk: int) -> None:
    rng = random.Random(f"drat-trim-checker-{chunk}")
    for base in proofgen.cases(f"drat-trim-checker-{chunk}", 30):
        for request in _variants(base, rng):
            if request.get("claim") != "unsat" or not isinstance(request.get("cnf"), dict):
                continue
            whole = _outcome(request, engine, "drat-trim")
            if whole[0] == "error":
                continue  # malformed: the Checker answers in stream order instead
            got = _fed(request, engine, rng)
            assert (got.result, got.work, got.reason_deletions, got.ignored_deletions) == whole[1:]
            if whole[2] > 0:
                limits = scc.Limits(max_propagation_work=whole[2] - 1)
                assert (
                    _fed(request, engine, rng, limits)
                    == _outcome(request, engine, "drat-trim", limits)[1]
                )


# -- hypothesis: small arbitrary requests, small caps -------------------------------------


@small_requests
def test_arbitrary_small_requests(
    clauses: list[list[int]], proof: list[dict[str, list[int]]], cap: int
) -> None:
    request = {"cnf": {"num_vars": 4, "clauses": clauses}, "claim": "unsat", "proof": proof}
    drat = _agree(request, "drat-trim")
    _relate(_agree(request, "lenient"), drat)
    _agree(request, "drat-trim", scc.Limits(max_propagation_work=cap))
    if drat[0] == "report":
        _near_the_cap(request, drat[2], random.Random(cap))


@pytest.mark.fuzz
@pytest.mark.parametrize("chunk", range(8))
def test_campaign(chunk: int) -> None:
    rng = random.Random(f"drat-trim-campaign-{chunk}")
    for base in proofgen.cases(f"drat-trim-campaign-{chunk}", 800):
        for request in _variants(base, rng):
            drat = _agree(request, "drat-trim")
            _relate(_agree(request, "lenient"), drat)
            if drat[0] == "report":
                _near_the_cap(request, drat[2], rng)


# -- the corpus ------------------------------------------------------------------------


def _lenient_rows() -> dict[str, dict[str, Any]]:
    if CORPUS is None or not (CORPUS / "expected-lenient.jsonl").is_file():
        return {}
    with open(CORPUS / "expected-lenient.jsonl", encoding="utf-8") as f:
        return {row["name"]: row for row in map(json.loads, filter(str.strip, f))}


ROWS = _lenient_rows()
FILES = {} if CORPUS is None else {i["name"]: i["files"] for i in corpus_instances(CORPUS)}


def _corpus_params() -> list[Any]:
    if not ROWS:
        return [pytest.param(None, marks=pytest.mark.skip(reason=CORPUS_ABSENT), id="no-corpus")]
    return [pytest.param(name, id=name) for name in ROWS if FILES.get(name, {}).get("json")]


@pytest.mark.parametrize("name", _corpus_params())
def test_corpus_proofs_without_the_final_empty_clause(engine: str, name: str) -> None:
    row = ROWS[name]
    if engine == "reference" and row["work"] > 150_000:
        pytest.skip("the compiled engine's round covers it")
    assert CORPUS is not None
    with open(CORPUS / FILES[name]["json"], encoding="utf-8") as f:
        request = json.load(f)
    proof = request["proof"]
    whole = scc.run(request, engine=engine, reading="drat-trim")
    if row["result"]["valid"]:
        assert whole.result["valid"]
        # The empty clause is RUP only in an inconsistent state: the check has
        # ended before it, so without it the Report is the same.
        assert whole.result["steps_checked"] < len(proof)
        while proof and proof[-1] == {"add": []}:
            proof = proof[:-1]
        cut = scc.run(request | {"proof": proof}, engine=engine, reading="drat-trim")
        assert cut == whole
        assert whole.work <= row["work"]
        ignored = row["ignored_deletions"]
        assert list(whole.ignored_deletions) == ignored[: len(whole.ignored_deletions)]
    else:
        # Invalid when lenient: valid here only when the end comes before the failure.
        assert whole.result["valid"] or (whole.result, whole.work) == (row["result"], row["work"])
