"""Literal sets made to share one run of the compiled kernel's table, against a build.

    python benchmarks/hash_flood.py [--clauses N] [--dir DIR] [--baseline SRC]

Deletes find their clause by its literal set, in a hash table with linear
probing.  The hash used to be one anyone can compute (csrc/litset.h with a
fixed constant, 0x9e3779b97f4a7c15, where the seed is now): this script
makes N two-literal clauses whose sets, under that constant, all have their
home in the first sixteenth of the table start() sizes for N clauses, so
they fill one run of about N slots, and a proof that deletes them one by
one.  Each delete then walks the run (and moving the run back after it
walks it again), time the work counter does not see: neither the cap nor a
deadline nor Ctrl-C, which are looked at as work is counted, stops it.
With the seed drawn at random per process, the same sets scatter.

Runs ``python -m sat_claim_check verify CNF PROOF --reading strict`` (the
proof ends without the empty clause: exit 1, after every delete) with this
build and, with ``--baseline SRC``, the build whose package is in SRC
(through PYTHONPATH), and prints the wall time of each.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import _run

MASK64 = (1 << 64) - 1
FIXED = 0x9E3779B97F4A7C15  # the hash's constant before it had a seed


def _mix64(x: int) -> int:
    x ^= x >> 30
    x = (x * 0xBF58476D1CE4E5B9) & MASK64
    x ^= x >> 27
    x = (x * 0x94D049BB133111EB) & MASK64
    return x ^ (x >> 31)


def _home(a: int, b: int, slots: int) -> int:
    """The home slot of the set {a, b} (positive literals) under the fixed constant."""
    total = (_mix64((2 * a + FIXED) & MASK64) + _mix64((2 * b + FIXED) & MASK64)) & MASK64
    return _mix64(total ^ ((2 * 0xD6E8FEB86659FD93) & MASK64)) & (slots - 1)


def make(where: Path, count: int) -> tuple[Path, Path]:
    slots = 16
    while slots < 2 * (count + 64):  # start()'s table for a CNF of count clauses
        slots *= 2
    cnf, proof = where / f"flood-{count}.cnf", where / f"flood-{count}.drup"
    if cnf.exists() and proof.exists():
        return cnf, proof
    found: list[tuple[int, int]] = []
    a = 1
    while len(found) < count:
        a += 1
        for b in range(1, a):
            if _home(b, a, slots) < slots // 16:
                found.append((b, a))
                if len(found) == count:
                    break
    n = max(b for _, b in found)
    where.mkdir(parents=True, exist_ok=True)
    cnf.write_text(f"p cnf {n} {count}\n" + "".join(f"{x} {y} 0\n" for x, y in found))
    proof.write_text("".join(f"d {x} {y} 0\n" for x, y in found))
    return cnf, proof


def timed(cnf: Path, proof: Path, pythonpath: str | None) -> float:
    # The proof ends without the empty clause: exit 1, after every delete.
    args = ["verify", str(cnf), str(proof), "--reading", "strict"]
    return _run.timed(args, pythonpath, expect=1, timeout=3600)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clauses", type=int, default=30000)
    parser.add_argument("--dir", type=Path, default=Path("/tmp/hash-flood"))
    parser.add_argument("--baseline", help="src of another build (its package, compiled)")
    args = parser.parse_args()
    start = time.perf_counter()
    cnf, proof = make(args.dir, args.clauses)
    made = time.perf_counter() - start
    print(f"{args.clauses} clauses in one run of the table: {cnf} ({made:.1f} s)")
    runs = [("this build", None)]
    if args.baseline:
        runs.append(("baseline", args.baseline))
    for name, path in runs:
        print(f"{name}: verify {timed(cnf, proof, path):.2f} s", flush=True)


if __name__ == "__main__":
    main()
