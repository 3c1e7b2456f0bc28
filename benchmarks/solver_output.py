"""Real solver output, checked by this package's command line beside drat-trim.

    python benchmarks/solver_output.py [--quick | --large] [--json FILE] [--jobs N]
        [--via auto|verify|request] [--timeout S] [--solve-timeout S]

Generates CNFs (``_cnfgen.py``: pigeonhole php(n+1, n), random 3-SAT near the
threshold, idempotent commutative quasigroups), solves each with every solver
found (CaDiCaL, PicoSAT, MiniSat, CryptoMiniSat, the PySAT solvers) and checks
every certificate:

* ours: ``sat-claim-check verify CNF PROOF`` (or ``--model MODEL``) as it is,
  then with ``--reading lenient`` when that is not valid, then ``--reading
  drat-trim``; without ``verify`` (or with ``--via request``), ``sat-claim-check
  request --check --unlimited`` instead. A proof a solver wrote to its standard
  output is given to ours through a pipe (``-``), solver lines and all.
* drat-trim, ``-f`` (forward) and default (backward), on the same proof or, for
  what it does not read (FRAT, PicoSAT's %RUPD32 header, ``s`` lines after a
  proof on standard output), on a plain DRUP copy.

Prints one row per instance x solver x format and a summary. Exit status 1 when
ours ``--reading drat-trim`` and ``drat-trim -f`` disagree on a proof, or when
a verdict other than valid printed nothing on stderr; 0 otherwise. Every file
is written in a temporary directory.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _cnfgen

DRAT_TRIM = os.environ.get("DRAT_TRIM", "/usr/local/bin/drat-trim")
PYSAT = ["glucose3", "glucose4", "lingeling", "maplechrono", "maplecm", "cadical153", "minisat22"]

# (family, arguments) of each suite; --large runs the default suite and LARGE.
QUICK = [("php", (4,)), ("php", (6,)), ("3sat", (60, 1)), ("3sat", (100, 1)), ("3sat", (100, 3))]
QUICK += [("magma", (4,)), ("magma", (5,))]
DEFAULT = [("php", (n,)) for n in (4, 5, 6, 7, 8)]
DEFAULT += [("3sat", (n, s)) for n in (100, 150, 200) for s in (1, 2, 3)] + [("3sat", (250, 2))]
DEFAULT += [("magma", (k,)) for k in (4, 5, 6, 7, 8, 9)]
LARGE = [("php", (9,))] + [("3sat", (250, s)) for s in (1, 3, 4)]
LARGE += [("3sat", (300, s)) for s in (1, 2)] + [("magma", (k,)) for k in (10, 11, 12)]


# ---------------------------------------------- what drat-trim reads instead


def plain_lines(data: bytes) -> bytes:
    """Drop header, comment, solution and blank lines (%RUPD32, c, s, v)."""
    return b"".join(ln for ln in data.splitlines(True) if ln[:1] not in b"%csv\r\n")


def cut_binary(data: bytes) -> bytes:
    """Binary DRUP then 's UNSATISFIABLE': keep up to the last 0 byte, which ends
    a step (a literal's varint never ends in 0)."""
    return data[: data.rfind(b"\0") + 1]


def frat_to_drup(data: bytes) -> bytes:
    """FRAT ``a id lits 0 [l hints 0]`` -> ``lits 0``; ``d id lits 0`` -> ``d lits 0``;
    o (original), f (final) and r (relocation) lines dropped."""
    out = []
    for line in data.splitlines():
        parts = line.split()
        if parts and parts[0] in (b"a", b"d"):
            lits = b" ".join(parts[2 : parts.index(b"0", 2) + 1])
            out.append(b"d " + lits if parts[0] == b"d" else lits)
    return b"\n".join(out) + b"\n"


def proof_stats(data: bytes) -> tuple[int, int]:
    """(steps, largest variable) of a DRUP proof, text or binary (text never starts 'a')."""
    if data[:1] == b"a" or (data[:1] == b"d" and data[1:2] != b" "):
        maxv = x = shift = 0
        tag = True
        for b in data:
            if tag:
                tag = False
            elif b == 0 and shift == 0:
                tag = True
            else:
                x |= (b & 127) << shift
                shift += 7
                if not b & 128:
                    maxv, x, shift = max(maxv, x >> 1), 0, 0
        return data.count(b"\0"), maxv
    lines = [ln.split() for ln in data.splitlines() if ln.strip()]
    maxv = max((abs(int(t)) for ln in lines for t in ln if t != b"d"), default=0)
    return len(lines), maxv


# ------------------------------------------------------------------- solvers

# solver: [(format, arguments, proof on stdout?, what drat-trim reads)]; {c} is
# the CNF and {p} the proof file. The first is run first: exit 10 makes its
# stdout (MiniSat: its result file) the model, exit 20 runs every format.
Convert = Optional[Callable[[bytes], bytes]]
NATIVE: dict[str, list[tuple[str, str, bool, Convert]]] = {
    "cadical": [
        ("DRUP text", "-q --binary=false {c} {p}", False, None),
        ("DRUP binary", "-q --binary=true {c} {p}", False, None),
        ("pipe binary", "-q --binary=true {c} -", True, cut_binary),
        ("pipe text", "-q --binary=false {c} -", True, plain_lines),
    ],
    "picosat": [("RUP %RUPD32", "-R {p} {c}", False, plain_lines)],
    "minisat": [("result file", "-verb=0 {c} {p}", False, None)],  # no proof output
    "cryptominisat5": [("FRAT text", "--verb 0 {c} {p}", False, frat_to_drup)],
}


@dataclass
class Cert:
    """A certificate: a proof (unsat) or a model (sat), and what drat-trim reads."""

    solver: str
    fmt: str
    kind: str  # "proof" or "model"
    data: bytes
    pipe: bool = False  # ours reads it from a pipe
    drat: bytes = b""


def run(cmd: list[str], timeout: float, **kw) -> tuple[int | None, bytes, bytes, float]:
    """(exit code, None on timeout; stdout; stderr; seconds)."""
    t = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=timeout, check=False, **kw)
        return p.returncode, p.stdout, p.stderr, time.perf_counter() - t
    except subprocess.TimeoutExpired as e:
        return None, e.stdout or b"", e.stderr or b"", time.perf_counter() - t


def native(solver: str, cnf: Path, tmp: Path, timeout: float) -> tuple[str, list[Cert]]:
    certs = []
    for i, (fmt, template, on_stdout, convert) in enumerate(NATIVE[solver]):
        proof = tmp / f"{cnf.stem}.{solver}.{i}"
        args = template.format(c=cnf, p=proof).split()
        rc, out, _, _ = run([solver, *args], timeout)
        if rc == 10:
            model = proof.read_bytes() if solver == "minisat" else out
            fmt = "result file" if solver == "minisat" else "s/v stdout"
            return "sat", [Cert(solver, fmt, "model", model)]
        if rc != 20:
            return "unknown", []
        if solver != "minisat":
            data = out if on_stdout else proof.read_bytes()
            drat = convert(data) if convert else data
            certs.append(Cert(solver, fmt, "proof", data, on_stdout, drat))
        proof.unlink(missing_ok=True)
    return "unsat", certs


def pysat(name: str, cnf: Path, tmp: Path, timeout: float) -> tuple[str, list[Cert]]:
    out = tmp / f"{cnf.stem}.{name}"
    cmd = [sys.executable, __file__, "--pysat-worker", name, str(cnf), str(out)]
    rc, stdout, _, _ = run(cmd, timeout)
    result = stdout.decode().strip() if rc == 0 else "unknown"
    if result not in ("sat", "unsat") or not out.exists():
        return result, []
    data = out.read_bytes()
    out.unlink()
    if result == "sat":
        return "sat", [Cert(name, "get_model()", "model", data)]
    return "unsat", [Cert(name, "get_proof()", "proof", data, drat=data)]


def pysat_worker(name: str, cnf: str, out: str) -> int:
    """Child process: solve with PySAT, write the proof or model, print sat/unsat."""
    from pysat.formula import CNF
    from pysat.solvers import Solver

    clauses = CNF(from_file=cnf).clauses
    try:
        solver, proof = Solver(name=name, bootstrap_with=clauses, with_proof=True), True
    except NotImplementedError:  # this solver logs no proof
        solver, proof = Solver(name=name, bootstrap_with=clauses), False
    with solver:
        sat = solver.solve()
        if sat:
            m = solver.get_model()
            vs = "".join(f"v {' '.join(map(str, m[i : i + 20]))}\n" for i in range(0, len(m), 20))
            Path(out).write_text(f"s SATISFIABLE\n{vs}v 0\n")
        elif proof:
            Path(out).write_text("\n".join(solver.get_proof()) + "\n")
    print("sat" if sat else "unsat")
    return 0


def available_solvers() -> tuple[dict[str, Callable], list[str]]:
    solvers, skipped = {}, []
    for name in NATIVE:
        if shutil.which(name):
            solvers[name] = lambda cnf, tmp, t, name=name: native(name, cnf, tmp, t)
        else:
            skipped.append(f"{name} (not on PATH)")
    try:
        from pysat.solvers import SolverNames
    except ImportError:
        return solvers, [*skipped, "PySAT solvers (python-sat not importable)"]
    for name in PYSAT:
        if hasattr(SolverNames, name):
            solvers[name] = lambda cnf, tmp, t, name=name: pysat(name, cnf, tmp, t)
        else:
            skipped.append(f"{name} (not in this PySAT)")
    return solvers, skipped


# ------------------------------------------------------------------ checkers


def scc() -> list[str]:
    exe = shutil.which("sat-claim-check")
    return [exe] if exe else [sys.executable, "-m", "sat_claim_check"]


def ours(
    via: str, cnf: Path, cert: Path, kind: str, pipe: bool, reading: str | None, timeout: float
) -> dict:
    """Check one certificate with our command line (the one place that spells it).

    ``via`` "verify": ``sat-claim-check verify``; "request": the ``request
    --check`` path, for a build without ``verify``.
    """
    src = "-" if pipe else str(cert)
    if via == "verify":
        cmd = [*scc(), "verify", str(cnf), *(["--model"] * (kind == "model")), src]
        cmd += ["--quiet", "--timeout", str(timeout)]
    else:
        cmd = [*scc(), "request", "--cnf", str(cnf), "--check", "--unlimited", "--quiet"]
        cmd += ["--model" if kind == "model" else "--proof", src]
    cmd += ["--reading", reading] if reading else []
    if pipe:  # a real pipe, as from a solver still writing
        feeder = subprocess.Popen(["cat", str(cert)], stdout=subprocess.PIPE)
        rc, out, err, t = run(cmd, timeout + 60, stdin=feeder.stdout)
        feeder.stdout.close()
        feeder.wait()
    else:
        rc, out, err, t = run(cmd, timeout + 60)
    try:
        result = json.loads(out.decode(errors="replace").strip().splitlines()[-1])
    except (ValueError, IndexError):
        result = {}
    if rc is None:
        verdict, reason = "timeout", None
    elif rc in (0, 1) and result.get("valid") is (rc == 0):
        verdict, reason = ("valid" if rc == 0 else "not valid"), result.get("reason")
    else:
        verdict, reason = "error", result.get("error") or f"exit {rc}"
    return {"verdict": verdict, "reason": reason, "stderr": bool(err.strip()), "seconds": t}


def drat_trim(cnf: Path, proof: Path, forward: bool, timeout: float) -> tuple[str, float]:
    cmd = [DRAT_TRIM, str(cnf), str(proof), "-t", str(int(timeout)), *(["-f"] * forward)]
    rc, out, _, t = run(cmd, timeout + 30)
    text = out.decode(errors="replace")
    if rc is None or "timeout" in text.lower():
        return "timeout", t
    if "s NOT VERIFIED" in text:
        return "not verified", t
    return ("verified" if "s VERIFIED" in text else "error"), t


# -------------------------------------------------------------------- driver


@dataclass
class Row:
    instance: str
    solver: str
    format: str
    result: str
    steps: int | None = None
    in_scope: bool | None = None  # every variable of the proof is the CNF's
    ours: str = "-"
    ours_reason: str | None = None
    ours_lenient: str = "-"
    ours_dt: str = "-"
    ours_dt_reason: str | None = None
    dt_forward: str = "-"
    dt_backward: str = "-"
    times: dict[str, float] = field(default_factory=dict)  # seconds, per checker
    silent: list[str] = field(default_factory=list)  # not valid, nothing on stderr


def check(via: str, cnf: Path, num_vars: int, cert: Cert, tmp: Path, timeout: float) -> Row:
    row = Row(cnf.stem, cert.solver, cert.fmt, "sat" if cert.kind == "model" else "unsat")
    path = tmp / f"{cnf.stem}.{cert.solver}.cert"
    path.write_bytes(cert.data)

    def ours_as(reading: str | None, label: str) -> dict:
        r = ours(via, cnf, path, cert.kind, cert.pipe, reading, timeout)
        row.times[label] = round(r["seconds"], 3)
        if r["verdict"] != "valid" and not r["stderr"]:
            row.silent.append(label)
        return r

    r = ours_as(None, "ours")
    row.ours, row.ours_reason = r["verdict"], r["reason"]
    if cert.kind == "proof":
        row.steps, maxv = proof_stats(cert.drat)
        row.in_scope = maxv <= num_vars
        if row.ours != "valid":
            row.ours_lenient = ours_as("lenient", "ours lenient")["verdict"]
        r = ours_as("drat-trim", "ours dt")
        row.ours_dt, row.ours_dt_reason = r["verdict"], r["reason"]
        if os.path.exists(DRAT_TRIM):
            drat = tmp / f"{cnf.stem}.{cert.solver}.drat"
            drat.write_bytes(cert.drat)
            row.dt_forward, row.times["dt -f"] = drat_trim(cnf, drat, True, timeout)
            row.dt_backward, row.times["dt"] = drat_trim(cnf, drat, False, timeout)
            drat.unlink()
    path.unlink()
    return row


def do_instance(spec, tmp: Path, solvers: dict, via: str, args) -> tuple[list[Row], list[str]]:
    fam, fargs = spec
    name = "-".join(map(str, (fam, *fargs)))
    num_vars, clauses = _cnfgen.family(fam, *fargs)
    cnf = tmp / f"{name}.cnf"
    _cnfgen.write_dimacs(cnf, num_vars, clauses, comment=f"{fam} {fargs}")
    rows, notes, results = [], [], {}
    for sname, solve in solvers.items():
        result, certs = solve(cnf, tmp, args.solve_timeout)
        results[sname] = result
        if result not in ("sat", "unsat"):
            notes.append(f"{name}: {sname} gave no answer within {args.solve_timeout:g} s")
        elif not certs:
            notes.append(f"{sname}: {result}, no certificate written")
        rows += [check(via, cnf, num_vars, c, tmp, args.timeout) for c in certs]
    if len(set(results.values()) & {"sat", "unsat"}) > 1:
        notes.append(f"{name}: THE SOLVERS DISAGREE {results}")
    outcomes = "/".join(sorted(set(results.values())))
    print(f"  {name}: {num_vars} vars, {len(clauses)} clauses, {outcomes},", end=" ")
    print(f"{len(rows)} certificates", flush=True)
    return rows, notes


HEAD = "instance|solver|format|steps|ours|lenient|ours drat-trim|drat-trim -f|drat-trim"
TIMES = ("ours", "ours dt", "dt -f", "dt")
OURS_DECIDED, DT_DECIDED = ("valid", "not valid"), ("verified", "not verified")


def print_table(rows: list[Row]) -> None:
    print(f"| {HEAD.replace('|', ' | ')} | " + " | ".join(f"t {t}" for t in TIMES) + " |")
    print("|" + " --- |" * 3 + " ---: |" * 10)
    for r in rows:
        steps = "-" if r.steps is None else f"{r.steps:,}" + ("" if r.in_scope else "*")
        cells = (r.instance, r.solver, r.format, steps, r.ours, r.ours_lenient, r.ours_dt)
        cells += (r.dt_forward, r.dt_backward)
        cells += tuple(f"{r.times[k]:.2f}" if k in r.times else "-" for k in TIMES)
        print("| " + " | ".join(cells) + " |")


def summary(rows: list[Row], via: str) -> int:
    proofs = [r for r in rows if r.steps is not None]
    decided = [r for r in proofs if r.ours_dt in OURS_DECIDED and r.dt_forward in DT_DECIDED]
    disagree = [r for r in decided if (r.ours_dt == "valid") != (r.dt_forward == "verified")]
    silent = [r for r in rows if r.silent]

    def count(rs: list[Row], attr: str, value: str) -> int:
        return sum(getattr(r, attr) == value for r in rs)

    cmd = "verify" if via == "verify" else "request --check --unlimited"
    n, p = count(rows, "ours", "valid"), count(proofs, "ours", "valid")
    print(f"\nvalid with `sat-claim-check {cmd}` and no other flag: {n} of {len(rows)}", end="")
    print(f" ({p} of {len(proofs)} proofs, {n - p} of {len(rows) - len(proofs)} models)")
    print(
        f"proofs valid with --reading lenient: {count(proofs, 'ours_lenient', 'valid')} more;",
        f"with --reading drat-trim: {count(proofs, 'ours_dt', 'valid')} of {len(proofs)}",
    )
    print(
        f"drat-trim verified {count(proofs, 'dt_forward', 'verified')} (-f),",
        f"{count(proofs, 'dt_backward', 'verified')} (backward) of {len(proofs)}",
    )
    print(
        "proofs with variables beyond the CNF's (steps marked *):",
        sum(not r.in_scope for r in proofs),
        "(all treated as in scope)",
    )
    print(
        "disagreements, ours --reading drat-trim against drat-trim -f:",
        len(disagree),
        f"of {len(decided)} both decided",
    )
    for r in disagree:
        print(f"  {r.instance} {r.solver} {r.format}: ours {r.ours_dt} ({r.ours_dt_reason})")
    print(f"verdicts other than valid with nothing on stderr: {len(silent)}")
    for r in silent:
        print(f"  {r.instance} {r.solver} {r.format}: {', '.join(r.silent)}")
    bad = [r for r in rows if r.ours != "valid"]
    print("not valid as they are (reason; lenient; drat-trim reading):" * bool(bad))
    for r in bad:
        dt = r.ours_dt + f" ({r.ours_dt_reason})" * bool(r.ours_dt_reason)
        print(f"  {r.instance} {r.solver} {r.format}: {r.ours} ({r.ours_reason});", end="")
        print(f" {r.ours_lenient}; {dt}")
    return 1 if disagree or silent else 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--pysat-worker"]:
        return pysat_worker(*argv[1:4])
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    size = ap.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="small instances only (about 30 s)")
    size.add_argument("--large", action="store_true", help="add larger instances")
    ap.add_argument("--json", type=Path, help="write the rows to FILE as JSON")
    ap.add_argument("--jobs", type=int, default=2, help="instances at a time (default 2)")
    ap.add_argument(
        "--via",
        choices=["auto", "verify", "request"],
        default="auto",
        help="our command (auto: verify when `sat-claim-check verify --help` works)",
    )
    ap.add_argument("--timeout", type=float, default=600, help="seconds per check")
    ap.add_argument("--solve-timeout", type=float, default=300, help="seconds per solve")
    args = ap.parse_args(argv)
    if args.via == "auto":
        args.via = "verify" if run([*scc(), "verify", "--help"], 60)[0] == 0 else "request"
    specs = QUICK if args.quick else DEFAULT + (LARGE if args.large else [])
    solvers, skipped = available_solvers()
    if not os.path.exists(DRAT_TRIM):
        skipped.append(f"drat-trim ({DRAT_TRIM} not found; set DRAT_TRIM)")
    print(f"solvers: {', '.join(solvers) or 'none'}\nskipped: {', '.join(skipped) or 'none'}")
    print(f"ours: sat-claim-check {args.via}; {len(specs)} instances, {args.jobs} at a time")
    t0 = time.perf_counter()
    with ThreadPoolExecutor(max(1, args.jobs)) as pool, tempfile.TemporaryDirectory() as tmp:
        done = list(pool.map(lambda s: do_instance(s, Path(tmp), solvers, args.via, args), specs))
    rows = [r for rs, _ in done for r in rs]
    notes = [n for _, ns in done for n in ns]
    print()
    print_table(rows)
    for note in dict.fromkeys(notes):
        k = notes.count(note)
        print(("\n" if note == notes[0] else "") + note + (f" ({k} instances)" if k > 1 else ""))
    status = summary(rows, args.via)
    print(f"\ntotal {time.perf_counter() - t0:.1f} s")
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in rows], indent=1) + "\n")
    return status


if __name__ == "__main__":
    sys.exit(main())
