"""One proof step of millions of literals, read in parts, against a build.

    python benchmarks/long_step.py [--millions 4 16 64] [--dir DIR] [--baseline SRC]

A proof read from a file (or a pipe, or gzip) is scanned a part at a time,
and a step may span many parts.  This writes, for each size, a proof of one
step of that many million literals ``1`` with no 0 at the end, and times
``python -m sat_claim_check verify CNF PROOF`` on it (exit 2: the step has
no terminating 0), with this build and, with ``--baseline SRC``, the build
whose package is in SRC (through PYTHONPATH).  The time should follow the
size: the scanner used to copy the open step again after every part, which
made it follow the square of the size.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import _run

CNF = b"p cnf 2 2\n1 2 0\n-1 0\n"


def write_proof(path: Path, millions: int) -> None:
    chunk = b"1 " * (1 << 20)
    with open(path, "wb") as fh:
        for _ in range(millions):
            fh.write(chunk)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--millions", type=int, nargs="+", default=[4, 16, 64])
    args, cnf, builds = _run.parsed(ap, "/tmp/long-step", CNF)
    print(_run.header(f"{'literals':>10}", builds))
    for m in args.millions:
        proof = args.dir / f"step{m}m.drup"
        write_proof(proof, m)
        times = [_run.timed(["verify", str(cnf), str(proof)], src, expect=2) for _, src in builds]
        print(_run.row(f"{m:>9}M", times), flush=True)
        proof.unlink()


if __name__ == "__main__":
    main()
