"""The drat-trim reading against drat-trim itself (``drat-trim CNF PROOF -f``).

Random small CNFs and proofs of RUP lemmas (resolvents, shortened clauses,
short random clauses, each kept only when it is RUP where it stands) mixed
with deletions (of live clauses, units and reasons among them, and of clauses
that are not there), some ending with the empty clause, most not, some going
on after the point where the clauses propagate to a conflict.  The verdict of
``reading="drat-trim"`` must be drat-trim's forward mode's (``s VERIFIED`` or
not), on both engines.  Skipped when drat-trim is not on the PATH; a longer
campaign runs with ``-m fuzz``.
"""

from __future__ import annotations

import random
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

import sat_claim_check as scc
from sat_claim_check._core import codes as _codes
from sat_claim_check._engines import kernel_py

DRAT_TRIM = shutil.which("drat-trim")
pytestmark = pytest.mark.skipif(DRAT_TRIM is None, reason="drat-trim is not on the PATH")


def _clause(rng: random.Random, n: int, width: int) -> list[int]:
    chosen = rng.sample(range(1, n + 1), min(width, n))
    return [v if rng.random() < 0.5 else -v for v in chosen]


def _candidate(rng: random.Random, n: int, live: list[list[int]]) -> list[int]:
    """A lemma to try: a resolvent of two live clauses, a live clause shortened,
    or a short random clause."""
    roll = rng.random()
    if live and roll < 0.45:
        a, b = rng.choice(live), rng.choice(live)
        pivots = [lit for lit in a if -lit in b]
        if pivots:
            p = rng.choice(pivots)
            merged = [lit for lit in a if lit != p] + [lit for lit in b if lit != -p]
            return list(dict.fromkeys(merged))
    if live and roll < 0.75:
        c = rng.choice(live)
        return rng.sample(c, max(0, len(c) - 1))
    return _clause(rng, n, rng.choice((1, 1, 2, 2, 3)))


def random_case(rng: random.Random) -> dict[str, Any]:
    """A request: a random CNF and a proof of RUP lemmas and deletions, built on
    a lenient reference kernel (which says where each lemma is RUP)."""
    n = rng.randint(3, 7)
    # Few units, so that the CNF alone seldom ends the check; now and then an
    # empty clause.
    widths = rng.choices((0, 1, 2, 3), weights=(1, 2, 30, 67), k=rng.randint(2 * n, 6 * n))
    clauses = [_clause(rng, n, w) for w in widths]
    offsets, lits = [0], []
    for c in clauses:
        lits.extend(c)
        offsets.append(len(lits))
    k = kernel_py.Kernel(n, offsets, lits, None, None, None, 10**12, _codes.READING_LENIENT)
    k.start()
    proof: list[dict[str, list[int]]] = []
    for _ in range(rng.randint(0, 24)):
        live = [list(c) for c in k.lits.values()]
        if rng.random() < 0.3:
            if live and rng.random() < 0.8:
                target = rng.choice(live)
                rng.shuffle(target)
            else:
                target = _clause(rng, n, rng.choice((1, 2, 3)))
            step = {"delete": target}
        else:
            for _ in range(20):
                lemma = _candidate(rng, n, live)
                distinct = kernel_py.distinct_literals(lemma)
                if kernel_py.is_tautology(distinct):
                    continue
                if k.is_rup(distinct, False):
                    break
            else:
                break
            step = {"add": lemma}
        ((key, given),) = step.items()
        kind = _codes.STEP_ADD if key == "add" else _codes.STEP_DELETE
        assert k.feed_step(kind, given, 1, 10**6) == _codes.STATUS_VALID
        proof.append(step)
        if k.inconsistent() and rng.random() < 0.4:
            break  # the proof ends at its conflict (else: steps after it)
    if k.inconsistent() and rng.random() < 0.3:
        proof.append({"add": []})  # as a proof usually ends
    return {"cnf": {"num_vars": n, "clauses": clauses}, "claim": "unsat", "proof": proof}


def _dimacs(request: dict[str, Any]) -> tuple[str, str]:
    cnf = request["cnf"]
    head = f"p cnf {cnf['num_vars']} {len(cnf['clauses'])}\n"
    text = head + "".join(" ".join(map(str, [*c, 0])) + "\n" for c in cnf["clauses"])
    lines = []
    for step in request["proof"]:
        ((key, given),) = step.items()
        lines.append(("d " if key == "delete" else "") + " ".join(map(str, [*given, 0])))
    return text, "".join(line + "\n" for line in lines)


def drat_trim_verifies(request: dict[str, Any], where: Path) -> bool:
    """drat-trim's forward-mode verdict: whether it prints ``s VERIFIED``."""
    assert DRAT_TRIM is not None
    cnf_text, proof_text = _dimacs(request)
    cnf, proof = where / "f.cnf", where / "f.drup"
    cnf.write_text(cnf_text, encoding="ascii")
    proof.write_text(proof_text, encoding="ascii")
    out = subprocess.run(
        [DRAT_TRIM, str(cnf), str(proof), "-f", "-w"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    ).stdout
    said = [line for line in out.splitlines() if line.startswith("s ")]
    assert said, out
    return said[-1] == "s VERIFIED"


def _compare(seed: str, count: int, tmp_path: Path) -> None:
    rng = random.Random(seed)
    cases = [random_case(rng) for _ in range(count)]
    dirs = []
    for i in range(count):
        d = tmp_path / str(i)
        d.mkdir()
        dirs.append(d)
    with ThreadPoolExecutor(max_workers=4) as pool:
        theirs = list(pool.map(drat_trim_verifies, cases, dirs))
    engines = ["reference"] + (["compiled"] if scc._engines.compiled_available() else [])
    seen = {True: 0, False: 0, "mid-proof": 0}
    for request, verified in zip(cases, theirs):
        for engine in engines:
            result = scc.check(request, engine=engine, reading="drat-trim")
            assert result["valid"] == verified, (engine, result, request)
        seen[verified] += 1
        seen["mid-proof"] += verified and result["steps_checked"] > 0
    # Both verdicts occur, and checks that end at a step (not the CNF alone).
    assert seen[True] >= count // 10 and seen[False] >= count // 10, seen
    assert seen["mid-proof"] >= count // 10, seen


def test_random_proofs_agree_with_drat_trim(tmp_path: Path) -> None:
    _compare("drat-trim-binary", 60, tmp_path)


@pytest.mark.fuzz
@pytest.mark.parametrize("chunk", range(4))
def test_random_proofs_agree_with_drat_trim_campaign(tmp_path: Path, chunk: int) -> None:
    _compare(f"drat-trim-binary-campaign-{chunk}", 400, tmp_path)
