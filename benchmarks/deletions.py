"""Many deletions of clauses that stay in long lists, against a build.

    python benchmarks/deletions.py [--sizes 1 2 4 8] [--engine E] [--dir DIR] [--baseline SRC]

A deletion costs no work (docs/semantics.md, "Counting"), so no cap bounds
what it costs; it should cost about the same whatever the number of clauses
alive.  Each case
is a CNF and a proof made at each size of ``--sizes`` (a factor on 25,000
deletions), checked with ``python -m sat_claim_check verify --reading
strict`` by this build and, with ``--baseline SRC``, by the build whose
package is in SRC (through PYTHONPATH); wall seconds of each.  Doubling the
size should about double the time.

* ``copies``: the CNF holds N copies of ``1 2 3 0``, all in the watch lists
  of 1 and 2; the proof deletes them one by one (each time the newest, at the
  end of the lists);
* ``units``: N unit lemmas, each TRUE already (so none is a reason), deleted
  oldest first (each at the front of the unit list).

Both proofs end with the empty clause, which is not RUP (exit 1).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

import _run

BASE = 25_000


def copies(folder: Path, n: int) -> tuple[Path, Path]:
    cnf = folder / "copies.cnf"
    proof = folder / "copies.drup"
    cnf.write_bytes(b"p cnf 3 %d\n" % n + b"1 2 3 0\n" * n)
    proof.write_bytes(b"d 1 2 3 0\n" * n + b"0\n")
    return cnf, proof


def units(folder: Path, n: int) -> tuple[Path, Path]:
    cnf = folder / "units.cnf"
    proof = folder / "units.drup"
    implied = range(2, n + 2)  # each implied by the unit 1
    cnf.write_text(f"p cnf {n + 1} {n + 1}\n1 0\n" + "".join(f"-1 {v} 0\n" for v in implied))
    lemmas = "".join(f"{v} 0\n" for v in implied)
    deletions = "".join(f"d {v} 0\n" for v in implied)
    proof.write_text(lemmas + deletions + "0\n")
    return cnf, proof


CASES: dict[str, Callable[[Path, int], tuple[Path, Path]]] = {"copies": copies, "units": units}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1, 2, 4, 8])
    ap.add_argument("--cases", nargs="+", choices=sorted(CASES), default=list(CASES))
    ap.add_argument("--engine", choices=["compiled", "reference"], default="compiled")
    args, _, builds = _run.parsed(ap, "/tmp/deletions", b"")
    print(_run.header(f"{'case':>8} {'deletions':>10}", builds))
    for name in args.cases:
        for scale in args.sizes:
            n = BASE * scale
            cnf, proof = CASES[name](args.dir, n)
            command = ["verify", str(cnf), str(proof), "--reading", "strict"]
            command += ["--engine", args.engine]
            times = [_run.timed(command, src, expect=1) for _, src in builds]
            print(_run.row(f"{name:>8} {n:>10,}", times), flush=True)
            proof.unlink()
            cnf.unlink()


if __name__ == "__main__":
    main()
