"""Compiled vs reference, the time split of check(), threads, and dratify as a peer.

    python benchmarks/bench_engines.py [--corpus DIR] [--quick]

Every figure is measured in this one run, so the ratios compare like with like
on a shared machine; absolute times are printed for context only.
"""

import argparse
import gc
import json
import os
import random
import statistics
import sys
import threading
import time
from pathlib import Path

import sat_claim_check as scc
from sat_claim_check._core.jsontext import dumps, loads
from sat_claim_check._core.report import unsat_outcome
from sat_claim_check._core.validate import validate
from sat_claim_check._engines import kernel_c
from sat_claim_check.limits import CONTRACT_LIMITS

HERE = Path(__file__).resolve().parent
DEFAULT_CORPUS = HERE.parent.parent / "shared" / "corpus"


def timed(fn, *args, **kwargs):
    start = time.perf_counter()
    out = fn(*args, **kwargs)
    return time.perf_counter() - start, out


def best_of(repeats, fn, *args, **kwargs):
    return min(timed(fn, *args, **kwargs)[0] for _ in range(repeats))


# -- requests --------------------------------------------------------------------


def corpus_requests(corpus):
    index = json.loads((corpus / "index.json").read_text())
    out = []
    for entry in index["instances"]:
        if entry["tier"] != "contract":
            continue
        path = corpus / entry["files"]["json"]
        out.append((entry["name"], path.read_bytes(), entry))
    return out


def chain_request(num_vars=5000, steps=2000, seed=1):
    """Propagation-heavy, near the limits: an implication chain x1 -> ... -> xn
    closed by (-xn | -x1), and lemmas (-xi | xj) whose RUP checks walk most of
    the chain, each deleted again so that no lemma shortcuts the next one.
    Every step succeeds, so the whole proof is checked; the empty clause is never
    derived (the verdict is empty_clause_not_derived, after all the work)."""
    rnd = random.Random(seed)
    clauses = [[-i, i + 1] for i in range(1, num_vars)] + [[-num_vars, -1]]
    proof = []
    while len(proof) < steps:
        i = rnd.randint(1, num_vars // 10)
        j = rnd.randint(9 * num_vars // 10, num_vars)
        proof.append({"add": [-i, j]})
        proof.append({"delete": [j, -i]})
    return {"cnf": {"num_vars": num_vars, "clauses": clauses}, "claim": "unsat", "proof": proof}


def maximal_request(seed=2):
    """The largest request the contract allows: 10000 vars, 5000 clauses of 10
    literals, 2000 steps of 25 literals (100k literals in all)."""
    rnd = random.Random(seed)
    n = 10000

    def lits(k):
        return [rnd.choice((1, -1)) * rnd.randint(1, n) for _ in range(k)]

    return {
        "cnf": {"num_vars": n, "clauses": [lits(10) for _ in range(5000)]},
        "claim": "unsat",
        "proof": [{"add": lits(25)} for _ in range(2000)],
    }


# -- the measurements --------------------------------------------------------------


def engines_on(requests, repeats):
    """Per request: best compiled time and one reference time, check() on a dict."""
    rows = []
    for name, request in requests:
        compiled = best_of(repeats, scc.run, request, engine="compiled")
        reference, report = timed(scc.run, request, engine="reference")
        rows.append((name, compiled, reference, report.work))
    return rows


def report_engines(title, rows):
    compiled = sum(r[1] for r in rows)
    reference = sum(r[2] for r in rows)
    ratios = [r[2] / r[1] for r in rows]
    print(f"\n## {title}: compiled vs reference ({len(rows)} requests)")
    print(
        f"total check time: compiled {compiled * 1e3:.1f} ms, reference "
        f"{reference * 1e3:.1f} ms -> {reference / compiled:.1f}x overall"
    )
    print(
        f"per-request speed-up: median {statistics.median(ratios):.1f}x, "
        f"min {min(ratios):.1f}x, max {max(ratios):.1f}x"
    )
    print(f"median compiled check: {statistics.median(r[1] for r in rows) * 1e3:.3f} ms")


def time_split(request, repeats):
    """check() on one request, stage by stage (best of repeats for each)."""
    text = json.dumps(request)
    request = loads(text)
    v = validate(request, CONTRACT_LIMITS)
    stages = {
        "JSON read (strict loads)": lambda: loads(text),
        "validation + conversion": lambda: validate(request, CONTRACT_LIMITS),
        "kernel (compiled)": lambda: kernel_c.Kernel(
            v.num_vars,
            v.clause_offsets,
            v.clause_lits,
            v.step_kinds,
            v.step_offsets,
            v.step_lits,
            CONTRACT_LIMITS.max_propagation_work,
        ).run(),
    }
    status = stages["kernel (compiled)"]()
    result = unsat_outcome(v, status[0], status[1], status[2], CONTRACT_LIMITS.max_propagation_work)
    stages["output (result + JSON line)"] = lambda: dumps(
        unsat_outcome(v, status[0], status[1], status[2], CONTRACT_LIMITS.max_propagation_work)
    )
    times = {name: best_of(repeats, fn) for name, fn in stages.items()}
    total = sum(times.values())
    for name, seconds in times.items():
        print(f"  {name:32s} {seconds * 1e3:8.2f} ms  {100 * seconds / total:5.1f}%")
    print(f"  (verdict: {result['reason'] or 'valid'}, work {status[3]:,})")
    return times


def threads_ratio(request, per_thread, rounds=5):
    """Throughput of 2 threads vs 1 thread on the same requests: the best of
    ``rounds`` alternating measurements of each, to damp a shared machine."""

    def work(count):
        for _ in range(count):
            scc.run(request, engine="compiled")

    def two_threads():
        threads = [threading.Thread(target=work, args=(per_thread,)) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    one = two = float("inf")
    for _ in range(rounds):
        one = min(one, timed(work, 2 * per_thread)[0])
        two = min(two, timed(two_threads)[0])
    return one, two


def dratify_peer(corpus, requests):
    """Median per contract-tier unsat proof: dratify (Rust and Python) from
    text, and the compiled engine in process from JSON text and from a dict."""
    try:
        import cdclkit  # noqa: F401  (registers dratify's Rust engine)
        import dratify
    except ImportError:
        print("\n(dratify not installed: pip install dratify cdclkit cdclkit-native)")
        return
    native = dratify.native_available()
    rows = []
    for name, text, entry in requests:
        if entry["expected_claim"] != "unsat":
            continue
        cnf = (corpus / entry["files"]["cnf"]).read_text()
        drup = (corpus / entry["files"]["drup"]).read_text()

        def peer(engine, cnf=cnf, drup=drup):
            return dratify.check_proof(dratify.parse_dimacs(cnf), drup, engine=engine)

        def ours_from_text(text=text):
            return scc.run(loads(text), engine="compiled")

        request = loads(text)
        ours_dict = best_of(5, scc.run, request, engine="compiled")
        ours_text = best_of(5, ours_from_text)
        rust = best_of(3, peer, "native") if native else float("nan")
        python = timed(peer, "python")[0]
        rows.append((name, ours_dict, ours_text, rust, python))
    med = [statistics.median(r[i] for r in rows) for i in range(1, 5)]
    print(f"\n## Peers on {len(rows)} contract-tier unsat proofs (median per proof)")
    print(f"  sat-claim-check compiled, from a dict      {med[0] * 1e3:8.3f} ms")
    print(f"  sat-claim-check compiled, from JSON text   {med[1] * 1e3:8.3f} ms")
    print(
        f"  dratify Rust engine, from DIMACS/DRUP text {med[2] * 1e3:8.3f} ms"
        f"  ({med[2] / med[1]:.1f}x ours from text)"
    )
    print(
        f"  dratify pure Python, from text             {med[3] * 1e3:8.3f} ms"
        f"  ({med[3] / med[1]:.1f}x ours from text)"
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--corpus",
        type=Path,
        default=Path(os.environ.get("SAT_CLAIM_CHECK_CORPUS", DEFAULT_CORPUS)),
    )
    parser.add_argument("--quick", action="store_true", help="fewer repeats and requests")
    args = parser.parse_args(argv)
    repeats = 3 if args.quick else 7
    gc.disable()  # steadier timings; nothing here builds cycles worth collecting

    print(
        f"# sat-claim-check engine benchmarks (Python {sys.version.split()[0]}, "
        f"{os.cpu_count()} cores)"
    )
    have_corpus = (args.corpus / "index.json").is_file()
    if have_corpus:
        requests = corpus_requests(args.corpus)
        rows = {
            claim: engines_on(
                [(n, loads(t)) for n, t, e in requests if e["expected_claim"] == claim], repeats
            )
            for claim in ("unsat", "sat")
        }
        report_engines("contract-tier corpus, unsat proofs", rows["unsat"])
        report_engines(
            "contract-tier corpus, sat claims (shared code: no propagation)", rows["sat"]
        )
        report_engines("contract-tier corpus, all requests", rows["unsat"] + rows["sat"])
    else:
        print(f"\n(corpus not found at {args.corpus}: skipping the corpus figures)")

    heavy = [(f"chain seed {s}", chain_request(seed=s)) for s in range(1 if args.quick else 3)]
    report_engines(
        "generated propagation-heavy requests near the limits", engines_on(heavy, repeats)
    )

    print("\n## Time split of check() on a maximal request (100k literals)")
    time_split(maximal_request(), repeats)
    print("\n## Time split of check() on a propagation-heavy request near the limits")
    time_split(heavy[0][1], repeats)

    one, two = threads_ratio(heavy[0][1], 2 if args.quick else 6)
    print("\n## Threads: 2 threads vs 1 thread on the same requests")
    print(f"  1 thread {one:.3f} s, 2 threads {two:.3f} s -> throughput x{one / two:.2f}")

    if have_corpus:
        dratify_peer(args.corpus, requests)


if __name__ == "__main__":
    main()
