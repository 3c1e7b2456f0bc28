"""CaDiCaL's default proofs (binary DRUP), plain and compressed, against drat-trim.

    python benchmarks/solver_native.py --drat-trim PATH [--cadical PATH] [--corpus DIR]
        [--limit N]

For each CNF of the corpus (the contract tier's ``c*.cnf`` that have an unsat
proof, then the large tier's ``l*.cnf``; at most ``--limit`` of them), CaDiCaL
solves it with its default options, so it writes its proof in binary DRUP.
The proof is checked as it is, then compressed with xz and with gzip:

* drat-trim as a process on the binary proof (it tells binary by itself), in
  its default (backward) mode and with ``-f`` (forward);
* this checker, ``dimacs.run_files`` on the binary file, the ``.xz`` and the
  ``.gz`` (format and compression told by their first bytes), strict and
  lenient deletions, ``Limits.unlimited()``.

Every verdict must agree with drat-trim's; the script prints a table and exits 1
on a disagreement.  Without drat-trim or CaDiCaL it says so and exits 0.
"""

from __future__ import annotations

import argparse
import gzip
import lzma
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import sat_claim_check as scc
from sat_claim_check import dimacs

CORPUS = Path(
    os.environ.get(
        "SAT_CLAIM_CHECK_CORPUS", Path(__file__).resolve().parents[2] / "shared" / "corpus"
    )
)


def drat_trim(binary: str, cnf: Path, proof: Path, *flags: str) -> bool:
    out = subprocess.run(
        [binary, str(cnf), str(proof), *flags, "-t", "20000"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    return "s VERIFIED" in out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--drat-trim", dest="drat_trim", default=os.environ.get("DRAT_TRIM"))
    ap.add_argument("--cadical", default=shutil.which("cadical"))
    ap.add_argument("--corpus", type=Path, default=CORPUS)
    ap.add_argument("--limit", type=int, default=40)
    args = ap.parse_args(argv)
    if not args.drat_trim or not os.path.exists(args.drat_trim):
        print("no drat-trim: pass --drat-trim PATH (or DRAT_TRIM); nothing compared")
        return 0
    if not args.cadical:
        print("no cadical (Debian package 'cadical'): nothing compared")
        return 0
    cnfs = [p for p in sorted(args.corpus.glob("c*.cnf")) if p.with_suffix(".drup").exists()]
    cnfs = (cnfs + sorted(args.corpus.glob("l*.cnf")))[: args.limit]
    unlimited = scc.Limits.unlimited()
    rows, disagreements = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for cnf in cnfs:
            proof = Path(tmp, cnf.stem + ".drat")
            solved = subprocess.run(
                [args.cadical, "-q", str(cnf), str(proof)], capture_output=True, check=False
            )
            if solved.returncode != 20:  # not unsat (or gave up): no proof to check
                continue
            xz, gz = Path(tmp, proof.name + ".xz"), Path(tmp, proof.name + ".gz")
            data = proof.read_bytes()
            xz.write_bytes(lzma.compress(data))
            gz.write_bytes(gzip.compress(data))
            theirs = {
                "default": drat_trim(args.drat_trim, cnf, proof),
                "-f": drat_trim(args.drat_trim, cnf, proof, "-f"),
            }
            ours = {
                f"{path.suffix or '.drat'} {deletions}": dimacs.run_files(
                    cnf, path, limits=unlimited, deletions=deletions
                ).result["valid"]
                for path in (proof, xz, gz)
                for deletions in ("strict", "lenient")
            }
            agree = len({*theirs.values(), *ours.values()}) == 1
            disagreements += not agree
            rows.append(
                (cnf.stem, dimacs.is_binary_proof(data[:12]), len(data), theirs, ours, agree)
            )
    print(f"{len(rows)} CaDiCaL proofs (default options: binary DRUP); drat-trim {args.drat_trim}")
    print(
        "| instance | binary (told by its first bytes) | bytes | drat-trim default, -f | "
        "ours: binary, .xz, .gz x strict, lenient | agree |"
    )
    print("| --- | --- | ---: | --- | --- | --- |")
    for name, binary, size, theirs, ours, agree in rows:
        t = ", ".join("valid" if v else "not valid" for v in theirs.values())
        o = ", ".join(sorted({"valid" if v else "not valid" for v in ours.values()}))
        print(
            f"| {name} | {'yes' if binary else 'no'} | {size:,} | {t} | all {o} | "
            f"{'yes' if agree else 'NO'} |"
        )
    print(f"\n{len(rows) - disagreements} agree, {disagreements} disagree")
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
