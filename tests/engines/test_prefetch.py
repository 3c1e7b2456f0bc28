"""The compiled kernel's clause prefetch changes nothing but time.

_propagate prefetches the clause a few watch-list entries ahead once the
arena passes a threshold (kernel_c.PREFETCH_ARENA entries).  It is a hint
only: the run() tuple (work included) and the reason deletions must equal
the reference kernel's with the prefetching loop on, on generated proofs
(the threshold lowered to 0) and on one proof whose arena passes the
default threshold.
"""

import importlib
import random
from collections.abc import Iterator
from types import ModuleType

import proofgen
import pytest

from sat_claim_check._core import codes
from sat_claim_check._engines import kernel_py as ref

pytestmark = pytest.mark.compiled

BIG = 10**12  # a cap no case reaches


@pytest.fixture(scope="module")
def comp() -> ModuleType:
    """The compiled module; a missing extension is an error, not a skip."""
    return importlib.import_module("sat_claim_check._engines.kernel_c")


@pytest.fixture
def prefetch_always(comp: ModuleType) -> Iterator[None]:
    before = comp._set_prefetch_arena(0)
    try:
        yield
    finally:
        comp._set_prefetch_arena(before)


def assert_agree(comp: ModuleType, flat: tuple, reading: int, cap: int = BIG) -> int:
    kr = ref.Kernel(*flat, cap, reading)
    kc = comp.Kernel(*flat, cap, reading)
    r, c = kr.run(), kc.run()
    if r[0] == codes.STATUS_WORK_LIMIT:  # the compiled kernel may stop inside the step
        assert c[:3] == r[:3]
        assert cap < c[3] <= r[3]
    else:
        assert c == r
    assert list(kc.reason_deletions) == list(kr.reason_deletions)
    assert list(kc.ignored_deletions) == list(kr.ignored_deletions)
    return int(r[3])


@pytest.mark.parametrize("reading", [codes.READING_STRICT, codes.READING_DRAT_TRIM])
def test_generated_proofs_agree_with_the_prefetch_on(comp, prefetch_always, reading):
    rng = random.Random(f"prefetch-{reading}")
    for request in proofgen.cases(f"prefetch-{reading}", 150):
        flat = proofgen.to_flat(request)
        work = assert_agree(comp, flat, reading)
        if work > 1:
            assert_agree(comp, flat, reading, rng.randrange(work))


def test_a_proof_past_the_default_threshold_agrees(comp):
    # 2,600 clauses of 24 literals over 60 variables: 2 + 24 arena entries
    # each, past the default threshold from the CNF on.  Each lemma is a CNF
    # clause and one more literal (RUP: its negation falsifies the clause),
    # then the clause is deleted; a propagation over long watch lists each.
    rng = random.Random("prefetch-large")
    n = 60
    clauses = [
        [v if rng.random() < 0.5 else -v for v in rng.sample(range(1, n + 1), 24)]
        for _ in range(2600)
    ]
    assert 26 * len(clauses) > comp.PREFETCH_ARENA
    proof: list[dict[str, list[int]]] = []
    for clause in rng.sample(clauses, 120):
        extra = next(v for v in range(1, n + 1) if v not in clause and -v not in clause)
        proof.append({"add": [*clause, extra]})
        proof.append({"delete": clause})
    flat = proofgen.to_flat(
        {"cnf": {"num_vars": n, "clauses": clauses}, "claim": "unsat", "proof": proof}
    )
    for reading in (codes.READING_STRICT, codes.READING_DRAT_TRIM):
        work = assert_agree(comp, flat, reading)
        assert work > 10 * len(proof)  # the propagations ran
        assert_agree(comp, flat, reading, work // 2)
