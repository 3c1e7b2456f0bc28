"""The start of the command line: `verify` on a tiny proof, this build against another.

    python benchmarks/startup.py [--runs N] [--baseline SRC]

Runs ``python -m sat_claim_check verify examples/php5.cnf examples/php5.drup``
(28 steps: the time is the interpreter's start, the imports and the output)
``--runs`` times, alternating with the build whose package is in SRC
(through PYTHONPATH) when given, and prints the median and the fastest wall
time of each.  Compile both trees first (``python -m compileall -q SRC``):
a module whose bytecode is stale is compiled again at every start where
PYTHONDONTWRITEBYTECODE is set.
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

import _run

REPO = Path(__file__).resolve().parents[1]
COMMAND = ["verify", "examples/php5.cnf", "examples/php5.drup"]


def once(pythonpath: str | None) -> float:
    return _run.timed(COMMAND, pythonpath, cwd=REPO)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--baseline", help="src of another build (its package, compiled)")
    args = parser.parse_args()
    builds = {"this build": None}
    if args.baseline:
        builds["baseline"] = args.baseline
    times: dict[str, list[float]] = {name: [] for name in builds}
    for _ in range(args.runs):
        for name, path in builds.items():
            times[name].append(once(path))
    for name, xs in times.items():
        median, fastest = statistics.median(xs) * 1e3, min(xs) * 1e3
        print(f"{name}: median {median:.1f} ms, fastest {fastest:.1f} ms")
    if args.baseline:
        ratio = statistics.median(times["this build"]) / statistics.median(times["baseline"])
        print(f"this build / baseline, medians: {ratio:.2f}")


if __name__ == "__main__":
    main()
