"""Held-out contract-tier unsat requests: the corpus's kind, none of its requests.

    python benchmarks/heldout_requests.py --out DIR [--corpus DIR] [--families php,rand3]

Writes JSON requests (a CNF, ``"claim": "unsat"`` and a DRUP proof, compact
JSON as in the corpus) to DIR, with DIR/index.json describing each one. The
families and solvers are the corpus's (pigeonhole, random 3-SAT near the
threshold, Tseitin formulas of random 3- and 4-regular graphs, colouring of
random graphs, the mutilated chessboard, random 5- and 8-SAT; PySAT's solvers
and the CaDiCaL binary), at the corpus's or nearby sizes, with other seeds.
Pigeonhole and chessboard formulas are scrambled (variables renamed, signs
flipped, clauses shuffled) as the corpus's are; the others are written in the
order they are generated, as the corpus's are.

Each planned request tries seeds base, base+1, ... until the solver says unsat
and the request is accepted under the contract limits (``scc.run`` gives a
result, valid or not: the corpus keeps the proofs the strict reading refuses)
and its CNF is none of the corpus's (compared by hash when the corpus is
there). A proof is cut after its first empty clause, and ends with one. Fixed
seeds and deterministic solvers: the same command writes the same files.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _cnfgen

import sat_claim_check as scc

DEFAULT_CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus"
TRIES = 40
Formula = tuple[int, _cnfgen.Clauses]


def table(keys: str, rows: str) -> list[dict[str, int]]:
    """``table("n d", "12 3, 16 3")`` -> ``[{"n": 12, "d": 3}, {"n": 16, "d": 3}]``."""
    return [dict(zip(keys.split(), map(int, row.split()))) for row in rows.split(",")]


def rand3(ns: str) -> str:
    """n and m = 4.5 n (under 90 variables) or 4.4 n, as the corpus's sizes."""
    return ",".join(f"{n} {round((4.5 if int(n) < 90 else 4.4) * int(n))}" for n in ns.split())


# family: (sizes, solvers). Entry j of a family takes sizes[j] and
# solvers[(j + 1) % len(solvers)]: the corpus's solvers for that family in the
# corpus's order, shifted by one so that a size meets another solver.
PLAN: dict[str, tuple[list[dict[str, int]], str]] = {
    "php": (
        table("pigeons holes", "5 4, 5 4, 6 5, 6 5, 6 5, 6 5, 7 6, 7 6, 7 6, 7 6, 7 6, 7 6"),
        "glucose3 cadical-bin glucose4 cadical195 lingeling maplesat glucose42 cadical-bin "
        "maplecm cadical300 maplechrono glucose3",
    ),
    "rand3": (
        table("n m", rand3("55 65 70 80 85 95 95 105 105 110 115 115 120 122 125 128 130 132 135")),
        "glucose3 cadical103 glucose4 lingeling maplesat gluecard3 cadical153 glucose42 "
        "maplechrono cadical-bin glucose3 maplecm cadical195 gluecard4 cadical300 lingeling "
        "glucose4 cadical-bin",
    ),
    "tseitin": (
        table(
            "n d",
            "12 3, 16 3, 18 3, 20 3, 22 3, 24 3, 26 3, 28 3, 8 4, 9 4, 10 4, 11 4, 12 4, 12 4",
        ),
        "glucose3 cadical-bin lingeling maplechrono cadical195 glucose42 cadical-bin maplesat "
        "maplecm cadical153 glucose4 lingeling cadical300",
    ),
    "colour": (
        table(
            "n m k",
            "70 170 3, 90 215 3, 120 290 3, 160 385 3, 180 430 3, 220 525 3, 240 570 3, "
            "270 640 3, 280 665 3, 64 310 4, 70 340 4, 90 430 4",
        ),
        "glucose3 cadical-bin lingeling cadical-bin glucose4 maplecm cadical195 maplechrono "
        "glucose42 cadical300 cadical103",
    ),
    "mchess": (
        table("n", "4, 5, 5, 6, 7, 8, 8, 7, 6"),
        "glucose3 cadical-bin lingeling cadical195 glucose4 cadical153 glucose42 lingeling "
        "maplechrono",
    ),
    "randk": (
        table("n m k", "29 780 5, 31 830 5, 16 4000 8, 15 3800 8"),
        "glucose3 cadical195 lingeling",
    ),
}
BASE_SEED = {"php": 20000, "rand3": 22000, "tseitin": 24000, "colour": 26000}
BASE_SEED |= {"mchess": 28000, "randk": 30000}


def formula(family: str, p: dict[str, int], seed: int) -> Formula:
    rng = random.Random(f"heldout-{family}-{sorted(p.items())}-{seed}")
    if family == "php":
        num_vars, clauses = _cnfgen.pigeonhole(p["holes"])
        return num_vars, _cnfgen.scramble(num_vars, clauses, rng)
    if family == "mchess":
        num_vars, clauses = _cnfgen.mutilated_chessboard(p["n"])
        return num_vars, _cnfgen.scramble(num_vars, clauses, rng)
    if family == "rand3":
        return _cnfgen.random_ksat(p["n"], p["m"], 3, rng)
    if family == "randk":
        return _cnfgen.random_ksat(p["n"], p["m"], p["k"], rng)
    if family == "tseitin":
        return _cnfgen.tseitin(p["n"], p["d"], rng)
    return _cnfgen.colouring(p["n"], p["m"], p["k"], rng)


def solve(solver: str, f: Formula, tmp: Path) -> list[str] | None:
    """The DRUP proof's lines when the solver says unsat, else None."""
    if solver == "cadical-bin":
        cnf, proof = tmp / "f.cnf", tmp / "f.drup"
        _cnfgen.write_dimacs(cnf, *f)
        done = subprocess.run(
            ["cadical", "-q", "--binary=false", str(cnf), str(proof)],
            capture_output=True,
            check=False,
        )
        return proof.read_text().splitlines() if done.returncode == 20 else None
    from pysat.solvers import Solver

    with Solver(name=solver, bootstrap_with=f[1], with_proof=True) as s:
        return None if s.solve() else list(s.get_proof())


def request(f: Formula, lines: list[str]) -> dict[str, Any]:
    steps: list[dict[str, list[int]]] = []
    for line in lines:
        tokens = line.split()
        if not tokens:
            continue
        kind = "delete" if tokens[0] == "d" else "add"
        lits = [int(t) for t in tokens[kind == "delete" :] if t != "0"]
        steps.append({kind: lits})
        if kind == "add" and not lits:
            break
    else:
        steps.append({"add": []})
    return {"cnf": {"num_vars": f[0], "clauses": f[1]}, "claim": "unsat", "proof": steps}


def cnf_hash(cnf: Any) -> str:
    return hashlib.sha256(json.dumps(cnf, separators=(",", ":")).encode()).hexdigest()


def corpus_hashes(corpus: Path) -> set[str] | None:
    """The hashes of every corpus request's CNF; None without a corpus."""
    if not (corpus / "index.json").exists():
        return None
    out = set()
    for e in json.loads((corpus / "index.json").read_text())["instances"]:
        path = corpus / e["files"]["json"]
        data = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
        out.add(cnf_hash(json.loads(data)["cnf"]))
    return out


def pysat_version() -> str:
    import pysat

    return str(pysat.__version__)


def cadical_version() -> str:
    return subprocess.run(["cadical", "--version"], capture_output=True, text=True).stdout.strip()


def make_one(
    j: int, family: str, p: dict[str, int], solver: str, seen: set[str], tmp: Path
) -> tuple[dict[str, Any], bytes] | None:
    """The index entry and JSON text of entry j of a family, or None."""
    tag = "-".join(f"{k}{v}" for k, v in p.items())
    for seed in range(BASE_SEED[family] + 100 * j, BASE_SEED[family] + 100 * j + TRIES):
        f = formula(family, p, seed)
        digest = cnf_hash({"num_vars": f[0], "clauses": f[1]})
        if digest in seen:
            continue
        lines = solve(solver, f, tmp)
        if lines is None:
            continue
        req = request(f, lines)
        try:
            report = scc.run(req)
        except scc.CheckError:
            continue  # over a contract limit
        seen.add(digest)
        steps = req["proof"]
        name = f"h{j:02d}-{family}-{tag}-{solver}-s{seed}"
        entry = {
            "name": name,
            "tier": "contract",
            "family": family,
            "params": p,
            "seed": seed,
            "solver": solver,
            "expected_claim": "unsat",
            "vars": f[0],
            "clauses": len(f[1]),
            "cnf_sha256": digest,
            "proof_steps": len(steps),
            "deletes": sum("delete" in s for s in steps),
            "proof_literals": sum(len(lits) for s in steps for lits in s.values()),
            "valid": report.result["valid"],
            "reason": report.result["reason"],
            "work": report.work,
            "files": {"json": f"{name}.json"},
        }
        return entry, json.dumps(req, separators=(",", ":")).encode()
    return None


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument(
        "--corpus",
        type=Path,
        default=Path(os.environ.get("SAT_CLAIM_CHECK_CORPUS", DEFAULT_CORPUS)),
    )
    parser.add_argument("--families", default=",".join(PLAN), help="comma-separated")
    args = parser.parse_args(argv)
    corpus = corpus_hashes(args.corpus)
    print(f"corpus: {len(corpus)} CNFs to avoid" if corpus is not None else "corpus: none found")
    seen = set(corpus or ())
    args.out.mkdir(parents=True, exist_ok=True)
    instances, missing = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for family in args.families.split(","):
            sizes, solvers = PLAN[family][0], PLAN[family][1].split()
            for j, p in enumerate(sizes):
                solver = solvers[(j + 1) % len(solvers)]
                start = time.perf_counter()
                made = make_one(j, family, p, solver, seen, Path(tmp))
                if made is None:
                    missing.append(f"{family} {p} {solver}")
                    print(f"  -- {family} {p} {solver}: nothing accepted in {TRIES} seeds")
                    continue
                entry, text = made
                (args.out / entry["files"]["json"]).write_bytes(text)
                instances.append(entry)
                print(
                    f"  {entry['name']}: {entry['proof_steps']} steps, valid {entry['valid']}, "
                    f"work {entry['work']} ({time.perf_counter() - start:.2f} s)"
                )
    index = {
        "generator": "benchmarks/heldout_requests.py",
        "solvers": {"python-sat": pysat_version(), "cadical-bin": cadical_version()},
        "corpus_checked": corpus is not None,
        "instances": instances,
    }
    (args.out / "index.json").write_text(json.dumps(index, indent=1) + "\n")
    print(f"{len(instances)} requests in {args.out}; {len(missing)} planned ones not made")
    return 0


if __name__ == "__main__":
    sys.exit(main())
