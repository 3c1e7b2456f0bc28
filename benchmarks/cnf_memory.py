"""Peak memory (RSS) of a big CNF from files, against drat-trim's.

    python benchmarks/cnf_memory.py [--dir DIR] [--vars N] [--clauses M]
        [--sat-vars N] [--sat-clauses M] [--drat-trim PATH] [--before SRC]
        [--kernel]

Writes (once; kept in DIR) a random 3-SAT CNF with a one-lemma proof, and a
satisfiable one with a planted model (every clause gets a literal true
under a random assignment; the model as ``v`` lines), then runs, one after
the other, each under ``/usr/bin/time -f %M`` for its peak RSS:

* ``python -c "import sat_claim_check"`` (the interpreter and the package);
* ``drat-trim CNF PROOF``;
* ``sat-claim-check verify CNF PROOF`` (``python -m sat_claim_check``);
* ``sat-claim-check verify SAT_CNF --model MODEL``.

With ``--before SRC`` (the ``src`` directory of another build, its
extensions built in place) our runs are made with that build too, in the
same run (``PYTHONPATH=SRC``), the two builds one after the other.  numpy
writes the files (a few seconds); the figures are printed as a table.

``--kernel`` measures instead the compiled kernel's own stores for the
unsat CNF: a child process reads it into flat arrays as ``verify`` does,
then starts a ``kernel_c.Kernel`` on them (the drat-trim reading, no proof);
its RSS after the reading (the memory the reading freed handed back with
glibc's ``malloc_trim``, so that the kernel's stores are not served from
it) and after ``start()``, and the difference: the clause slots, the arena,
the table of literal sets, the watch lists and the per-variable arrays (the
flat arrays, which the kernel holds, were there before), for each build.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np


def _clauses(rng: np.random.Generator, n: int, m: int) -> np.ndarray:
    """m clauses of 3 distinct variables of 1..n, random signs: an (m, 3) array."""
    a = rng.integers(1, n + 1, size=m)
    b = (a - 1 + rng.integers(1, n, size=m)) % n + 1  # != a
    c = rng.integers(1, n + 1, size=m)
    clash = (c == a) | (c == b)
    while clash.any():
        c[clash] = rng.integers(1, n + 1, size=int(clash.sum()))
        clash = (c == a) | (c == b)
    lits = np.stack([a, b, c], axis=1)
    return lits * rng.choice(np.array([-1, 1]), size=(m, 3))


def _write_cnf(path: Path, n: int, lits: np.ndarray) -> None:
    rows = np.concatenate([lits, np.zeros((len(lits), 1), dtype=lits.dtype)], axis=1)
    with open(path, "w") as out:
        out.write(f"p cnf {n} {len(lits)}\n")
        step = 1 << 18
        for first in range(0, len(rows), step):
            np.savetxt(out, rows[first : first + step], fmt="%d")


def make_files(where: Path, n: int, m: int, sat_n: int, sat_m: int) -> dict[str, Path]:
    where.mkdir(parents=True, exist_ok=True)
    files = {
        "cnf": where / f"rand3-n{n}-m{m}.cnf",
        "proof": where / f"rand3-n{n}-m{m}.drup",
        "sat_cnf": where / f"planted-n{sat_n}-m{sat_m}.cnf",
        "model": where / f"planted-n{sat_n}-m{sat_m}.model",
    }
    rng = np.random.default_rng(23)
    if not files["cnf"].exists():
        _write_cnf(files["cnf"], n, _clauses(rng, n, m))
    if not files["proof"].exists():
        files["proof"].write_text("1 2 0\n")  # one lemma (it need not hold)
    if not files["sat_cnf"].exists() or not files["model"].exists():
        lits = _clauses(rng, sat_n, sat_m)
        signs = rng.choice(np.array([-1, 1]), size=sat_n + 1)  # the planted model
        true = (np.sign(lits) == signs[np.abs(lits)]).any(axis=1)
        lits[~true, 0] = -lits[~true, 0]  # that literal is now true
        _write_cnf(files["sat_cnf"], sat_n, lits)
        model = np.arange(1, sat_n + 1) * signs[1:]
        with open(files["model"], "w") as out:
            out.write("s SATISFIABLE\n")
            for first in range(0, sat_n, 10):
                out.write("v " + " ".join(map(str, model[first : first + 10])) + "\n")
            out.write("v 0\n")
    return files


def peak_rss(command: list[str], src: str | None = None) -> tuple[float, int, float]:
    """(peak RSS in MB, exit status, seconds) of a command, its output dropped.

    ``/usr/bin/time -f %M`` runs it: a small process, so that the peak is the
    command's own (a child forked from this process, holding the generated
    arrays, would start from their RSS: Linux keeps ru_maxrss across exec).
    ``src``: run with PYTHONPATH=src (another build).
    """
    env = dict(os.environ, PYTHONPATH=src) if src else None
    with tempfile.NamedTemporaryFile("r") as report:
        start = time.perf_counter()
        done = subprocess.run(
            ["/usr/bin/time", "-q", "-f", "%M", "-o", report.name, *command],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=False,
            env=env,
        )
        secs = time.perf_counter() - start
        return int(report.read().split()[-1]) / 1024, done.returncode, secs


# The child of --kernel: argv[1] the CNF; prints the RSS after the reading and
# after start(), in bytes, and the kernel's _stats(), as JSON.
KERNEL_CHILD = """
import ctypes, gc, json, os, sys
from sat_claim_check._core.codes import READING_DRAT_TRIM
from sat_claim_check._engines import kernel_c
from sat_claim_check._io.bounds import cnf_bytes
from sat_claim_check._io.whole_files import read_cnf
from sat_claim_check.limits import Limits

def rss():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

limits = Limits.unlimited()
num_vars, offsets, lits = read_cnf(sys.argv[1], limits, cnf_bytes(limits))
gc.collect()
ctypes.CDLL(None).malloc_trim(0)  # the reading's freed memory back to the system
read = rss()
kernel = kernel_c.Kernel(num_vars, offsets, lits, None, None, None,
                         limits.max_propagation_work, reading=READING_DRAT_TRIM)
kernel.start()
gc.collect()
print(json.dumps({"read": read, "started": rss(), "stats": kernel._stats()}))
"""


def kernel_stores(cnf: Path, src: str | None = None) -> dict[str, Any]:
    """The child of --kernel's figures (``src``: run with PYTHONPATH=src)."""
    env = dict(os.environ, PYTHONPATH=src) if src else None
    done = subprocess.run(
        [sys.executable, "-c", KERNEL_CHILD, str(cnf)],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    if done.returncode != 0:
        raise SystemExit(f"exit {done.returncode}: {done.stderr[-300:]}")
    figures: dict[str, Any] = json.loads(done.stdout)
    return figures


def kernel_main(cnf: Path, builds: list[tuple[str, str | None]]) -> None:
    mib = 1 << 20
    print("| build | RSS after reading MB | after start() MB | the kernel's stores MB |")
    print("|---|---:|---:|---:|")
    stats = {}
    for build, src in builds:
        figures = kernel_stores(cnf, src)
        stats[build] = figures["stats"]
        read, started = figures["read"] / mib, figures["started"] / mib
        print(f"| {build} | {read:.0f} | {started:.0f} | {started - read:.0f} |", flush=True)
    print("(MB: 2**20 bytes)")
    for build, entries in stats.items():
        print(f"{build}: {entries}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dir", type=Path, default=Path("/tmp/cnf-memory"))
    parser.add_argument("--vars", type=int, default=450_000)
    parser.add_argument("--clauses", type=int, default=1_970_000)
    parser.add_argument("--sat-vars", type=int, default=600_000)
    parser.add_argument("--sat-clauses", type=int, default=2_500_000)
    parser.add_argument("--drat-trim", default="/work/tools/drat-trim")
    parser.add_argument("--before", help="the src directory of another build, run too")
    parser.add_argument(
        "--kernel",
        action="store_true",
        help="measure the compiled kernel's own stores for the unsat CNF instead",
    )
    args = parser.parse_args()
    files = make_files(args.dir, args.vars, args.clauses, args.sat_vars, args.sat_clauses)
    for name in ("cnf", "sat_cnf", "model"):
        print(f"{files[name]}: {files[name].stat().st_size / 1e6:.1f} MB")
    builds = [("this", None)] + ([("before", args.before)] if args.before else [])
    if args.kernel:
        kernel_main(files["cnf"], builds)
        return
    ours = [sys.executable, "-m", "sat_claim_check", "verify"]
    unsat = [*ours, str(files["cnf"]), str(files["proof"])]
    sat = [*ours, str(files["sat_cnf"]), "--model", str(files["model"])]
    runs = [("drat-trim CNF PROOF", [args.drat_trim, str(files["cnf"]), str(files["proof"])], None)]
    for label, command in (
        ("import sat_claim_check", [sys.executable, "-c", "import sat_claim_check"]),
        ("verify CNF PROOF", unsat),
        ("verify SAT_CNF --model MODEL", sat),
    ):
        runs += [(f"{label} ({build})", command, src) for build, src in builds]
    results = {}
    print("| run | peak RSS MB | exit | s |\n|---|---:|---:|---:|")
    for label, command, src in runs:
        results[label] = mb, code, secs = peak_rss(command, src)
        print(f"| {label} | {mb:.0f} | {code} | {secs:.1f} |", flush=True)
    drat = results["drat-trim CNF PROOF"][0]
    for build, _ in builds:
        ratio = results[f"verify CNF PROOF ({build})"][0] / drat
        print(f"verify CNF PROOF ({build}) / drat-trim: {ratio:.2f}")


if __name__ == "__main__":
    main()
