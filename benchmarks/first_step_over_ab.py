"""run_files with the proof literals' range test compiled, against its pure twin.

    python benchmarks/first_step_over_ab.py [--corpus DIR] [--rounds 5]

For each large-tier proof, ``_validate``'s converter runs with the compiled
``first_step_over`` and with ``convert_py.first_step_over`` patched in,
alternating, in one process; best of --rounds each, then the ratio.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from sat_claim_check import _engines as _engine
from sat_claim_check import dimacs
from sat_claim_check._engines import convert_py
from sat_claim_check.limits import Limits

HERE = Path(__file__).resolve().parent
DEFAULT_CORPUS = Path(
    os.environ.get("SAT_CLAIM_CHECK_CORPUS", HERE.parent.parent / "shared" / "corpus")
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    converter = _engine.converter()
    ways = {"pure": convert_py.first_step_over, "compiled": converter.first_step_over}
    if ways["pure"] is ways["compiled"]:
        raise SystemExit("the compiled converter is not built: nothing to compare")
    cnfs = sorted(args.corpus.glob("l*.cnf"))
    if not cnfs:
        raise SystemExit(f"no large-tier proof in {args.corpus} (set SAT_CLAIM_CHECK_CORPUS)")
    print(f"load average {os.getloadavg()[0]:.2f}; best of {args.rounds}")
    print("| proof | pure | compiled | ratio |")
    print("| --- | ---: | ---: | ---: |")
    for cnf in cnfs:
        proof = cnf.with_suffix(".drup.gz")
        best = dict.fromkeys(ways, float("inf"))
        for round_ in range(args.rounds):
            for name in ways if round_ % 2 == 0 else reversed(list(ways)):
                converter.first_step_over = ways[name]
                start = time.perf_counter()
                dimacs.run_files(cnf, proof, limits=Limits.unlimited())
                best[name] = min(best[name], time.perf_counter() - start)
        converter.first_step_over = ways["compiled"]
        print(
            f"| {cnf.name[:4]} | {best['pure']:.3f} s | {best['compiled']:.3f} s | "
            f"{best['compiled'] / best['pure']:.3f} |"
        )


if __name__ == "__main__":
    main()
