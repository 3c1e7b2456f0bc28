"""Equal literal sets, the table of live sets and the order of ids: the twins agree.

The compiled kernel keeps no clause ids: of two live clauses the one further
on in the arena has the higher id (its collector keeps arena order), and its
table holds, per live literal set, the clause with the highest id, found
again by comparing literals.  These proofs lean on that: many clauses with
one literal set (a CNF's duplicates, lemmas repeated, permuted, with repeated
literals), deletes of each copy, weakenings that keep the live sets growing
so that the table grows mid-proof (start() sizes it for the CNF only), units
and tautologies among them.  Both kernels run them under every reading, whole,
fed in random chunks and single steps (feed_step), and replayed in segments;
the compiled kernel's invariants are checked after every chunk and it collects
at random boundaries.  Outcomes, reason and ignored deletions and LRAT bytes
(whose deletion lines name the id removed) must be the same.
"""

from __future__ import annotations

import importlib
import io
import random
from typing import Any

import proofgen
import pytest
from _lrat import check_lrat

from sat_claim_check._core import codes
from sat_claim_check._engines import kernel_py as ref

BIG = 10**12
READINGS = (codes.READING_STRICT, codes.READING_LENIENT, codes.READING_DRAT_TRIM)
Outcome = tuple[Any, ...]

pytestmark = pytest.mark.compiled


@pytest.fixture(scope="module")
def comp() -> Any:
    return importlib.import_module("sat_claim_check._engines.kernel_c")


def _clause(rng: random.Random, n: int, width: int) -> list[int]:
    return [v if rng.random() < 0.5 else -v for v in rng.sample(range(1, n + 1), min(n, width))]


def _noisy(rng: random.Random, clause: list[int]) -> list[int]:
    """The same literal set: permuted, some literals repeated."""
    c = list(clause)
    rng.shuffle(c)
    for _ in range(rng.choice((0, 0, 1, 2))):
        if c:
            c.insert(rng.randrange(len(c) + 1), rng.choice(c))
    return c


def _cnf(rng: random.Random, n: int) -> list[list[int]]:
    clauses: list[list[int]] = []
    for _ in range(rng.randint(0, rng.choice((3, 10, 40, 200)))):
        r = rng.random()
        if r < 0.05:
            clauses.append([])
        elif r < 0.12:
            v = rng.randint(1, n)
            clauses.append([*_clause(rng, n, rng.randint(0, 3)), v, -v])
        elif r < 0.22 and clauses:
            clauses.append(_noisy(rng, rng.choice(clauses)))
        elif r < 0.3:
            clauses.append(_clause(rng, n, 1))
        else:
            clauses.append(_noisy(rng, _clause(rng, n, rng.randint(2, 5))))
    return clauses


def request(rng: random.Random) -> dict[str, Any]:
    """Mostly valid steps (RUP by subsumption, or copies of live clauses, or
    deletes of live ones); a few that fail, in some proofs."""
    n = rng.randint(2, rng.choice((4, 8, 14, 30)))
    clauses = _cnf(rng, n)
    live = [list(dict.fromkeys(c)) for c in clauses]
    proof: list[dict[str, list[int]]] = []
    steps = rng.randint(0, rng.choice((10, 60, 400, 1500)))
    copies, deletes = rng.choice((0.1, 0.3, 0.5)), rng.choice((0.2, 0.4, 0.55))
    noise = rng.choice((0.0, 0.0, 3.0 / max(steps, 1)))
    for _ in range(steps):
        r = rng.random()
        if rng.random() < noise:
            if r < 0.5:
                proof.append({"delete": _clause(rng, n, rng.randint(0, 3))})
            elif r < 0.75:
                proof.append({"add": _clause(rng, n, rng.randint(1, 3))})
            else:
                proof.append({"add": [rng.randint(1, n), n + 1]})
            continue
        r *= 0.96
        if r < 0.35 and live:  # a weakening of a live clause
            c = list(dict.fromkeys(rng.choice(live) + _clause(rng, n, rng.randint(0, 3))))
            proof.append({"add": _noisy(rng, c)})
            live.append(c)
        elif r < 0.35 + copies and live:
            c = rng.choice(live)
            proof.append({"add": _noisy(rng, c)})
            live.append(c)
        elif r < 0.35 + copies + deletes and live:
            proof.append({"delete": _noisy(rng, live.pop(rng.randrange(len(live))))})
        elif r < 0.96:
            v = rng.randint(1, n)
            c = list(dict.fromkeys([v, -v, *_clause(rng, n, rng.randint(0, 2))]))
            proof.append({"add": c})
            live.append(c)
        else:
            proof.append({"add": []})
            live.append([])
    return {"cnf": {"num_vars": n, "clauses": clauses}, "claim": "unsat", "proof": proof}


def _outcome(k: Any, out: io.BytesIO | None, result: Any) -> Outcome:
    data = out.getvalue() if out is not None else None
    return result, list(k.reason_deletions), list(k.ignored_deletions), data


def whole(module: Any, flat: Any, reading: int, lrat: bool, binary: bool, cap: int) -> Outcome:
    out = io.BytesIO() if lrat else None
    k = module.Kernel(*flat, cap, reading, out, binary)
    return _outcome(k, out, k.run())


def fed(
    module: Any, flat: Any, reading: int, lrat: bool, binary: bool, rng: random.Random
) -> Outcome:
    """Chunks and single steps (feed_step); the compiled kernel checked after each
    and collected at random."""
    n, co, cl, kinds, so, sl = flat
    out = io.BytesIO() if lrat else None
    k = module.Kernel(n, co, cl, None, None, None, BIG, reading, lrat=out, lrat_binary=binary)
    checked = module is not ref
    status = k.start()
    a = 0
    while status == codes.STATUS_VALID and a < len(kinds):
        if checked:
            k._check_invariants()
            if rng.random() < 0.3:
                k._collect_now()
                k._check_invariants()
        if kinds[a] in (codes.STEP_ADD, codes.STEP_DELETE) and rng.random() < 0.5:
            status = k.feed_step(int(kinds[a]), list(sl[so[a] : so[a + 1]]), 1, 10**6)
            a += 1
        else:
            b = min(len(kinds), a + rng.choice((1, 2, 5, 17, 100)))
            status = k.feed(kinds[a:b], so[a : b + 1], sl)[0]
            a = b
    if checked and status == codes.STATUS_VALID:
        k._check_invariants()
    return _outcome(k, out, k.finish())


def replayed(module: Any, flat: Any, reading: int, plan: list[tuple[str, int]]) -> Outcome:
    """Segments replayed ("r") or checked ("f"), in the order of ``plan``."""
    n, co, cl, kinds, so, sl = flat
    k = module.Kernel(n, co, cl, None, None, None, BIG, reading)
    log: list[Any] = [k.start()]
    a = 0
    for how, b in plan if log[0] == codes.STATUS_VALID else ():
        call = k.replay if how == "r" else k.feed
        log.append(call(kinds[a:b], so[a : b + 1], sl))
        if module is not ref and log[-1][0] == codes.STATUS_VALID:
            k._check_invariants()
            k._collect_now()
            k._check_invariants()
        a = b
        if log[-1][0] != codes.STATUS_VALID:
            break
    return _outcome(k, None, (log, k.finish()))


def check_one(comp: Any, seed: int) -> int:
    """One generated request, every way; 1 when its LRAT was checked valid."""
    rng = random.Random(seed)
    req = request(rng) if rng.random() < 0.8 else proofgen.case(rng)
    try:
        flat = proofgen.to_flat(req)
    except ValueError:
        return 0  # a CNF literal out of range: the validator's case
    reading, lrat, binary = rng.choice(READINGS), rng.random() < 0.6, rng.random() < 0.5
    want = whole(ref, flat, reading, lrat, binary, BIG)
    assert whole(comp, flat, reading, lrat, binary, BIG) == want, seed
    assert fed(comp, flat, reading, lrat, binary, random.Random(seed)) == fed(
        ref, flat, reading, lrat, binary, random.Random(seed)
    ), seed
    work = want[0][3]
    cap = rng.choice((max(0, work - 1), work, rng.randint(0, work + 1)))
    capped, got = (
        whole(ref, flat, reading, lrat, binary, cap),
        whole(comp, flat, reading, lrat, binary, cap),
    )
    if capped[0][0] == codes.STATUS_WORK_LIMIT:  # the compiled kernel stops inside the step
        assert (got[0][:3], got[1:]) == (capped[0][:3], capped[1:]), seed
    else:
        assert got == capped, seed
    steps = len(flat[3])
    cuts = sorted(rng.sample(range(steps + 1), min(steps + 1, rng.randint(0, 5))))
    plan = [(rng.choice("rrf"), b) for b in [*cuts, steps]]
    assert replayed(comp, flat, reading, plan) == replayed(ref, flat, reading, plan), seed
    if lrat and want[0][0] == codes.STATUS_VALID:
        check_lrat(req["cnf"]["clauses"], want[3])
        return 1
    return 0


@pytest.mark.parametrize("chunk", range(4))
def test_the_twins_agree_on_equal_literal_sets(comp: Any, chunk: int) -> None:
    valid = sum(check_one(comp, 1000 * chunk + i) for i in range(150))
    assert valid > 10  # valid verdicts with an LRAT are among them


def test_the_table_grows_mid_proof(comp: Any) -> None:
    """The generator reaches what the cases are for: the table of live sets,
    sized by start() for the CNF, grows during feeds."""
    grown = 0
    for seed in range(200):
        rng = random.Random(seed)
        flat = proofgen.to_flat(request(rng))
        n, co, cl, kinds, so, sl = flat
        k = comp.Kernel(n, co, cl, None, None, None, BIG, codes.READING_LENIENT)
        if k.start() != codes.STATUS_VALID:
            continue
        before = k._stats()["table_slots"]
        if k.feed(kinds, so, sl)[0] == codes.STATUS_VALID:
            grown += k._stats()["table_slots"] > before
            k._check_invariants()
    assert grown >= 5


@pytest.mark.fuzz
@pytest.mark.parametrize("chunk", range(10))
def test_equal_literal_sets_campaign(comp: Any, chunk: int) -> None:
    """pytest -m fuzz: 10 x 2000 generated requests."""
    for i in range(2000):
        check_one(comp, 100_000 + 2000 * chunk + i)


# -- the table's hash is seeded: no proof can pile its sets into one run ------------------

MASK64 = (1 << 64) - 1


def _mix64(x: int) -> int:
    """csrc/litset.h's scc_mix64."""
    x ^= x >> 30
    x = (x * 0xBF58476D1CE4E5B9) & MASK64
    x ^= x >> 27
    x = (x * 0x94D049BB133111EB) & MASK64
    return x ^ (x >> 31)


def _set_hash(clause: list[int], seed: int) -> int:
    """csrc/litset.h's hash of a clause's literal set (encoded: 2v, 2v + 1 for -v)."""
    total = sum(_mix64((2 * abs(x) + (x < 0) + seed) & MASK64) for x in clause) & MASK64
    return _mix64(total ^ ((len(clause) * 0xD6E8FEB86659FD93) & MASK64))


def _colliding(seed: int, slots: int, count: int, n: int) -> list[list[int]]:
    """``count`` two-literal clauses over 1..n whose set hashes under ``seed``
    share their low bits: one home slot in a table of ``slots``."""
    found = []
    for a in range(1, n + 1):
        for b in range(a + 1, n + 1):
            if _set_hash([a, b], seed) & (slots - 1) == 0:
                found.append([a, b])
                if len(found) == count:
                    return found
    raise AssertionError("too few")


def test_a_known_seed_lets_sets_share_a_run_and_the_drawn_one_does_not(comp: Any) -> None:
    """With the seed known, 120 clauses can be made to share one home slot:
    every lookup then walks a run of 120 (deletes cost it, and the work counter
    sees none of it).  The seed drawn for the process scatters the same sets."""
    known = 0x9E3779B97F4A7C15  # the constant the hash used before it had a seed
    slots = 512  # start() sizes the table for 120 clauses: 2 * (120 + 64), up to a power of 2
    clauses = _colliding(known, slots, 120, 600)
    flat = proofgen.to_flat(
        {"cnf": {"num_vars": 600, "clauses": clauses}, "claim": "unsat", "proof": []}
    )
    n, co, cl = flat[:3]
    drawn = comp._set_set_seed(known)
    try:
        k = comp.Kernel(n, co, cl, None, None, None, BIG)
        k.start()
        stats = k._stats()
        assert stats["table_slots"] == slots
        assert stats["longest_run"] >= 120
    finally:
        comp._set_set_seed(drawn)
    assert drawn != known
    k = comp.Kernel(n, co, cl, None, None, None, BIG)
    k.start()
    k._check_invariants()
    assert k._stats()["longest_run"] < 30
