"""Hostile files read in parts, against a build: time follows the size, or not.

    python benchmarks/hostile_reading.py [--sizes 1 2 4] [--pipe [PIECE]] [--dir DIR]
        [--baseline SRC]

Each case is a file whose reading once cost time in the square of one of its
lengths (a line, a step, or a run of tiny compressed members), made at each
size of ``--sizes`` (a factor on the case's base size) and checked with
``python -m sat_claim_check verify`` by this build and, with ``--baseline
SRC``, by the build whose package is in SRC (through PYTHONPATH); wall
seconds of each.  Doubling the size should about double the time.  With
``--pipe``, the case's file is not named but written into ``verify``'s
standard input (``-``) through a pipe, PIECE bytes a write (default 65536),
as a solver writes: the parts read are then what the writer wrote.

* ``comments``: gzip members of one comment line each, then the empty
  clause (the leading comments were walked again at every read);
* ``members``: gzip members of two steps each (every member was a part of
  its own, with a scan and a hand-over between threads);
* ``frat``: one FRAT step of many literals (its line was joined again at
  every part, and split into an object a word);
* ``cnf-line``: a sat claim whose ``p cnf`` line is padded with spaces (the
  bytes waiting for the line's end were searched again at every part).

(``long_step.py`` times one DRUP step of millions of literals.)
"""

from __future__ import annotations

import argparse
import gzip
from collections.abc import Callable
from pathlib import Path

import _run

CNF = b"p cnf 2 2\n1 2 0\n-1 0\n"  # satisfiable: the empty clause is not RUP


def comments(path: Path, scale: int) -> tuple[list[str], int]:
    member = gzip.compress(b"c\n")
    path.write_bytes(member * (20_000 * scale) + gzip.compress(b"0\n"))
    return ["verify", "{cnf}", str(path)], 1


def members(path: Path, scale: int) -> tuple[list[str], int]:
    member = gzip.compress(b"2 0\nd 2 0\n")
    path.write_bytes(member * (40_000 * scale) + gzip.compress(b"0\n"))
    return ["verify", "{cnf}", str(path)], 1


def frat(path: Path, scale: int) -> tuple[list[str], int]:
    path.write_bytes(b"o 1 1 2 0\na 5 " + b"1 -2 " * (1_000_000 * scale) + b"0\n")
    return ["verify", "{cnf}", str(path)], 1


def cnf_line(path: Path, scale: int) -> tuple[list[str], int]:
    path.write_bytes(b"p cnf 2 1" + b" " * (16_000_000 * scale) + b"\n1 2 0\n")
    model = path.with_suffix(".model")
    model.write_text("v 1 2 0\n")
    return ["verify", str(path), "--model", str(model)], 0


CASES: dict[str, Callable[[Path, int], tuple[list[str], int]]] = {
    "comments": comments,
    "members": members,
    "frat": frat,
    "cnf-line": cnf_line,
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1, 2, 4])
    ap.add_argument("--cases", nargs="+", choices=sorted(CASES), default=list(CASES))
    ap.add_argument("--pipe", type=int, nargs="?", const=65536, metavar="PIECE")
    args, cnf, builds = _run.parsed(ap, "/tmp/hostile-reading", CNF)
    print(_run.header(f"{'case':>10} {'size':>5}", builds))
    for name in args.cases:
        for scale in args.sizes:
            path = args.dir / f"{name}-{scale}"
            command, expect = CASES[name](path, scale)
            command = [str(cnf) if a == "{cnf}" else a for a in command]
            stdin = None
            if args.pipe:
                command = ["-" if a == str(path) else a for a in command]
                stdin = path
            times = [
                _run.timed(command, src, expect=expect, stdin=stdin, piece=args.pipe or 0)
                for _, src in builds
            ]
            print(_run.row(f"{name:>10} {scale:>4}x", times), flush=True)
            path.unlink()


if __name__ == "__main__":
    main()
