"""The corpus's large tier from DIMACS/DRUP files: run_files() against dratify.

Each file is checked in a fresh child process (so its peak RSS is its own):
sat-claim-check's ``run_files`` with the compiled engine and raised limits,
and dratify's ``check_proof`` with its Rust engine (registered by importing
``cdclkit`` with ``cdclkit-native`` installed).  Times are wall clock inside
the child, from reading the files to the verdict (gzip included for both);
peak RSS is the child's ``ru_maxrss``.  The parser throughput (MB/s of
decompressed DRUP text, compiled and pure) is measured on the same files.

    python benchmarks/large_tier.py [--corpus DIR] [--skip-dratify] [--repeat N]
"""

import argparse
import gzip
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_CORPUS = HERE.parent.parent / "shared" / "corpus"

CHILD = r"""
import json, resource, sys, time
which, cnf, drup = sys.argv[1:4]
t0 = time.perf_counter()
if which == "scc":
    import sat_claim_check as scc
    from sat_claim_check.dimacs import run_files
    report = run_files(cnf, drup, engine="compiled", limits=scc.Limits.unlimited())
    verdict = {"valid": report.result["valid"], "reason": report.result["reason"],
               "steps_checked": report.result["steps_checked"], "work": report.work}
else:
    import gzip
    import cdclkit  # registers dratify's Rust engine
    import dratify
    assert dratify.native_available()
    formula = dratify.parse_dimacs(open(cnf).read())
    text = gzip.open(drup, "rt").read() if drup.endswith(".gz") else open(drup).read()
    result = dratify.check_proof(formula, text, check_rat=False, engine="native")
    verdict = {"valid": bool(result.ok), "reason": result.reason}
seconds = time.perf_counter() - t0
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
print(json.dumps({"seconds": seconds, "rss_mib": rss / 1024, **verdict}))
"""


def child(which, cnf, drup):
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, which, str(cnf), str(drup)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(proc.stdout)


def best_of(which, cnf, drup, repeat):
    runs = [child(which, cnf, drup) for _ in range(repeat)]
    best = min(runs, key=lambda r: r["seconds"])
    best["rss_mib"] = max(r["rss_mib"] for r in runs)
    return best


def baseline_rss():
    """Peak RSS of a child that only imports the package (subtracted per lemma)."""
    code = (
        "import resource, sat_claim_check.dimacs; "
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)"
    )
    return float(
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        ).stdout
    )


def parser_throughput(paths):
    from sat_claim_check._engines import scan_py

    try:
        from sat_claim_check._engines import scan_c
    except ImportError:
        scan_c = None
    data = [gzip.decompress(p.read_bytes()) for p in paths]
    size = sum(map(len, data)) / 1e6
    out = {}
    for name, module in (("compiled", scan_c), ("pure", scan_py)):
        if module is None:
            continue
        best = float("inf")
        for _ in range(3 if module is scan_c else 1):
            t0 = time.perf_counter()
            for d in data:
                assert module.parse_drup(d)[0] == 0
            best = min(best, time.perf_counter() - t0)
        out[name] = size / best
    return size, out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--skip-dratify", action="store_true")
    ap.add_argument("--repeat", type=int, default=1, help="best of N runs per file")
    args = ap.parse_args()

    index = json.loads((args.corpus / "index.json").read_text())
    large = sorted((i for i in index["instances"] if i["tier"] == "large"), key=lambda i: i["adds"])
    base = baseline_rss()
    print(
        f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs; baseline RSS "
        f"{base:.1f} MiB (import only)"
    )
    # "lemmas" counts proof steps (adds and deletes), as in the figures.
    header = (
        f"{'instance':<44} {'lemmas':>7} {'adds':>7} {'work':>10} {'scc s':>7} "
        f"{'lemma/s':>8} {'MiB':>6} {'us/lem':>7} {'ns/work':>7} {'KiB/lem':>7}"
    )
    if not args.skip_dratify:
        header += f" {'dratify s':>9} {'MiB':>6} {'ratio':>6}"
    print(header)
    rows = []
    for entry in large:
        cnf = args.corpus / entry["files"]["cnf"]
        drup = args.corpus / entry["files"]["drup"]
        mine = best_of("scc", cnf, drup, args.repeat)
        strict = entry["strict"]
        assert (mine["valid"], mine["reason"], mine["steps_checked"], mine["work"]) == (
            strict["valid"],
            strict["reason"],
            strict["steps_checked"],
            strict["work"],
        ), entry
        lemmas = entry["proof_steps"]
        row = (
            f"{entry['name'][:44]:<44} {lemmas:>7} {entry['adds']:>7} {mine['work']:>10} "
            f"{mine['seconds']:>7.3f} {lemmas / mine['seconds']:>8.0f} "
            f"{mine['rss_mib']:>6.1f} {1e6 * mine['seconds'] / lemmas:>7.2f} "
            f"{1e9 * mine['seconds'] / mine['work']:>7.1f} "
            f"{1024 * (mine['rss_mib'] - base) / lemmas:>7.2f}"
        )
        theirs = None
        if not args.skip_dratify:
            theirs = best_of("dratify", cnf, drup, args.repeat)
            row += (
                f" {theirs['seconds']:>9.3f} {theirs['rss_mib']:>6.1f} "
                f"{theirs['seconds'] / mine['seconds']:>6.2f}"
            )
            if theirs["valid"] != mine["valid"]:
                row += f"  (dratify: valid={theirs['valid']}; here: {mine['reason']})"
        print(row, flush=True)
        rows.append((entry, mine, theirs))

    size, rates = parser_throughput([args.corpus / e["files"]["drup"] for e in large])
    print(
        f"\nDRUP parsing, {size:.1f} MB of text (decompressed): "
        + ", ".join(f"{k} {v:.0f} MB/s" for k, v in rates.items())
    )


if __name__ == "__main__":
    main()
