"""LRAT out on the corpus: every valid verdict's LRAT re-checked by cake_lpr, and its cost.

For every corpus instance (contract and large tiers, text and binary DRUP)
and every reading (strict, lenient, drat-trim), ``check_files(..., lrat=F)``
with the compiled engine, text and binary LRAT:

* a valid verdict's LRAT must be accepted by cake_lpr (``s VERIFIED UNSAT``)
  and by the test suite's own LRAT checker (tests/_lrat.py, text only;
  ``--skip-test-checker`` leaves it out);
* a verdict that is not valid must leave no file under the name.

Then, on the large tier (drat-trim reading, from files, both parsing): the
check's time with LRAT (text, to a file) over without, best of ``--repeat``,
interleaved; the LRAT's size against drat-trim ``-L``'s (its default,
backward mode) for the same proof; and cake_lpr's time on each.

    python benchmarks/lrat_corpus.py [--corpus DIR] [--cake-lpr PATH]
        [--drat-trim PATH] [--repeat N] [--skip-test-checker]

cake_lpr builds from its public source with ``gcc -O2 basis_ffi.c
cake_lpr.S -o cake_lpr``; drat-trim with ``gcc -O2 drat-trim.c -o drat-trim``.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_CORPUS = Path(
    os.environ.get("SAT_CLAIM_CHECK_CORPUS") or HERE.parent.parent / "shared" / "corpus"
)
sys.path.insert(0, str(HERE.parent / "tests"))

import sat_claim_check as scc  # noqa: E402

READINGS = ("strict", "lenient", "drat-trim")


def cake(binary: str, cnf: Path, lrat: Path) -> tuple[bool, float]:
    t0 = time.perf_counter()
    out = subprocess.run([binary, str(cnf), str(lrat)], capture_output=True, text=True)
    return "s VERIFIED UNSAT" in out.stdout, time.perf_counter() - t0


def plain_proof(drup: Path, work: Path) -> Path:
    if drup.suffix != ".gz":
        return drup
    out = work / drup.stem
    if not out.exists():
        with gzip.open(drup, "rb") as f, open(out, "wb") as g:
            shutil.copyfileobj(f, g)
    return out


def check_every_verdict(instances, corpus, work, cake_lpr, test_checker) -> dict:
    from _lrat import check_lrat, parse_dimacs

    counts = {"valid": 0, "accepted": 0, "not_valid": 0, "left_behind": 0, "test_checked": 0}
    failures = []
    for entry in instances:
        cnf = corpus / entry["files"]["cnf"]
        drup = corpus / entry["files"]["drup"]
        clauses = parse_dimacs(cnf.read_text()) if test_checker else None
        for reading in READINGS:
            for binary in (False, True):
                target = work / f"{entry['name']}.{reading}.{'b' if binary else 't'}lrat"
                outcome = scc.check_files(
                    cnf, drup, engine="compiled", reading=reading, lrat=target, lrat_binary=binary
                )
                if outcome.status != "valid":
                    counts["not_valid"] += 1
                    counts["left_behind"] += target.exists()
                    continue
                counts["valid"] += 1
                ok, _ = cake(cake_lpr, cnf, target)
                counts["accepted"] += ok
                if not ok:
                    failures.append((entry["name"], reading, binary))
                if test_checker and not binary:
                    check_lrat(clauses, target.read_bytes())
                    counts["test_checked"] += 1
                target.unlink()
        print(f"  {entry['name']}: done", file=sys.stderr, flush=True)
    counts["failures"] = failures
    return counts


def timed_check(cnf: Path, drup: Path, lrat: Path | None) -> float:
    t0 = time.perf_counter()
    outcome = scc.check_files(cnf, drup, engine="compiled", lrat=lrat)
    elapsed = time.perf_counter() - t0
    assert outcome.status == "valid", outcome.data
    return elapsed


def cost(instances, corpus, work, cake_lpr, drat_trim, repeat) -> list[dict]:
    rows = []
    for entry in instances:
        cnf = corpus / entry["files"]["cnf"]
        drup = corpus / entry["files"]["drup"]
        ours = work / "ours.lrat"
        off, on = [], []
        for _ in range(repeat):  # interleaved: the machine's drift falls on both
            off.append(timed_check(cnf, drup, None))
            on.append(timed_check(cnf, drup, ours))
        row = {
            "name": entry["name"],
            "steps": entry["proof_steps"],
            "off_s": min(off),
            "on_s": min(on),
            "ours_bytes": ours.stat().st_size,
        }
        row["cake_ours_ok"], row["cake_ours_s"] = cake(cake_lpr, cnf, ours)
        if drat_trim:
            theirs = work / "drat-trim.lrat"
            proof = plain_proof(drup, work)
            t0 = time.perf_counter()
            subprocess.run(
                [drat_trim, str(cnf), str(proof), "-L", str(theirs), "-t", "20000"],
                capture_output=True,
            )
            row["drat_trim_L_s"] = time.perf_counter() - t0
            row["theirs_bytes"] = theirs.stat().st_size if theirs.exists() else None
            if theirs.exists():
                row["cake_theirs_ok"], row["cake_theirs_s"] = cake(cake_lpr, cnf, theirs)
        rows.append(row)
        print(f"  {entry['name']}: {row}", file=sys.stderr, flush=True)
    return rows


def geomean(values: list[float]) -> float:
    return math.exp(sum(map(math.log, values)) / len(values))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--cake-lpr", default=os.environ.get("CAKE_LPR") or "cake_lpr")
    parser.add_argument("--drat-trim", default=os.environ.get("DRAT_TRIM") or "drat-trim")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--skip-test-checker", action="store_true")
    args = parser.parse_args()
    cake_lpr = shutil.which(args.cake_lpr)
    if cake_lpr is None or not (args.corpus / "index.json").exists():
        print("skipped: needs cake_lpr (--cake-lpr PATH) and the corpus (--corpus DIR)")
        return 0
    drat_trim = shutil.which(args.drat_trim)
    instances = [
        entry
        for entry in json.loads((args.corpus / "index.json").read_text())["instances"]
        if "drup" in entry["files"]  # an unsat claim
    ]
    print(f"# LRAT out on the corpus ({platform.machine()}, {os.cpu_count()} CPUs)\n")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        t0 = time.perf_counter()
        counts = check_every_verdict(
            instances, args.corpus, work, cake_lpr, not args.skip_test_checker
        )
        print(
            f"{len(instances)} instances x {len(READINGS)} readings x text/binary "
            f"({time.perf_counter() - t0:.0f} s): {counts['valid']} valid verdicts, "
            f"{counts['accepted']} LRATs accepted by cake_lpr, "
            f"{counts['test_checked']} text LRATs accepted by the test checker; "
            f"{counts['not_valid']} not valid, {counts['left_behind']} files left behind"
        )
        if counts["failures"]:
            print(f"REJECTED by cake_lpr: {counts['failures']}")
        large = [e for e in instances if e["tier"] == "large"]
        rows = cost(large, args.corpus, work, cake_lpr, drat_trim, args.repeat)
    print(
        "\n| instance | steps | check s | with LRAT s | ratio | LRAT MB | drat-trim -L MB "
        "| cake_lpr s (ours) | cake_lpr s (drat-trim's) |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        theirs = r.get("theirs_bytes")
        print(
            f"| {r['name']} | {r['steps']:,} | {r['off_s']:.2f} | {r['on_s']:.2f} "
            f"| {r['on_s'] / r['off_s']:.2f} | {r['ours_bytes'] / 1e6:.1f} "
            f"| {theirs / 1e6 if theirs else float('nan'):.1f} "
            f"| {r['cake_ours_s']:.2f}{'' if r['cake_ours_ok'] else ' REJECTED'} "
            f"| {r.get('cake_theirs_s', float('nan')):.2f} |"
        )
    ratios = [r["on_s"] / r["off_s"] for r in rows]
    print(f"\ngeometric mean, with LRAT over without: {geomean(ratios):.2f}x")
    sizes = [r["ours_bytes"] / r["theirs_bytes"] for r in rows if r.get("theirs_bytes")]
    if sizes:
        print(f"geometric mean, our LRAT's size over drat-trim -L's: {geomean(sizes):.2f}x")
    times = [r["cake_ours_s"] / r["cake_theirs_s"] for r in rows if r.get("cake_theirs_s")]
    if times:
        print(f"geometric mean, cake_lpr's time on ours over on drat-trim's: {geomean(times):.2f}x")
    return 1 if counts["failures"] or counts["left_behind"] else 0


if __name__ == "__main__":
    sys.exit(main())
