"""Lenient deletions on the corpus and on generated requests, both engines.

* The corpus's ``expected-lenient.jsonl`` (made by an independent checker)
  must be matched exactly: result, work and ignored steps, through run(),
  through Checker fed in random splits, and through run_files on the .cnf and
  .drup files.
* Generated requests (tests/proofgen.py: CDCL proofs that delete reasons and
  units, and mutations) must give equal outcomes on both kernels and both
  engines in both readings, under caps near their work counter; and the two
  readings must relate as docs/semantics.md says: until the first ignored
  delete they are the same check, so with no ignored delete the Reports are
  equal, and a proof valid when strict is valid when lenient (it keeps a
  superset of the clauses).
"""

from __future__ import annotations

import collections
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import proofgen
import pytest
from _helpers import CORPUS_ABSENT, corpus_dir, corpus_instances
from proofgen import small_requests

import sat_claim_check as scc
from sat_claim_check import dimacs
from sat_claim_check._core import codes as _codes
from sat_claim_check._engines import kernel_py

BIG = 10**12
CORPUS = corpus_dir()
READINGS = ("strict", "lenient")


def lenient_rows(corpus: Path) -> dict[str, dict[str, Any]]:
    """The rows of ``expected-lenient.jsonl`` by instance name."""
    with open(corpus / "expected-lenient.jsonl", encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    return {row["name"]: row for row in rows}


ROWS = (
    {}
    if CORPUS is None or not (CORPUS / "expected-lenient.jsonl").is_file()
    else lenient_rows(CORPUS)
)
INSTANCES = (
    {} if CORPUS is None else {i["name"]: i for i in corpus_instances(CORPUS) if i["name"] in ROWS}
)


def _params() -> list[Any]:
    if not ROWS:
        return [pytest.param(None, marks=pytest.mark.skip(reason=CORPUS_ABSENT), id="no-corpus")]
    return [pytest.param(name, id=name) for name in ROWS]


def _request(name: str) -> dict[str, Any]:
    assert CORPUS is not None
    with open(CORPUS / INSTANCES[name]["files"]["json"], encoding="utf-8") as f:
        return json.load(f)  # type: ignore[no-any-return]


def _want(name: str) -> tuple[Any, int, tuple[int, ...]]:
    row = ROWS[name]
    return row["result"], row["work"], tuple(row["ignored_deletions"])


def _splits(n: int, rng: random.Random) -> Iterator[tuple[int, int]]:
    a = 0
    while a < n:
        b = min(n, a + rng.choice((1, 2, 7, 50, 400, n)))
        yield a, b
        a = b


def _fed(
    request: dict[str, Any], engine: str, rng: random.Random, limits: scc.Limits | None = None
) -> Any:
    """A Checker fed the proof in random splits, one step calls among them."""
    try:
        checker = scc.Checker(request["cnf"], engine=engine, limits=limits, deletions="lenient")
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


def _small(name: str) -> bool:
    """Cheap enough for the reference engine's slower rounds."""
    return ROWS[name]["work"] <= 150_000


@pytest.mark.parametrize("name", _params())
def test_corpus_lenient_through_run(engine: str, name: str) -> None:
    report = scc.run(_request(name), engine=engine, deletions="lenient")
    assert (report.result, report.work, report.ignored_deletions) == _want(name)
    assert report.reason_deletions == ()


@pytest.mark.parametrize("name", _params())
def test_corpus_lenient_through_checker_and_files(engine: str, name: str) -> None:
    if engine == "reference" and not _small(name):
        pytest.skip("the compiled engine's round covers it")
    assert CORPUS is not None
    request = _request(name)
    whole = scc.run(request, engine=engine, deletions="lenient")
    assert _fed(request, engine, random.Random(name)) == whole
    files = INSTANCES[name]["files"]
    if files["drup"].endswith(".drup"):
        got = dimacs.run_files(
            CORPUS / files["cnf"], CORPUS / files["drup"], engine=engine, deletions="lenient"
        )
        assert got == whole
        assert (got.result, got.work, got.ignored_deletions) == _want(name)


def test_corpus_has_proofs_that_only_lenient_accepts() -> None:
    if not ROWS:
        pytest.skip(CORPUS_ABSENT)
    ignored = [name for name, row in ROWS.items() if row["ignored_deletions"]]
    assert len(ignored) >= 5, ignored
    # One that strict rejects (a reason deletion) and lenient accepts.
    for name in ignored:
        strict = scc.run(_request(name))
        if not strict.result["valid"] and ROWS[name]["result"]["valid"]:
            assert strict.reason_deletions
            assert set(strict.reason_deletions) <= set(ROWS[name]["ignored_deletions"])
            return
    pytest.fail("no proof fails strict and passes lenient")


# -- generated requests ------------------------------------------------------------------


def _outcome(
    request: Any, engine: str, deletions: str, limits: scc.Limits | None = None
) -> tuple[Any, ...]:
    try:
        r = scc.run(request, engine=engine, limits=limits, deletions=deletions)  # type: ignore[arg-type]
    except scc.CheckError as err:
        return ("error", err.to_dict())
    return ("report", r.result, r.work, r.reason_deletions, r.ignored_deletions)


def _agree(request: Any, deletions: str, limits: scc.Limits | None = None) -> tuple[Any, ...]:
    reference = _outcome(request, "reference", deletions, limits)
    if scc._engines.compiled_available():
        assert _outcome(request, "compiled", deletions, limits) == reference, request
    return reference


def _readings_relate(strict: tuple[Any, ...], lenient: tuple[Any, ...]) -> None:
    """No ignored delete: the same check.  Valid when strict: valid when lenient."""
    if strict[0] != "report" or lenient[0] != "report":
        return
    assert lenient[3] == ()  # no reason deletion is ever carried out
    if lenient[4] == ():
        assert lenient[1:4] == strict[1:4]
    if strict[1]["valid"]:
        assert lenient[1]["valid"]
        assert lenient[1]["steps_checked"] == strict[1]["steps_checked"]


@pytest.mark.parametrize("chunk", range(4))
def test_generated_requests_both_readings_near_the_cap(chunk: int) -> None:
    rng = random.Random(f"lenient-{chunk}")
    seen: collections.Counter[str] = collections.Counter()
    for request in proofgen.cases(f"lenient-{chunk}", 120):
        whole = {d: _agree(request, d) for d in READINGS}
        _readings_relate(whole["strict"], whole["lenient"])
        lenient = whole["lenient"]
        if lenient[0] == "report":
            seen["ignored" if lenient[4] else "none"] += 1
            seen[
                "only-lenient"
                if lenient[1]["valid"] and not whole["strict"][1]["valid"]
                else "same"
            ] += 1
            work = lenient[2]
            for cap in {work - 1, work, rng.randrange(work + 1)}:
                if cap >= 0:
                    _agree(request, "lenient", scc.Limits(max_propagation_work=cap))
    # The generator exercises the lenient rules, and they change verdicts.
    assert seen["ignored"] >= 20 and seen["only-lenient"] >= 3, seen


def _kernels() -> list[Any]:
    modules: list[Any] = [kernel_py]
    if scc._engines.compiled_available():
        import importlib

        modules.append(importlib.import_module("sat_claim_check._engines.kernel_c"))
    return modules


def _kernel_fed(
    module: Any, flat: tuple[Any, ...], cap: int, rng: random.Random
) -> tuple[Any, ...]:
    n, co, cl, kinds, so, sl = flat
    k = module.Kernel(n, co, cl, None, None, None, cap, True)
    if k.start() == _codes.STATUS_VALID:
        for a, b in _splits(len(kinds), rng):
            if k.feed(kinds[a:b], so[a : b + 1], sl)[0] != _codes.STATUS_VALID:
                break
            if rng.random() < 0.2:
                k._check_invariants()
                if hasattr(k, "_collect_now") and rng.random() < 0.3:
                    k._collect_now()
    return k.finish(), list(k.ignored_deletions), list(k.reason_deletions)


@pytest.mark.parametrize("chunk", range(3))
def test_kernels_fed_in_splits_agree_with_run(chunk: int) -> None:
    rng = random.Random(f"lenient-kernels-{chunk}")
    for request in proofgen.cases(f"lenient-kernels-{chunk}", 100):
        flat = proofgen.to_flat(request)
        ref = kernel_py.Kernel(*flat, BIG, True)
        want = (ref.run(), list(ref.ignored_deletions), list(ref.reason_deletions))
        assert want[2] == []
        for module in _kernels():
            assert _kernel_fed(module, flat, BIG, rng) == want, module
            capped = kernel_py.Kernel(*flat, max(0, want[0][3] - 1), True).run()
            got = _kernel_fed(module, flat, max(0, want[0][3] - 1), rng)[0]
            if capped[0] == _codes.STATUS_WORK_LIMIT:  # the compiled one stops sooner
                assert got[:3] == capped[:3]
            else:
                assert got == capped


@pytest.mark.parametrize("chunk", range(2))
def test_checker_in_random_splits_gives_run(engine: str, chunk: int) -> None:
    rng = random.Random(f"lenient-checker-{chunk}")
    for request in proofgen.cases(f"lenient-checker-{chunk}", 40):
        whole = _outcome(request, engine, "lenient")
        got = _fed(request, engine, rng)
        if whole[0] == "error":
            assert got == whole[1]
        else:
            assert (got.result, got.work, got.reason_deletions, got.ignored_deletions) == whole[1:]
        if whole[0] == "report" and whole[2] > 0:
            limits = scc.Limits(max_propagation_work=whole[2] - 1)
            assert (
                _fed(request, engine, rng, limits)
                == _outcome(request, engine, "lenient", limits)[1]
            )


# -- hypothesis: small arbitrary requests, both readings, small caps ----------------------


@small_requests
def test_arbitrary_small_requests_both_readings(
    clauses: list[list[int]], proof: list[dict[str, list[int]]], cap: int
) -> None:
    request = {"cnf": {"num_vars": 4, "clauses": clauses}, "claim": "unsat", "proof": proof}
    whole = {d: _agree(request, d) for d in READINGS}
    _readings_relate(whole["strict"], whole["lenient"])
    for d in READINGS:
        _agree(request, d, scc.Limits(max_propagation_work=cap))


# -- the long campaign ----------------------------------------------------------------------


@pytest.mark.fuzz
@pytest.mark.parametrize("chunk", range(8))
def test_campaign_both_readings(chunk: int) -> None:
    rng = random.Random(f"lenient-campaign-{chunk}")
    for request in proofgen.cases(f"lenient-campaign-{chunk}", 1500):
        whole = {d: _agree(request, d) for d in READINGS}
        _readings_relate(whole["strict"], whole["lenient"])
        for d in READINGS:
            if whole[d][0] == "report" and whole[d][2] > 0:
                work = whole[d][2]
                for cap in {work - 1, rng.randrange(work)}:
                    _agree(request, d, scc.Limits(max_propagation_work=cap))
