"""One proof on every core: where the CPU of ``verify --jobs N`` goes, process by process.

    python benchmarks/segments_cpu.py CNF PROOF [CNF PROOF ...] [--jobs 1 2]
        [--rounds 3] [--reading drat-trim] [--before SRC]

Each check is the command line run in a fresh interpreter (this script with
``--one``), timed there: the wall clock from the interpreter's start, the
CPU time of the checker's own process, split at the moment its workers
start (``start``: the interpreter, the imports, the options, the CNF read;
``after``: reading, validating and sending the proof's steps, and the
tally), and the CPU time of its worker processes (every worker together).
The checks run in rounds, each round every proof with every ``--jobs`` in
turn (and each with ``--before SRC``, the ``src`` directory of another
build, first on the path), so that load from elsewhere touches them all
alike; the 1-minute load average is printed with each.  On a machine of N
cores busy with nothing else, ``--jobs N`` keeps every core busy: its wall
clock is about its total CPU / N, so CPU that this process spends beside
the workers is wall clock lost.  The last lines are the ratio of the wall
clocks of ``--jobs 1`` to each other ``--jobs``, per round and their
geometric mean.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def cpu(who: int) -> float:
    r = resource.getrusage(who)
    return r.ru_utime + r.ru_stime


def one(argv: list[str]) -> None:
    """Run ``verify`` in this process and print its figures as JSON."""
    started = time.perf_counter() - since_start()
    from sat_claim_check._segments import local

    at_fork: list[float] = []
    init = local.SegmentChecker.__init__

    def timed_init(self: Any, *args: Any, **kw: Any) -> None:
        at_fork.append(cpu(resource.RUSAGE_SELF))
        init(self, *args, **kw)

    local.SegmentChecker.__init__ = timed_init  # type: ignore[method-assign]
    from sat_claim_check.cli import main

    code = main(["verify", *argv])
    wall = time.perf_counter() - started
    own = cpu(resource.RUSAGE_SELF)
    start = at_fork[0] if at_fork else own
    figures = {
        "code": code,
        "wall": wall,
        "start": start,
        "after": own - start,
        "workers": cpu(resource.RUSAGE_CHILDREN),
    }
    print(json.dumps(figures), file=sys.stderr)


def since_start() -> float:
    """Seconds since this process started (its start time in /proc)."""
    fields = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return time.clock_gettime(time.CLOCK_BOOTTIME) - int(fields[19]) / ticks


def run(cnf: Path, proof: Path, jobs: int, reading: str, src: str | None) -> dict[str, Any]:
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = os.pathsep.join([src, env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    command = [sys.executable, str(Path(__file__)), "--one", str(cnf), str(proof)]
    command += ["--reading", reading, "--jobs", str(jobs)]
    load = os.getloadavg()[0]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    figures: dict[str, Any] = json.loads(done.stderr.strip().splitlines()[-1])
    figures["load"] = load
    figures["line"] = done.stdout.strip()
    return figures


def main() -> None:
    if sys.argv[1:2] == ["--one"]:
        one(sys.argv[2:])
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="+", type=Path, help="CNF PROOF pairs")
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--reading", default="drat-trim", choices=("drat-trim", "strict"))
    parser.add_argument("--before", help="the src directory of another build, run beside")
    args = parser.parse_args()
    if len(args.files) % 2:
        parser.error("give CNF PROOF pairs")
    pairs = list(zip(args.files[::2], args.files[1::2], strict=True))
    builds: list[tuple[str, str | None]] = [("", None)]
    if args.before:
        builds = [("before ", args.before), ("", None)]
    walls: dict[tuple[str, str, int], list[float]] = {}
    lines: dict[str, set[str]] = {}
    print("round proof build jobs | wall s | start / after / workers CPU s | load")
    for r in range(args.rounds):
        for cnf, proof in pairs:
            for name, src in builds:
                for jobs in args.jobs:
                    f = run(cnf, proof, jobs, args.reading, src)
                    walls.setdefault((proof.stem, name, jobs), []).append(f["wall"])
                    lines.setdefault(proof.stem, set()).add(f["line"])
                    print(
                        f"{r} {proof.stem} {name}j{jobs} | {f['wall']:.2f} | {f['start']:.2f} / "
                        f"{f['after']:.2f} / {f['workers']:.2f} | {f['load']:.2f}",
                        flush=True,
                    )
    for stem, seen in lines.items():
        if len(seen) != 1:
            print(f"{stem}: the result lines differ: {sorted(seen)}")
    one_core = min(args.jobs)
    for (stem, name, jobs), times in walls.items():
        if jobs == one_core:
            continue
        ratios = [a / b for a, b in zip(walls[(stem, name, one_core)], times, strict=True)]
        mean = math.exp(sum(map(math.log, ratios)) / len(ratios))
        each = " ".join(f"{x:.2f}" for x in ratios)
        print(f"{stem} {name}j{one_core} / j{jobs}: {each}; geometric mean {mean:.2f}x")


if __name__ == "__main__":
    main()
