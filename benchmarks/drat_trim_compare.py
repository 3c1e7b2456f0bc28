"""The corpus's large tier: sat-claim-check's run_files() against drat-trim.

drat-trim (the C DRAT checker) is not bundled or built here: pass the path to
a binary with ``--drat-trim PATH`` or the ``DRAT_TRIM`` environment variable;
without one the script prints a message and exits 0.

For each large-tier instance, in one run and interleaved per file (drat-trim
forward, drat-trim backward, then ours, N times; best of N reported):

* drat-trim in forward mode as a process, ``drat-trim F.cnf F.drup -f -t 20000``
  (``-f``: forward checking of UNSAT proofs, every lemma; ``-t``: raises its
  time limit, which only the backward pass consults).
* drat-trim in its default mode, ``drat-trim F.cnf F.drup``: backward
  checking, which verifies only the lemmas in the core (its own default time
  limit, 20000 or 40000 s depending on the version, is never reached here).
  For both, the ``.drup.gz`` proofs are decompressed once to a temporary file
  beforehand; that is not timed.  Time: whole-process wall clock.  Verdict:
  its ``s ...`` line.
* ours as a ``python -c`` child running ``sat_claim_check.dimacs.run_files``
  on the CNF and the ``.drup.gz`` directly (gzip read included), compiled
  engine, ``Limits.unlimited()``.  Times: whole-process wall clock (interpreter
  start-up and import included) and the ``run_files`` call alone, as measured
  inside the child.  Verdict and ``steps_checked`` are checked against the
  corpus's ``strict`` entry.

Under the table: the geometric mean, over the valid large-tier proofs (the
corpus's ``strict`` entry is valid), of this checker's in-process time over
each drat-trim mode's process time (lower is better for this checker).

Both start-up floors are measured the same way on the smallest contract-tier
pair and printed under the table.  The run fails (exit 1) if a verdict differs
from the corpus or if the package's compiled extensions change during it.

    python benchmarks/drat_trim_compare.py --drat-trim /path/to/drat-trim [--repeat 3]
"""

import argparse
import gzip
import hashlib
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_CORPUS = Path(
    os.environ.get("SAT_CLAIM_CHECK_CORPUS") or HERE.parent.parent / "shared" / "corpus"
)
FLOOR_PAIR = "c000-php-pigeons5-holes4-glucose3-s1000"

CHILD = r"""
import json, sys, time
cnf, drup = sys.argv[1:3]
t0 = time.perf_counter()
import sat_claim_check as scc
from sat_claim_check.dimacs import run_files
t1 = time.perf_counter()
report = run_files(cnf, drup, engine="compiled", limits=scc.Limits.unlimited())
t2 = time.perf_counter()
print(json.dumps({"import_s": t1 - t0, "check_s": t2 - t1,
                  "valid": report.result["valid"], "reason": report.result["reason"],
                  "steps_checked": report.result["steps_checked"]}))
"""


MODES = {"forward": ["-f", "-t", "20000"], "backward": []}


def run_drat_trim(binary, cnf, drup, mode="forward"):
    t0 = time.perf_counter()
    proc = subprocess.run(
        [binary, str(cnf), str(drup), *MODES[mode]], check=False, capture_output=True, text=True
    )
    wall = time.perf_counter() - t0
    lines = [ln.strip("\r") for ln in proc.stdout.replace("\r", "\n").splitlines()]
    verdict = next((ln[2:] for ln in lines if ln.startswith("s ")), None)
    if verdict is None:
        raise RuntimeError(
            f"drat-trim printed no verdict (exit {proc.returncode}):\n"
            f"{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
        )
    warnings = sum("WARNING" in ln for ln in lines)
    return {"wall_s": wall, "verdict": verdict, "warnings": warnings, "exit": proc.returncode}


def run_ours(cnf, drup):
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, str(cnf), str(drup)],
        capture_output=True,
        text=True,
        check=True,
    )
    wall = time.perf_counter() - t0
    out = json.loads(proc.stdout)
    out["wall_s"] = wall
    return out


def extension_digest():
    """sha256 over the package's compiled extension files (to notice a rebuild mid-run)."""
    import sat_claim_check

    h = hashlib.sha256()
    for path in sorted(Path(sat_claim_check.__file__).parent.glob("*.so")) + sorted(
        Path(sat_claim_check.__file__).parent.glob("*.pyd")
    ):
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:12]


def label(entry):
    """'l000 php 8/7', 'l004 rand3 n200', ... as in the other benchmark tables."""
    p = entry["params"]
    size = f"{p['pigeons']}/{p['holes']}" if "pigeons" in p else f"n{p['n']}"
    return f"{entry['name'][:4]} {entry['family']} {size}"


def best(runs, key):
    return min(r[key] for r in runs)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument(
        "--drat-trim",
        dest="drat_trim",
        default=os.environ.get("DRAT_TRIM"),
        help="path to a drat-trim binary (default: $DRAT_TRIM)",
    )
    ap.add_argument("--repeat", type=int, default=3, help="best of N runs per file")
    args = ap.parse_args()

    binary = args.drat_trim and (shutil.which(args.drat_trim) or args.drat_trim)
    if not binary or not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
        print("skipped: no drat-trim binary (pass --drat-trim PATH or set DRAT_TRIM)")
        return 0

    import sat_claim_check.dimacs  # noqa: F401  (fail early if not installed)

    digest = extension_digest()

    index = json.loads((args.corpus / "index.json").read_text())
    large = sorted((i for i in index["instances"] if i["tier"] == "large"), key=lambda i: i["name"])
    print(
        f"Python {sys.version.split()[0]}, {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} CPUs; drat-trim: {binary}; best of {args.repeat}, "
        f"interleaved per file; extensions {digest}"
    )

    header = (
        "| instance | lemmas | drat-trim -f s | drat-trim default s | ours process s "
        "| ours in-process s | ours / -f | ours / default "
        "| drat-trim verdict (-f; default) | ours verdict |"
    )
    print()
    print(header)
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |")
    mismatches = []
    ratios = {"forward": [], "backward": []}
    with tempfile.TemporaryDirectory(prefix="drat-trim-compare-") as tmp:
        for entry in large:
            cnf = args.corpus / entry["files"]["cnf"]
            drup_gz = args.corpus / entry["files"]["drup"]
            if drup_gz.suffix == ".gz":
                plain = Path(tmp) / drup_gz.stem
                with gzip.open(drup_gz, "rb") as src, open(plain, "wb") as dst:
                    shutil.copyfileobj(src, dst)  # not timed
            else:
                plain = drup_gz
            theirs = {"forward": [], "backward": []}
            ours = []
            for _ in range(args.repeat):
                for mode, runs in theirs.items():
                    runs.append(run_drat_trim(binary, cnf, plain, mode))
                ours.append(run_ours(cnf, drup_gz))
            for mode, runs in theirs.items():
                if len({r["verdict"] for r in runs}) != 1:
                    mismatches.append(
                        f"{entry['name']}: drat-trim {mode} verdicts differ between runs"
                    )
            strict = entry["strict"]
            for r in ours:
                got = (r["valid"], r["reason"], r["steps_checked"])
                want = (strict["valid"], strict["reason"], strict["steps_checked"])
                if got != want:
                    mismatches.append(f"{entry['name']}: ours {got} != corpus strict {want}")
            df = best(theirs["forward"], "wall_s")
            db = best(theirs["backward"], "wall_s")
            op = best(ours, "wall_s")
            oi = best(ours, "check_s")
            mine = ours[0]
            if mine["valid"]:
                verdict = "valid"
                ratios["forward"].append(oi / df)
                ratios["backward"].append(oi / db)
            else:
                verdict = (
                    f"{mine['reason']} at step {mine['steps_checked']:,} "
                    f"of {entry['proof_steps']:,}"
                )
            tv = []
            for mode in ("forward", "backward"):
                v = theirs[mode][0]["verdict"]
                if theirs[mode][0]["warnings"]:
                    v += f" ({theirs[mode][0]['warnings']} warnings)"
                tv.append(v)
            short = label(entry)
            print(
                f"| {short} | {entry['proof_steps']:,} | {df:.3f} | {db:.3f} | {op:.3f} "
                f"| {oi:.3f} | {oi / df:.3f} | {oi / db:.3f} | {'; '.join(tv)} "
                f"| {verdict} |",
                flush=True,
            )

    if ratios["forward"]:
        n = len(ratios["forward"])
        print(
            f"\nGeometric mean over the {n} valid proofs, ours in-process / drat-trim "
            f"process: against -f {statistics.geometric_mean(ratios['forward']):.3f}, "
            f"against the default (backward) mode "
            f"{statistics.geometric_mean(ratios['backward']):.3f}"
        )
    floor_cnf = args.corpus / f"{FLOOR_PAIR}.cnf"
    floor_drup = args.corpus / f"{FLOOR_PAIR}.drup"
    if floor_cnf.exists() and floor_drup.exists():
        t = [run_drat_trim(binary, floor_cnf, floor_drup) for _ in range(args.repeat)]
        o = [run_ours(floor_cnf, floor_drup) for _ in range(args.repeat)]
        print(
            f"\nStart-up floor ({FLOOR_PAIR}, {args.repeat} runs, best): "
            f"drat-trim {best(t, 'wall_s'):.3f} s ({t[0]['verdict']}); "
            f"ours process {best(o, 'wall_s'):.3f} s, of which import "
            f"{best(o, 'import_s'):.3f} s and run_files {best(o, 'check_s'):.4f} s"
        )
    if extension_digest() != digest:
        mismatches.append("the compiled extensions changed during the run: re-run")
    for m in mismatches:
        print("MISMATCH:", m)
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
