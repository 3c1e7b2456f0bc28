"""The Checker against run(): speed, and peak memory as proofs get longer.

    python benchmarks/checker_bench.py speed [--rounds N] [--large-rounds N] [--per-request]
        [--large PREFIX ...]
    python benchmarks/checker_bench.py memory [--instance PREFIX] [--times K ...]
        [--baseline PYTHON]

``speed`` times, round after round (each variant once per round, one after
the other, so that all see the same machine load; the best per variant is
kept), on the corpus (``SAT_CLAIM_CHECK_CORPUS`` or ``../shared/corpus``):

* contract tier, unsat JSON requests (dicts loaded once, contract limits):
  ``run(request)`` against a Checker fed one ``add``/``delete`` call per
  step, ``feed()`` in chunks of 1000 steps, and one ``feed()``;
* large tier (``l*.cnf`` with ``l*.drup.gz``, ``Limits.unlimited()``), from
  the parsed arrays (parsing is not timed): ``dimacs.run_parsed`` against a
  Checker fed with ``_feed_arrays`` in chunks of 1000 and 65536 steps; and,
  for the instances named by ``--large``, ``run(request)`` against one call
  per step, from the JSON request.

``memory`` checks one large-tier proof (``--instance``, the largest by
default) in a child process per measurement (Linux: it reads
/proc/self/status) and prints the RSS when the check starts (the parsed
files held) and the peak RSS during the check (the peak mark is reset then,
through /proc/self/clear_refs, so the parse's peak does not hide it), with
the most clauses live at once: a Checker fed from the parsed arrays in
chunks of 1000 steps, the same proof made ``--times`` longer (after each
add, the lemma deleted and added again, generated and fed 1000 steps at a
time so the longer proof is never held), and ``run_parsed`` (the whole request in
memory) of this build and, with ``--baseline``, of another.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable

CORPUS = Path(
    os.environ.get(
        "SAT_CLAIM_CHECK_CORPUS", Path(__file__).resolve().parents[2] / "shared" / "corpus"
    )
)


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def per_step(request: dict[str, Any], limits: Any) -> Any:
    import sat_claim_check as scc

    checker = scc.Checker(request["cnf"], limits=limits)
    add, delete = checker.add, checker.delete
    for step in request["proof"]:
        ((key, lits),) = step.items()
        (add if key == "add" else delete)(lits)
    return checker.finish()


def in_chunks(request: dict[str, Any], size: int, limits: Any) -> Any:
    import sat_claim_check as scc

    checker = scc.Checker(request["cnf"], limits=limits)
    proof = request["proof"]
    for a in range(0, len(proof), size):
        checker.feed(proof[a : a + size])
    return checker.finish()


def arrays_in_chunks(parsed: Any, size: int, limits: Any) -> Any:
    import sat_claim_check as scc

    (num_vars, offsets, lits), (kinds, step_offsets, step_lits), _ = parsed
    checker = scc.Checker._from_arrays(num_vars, offsets, lits, limits=limits)
    for a in range(0, len(kinds), size):
        b = min(a + size, len(kinds))
        checker._feed_arrays(kinds[a:b], step_offsets[a : b + 1], step_lits)
    return checker.finish()


def copied(parsed: Any) -> Any:
    """A copy of parse_files' arrays (validation marks the step kinds in place)."""
    (num_vars, offsets, lits), (kinds, step_offsets, step_lits), model = parsed
    return (num_vars, offsets, lits), (kinds[:], step_offsets, step_lits), model


def speed(args: argparse.Namespace) -> None:
    import sat_claim_check as scc
    from sat_claim_check import dimacs

    requests = []
    names = []
    for path in sorted(CORPUS.glob("c*.json")):
        request = json.loads(path.read_bytes())
        if request["claim"] == "unsat":
            requests.append(request)
            names.append(path.name[:4])
    contract = scc.Limits()
    variants: dict[str, Callable[[dict[str, Any]], Any]] = {
        "run(request)": lambda r: scc.run(r),
        "Checker, one call per step": lambda r: per_step(r, contract),
        "Checker, feed() of 1000 steps": lambda r: in_chunks(r, 1000, contract),
        "Checker, one feed()": lambda r: in_chunks(r, len(r["proof"]) or 1, contract),
    }
    best = {name: [float("inf")] * len(requests) for name in variants}
    for _ in range(args.rounds):
        for i, request in enumerate(requests):
            expected = None
            for name, fn in variants.items():
                t, report = timed(lambda fn=fn, request=request: fn(request))
                best[name][i] = min(best[name][i], t)
                assert expected is None or report == expected, name
                expected = report
    base = best["run(request)"]
    print(f"contract tier: {len(requests)} unsat requests, best of {args.rounds} rounds")
    print("| variant | total | ratio to run() (total) | per-request ratio: median, max |")
    print("| --- | ---: | ---: | ---: |")
    for name, times in best.items():
        ratios = [t / b for t, b in zip(times, base)]
        print(
            f"| {name} | {sum(times) * 1e3:.1f} ms | {sum(times) / sum(base):.3f} | "
            f"{statistics.median(ratios):.3f}, {max(ratios):.3f} |"
        )
    if args.per_request:
        one = best["Checker, one call per step"]
        print("\n| request | steps | run(request) | per step | one call per step | ratio |")
        print("| --- | ---: | ---: | ---: | ---: | ---: |")
        for i in sorted(range(len(requests)), key=lambda i: one[i] / base[i], reverse=True):
            steps = len(requests[i]["proof"])
            print(
                f"| {names[i]} | {steps} | {base[i] * 1e3:.3f} ms | "
                f"{base[i] / max(steps, 1) * 1e6:.2f} µs | {one[i] * 1e3:.3f} ms | "
                f"{one[i] / base[i]:.3f} |"
            )
    if args.large_rounds < 1:
        return

    unlimited = scc.Limits.unlimited()
    print("\nlarge tier, from the parsed arrays (parsing not timed)")
    print("| instance | run_parsed | _feed_arrays, 1000 | ratio | _feed_arrays, 65536 | ratio |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for cnf in sorted(CORPUS.glob("l*.cnf")):
        parsed = dimacs.parse_files(cnf, cnf.with_suffix(".drup.gz"), None, limits=unlimited)
        times = {"run": float("inf"), "1000": float("inf"), "65536": float("inf")}
        for _ in range(args.large_rounds):
            t, report = timed(
                lambda parsed=parsed: dimacs.run_parsed(copied(parsed), limits=unlimited)
            )
            times["run"] = min(times["run"], t)
            for size in ("1000", "65536"):
                t, other = timed(
                    lambda parsed=parsed, size=size: arrays_in_chunks(parsed, int(size), unlimited)
                )
                assert other == report, (cnf.name, size)
                times[size] = min(times[size], t)
        print(
            f"| {cnf.stem[:4]} | {times['run']:.3f} s | {times['1000']:.3f} s | "
            f"{times['1000'] / times['run']:.3f} | {times['65536']:.3f} s | "
            f"{times['65536'] / times['run']:.3f} |"
        )

    if args.large:
        print("\nlarge tier, from the JSON request: run() against one call per step")
        print("| instance | run(request) | one call per step | ratio |")
        print("| --- | ---: | ---: | ---: |")
        for path in sorted(CORPUS.glob("l*.json.gz")):
            if not any(path.name.startswith(p) for p in args.large):
                continue
            request = json.loads(gzip.decompress(path.read_bytes()))
            t_run = t_step = float("inf")
            for _ in range(args.large_rounds):
                t, report = timed(lambda request=request: scc.run(request, limits=unlimited))
                t_run = min(t_run, t)
                t, other = timed(lambda request=request: per_step(request, unlimited))
                assert other == report, path.name
                t_step = min(t_step, t)
            print(f"| {path.name[:4]} | {t_run:.3f} s | {t_step:.3f} s | {t_step / t_run:.3f} |")


# -- memory ------------------------------------------------------------------------

CHILD = r"""
import gc, json, resource, sys, time
from array import array
import sat_claim_check as scc
from sat_claim_check import dimacs
cnf, how, times = sys.argv[1], sys.argv[2], int(sys.argv[3])

def status(key):
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(key)) / 1024

limits = scc.Limits.unlimited()
parsed = dimacs.parse_files(cnf, cnf[:-4] + ".drup.gz", None, limits=limits)
(num_vars, offsets, lits), (kinds, step_offsets, step_lits), _ = parsed
gc.collect()
with open("/proc/self/clear_refs", "w") as f:    # the peak so far is the parse's: reset it
    f.write("5")
start_rss = status("VmRSS:")
start = time.perf_counter()
live = 0
if how == "run_parsed":
    report = dimacs.run_parsed(parsed, limits=limits)
else:
    checker = scc.Checker._from_arrays(num_vars, offsets, lits, limits=limits)
    size = 1000
    for a in range(0, len(kinds), size):
        b = min(a + size, len(kinds))
        if times == 1:
            checker._feed_arrays(kinds[a:b], step_offsets[a:b + 1], step_lits)
        else:
            # After each add, (delete, add) of the same lemma, times - 1 times:
            # built and fed 1000 steps at a time, never held whole.
            k, o, l = array("b"), array("i", [0]), array("i")
            for s in range(a, b):
                step = step_lits[step_offsets[s]:step_offsets[s + 1]]
                reps = 1 if kinds[s] == 1 else 2 * times - 1
                for r in range(reps):
                    k.append(kinds[s] if r % 2 == 0 else 1)
                    l.extend(step)
                    o.append(len(l))
                    if len(k) == size:
                        checker._feed_arrays(k, o, l)
                        k, o, l = array("b"), array("i", [0]), array("i")
            checker._feed_arrays(k, o, l)
        live = max(live, checker._kernel._stats().get("live_clauses", 0))
    report = checker.finish()
seconds = time.perf_counter() - start
print(json.dumps({"start_rss_mib": start_rss, "check_peak_mib": status("VmHWM:"),
                  "process_peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "seconds": seconds, "steps": report.result["steps_checked"],
                  "valid": report.result["valid"], "work": report.work,
                  "max_live_clauses": live}))
"""


def memory(args: argparse.Namespace) -> None:
    cnfs = sorted(CORPUS.glob("l*.cnf"), key=lambda p: p.with_suffix(".drup.gz").stat().st_size)
    cnf = next(p for p in reversed(cnfs) if p.name.startswith(args.instance or ""))
    print(
        f"{cnf.stem}: one child process each; the peak during the check is VmHWM, "
        "reset when the check starts"
    )
    print(
        "| how | steps checked | most clauses live at once | RSS when the check starts | "
        "peak RSS during the check | time |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    runs = [
        ("run_parsed, this build", sys.executable, "run_parsed", 1),
        ("Checker, _feed_arrays of 1000 steps", sys.executable, "checker", 1),
    ]
    runs += [
        (f"Checker, the proof made {t}x longer", sys.executable, "checker", t) for t in args.times
    ]
    if args.baseline:
        runs.insert(0, ("run_parsed, the baseline build", args.baseline, "run_parsed", 1))
    for label, python, how, times in runs:
        proc = subprocess.run(
            [python, "-c", CHILD, str(cnf), how, str(times)],
            check=True,
            capture_output=True,
            text=True,
        )
        out = json.loads(proc.stdout)
        live = out["max_live_clauses"] or "-"
        print(
            f"| {label} | {out['steps']} | {live} | {out['start_rss_mib']:.1f} MiB | "
            f"{out['check_peak_mib']:.1f} MiB | {out['seconds']:.1f} s |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    s = sub.add_parser("speed")
    s.add_argument("--rounds", type=int, default=5)
    s.add_argument("--large-rounds", type=int, default=3, help="0: the contract tier only")
    s.add_argument(
        "--per-request",
        action="store_true",
        help="also list each contract-tier request, worst ratio first",
    )
    s.add_argument(
        "--large",
        nargs="*",
        default=None,
        help="also time one call per step on these large-tier instances",
    )
    m = sub.add_parser("memory")
    m.add_argument("--instance", default=None, help="a name prefix (default: the largest)")
    m.add_argument("--times", type=int, nargs="*", default=[10])
    m.add_argument("--baseline", default=None, help="another build's python, for run_parsed")
    args = parser.parse_args()
    if args.what == "speed":
        speed(args)
    else:
        memory(args)


if __name__ == "__main__":
    main()
