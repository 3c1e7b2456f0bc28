"""Compare two installed builds of the package end to end, interleaved.

    python benchmarks/compare_builds.py --baseline /path/to/other/venv/bin/python \\
        [--rounds 5] [--large 3]

Each round runs the same measurement once under the baseline interpreter and
once under this one (``sys.executable``), alternating, so both see the same
machine load; each figure is the best over the rounds.  Measured, on the
corpus (``SAT_CLAIM_CHECK_CORPUS`` or ``../shared/corpus``):

* ``check()`` from dicts over the contract-tier requests (total per pass);
* JSON text to result over the same requests (read, check, write);
* ``run_files`` on the first ``--large`` large-tier proofs (raised limits).

Prints one table of times and ratios (this build / baseline).
"""

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

CORPUS = Path(
    os.environ.get(
        "SAT_CLAIM_CHECK_CORPUS", Path(__file__).resolve().parents[2] / "shared" / "corpus"
    )
)

# Runs under each interpreter: prints {measure: seconds}.  Uses only names
# that exist in every build since 1.0.0 (the JSON text module under either
# layout: _core/jsontext, or _jsontext before the subpackages).
MEASURE = r"""
import gzip, json, sys, time
from pathlib import Path
import sat_claim_check as scc
try:
    from sat_claim_check._core import jsontext as _jsontext
except ImportError:
    from sat_claim_check import _jsontext
from sat_claim_check.dimacs import run_files

corpus, n_large, repeat = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
texts = [p.read_bytes() for p in sorted(corpus.glob("c*.json"))]
requests = [json.loads(t) for t in texts]

def best(fn):
    t = float("inf")
    for _ in range(repeat):
        start = time.perf_counter(); fn(); t = min(t, time.perf_counter() - start)
    return t

def from_text():
    for t in texts:
        _jsontext.dumps(scc.check(_jsontext.loads(t)))

out = {"check() from dicts, %d requests" % len(requests):
           best(lambda: [scc.check(r) for r in requests]),
       "JSON text to result, %d requests" % len(texts): best(from_text)}
large = sorted(corpus.glob("l*.cnf"))[:n_large]
limits = scc.Limits.unlimited()
for cnf in large:
    proof = cnf.with_suffix(".drup.gz")
    out["run_files " + cnf.stem[:4]] = best(lambda: run_files(cnf, proof, limits=limits))
print(json.dumps(out))
"""


def measure(python, corpus, n_large, repeat):
    out = subprocess.run(
        [python, "-c", MEASURE, str(corpus), str(n_large), str(repeat)],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", required=True, help="the other build's python")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--large", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=3, help="best-of inside one round")
    args = parser.parse_args()
    best = {"baseline": {}, "this": {}}
    for _ in range(args.rounds):
        for name, python in (("baseline", args.baseline), ("this", sys.executable)):
            for key, t in measure(python, CORPUS, args.large, args.repeat).items():
                best[name][key] = min(t, best[name].get(key, float("inf")))
    print("| measure | baseline | this build | ratio |\n| --- | ---: | ---: | ---: |")
    for key, base in best["baseline"].items():
        this = best["this"][key]
        print(f"| {key} | {base * 1e3:.1f} ms | {this * 1e3:.1f} ms | {this / base:.3f} |")


if __name__ == "__main__":
    main()
