"""Lenient deletions against drat-trim's forward mode, on every unsat proof of the corpus.

    python benchmarks/drat_trim_lenient.py --drat-trim /path/to/drat-trim [--corpus DIR]

drat-trim (the C DRAT checker) is not bundled or built here: pass the path to
a binary with ``--drat-trim PATH`` or the ``DRAT_TRIM`` environment variable;
without one the script prints a message and exits 0.

For each unsat instance of the corpus (the contract tier's ``.cnf``/``.drup``
and the large tier's ``.cnf``/``.drup.gz``, decompressed to a temporary file
for drat-trim only):

* drat-trim as a process, ``drat-trim F.cnf F.drup -f`` (forward checking);
  its verdict is its ``s ...`` line: ``VERIFIED`` is valid, ``NOT VERIFIED``
  and ``DERIVATION`` (every lemma checked, no empty clause) are not;
* this checker, ``dimacs.run_files`` with ``deletions="lenient"`` (and
  ``"strict"``, for the table), compiled engine when built, unlimited limits.

SPEC §4.4 promises equal verdicts on proofs of RUP lemmas only, whose
literals stay within ``num_vars``, with no failing step after the first empty
clause.  Each disagreement is listed with the conditions it breaks, as far as
they can be seen from here: a literal beyond ``num_vars`` (from the proof's
arrays), a failing step after the first empty clause (from the lenient
result), a lemma that is not RUP here while drat-trim counts RAT lemmas in its
core.  Exit status 1 when a disagreement breaks none of them.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import sat_claim_check as scc
from sat_claim_check import dimacs
from sat_claim_check._engines import default_engine

HERE = Path(__file__).resolve().parent
DEFAULT_CORPUS = Path(
    os.environ.get("SAT_CLAIM_CHECK_CORPUS", HERE.parent.parent / "shared" / "corpus")
)


def run_drat_trim(binary: str, cnf: Path, drup: Path) -> dict[str, Any]:
    proc = subprocess.run(
        [binary, str(cnf), str(drup), "-f"],
        check=False,
        capture_output=True,
        text=True,
        timeout=600,
    )
    lines = [ln.strip() for ln in proc.stdout.replace("\r", "\n").splitlines()]
    verdict = next((ln[2:] for ln in lines if ln.startswith("s ")), None)
    if verdict is None:
        raise RuntimeError(
            f"drat-trim printed no verdict (exit {proc.returncode}):\n"
            f"{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
        )
    # "c 0 RAT lemmas in core; 0 redundant literals in core lemmas"
    rat = next((int(ln.split()[1]) for ln in lines if "RAT lemmas in core" in ln), 0)
    failed = next((ln for ln in lines if ln.startswith("c failed at proof line")), None)
    return {
        "verdict": verdict,
        "valid": verdict == "VERIFIED",
        "rat_in_core": rat,
        "failed": failed,
        "warnings": sum("WARNING" in ln for ln in lines),
    }


def proof_facts(cnf: Path, drup: Path) -> dict[str, Any]:
    """What the §4.4 conditions need from the proof itself."""
    (num_vars, _, _), proof, _ = dimacs.parse_files(cnf, drup, None, scc.Limits.unlimited())
    assert proof is not None
    kinds, offsets, lits = proof
    beyond = sum(1 for lit in lits if abs(lit) > num_vars)
    first_empty = next(
        (s for s in range(len(kinds)) if kinds[s] == 0 and offsets[s] == offsets[s + 1]), None
    )
    return {
        "steps": len(kinds),
        "deletes": sum(1 for k in kinds if k == 1),
        "beyond_num_vars": beyond,
        "first_empty": first_empty,
    }


def ours(cnf: Path, drup: Path, deletions: str) -> scc.Report:
    return dimacs.run_files(cnf, drup, limits=scc.Limits.unlimited(), deletions=deletions)  # type: ignore[arg-type]


def why_outside(facts: dict[str, Any], lenient: scc.Report, drat: dict[str, Any]) -> list[str]:
    """The §4.4 conditions a disagreement breaks (empty: none that is seen)."""
    out = []
    if facts["beyond_num_vars"]:
        out.append(f"{facts['beyond_num_vars']} literals beyond num_vars")
    d = lenient.result["first_discrepancy"]
    if (
        d is not None
        and d["kind"] == "step"
        and facts["first_empty"] is not None
        and d["step_index"] > facts["first_empty"]
    ):
        out.append(
            f"failing step {d['step_index']} after the first empty clause "
            f"(step {facts['first_empty']})"
        )
    if lenient.result["reason"] == "lemma_not_rup" and drat["rat_in_core"]:
        out.append(
            f"a lemma that is not RUP ({drat['rat_in_core']} RAT lemmas in drat-trim's core)"
        )
    return out


def verdict_text(report: scc.Report) -> str:
    res = report.result
    if res["valid"]:
        return "valid"
    d = res["first_discrepancy"]
    at = f" @{d['step_index']}" if d and d["kind"] == "step" else ""
    return f"{res['reason']}{at}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument(
        "--drat-trim",
        dest="drat_trim",
        default=os.environ.get("DRAT_TRIM"),
        help="path to a drat-trim binary (default: $DRAT_TRIM)",
    )
    ap.add_argument("--json", action="store_true", help="one JSON line per proof as well")
    args = ap.parse_args(argv)

    binary = args.drat_trim and (shutil.which(args.drat_trim) or args.drat_trim)
    if not binary or not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
        print("skipped: no drat-trim binary (pass --drat-trim PATH or set DRAT_TRIM)")
        return 0
    if not (args.corpus / "index.json").is_file():
        print(f"skipped: no corpus at {args.corpus} (pass --corpus or set SAT_CLAIM_CHECK_CORPUS)")
        return 0
    index = json.loads((args.corpus / "index.json").read_text(encoding="utf-8"))
    instances = [
        i for i in index["instances"] if i["expected_claim"] == "unsat" and "drup" in i["files"]
    ]

    print(f"engine: {default_engine()}; drat-trim: {binary}")
    print("| instance | steps | deletes | strict | lenient (ignored) | drat-trim -f | agree |")
    print("| --- | ---: | ---: | --- | --- | --- | --- |")
    disagreements = []
    inside = 0
    with tempfile.TemporaryDirectory() as tmp:
        for inst in instances:
            cnf = args.corpus / inst["files"]["cnf"]
            drup = args.corpus / inst["files"]["drup"]
            plain = drup
            if drup.suffix == ".gz":
                plain = Path(tmp) / drup.stem
                with gzip.open(drup, "rb") as src, open(plain, "wb") as dst:
                    shutil.copyfileobj(src, dst)
            drat = run_drat_trim(binary, cnf, plain)
            if plain != drup:
                plain.unlink()
            facts = proof_facts(cnf, drup)
            strict, lenient = ours(cnf, drup, "strict"), ours(cnf, drup, "lenient")
            agree = lenient.result["valid"] == drat["valid"]
            outside = why_outside(facts, lenient, drat)
            if not agree:
                disagreements.append((inst["name"], outside, drat))
            elif not outside:
                inside += 1
            print(
                f"| {inst['name']} | {facts['steps']} | {facts['deletes']} | "
                f"{verdict_text(strict)} | {verdict_text(lenient)} "
                f"({len(lenient.ignored_deletions)}) | {drat['verdict']} | "
                f"{'yes' if agree else 'NO'} |"
            )
            if args.json:
                print(
                    json.dumps(
                        {
                            "name": inst["name"],
                            **facts,
                            "strict": strict.result,
                            "lenient": lenient.result,
                            "ignored": len(lenient.ignored_deletions),
                            "drat_trim": drat,
                        }
                    )
                )
    print()
    print(
        f"{len(instances)} unsat proofs: {len(instances) - len(disagreements)} agree "
        f"({inside} of them within every §4.4 condition), "
        f"{len(disagreements)} disagree"
    )
    unexplained = 0
    for name, outside, drat in disagreements:
        why = "; ".join(outside) if outside else "WITHIN every §4.4 condition seen here"
        unexplained += not outside
        print(
            f"  {name}: drat-trim {drat['verdict']}"
            f"{' (' + drat['failed'] + ')' if drat['failed'] else ''}: {why}"
        )
    return 1 if unexplained else 0


if __name__ == "__main__":
    sys.exit(main())
