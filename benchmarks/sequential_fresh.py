"""The sequential check from files against drat-trim, on fresh CaDiCaL proofs.

    python benchmarks/sequential_fresh.py --drat-trim /work/tools/drat-trim \\
        [--dir DIR] [--repeat 3] [--baseline SRC] [NAME ...]

NAME is ``php9`` (php(10, 9)) or ``r<n>_s<seed>`` (random 3-SAT, ``_cnfgen``),
with ``.bin`` for CaDiCaL's binary proof (``cadical -q CNF PROOF``) instead of
its text one (``cadical -q --no-binary CNF PROOF``); default: php9, php9.bin,
r250_s4, r250_s4.bin, r250_s7.  The CNFs and proofs are written once to DIR
(default /tmp/sequential-fresh) and reused; an instance CaDiCaL finds satisfiable
is reported and skipped.

Per instance, interleaved and best of ``--repeat``: ``drat-trim CNF PROOF -f``
(forward, every lemma), ``drat-trim CNF PROOF`` (default, backward: the core's
lemmas), and ``python -m sat_claim_check verify CNF PROOF --reading drat-trim``
(this build; with ``--baseline SRC``, also the build whose ``sat_claim_check``
package is in SRC, through PYTHONPATH).  Each is a whole process: wall clock
and CPU time (user + system, from the children's rusage).  On a shared
machine the CPU ratios are the steadier ones.  Exit status 1 when a verdict
is not valid.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import _cnfgen  # noqa: E402

DEFAULT = ["php9", "php9.bin", "r250_s4", "r250_s4.bin", "r250_s7"]


def instance(directory: Path, name: str) -> tuple[Path, Path] | None:
    """(CNF, proof) of ``name``, made when missing; None when satisfiable."""
    base, _, binary = name.partition(".")
    cnf = directory / f"{base}.cnf"
    proof = directory / f"{name}.drup"
    if not cnf.exists():
        if base.startswith("php"):
            formula = _cnfgen.family("php", int(base[3:]))
        else:
            n, seed = base[1:].split("_s")
            formula = _cnfgen.family("3sat", int(n), int(seed))
        _cnfgen.write_dimacs(cnf, *formula, comment=base)
    if not proof.exists():
        flags = [] if binary else ["--no-binary"]
        done = subprocess.run(
            ["cadical", "-q", *flags, str(cnf), str(proof)],
            stdout=subprocess.DEVNULL,
            check=False,
        )
        if done.returncode != 20:
            proof.unlink(missing_ok=True)
            return None
    return cnf, proof


def timed(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, float, str]:
    """(wall s, CPU s, output) of one process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu, done.stdout + done.stderr


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*", default=DEFAULT)
    ap.add_argument("--drat-trim", default=os.environ.get("DRAT_TRIM"), required=False)
    ap.add_argument("--dir", type=Path, default=Path("/tmp/sequential-fresh"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--baseline", help="a directory holding another build's sat_claim_check")
    args = ap.parse_args(argv)
    if not args.drat_trim:
        print("no drat-trim: pass --drat-trim PATH (or set DRAT_TRIM)")
        return 0
    args.dir.mkdir(parents=True, exist_ok=True)
    print(f"load average {os.getloadavg()[0]:.1f}; best of {args.repeat}; seconds wall/CPU")
    failed = False
    for name in args.names:
        pair = instance(args.dir, name)
        if pair is None:
            print(f"{name}: satisfiable (or not solved), skipped")
            continue
        cnf, proof = (str(p) for p in pair)
        ours = [sys.executable, "-m", "sat_claim_check", "verify", cnf, proof]
        runs: list[tuple[str, list[str], dict[str, str] | None]] = [
            ("drat-trim -f", [args.drat_trim, cnf, proof, "-f", "-t", "20000"], None),
            ("drat-trim", [args.drat_trim, cnf, proof], None),
            ("ours", [*ours, "--reading", "drat-trim"], None),
        ]
        if args.baseline:
            env = dict(os.environ, PYTHONPATH=args.baseline)
            runs.append(("baseline", [*ours, "--reading", "drat-trim"], env))
        best: dict[str, tuple[float, float]] = {}
        for _ in range(args.repeat):
            for key, cmd, env in runs:
                wall, cpu, out = timed(cmd, env)
                ok = "s VERIFIED" in out if key.startswith("drat") else '"valid":true' in out
                if not ok:
                    failed = True
                    print(f"  {key}: not valid: {out[-200:]!r}")
                w, c = best.get(key, (wall, cpu))
                best[key] = (min(w, wall), min(c, cpu))
        cells = "  ".join(f"{k} {w:.2f}/{c:.2f}" for k, (w, c) in best.items())
        print(f"{name}: {cells}")
        f, d = best["drat-trim -f"], best["drat-trim"]
        for key in ("baseline", "ours") if args.baseline else ("ours",):
            w, c = best[key]
            print(
                f"  {key}: / -f wall {w / f[0]:.3f} CPU {c / f[1]:.3f};"
                f" / default wall {w / d[0]:.3f} CPU {c / d[1]:.3f}"
            )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
