"""Proofs checked as they are read (``dimacs.run_files``): time against another
build, peak memory from the files, and the verdict's delay after a pipe closes.

    python benchmarks/stream_bench.py time --baseline PYTHON [--rounds N]
    python benchmarks/stream_bench.py memory [--baseline PYTHON] [--times K]
    python benchmarks/stream_bench.py pipe [--instance PREFIX] [--rounds N]
    python benchmarks/stream_bench.py overlap [--rounds N]

``time`` runs, round after round, a child process of this build and one of
the baseline build (``--baseline``: the python of a venv where another
commit is installed) on the same files; each child times ``run_files`` on
the contract tier's unsat .cnf/.drup files (the total) and on each
large-tier instance (``l*.cnf``, ``l*.drup.gz``, ``Limits.unlimited()``),
and the best per build over the rounds gives the ratio.  Both builds must
give the same reports.

``memory`` checks the largest large-tier proof from its files in a child
process per measurement and prints its peak RSS (VmHWM) over the RSS after
``import sat_claim_check`` (the import-only baseline), with the most clauses
live at once (counted from the proof), for this build and the baseline;
then the same proof made ``--times`` longer (after each add, the lemma
deleted and added again), written to a gzip file and checked by this build.

``overlap`` times, on each large-tier instance, the two halves apart
(reading, decompressing and scanning the proof: ``_proofstream.proof_parts`` alone;
checking: a Checker fed the parsed arrays) and ``run_files`` whole, best of
``--rounds``: with the halves overlapping, ``run_files`` comes close to the
larger half rather than their sum.

``pipe`` writes a large-tier proof into a named pipe from another process,
in bursts the checker keeps up with, and prints how long after the writer
closed the pipe the verdict arrived (median and max over the rounds).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

CORPUS = Path(
    os.environ.get(
        "SAT_CLAIM_CHECK_CORPUS", Path(__file__).resolve().parents[2] / "shared" / "corpus"
    )
)

TIME_CHILD = r"""
import json, sys, time
from pathlib import Path
from typing import Any
import sat_claim_check as scc
from sat_claim_check.dimacs import run_files
corpus, repeat = Path(sys.argv[1]), int(sys.argv[2])

def best(fn):
    out, b = None, float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        b = min(b, time.perf_counter() - t)
    return b, out

contract = [p for p in sorted(corpus.glob("c*.cnf")) if p.with_suffix(".drup").exists()]
times, results = {}, {}
total = 0.0
for cnf in contract:
    t, report = best(lambda: run_files(cnf, cnf.with_suffix(".drup")))
    total += t
    results[cnf.name] = [report.result, report.work]
times["contract"] = total
unlimited = scc.Limits.unlimited()
for cnf in sorted(corpus.glob("l*.cnf")):
    t, report = best(lambda: run_files(cnf, cnf.with_suffix(".drup.gz"), limits=unlimited))
    times[cnf.name[:4]] = t
    results[cnf.name] = [report.result, report.work]
print(json.dumps({"times": times, "results": results}))
"""


def time_builds(args: argparse.Namespace) -> None:
    builds = {"this build": sys.executable, "baseline": args.baseline}
    best: dict[str, dict[str, float]] = {name: {} for name in builds}
    results = {}
    for _ in range(args.rounds):
        for name, python in builds.items():
            proc = subprocess.run(
                [python, "-c", TIME_CHILD, str(CORPUS), str(args.repeat)],
                check=True,
                capture_output=True,
                text=True,
            )
            out = json.loads(proc.stdout)
            results[name] = out["results"]
            for key, t in out["times"].items():
                best[name][key] = min(best[name].get(key, float("inf")), t)
    assert results["this build"] == results["baseline"], "the builds disagree"
    print(
        f"run_files, best of {args.rounds} rounds x {args.repeat} runs; load average "
        f"{os.getloadavg()[0]:.2f}"
    )
    print("| files | this build | baseline | ratio |")
    print("| --- | ---: | ---: | ---: |")
    for key, t in best["this build"].items():
        b = best["baseline"][key]
        label = "contract tier, every unsat proof (total)" if key == "contract" else key
        print(f"| {label} | {t:.3f} s | {b:.3f} s | {t / b:.3f} |")


MEMORY_CHILD = r"""
import json, sys, time
def status(key):
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(key)) / 1024
import sat_claim_check as scc
from sat_claim_check.dimacs import run_files
base = status("VmRSS:")
start = time.perf_counter()
report = run_files(sys.argv[1], sys.argv[2], limits=scc.Limits.unlimited())
print(json.dumps({"base": base, "peak": status("VmHWM:"), "seconds": time.perf_counter() - start,
                  "steps": report.result["steps_checked"], "valid": report.result["valid"]}))
"""


def _steps(path: Path):
    """(is_delete, line) of each step of a text proof, one per line."""
    with gzip.open(path, "rb") as f:
        for line in f:
            if line.strip() and not line.startswith(b"c"):
                yield line.startswith(b"d"), line


def most_live(cnf: Path, proof: Path) -> int:
    header = next(line for line in cnf.read_text().splitlines() if line.startswith("p"))
    live = most = int(header.split()[3])
    for is_delete, _ in _steps(proof):
        live += -1 if is_delete else 1
        most = max(most, live)
    return most


def longer(proof: Path, times: int, out: Path) -> None:
    """The proof with (delete, add) of each added lemma repeated after it."""
    with gzip.open(out, "wb", compresslevel=1) as f:
        for is_delete, line in _steps(proof):
            f.write(line)
            if not is_delete and line.split() != [b"0"]:
                f.write((b"d " + line + line) * (times - 1))


def memory(args: argparse.Namespace) -> None:
    cnfs = sorted(CORPUS.glob("l*.cnf"), key=lambda p: p.with_suffix(".drup.gz").stat().st_size)
    cnf = cnfs[-1]
    proof = cnf.with_suffix(".drup.gz")
    live = most_live(cnf, proof)
    print(
        f"{cnf.stem}: peak RSS (VmHWM) over the RSS after the import, one child each; "
        f"load average {os.getloadavg()[0]:.2f}"
    )
    print(
        "| build | proof | steps | most clauses live | import-only RSS | peak RSS | "
        "peak over import | time |"
    )
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    runs = [("this build", sys.executable, proof, "as it is")]
    if args.baseline:
        runs.insert(0, ("baseline", args.baseline, proof, "as it is"))
    with tempfile.TemporaryDirectory() as tmp:
        long_proof = Path(tmp, "long.drup.gz")
        longer(proof, args.times, long_proof)
        runs.append(("this build", sys.executable, long_proof, f"{args.times}x longer"))
        for build, python, path, label in runs:
            proc = subprocess.run(
                [python, "-c", MEMORY_CHILD, str(cnf), str(path)],
                check=True,
                capture_output=True,
                text=True,
            )
            out = json.loads(proc.stdout)
            print(
                f"| {build} | {label} | {out['steps']:,} | {live:,} | {out['base']:.1f} MiB | "
                f"{out['peak']:.1f} MiB | {out['peak'] - out['base']:.1f} MiB | "
                f"{out['seconds']:.1f} s |"
            )


WRITER = r"""
import gzip, os, sys, time
data = gzip.decompress(open(sys.argv[1], "rb").read())
burst, pause = int(sys.argv[3]), float(sys.argv[4])
with open(sys.argv[2], "wb", buffering=0) as f:
    for a in range(0, len(data), burst):
        f.write(data[a:a + burst])
        time.sleep(pause)
    closing = time.monotonic()
print(closing)
"""


def pipe(args: argparse.Namespace) -> None:
    import sat_claim_check as scc
    from sat_claim_check.dimacs import run_files

    cnf = next(p for p in sorted(CORPUS.glob("l*.cnf")) if p.name.startswith(args.instance))
    proof = cnf.with_suffix(".drup.gz")
    delays = []
    with tempfile.TemporaryDirectory() as tmp:
        fifo = Path(tmp, "proof.fifo")
        os.mkfifo(fifo)
        for _ in range(args.rounds):
            writer = subprocess.Popen(
                [
                    sys.executable,
                    "-c",
                    WRITER,
                    str(proof),
                    str(fifo),
                    str(args.burst),
                    str(args.pause),
                ],
                stdout=subprocess.PIPE,
                text=True,
            )
            report = run_files(cnf, fifo, limits=scc.Limits.unlimited())
            verdict = time.monotonic()
            closed = float(writer.communicate()[0])
            assert report.result["valid"], report.result
            delays.append(verdict - closed)
    print(
        f"{cnf.stem}: {report.result['steps_checked']:,} steps written in bursts of "
        f"{args.burst:,} bytes every {args.pause * 1e3:.0f} ms; verdict after the writer "
        f"closed: median {statistics.median(delays) * 1e3:.1f} ms, "
        f"max {max(delays) * 1e3:.1f} ms over {args.rounds} rounds"
    )


def overlap(args: argparse.Namespace) -> None:
    import sat_claim_check as scc
    from sat_claim_check import dimacs
    from sat_claim_check._io import proofstream as _proofstream

    unlimited = scc.Limits.unlimited()

    def best(fn: Any) -> float:
        b = float("inf")
        for _ in range(args.rounds):
            start = time.perf_counter()
            fn()
            b = min(b, time.perf_counter() - start)
        return b

    print(f"best of {args.rounds}; load average {os.getloadavg()[0]:.2f}")
    print(
        "| instance | read + decompress + scan | check | sum | run_files | "
        "run_files / larger | run_files / sum |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for cnf in sorted(CORPUS.glob("l*.cnf")):
        proof = cnf.with_suffix(".drup.gz")
        read = best(lambda proof=proof: list(_proofstream.proof_parts(proof, 1 << 40, "auto")))
        (num_vars, offsets, lits), arrays, _ = dimacs.parse_files(cnf, proof, None, unlimited)
        assert arrays is not None
        kinds, step_offsets, step_lits = arrays

        def check(
            num_vars: int = num_vars,
            offsets: Any = offsets,
            lits: Any = lits,
            kinds: Any = kinds,
            step_offsets: Any = step_offsets,
            step_lits: Any = step_lits,
        ) -> None:
            checker = scc.Checker._from_arrays(num_vars, offsets, lits, limits=unlimited)
            for a in range(0, len(kinds), 20000):
                b = min(len(kinds), a + 20000)
                checker._feed_arrays(kinds[a:b], step_offsets[a : b + 1], step_lits)
            checker.finish()

        checking = best(check)
        whole = best(lambda cnf=cnf, proof=proof: dimacs.run_files(cnf, proof, limits=unlimited))
        print(
            f"| {cnf.name[:4]} | {read:.3f} s | {checking:.3f} s | {read + checking:.3f} s | "
            f"{whole:.3f} s | {whole / max(read, checking):.3f} | "
            f"{whole / (read + checking):.3f} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    t = sub.add_parser("time")
    t.add_argument("--baseline", required=True, help="the python of another build")
    t.add_argument("--rounds", type=int, default=5)
    t.add_argument("--repeat", type=int, default=1)
    m = sub.add_parser("memory")
    m.add_argument("--baseline", default=None, help="the python of another build")
    m.add_argument("--times", type=int, default=10)
    p = sub.add_parser("pipe")
    p.add_argument("--instance", default="l005")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--burst", type=int, default=65536)
    p.add_argument("--pause", type=float, default=0.01)
    o = sub.add_parser("overlap")
    o.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    {"time": time_builds, "memory": memory, "pipe": pipe, "overlap": overlap}[args.what](args)


if __name__ == "__main__":
    main()
