"""One proof on every core: the cost model of ``verify --jobs N``, and the check of it.

    python benchmarks/segments_cost.py CNF PROOF [CNF PROOF ...]
        [--reading drat-trim|strict] [--measure 1 2] [--predict 2 4 16 64] [--repeat N]

For each proof, in this process and on one core (CPU time of this process,
so other load on the machine matters little):

* ``parse``: the CNF and the proof read into arrays (what the checker's
  process does, beside the workers, in ``--jobs N``);
* ``check``: one kernel checking every step (``Kernel.feed``, in the chunks
  ``verify`` feeds), and ``replay``: one kernel replaying every step
  (``Kernel.replay``); ``r`` = replay / check;
* ``walker(N)``: the mean CPU time of N walkers (``_segments.walk.Walker``
  as a worker runs it: its segments checked, the others replayed), the
  segments dealt in turn, for each N of ``--predict``.  The workers of
  ``--jobs N`` claim segments as they reach them (``_segments.claims``), so
  each does about the mean, not more, while there are segments enough
  (``segments`` is printed: with fewer than a few per worker, the last one
  sets the pace).

The model: with N cores, the check takes max(parse, walker(N), replay +
check / segments) (the reader and the workers overlap; no worker does less
than replay the proof and check one segment), against max(parse, check) on
one core (the reader thread overlaps the check there too); the predicted
speed-up is the ratio.  The closed form walker(N) ~ check/N + replay (N-1)/N
is printed beside it.  Then the command line is timed (wall clock, best of
``--repeat``), ``verify CNF PROOF --jobs N`` for each N of ``--measure``, and
the measured speed-up is printed beside the predicted one.  Only the N that
the machine has cores for can be measured.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from array import array
from pathlib import Path
from typing import Any

from sat_claim_check._core.checker import ARRAY_CHUNK
from sat_claim_check._core.options import Options
from sat_claim_check._engines import resolve
from sat_claim_check._io.proofstream import proof_parts
from sat_claim_check._io.whole_files import read_cnf
from sat_claim_check._segments.local import SEGMENT_STEPS
from sat_claim_check._segments.walk import CHECK, REPLAY, Walker
from sat_claim_check.limits import CEILINGS, Limits

UNLIMITED = Limits.unlimited()
BIG = 1 << 40


def cpu() -> float:
    return time.process_time()


def parsed(cnf: Path, proof: Path) -> tuple[tuple[Any, ...], list[tuple[Any, Any, Any]], float]:
    """(the CNF's arrays, the proof's chunks as verify feeds them, CPU seconds)."""
    t = cpu()
    num_vars, offsets, lits = read_cnf(str(cnf), UNLIMITED, BIG)[:3]
    chunks = []
    for part in proof_parts(str(proof), BIG, "auto"):
        n = len(part.kinds)
        for a in range(0, n, ARRAY_CHUNK):
            b = min(a + ARRAY_CHUNK, n)
            first, last = part.offsets[a], part.offsets[b]
            offs = array("i", [o - first for o in part.offsets[a : b + 1]])
            chunks.append((part.kinds[a:b], offs, part.lits[first:last]))
    return (num_vars, offsets, lits), chunks, cpu() - t


def whole(module: Any, reading: int, cnf: tuple[Any, ...], chunks: list[Any], how: str) -> float:
    """CPU seconds of one kernel taking every step: ``how`` is feed or replay."""
    kernel = module.Kernel(*cnf, None, None, None, CEILINGS["max_propagation_work"], reading)
    t = cpu()
    kernel.start()
    take = getattr(kernel, how)
    for kinds, offsets, lits in chunks:
        if take(kinds, offsets, lits)[0] != 0 and how == "feed":
            break  # failed or concluded: the rest is not checked
    return cpu() - t


def walker(
    module: Any, reading: int, cnf: tuple[Any, ...], chunks: list[Any], n: int, i: int
) -> float:
    """CPU seconds of walker ``i`` of ``n`` walking the proof."""

    def claim(segment: int) -> int:
        return CHECK if segment % n == i else REPLAY

    t = cpu()
    walk = Walker(module, reading, cnf, SEGMENT_STEPS, claim)
    for kinds, offsets, lits in chunks:
        if walk.stopped:
            break
        walk.take(kinds, offsets, lits)
    walk.end()
    return cpu() - t


def wall(cnf: Path, proof: Path, reading: str, jobs: int, repeat: int) -> float:
    best = float("inf")
    command = [sys.executable, "-m", "sat_claim_check", "verify", str(cnf), str(proof)]
    command += ["--reading", reading, "--jobs", str(jobs)]
    for _ in range(repeat):
        t = time.perf_counter()
        subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        best = min(best, time.perf_counter() - t)
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", type=Path, help="CNF PROOF pairs")
    parser.add_argument("--reading", default="drat-trim", choices=("drat-trim", "strict"))
    parser.add_argument("--measure", type=int, nargs="*", default=[1, 2])
    parser.add_argument("--predict", type=int, nargs="*", default=[2, 4, 16, 64])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if len(args.files) % 2:
        parser.error("give CNF PROOF pairs")
    module = resolve("auto")[1]
    reading = Options.of("auto", UNLIMITED, reading=args.reading).reading_code
    for cnf, proof in zip(args.files[::2], args.files[1::2]):
        cnf_arrays, chunks, parse = parsed(cnf, proof)
        steps = sum(len(c[0]) for c in chunks)
        check = whole(module, reading, cnf_arrays, chunks, "feed")
        replay = whole(module, reading, cnf_arrays, chunks, "replay")
        one = max(parse, check)
        segments = -(-steps // SEGMENT_STEPS)
        print(f"\n{proof.name}: {steps:,} steps ({segments} segments), reading {args.reading}")
        print(f"  parse {parse:.3f} s   check {check:.3f} s   replay {replay:.3f} s")
        print(f"  r = replay / check = {replay / check:.3f}")
        print("   N   walker(N)  closed form  predicted speed-up")
        for n in args.predict:
            mean = sum(walker(module, reading, cnf_arrays, chunks, n, i) for i in range(n)) / n
            # No worker does less than replaying the proof and checking a segment.
            floor = replay + check / segments
            closed = check / n + replay * (n - 1) / n
            pace = max(parse, mean, floor)
            print(f"  {n:3d}   {mean:8.3f}   {closed:8.3f}    {one / pace:6.2f}x")
        times = {n: wall(cnf, proof, args.reading, n, args.repeat) for n in args.measure}
        base = times.get(1)
        for n, seconds in times.items():
            ratio = f"   measured speed-up {base / seconds:5.2f}x" if base else ""
            print(f"  verify --jobs {n}: {seconds:.3f} s wall{ratio}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
