"""Fresh solver proofs checked by ours, drat-trim (both modes), dratify and drup.

    python benchmarks/fresh_proofs.py [--quick] [--repeat N] [--json FILE]
        [--keep DIR] [--timeout S] [--solve-timeout S] [--drup-steps N]
        [--drup-timeout S]
    python benchmarks/fresh_proofs.py --memory [--memory-clauses N]

Writes CNFs (``_cnfgen.py``: pigeonhole, random 3-SAT near the threshold,
idempotent commutative quasigroups), solves each with the solvers found
(CaDiCaL in its default binary DRAT and with --no-binary, PicoSAT's RUP file,
CryptoMiniSat's FRAT, the PySAT solvers' get_proof()), keeps the unsat answers
with a proof, and checks each proof, every checker in a child process of its
own (wall clock; peak RSS by /usr/bin/time, else os.wait4; both reading files):

* ours: ``sat-claim-check verify CNF PROOF --reading drat-trim`` with --jobs 1
  and --jobs 2 (its RSS: the largest of its processes), and --reading strict;
* drat-trim -f (forward) and default (backward): $DRAT_TRIM or on the PATH;
* dratify's check_proof with its Rust engine (cdclkit[native]), and drup's
  check_proof_from_strings on proofs of at most --drup-steps steps, stopped after
  --drup-timeout seconds (it keeps every clause and scans them all: 9,567
  steps of a 639-clause CNF took it two minutes).

What a checker cannot read is given a DRUP text copy: binary proofs to dratify
and drup (written from our own reader's arrays), PicoSAT's and CryptoMiniSat's
files to every peer (ours reads them as the solver wrote them). Prints a table,
the ratios per proof and their geometric means. Exit status 1 when ours and
drat-trim reach different verdicts on a proof.

--memory: one large satisfiable CNF (a planted model), the peak RSS of
drat-trim and ours on an empty proof, and of ours checking the model.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _cnfgen
import solver_output as so

DRAT_TRIM = os.environ.get("DRAT_TRIM") or shutil.which("drat-trim") or so.DRAT_TRIM
TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None
PYSAT = ["glucose4", "lingeling", "maplechrono", "cadical153"]
# solver: [(format, arguments)]: {c} the CNF, {p} the proof file.
NATIVE = {
    "cadical": [("binary DRAT", "-q {c} {p}"), ("text DRAT", "-q --no-binary {c} {p}")],
    "picosat": [("RUP %RUPD32", "-R {p} {c}")],
    "cryptominisat5": [("FRAT text", "--verb 0 {c} {p}")],
}
# (family, arguments, solvers): "cadical" its default binary proof only,
# "cadical+text" its text proof too, "all" every solver found.
QUICK = [("php", (7,), "cadical+text"), ("3sat", (200, 1), "cadical")]
QUICK += [("magma", (10,), "cadical"), ("php", (5,), "all")]
DEFAULT = [("php", (9,), "cadical+text")]
DEFAULT += [("3sat", (250, s), "cadical") for s in (4, 9)] + [("3sat", (300, 5), "cadical")]
DEFAULT += [("3sat", (200, s), "all") for s in (1, 2)] + [("magma", (12,), "all")]
DEFAULT += [("php", (5,), "all")]
OURS = ("ours j1", "ours j2", "ours strict")
CHECKERS = (*OURS, "dt -f", "dt", "dratify", "drup")
PAIRS = [("ours j1", "dt -f"), ("ours j1", "dt"), ("ours j2", "dt"), ("ours j1", "ours j2")]
PAIRS += [("ours j1", "dratify"), ("ours j1", "drup")]
DECIDED = ("valid", "invalid")
# a peer runs when its modules are installed: dratify with the Rust engine
PEERS = {"dratify": ("dratify", "cdclkit_native"), "drup": ("drup",)}
FOUND = {k for k, mods in PEERS.items() if all(importlib.util.find_spec(m) for m in mods)}


def measure(cmd: list[str], timeout: float) -> tuple[int | None, float, float, str]:
    """(exit code, None when killed at the timeout; seconds; peak RSS in MB of
    the child or the largest of the children it waited for; its stdout).

    The peak RSS is /usr/bin/time's %M where it exists: a child of this
    process counts in its ru_maxrss the RSS this process had when it forked
    (Linux keeps the larger of the old and the new image's at exec), and this
    process holds the proofs it wrote; the wait4 figure is the fallback."""
    with tempfile.TemporaryFile() as out, tempfile.NamedTemporaryFile("r") as rss:
        killed = threading.Event()

        def kill() -> None:
            killed.set()
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, signal.SIGKILL)

        wrap = [TIME, "-f", "%M", "-o", rss.name] if TIME else []
        t = time.perf_counter()
        p = subprocess.Popen(
            [*wrap, *cmd], stdout=out, stderr=subprocess.DEVNULL, start_new_session=True
        )
        timer = threading.Timer(timeout, kill)
        timer.start()
        _, status, usage = os.wait4(p.pid, 0)
        seconds = time.perf_counter() - t
        timer.cancel()
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read().decode(errors="replace")
        lines = rss.read().split()
    kb = int(lines[-1]) if TIME and lines and lines[-1].isdigit() else usage.ru_maxrss
    return (None if killed.is_set() else p.returncode), seconds, kb / 1024, text


def verdict(label: str, rc: int | None, out: str) -> str:
    if rc is None:
        return "timeout"
    if label.startswith("dt"):
        if "s NOT VERIFIED" in out:
            return "invalid"
        return "valid" if "s VERIFIED" in out else "error"
    return {0: "valid", 1: "invalid"}.get(rc, "error")


# ------------------------------------------------------------------ proofs


@dataclass
class Proof:
    instance: str
    clauses: int
    solver: str
    format: str
    path: Path  # as the solver wrote it: what ours reads
    drat: Path  # what drat-trim reads
    text: Path  # what dratify and drup read
    steps: int = 0


def text_copy(data: bytes, path: Path | None) -> int:
    """The steps of a proof (any format ours reads), by our reader; with a
    path, write it there as DRUP text."""
    from sat_claim_check._io.dimacs_text import drup_arrays

    kinds, offsets, lits = drup_arrays(data)
    if path is None:
        return len(kinds)
    flat, ends = lits.tolist(), offsets.tolist()
    with path.open("w") as f:
        for s, kind in enumerate(kinds):
            step = " ".join(map(str, flat[ends[s] : ends[s + 1]]))
            f.write(("d " if kind % 2 else "") + (step + " 0\n" if step else "0\n"))
    return len(kinds)


def keep(cnf: Path, solver: str, fmt: str, data: bytes) -> Proof:
    """Write the proof and the copies a checker needs beside the CNF."""
    stem = f"{cnf.stem}.{solver}.{'bin' if fmt.startswith('binary') else 'txt'}"
    path = cnf.with_name(stem)
    path.write_bytes(data)
    proof = Proof(cnf.stem, 0, solver, fmt, path, path, path)
    if fmt.startswith(("RUP", "FRAT")):
        proof.drat = cnf.with_name(stem + ".drup")
        convert = so.plain_lines if fmt.startswith("RUP") else so.frat_to_drup
        proof.drat.write_bytes(convert(data))
        proof.text = proof.drat
    if fmt.startswith("binary"):
        proof.text = cnf.with_name(stem + ".drup")
        proof.steps = text_copy(data, proof.text)
    else:
        proof.steps = text_copy(proof.drat.read_bytes(), None)
    return proof


def solvers_found() -> tuple[list[str], list[str]]:
    found = [s for s in NATIVE if shutil.which(s)]
    skipped = [f"{s} (not on the PATH)" for s in NATIVE if s not in found]
    skipped.append("minisat (writes no proof)")
    try:
        from pysat.solvers import SolverNames
    except ImportError:
        return found, [*skipped, "PySAT solvers (python-sat not importable)"]
    found += [s for s in PYSAT if hasattr(SolverNames, s)]
    return found, skipped + [f"{s} (not in this PySAT)" for s in PYSAT if s not in found]


def solve(cnf: Path, which: str, found: list[str], timeout: float) -> list[Proof]:
    proofs, notes = [], []
    for solver in found:
        if which != "all" and solver != "cadical":
            continue
        if solver in NATIVE:
            formats = NATIVE[solver][: 1 if which == "cadical" else None]
            for fmt, template in formats:
                out = cnf.with_name(f"{cnf.stem}.{solver}.out")
                args = template.format(c=cnf, p=out).split()
                rc = so.run([solver, *args], timeout)[0]
                if rc == 20:
                    proofs.append(keep(cnf, solver, fmt, out.read_bytes()))
                else:
                    notes.append(f"{solver} {fmt}: {'timeout' if rc is None else rc}")
                out.unlink(missing_ok=True)
            continue
        result, certs = so.pysat(solver, cnf, cnf.parent, timeout)
        if result == "unsat" and certs:
            proofs.append(keep(cnf, solver, "text get_proof()", certs[0].data))
        else:
            notes.append(f"{solver}: {result}")
    if notes:
        print(f"  {cnf.stem}: no proof from {'; '.join(notes)}", flush=True)
    return proofs


# ----------------------------------------------------------------- checking


@dataclass
class Row:
    instance: str
    clauses: int
    solver: str
    format: str
    steps: int
    copies: str  # which checker got a converted copy
    verdicts: dict[str, str] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)  # best of the runs
    rss_mb: dict[str, float] = field(default_factory=dict)  # the largest of the runs
    runs: list[dict] = field(default_factory=list)


def commands(cnf: Path, p: Proof, args: argparse.Namespace) -> dict[str, list[str]]:
    t = str(args.timeout)
    ours = [*so.scc(), "verify", str(cnf), str(p.path), "--quiet", "--timeout", t]
    peer = [sys.executable, str(Path(__file__).resolve()), "--peer"]
    cmds = {
        "ours j1": [*ours, "--reading", "drat-trim", "--jobs", "1"],
        "ours j2": [*ours, "--reading", "drat-trim", "--jobs", "2"],
        "ours strict": [*ours, "--reading", "strict", "--jobs", "1"],
    }
    if os.path.exists(DRAT_TRIM):
        cmds["dt -f"] = [DRAT_TRIM, str(cnf), str(p.drat), "-t", t, "-f"]
        cmds["dt"] = [DRAT_TRIM, str(cnf), str(p.drat), "-t", t]
    if "dratify" in FOUND:
        cmds["dratify"] = [*peer, "dratify", str(cnf), str(p.text)]
    if "drup" in FOUND and p.steps <= args.drup_steps:
        cmds["drup"] = [*peer, "drup", str(cnf), str(p.text)]
    return cmds


def check(cnf: Path, p: Proof, args: argparse.Namespace) -> Row:
    copies = []
    if p.drat != p.path:
        copies.append("drat-trim")
    if p.text != p.path:
        copies.append("dratify, drup")
    row = Row(p.instance, p.clauses, p.solver, p.format, p.steps, ", ".join(copies))
    cmds = commands(cnf, p, args)
    for _ in range(args.repeat):  # the checkers interleaved, round after round
        for label, cmd in cmds.items():
            limit = args.drup_timeout if label == "drup" else args.timeout + 30
            rc, seconds, rss, out = measure(cmd, limit)
            v = verdict(label, rc, out)
            row.runs.append({"checker": label, "verdict": v, "seconds": seconds, "rss_mb": rss})
            row.verdicts[label] = v
            row.seconds[label] = min(seconds, row.seconds.get(label, math.inf))
            row.rss_mb[label] = max(rss, row.rss_mb.get(label, 0.0))
    return row


def peer(which: str, cnf: str, proof: str) -> int:
    """Child process: one peer checks a DRUP text proof; exit 0 valid, 1 not."""
    if which == "drup":  # its file reader glues the header to the first clause, and
        import drup  # drops both: it is given the clauses without header or comments

        with open(cnf) as f:
            formula = "".join(line for line in f if line[:1] not in "cp")
        result = drup.check_proof_from_strings(formula, Path(proof).read_text())
        return 0 if result.outcome == drup.Outcome.VALID else 1
    import cdclkit.native  # noqa: F401  (registers the Rust engine with dratify)
    import dratify

    formula = dratify.parse_dimacs_file(cnf)
    return 0 if dratify.check_proof(formula, Path(proof).read_text(), engine="native").ok else 1


# ------------------------------------------------------------------ report


def geomean(xs: list[float]) -> float:
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else math.nan


def ratio(row: Row, a: str, b: str) -> float | None:
    if row.verdicts.get(a) not in DECIDED or row.verdicts.get(b) not in DECIDED:
        return None
    return row.seconds[a] / row.seconds[b]


def cell(row: Row, label: str) -> str:
    v = row.verdicts.get(label)
    if v is None:
        return "-"
    if v not in DECIDED:
        return v
    return f"{row.seconds[label]:.2f}" + (" (invalid)" if v == "invalid" else "")


def print_tables(rows: list[Row]) -> None:
    print("\nseconds, best of the runs (wall clock, from the files):\n")
    print("| instance | solver | format | steps | " + " | ".join(CHECKERS) + " |")
    print("|" + " --- |" * 3 + " ---: |" * (1 + len(CHECKERS)))
    for r in rows:
        cells = [r.instance, r.solver, r.format, f"{r.steps:,}"]
        print("| " + " | ".join(cells + [cell(r, c) for c in CHECKERS]) + " |")
    for r in rows:
        if r.copies:
            print(f"  {r.instance} {r.solver}: a DRUP text copy for {r.copies}")
    print("\nratios, time of the first over the second:\n")
    print("| instance | solver | format | " + " | ".join(f"{a} / {b}" for a, b in PAIRS) + " |")
    print("|" + " --- |" * 3 + " ---: |" * len(PAIRS))
    for r in rows:
        ratios = [ratio(r, a, b) for a, b in PAIRS]
        cells = ["-" if x is None else f"{x:.2f}" for x in ratios]
        print(f"| {r.instance} | {r.solver} | {r.format} | " + " | ".join(cells) + " |")


def summary(rows: list[Row]) -> int:
    print("\ngeometric means of the ratios (proofs counted):\n")
    print("| ratio | proofs >= 100k steps | all proofs |")
    print("| --- | ---: | ---: |")
    for a, b in PAIRS:
        cells = []
        for rs in ([r for r in rows if r.steps >= 100_000], rows):
            xs = [x for x in (ratio(r, a, b) for r in rs) if x is not None]
            cells.append(f"{geomean(xs):.2f} ({len(xs)})" if xs else "- (0)")
        print(f"| {a} / {b} | " + " | ".join(cells) + " |")
    with_rss = [r for r in rows if "dt" in r.rss_mb]
    if with_rss:
        xs = [r.rss_mb["ours j1"] / r.rss_mb["dt"] for r in with_rss]
        big = max(with_rss, key=lambda r: (r.clauses, r.steps))
        mb = {k: f"{v:.0f}" for k, v in big.rss_mb.items()}
        print(f"\npeak RSS, ours j1 / drat-trim: geometric mean {geomean(xs):.2f};", end=" ")
        print(f"largest CNF ({big.instance}, {big.clauses:,} clauses, {big.solver}): ", end="")
        print(f"{big.rss_mb['ours j1'] / big.rss_mb['dt']:.2f}; MB there: {mb}")
    bad = []
    for r in rows:
        ours = {r.verdicts[c] for c in ("ours j1", "ours j2") if r.verdicts.get(c) in DECIDED}
        dt = {r.verdicts[c] for c in ("dt -f", "dt") if r.verdicts.get(c) in DECIDED}
        if len(ours | dt) > 1:
            bad.append(r)
        others = {c: v for c, v in r.verdicts.items() if v != "valid"}
        if others:
            print(f"  {r.instance} {r.solver} {r.format}: not valid for {others}")
    print(f"disagreements, ours --reading drat-trim against drat-trim: {len(bad)}")
    for r in bad:
        print(f"  {r.instance} {r.solver} {r.format}: {r.verdicts}")
    return 1 if bad else 0


# ----------------------------------------------------------------- drivers


def benchmark(args: argparse.Namespace, tmp: Path) -> int:
    found, skipped = solvers_found()
    if not os.path.exists(DRAT_TRIM):
        skipped.append(f"drat-trim ({DRAT_TRIM} not found; set DRAT_TRIM)")
    skipped += [f"{k} (pip install {' '.join(PEERS[k])})" for k in PEERS if k not in FOUND]
    print(f"solvers: {', '.join(found)}\nskipped: {', '.join(skipped)}")
    print(f"drat-trim: {DRAT_TRIM}; repeat {args.repeat}; drup up to {args.drup_steps:,}", end="")
    print(f" steps, {args.drup_timeout:g} s; peak RSS by {TIME or 'os.wait4'}")
    rows = []
    for fam, fargs, which in QUICK if args.quick else DEFAULT:
        num_vars, clauses = _cnfgen.family(fam, *fargs)
        cnf = tmp / ("-".join(map(str, (fam, *fargs))) + ".cnf")
        _cnfgen.write_dimacs(cnf, num_vars, clauses, comment=f"{fam} {fargs}")
        for p in solve(cnf, which, found, args.solve_timeout):
            p.clauses = len(clauses)
            rows.append(check(cnf, p, args))
            r = rows[-1]
            times = ", ".join(f"{k} {v:.2f}" for k, v in r.seconds.items())
            print(f"  {r.instance} {r.solver} {r.format} {r.steps:,} steps: {times}", flush=True)
            if not args.keep:
                for f in {p.path, p.drat, p.text}:
                    f.unlink()
    print_tables(rows)
    status = summary(rows)
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in rows], indent=1) + "\n")
    return status


def memory(args: argparse.Namespace, tmp: Path) -> int:
    """Peak RSS with one large CNF: an empty proof, and its planted model."""
    m = args.memory_clauses
    num_vars, clauses, model = _cnfgen.planted_3sat(m * 10 // 42, m, 1)
    cnf, empty, sol = tmp / "planted.cnf", tmp / "empty.drup", tmp / "planted.model"
    _cnfgen.write_dimacs(cnf, num_vars, clauses)
    del clauses
    empty.write_bytes(b"")
    vs = (" ".join(map(str, model[i : i + 20])) for i in range(0, len(model), 20))
    sol.write_text("s SATISFIABLE\n" + "".join(f"v {v}\n" for v in vs) + "v 0\n")
    mb = cnf.stat().st_size / 2**20
    print(f"CNF: {num_vars:,} variables, {m:,} clauses, {mb:.1f} MB; an empty proof")
    ours = [*so.scc(), "verify", str(cnf), "--quiet", "--timeout", str(args.timeout)]
    cmds = {
        "drat-trim CNF empty": [DRAT_TRIM, str(cnf), str(empty), "-t", str(args.timeout)],
        "ours verify CNF empty": [*ours, str(empty)],
        "ours verify CNF --model": [*ours, "--model", str(sol)],
    }
    rss: dict[str, float] = {}
    print("\n| run | exit | seconds | peak RSS MB |\n| --- | ---: | ---: | ---: |")
    for label, cmd in cmds.items():
        rc, seconds, rss[label], _ = measure(cmd, args.timeout + 30)
        print(f"| {label} | {rc} | {seconds:.2f} | {rss[label]:.0f} |", flush=True)
    dt = rss["drat-trim CNF empty"]
    print(f"\nours empty proof / drat-trim: {rss['ours verify CNF empty'] / dt:.2f}")
    print(f"ours model / drat-trim empty proof: {rss['ours verify CNF --model'] / dt:.2f}")
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--peer"]:
        return peer(*argv[1:4])
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a few small proofs (about a minute)")
    ap.add_argument("--memory", action="store_true", help="peak RSS with one large CNF")
    ap.add_argument("--memory-clauses", type=int, default=2_000_000, help="its clauses")
    ap.add_argument("--repeat", type=int, default=1, help="runs of each check, best kept")
    ap.add_argument("--json", type=Path, help="write every row and run to FILE")
    ap.add_argument("--keep", type=Path, metavar="DIR", help="write the files in DIR, kept")
    ap.add_argument("--timeout", type=int, default=600, help="seconds per check (600)")
    ap.add_argument("--solve-timeout", type=float, default=120, help="seconds per solve (120)")
    ap.add_argument("--drup-steps", type=int, default=5000, help="drup on proofs up to N steps")
    ap.add_argument("--drup-timeout", type=float, default=120, help="seconds per drup check")
    args = ap.parse_args(argv)
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        run = memory if args.memory else benchmark
        status = run(args, args.keep or Path(tmp))
    print(f"\ntotal {time.perf_counter() - t0:.0f} s")
    return status


if __name__ == "__main__":
    sys.exit(main())
