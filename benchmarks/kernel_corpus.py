"""Kernel-only time of the compiled engine on the corpus's unsat proofs.

Validation is done once per request, outside the timing; each request's time
is the best of ``--repeat`` runs of ``kernel_c.Kernel(...).run()`` (building
the kernel included), and the script prints the median over the contract-tier
unsat proofs, the total, and nanoseconds per unit of propagation work.  With
``--large`` it also times the large tier's ``dimacs.run_files`` (files named
``l*.cnf`` and ``l*.drup.gz``, ``Limits.unlimited()``), best of ``--large-repeat``.

``--baseline DIR`` compares with another build on the contract tier (and, with
``--large``, on the large tier's kernels too): DIR holds a built
``sat_claim_check`` package (``src`` of a checkout of an earlier commit, say,
with its compiled ``_engines/kernel_c``, or ``_engine_c`` in the earlier flat
layout); its kernel is loaded under another name and timed interleaved with
this one, proof by proof, so the ratio holds on a noisy machine.  Both must
return the same outcome on every proof.

``--cpu`` times with this thread's CPU clock (``time.thread_time``) instead of
the wall clock: on a shared machine other processes then cost a kernel only
what they take from its caches, not the time they hold its core.

    python benchmarks/kernel_corpus.py [--corpus DIR] [--repeat N] [--rows N]
        [--baseline DIR] [--large [NAME ...]] [--large-repeat N] [--cpu]
"""

import argparse
import json
import os
import statistics
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_CORPUS = Path(
    os.environ.get("SAT_CLAIM_CHECK_CORPUS") or HERE.parent.parent / "shared" / "corpus"
)
CLOCK = time.perf_counter  # --cpu: time.thread_time


def best(f, repeat):
    b = float("inf")
    for _ in range(repeat):
        t = CLOCK()
        f()
        b = min(b, CLOCK() - t)
    return b


def load_baseline(directory):
    """The compiled kernel of the build in ``directory``, under another name.

    ``directory`` holds a built ``sat_claim_check`` package: its kernel is
    ``_engines/kernel_c`` (this layout) or ``_engine_c`` (the earlier, flat
    one), either found."""
    import importlib.machinery
    import importlib.util
    import sys
    import types

    # This build's kernel first: loading the other one may also register it as
    # sat_claim_check._engines.kernel_c, and then an import would find that one.
    from sat_claim_check._engines import kernel_c  # noqa: F401

    package = Path(directory, "sat_claim_check")
    so = None
    for stem in ("_engines/kernel_c", "_engine_c", "kernel_c"):
        folder, _, module = stem.rpartition("/")
        so = next(
            (p for p in Path(package, folder).glob(module + ".*") if p.suffix in (".so", ".pyd")),
            None,
        )
        if so is not None:
            break
    if so is None:
        raise SystemExit(f"{package}: no compiled kernel (_engines/kernel_c or _engine_c)")
    # The kernel imports its codes relatively (from . import _codes, or from
    # .._core import codes): packages of those names, without running their
    # __init__, find the other build's.
    top = "sat_claim_check_baseline"
    for folder in [package, *(d for d in package.iterdir() if (d / "__init__.py").is_file())]:
        name = top if folder == package else f"{top}.{folder.name}"
        parent = types.ModuleType(name)
        parent.__path__ = [str(folder)]
        sys.modules[name] = parent
    name = ".".join([top, *so.relative_to(package).parent.parts, so.name.split(".")[0]])
    loader = importlib.machinery.ExtensionFileLoader(name, str(so))
    spec = importlib.util.spec_from_file_location(name, str(so), loader=loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def contract_tier(corpus, repeat, rows_shown, baseline=None):
    from sat_claim_check._core.validate import validate
    from sat_claim_check._engines import kernel_c
    from sat_claim_check.limits import CONTRACT_LIMITS as L

    rows = []
    base_times = []
    with open(corpus / "expected.jsonl") as fh:
        expected = [json.loads(line) for line in fh]
    for e in expected:
        with open(corpus / (e["name"] + ".json")) as fh:
            r = json.load(fh)
        if r["claim"] != "unsat":
            continue
        v = validate(r, L)
        args = (
            v.num_vars,
            v.clause_offsets,
            v.clause_lits,
            v.step_kinds,
            v.step_offsets,
            v.step_lits,
            L.max_propagation_work,
        )
        out = kernel_c.Kernel(*args).run()
        if out[3] != e["work"] and out[0] != 5:
            raise SystemExit(f"{e['name']}: work {out[3]}, expected {e['work']}")
        if baseline is not None:
            if baseline.Kernel(*args).run() != out:
                raise SystemExit(f"{e['name']}: the baseline's outcome differs")
            t = tb = float("inf")
            for _ in range(repeat):
                tb = min(tb, best(lambda args=args: baseline.Kernel(*args).run(), 1))
                t = min(t, best(lambda args=args: kernel_c.Kernel(*args).run(), 1))
            base_times.append(tb * 1e3)
        else:
            t = best(lambda args=args: kernel_c.Kernel(*args).run(), repeat)
        rows.append((e["name"][:40], t * 1e3, e["work"], v.num_vars, len(v.step_kinds)))
    total = sum(x[1] for x in rows)
    work = sum(x[2] for x in rows)
    median = statistics.median(x[1] for x in rows)
    print(
        f"{len(rows)} unsat proofs: kernel median {median:.3f} ms, total {total:.1f} ms; "
        f"work {work} -> {total * 1e6 / work:.2f} ns/work"
    )
    if baseline is not None:
        base_median = statistics.median(base_times)
        ratios = [x[1] / b for x, b in zip(rows, base_times)]
        print(
            f"baseline: median {base_median:.3f} ms, total {sum(base_times):.1f} ms; "
            f"ratio new/baseline: median {median / base_median:.3f}, "
            f"total {total / sum(base_times):.3f}, "
            f"per-proof geometric mean {statistics.geometric_mean(ratios):.3f}"
        )
    rows.sort(key=lambda x: x[1])
    mid = len(rows) // 2
    for x in rows[max(0, mid - rows_shown // 2) : mid + rows_shown // 2 + 1]:
        name, ms, w, nv, ns = x
        print(f"  {name:40} {ms:7.3f} ms {w:9d} work {nv:5d} vars {ns:5d} steps")


def large_tier(corpus, names, repeat, baseline=None):
    import sat_claim_check as scc
    from sat_claim_check._engines import kernel_c
    from sat_claim_check.dimacs import parse_files, run_files
    from sat_claim_check.limits import CEILINGS

    ns_files, ns_kernel = [], []
    for cnf in sorted(corpus.glob("l*.cnf")):
        if names and not any(cnf.name.startswith(n) for n in names):
            continue
        drup = cnf.with_suffix(".drup.gz")
        times = []
        for _ in range(repeat):
            t = time.perf_counter()
            report = run_files(
                str(cnf), str(drup), engine="compiled", limits=scc.Limits.unlimited()
            )
            times.append(time.perf_counter() - t)
        ns_files.append(min(times) * 1e9 / report.work)
        line = (
            f"  {cnf.stem:45} {min(times):8.3f} s  work {report.work}  "
            f"{report.result['reason']}; {ns_files[-1]:.1f} ns/work"
        )
        if baseline is not None:
            # The kernels alone, interleaved (the order alternating), on the
            # validated arrays.
            from sat_claim_check._core.validate import validate_arrays

            (nv, co, cl), proof, _ = parse_files(cnf, drup, None, limits=scc.Limits.unlimited())
            v = validate_arrays(nv, co, cl, proof=proof, limits=scc.Limits.unlimited())
            args = (
                nv,
                co,
                cl,
                v.step_kinds,
                v.step_offsets,
                v.step_lits,
                CEILINGS["max_propagation_work"],
            )
            best_new = best_base = float("inf")
            for r in range(repeat):
                for module in (kernel_c, baseline) if r % 2 else (baseline, kernel_c):
                    t = best(lambda module=module, args=args: module.Kernel(*args).run(), 1)
                    if module is baseline:
                        best_base = min(best_base, t)
                    else:
                        best_new = min(best_new, t)
            ns_kernel.append(best_new * 1e9 / report.work)
            line += (
                f"; kernel {best_new:.3f} s ({ns_kernel[-1]:.1f} ns/work), "
                f"baseline {best_base:.3f} s, ratio {best_new / best_base:.3f}"
            )
        print(line)
    if ns_files:
        print(
            f"  median over the files: run_files {statistics.median(ns_files):.1f} ns/work"
            + (f", kernel {statistics.median(ns_kernel):.1f} ns/work" if ns_kernel else "")
        )


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--rows", type=int, default=10, help="rows shown around the median")
    ap.add_argument(
        "--baseline",
        type=Path,
        default=None,
        help="a directory with another build's sat_claim_check, to compare",
    )
    ap.add_argument(
        "--large",
        nargs="*",
        default=None,
        help="also time the large tier (optionally only these name prefixes)",
    )
    ap.add_argument("--large-repeat", type=int, default=1)
    ap.add_argument(
        "--cpu",
        action="store_true",
        help="time with the thread's CPU clock instead of the wall clock",
    )
    args = ap.parse_args()
    global CLOCK
    if args.cpu:
        CLOCK = time.thread_time
    baseline = load_baseline(args.baseline) if args.baseline is not None else None
    contract_tier(args.corpus, args.repeat, args.rows, baseline)
    if args.large is not None:
        large_tier(args.corpus, args.large, args.large_repeat, baseline)


if __name__ == "__main__":
    main()
