"""From JSON text to result: the compiled request reader against the exact path.

    python benchmarks/json_reader.py [--corpus DIR | --requests DIR] [--rounds 7]
        [--thread-rounds 5]

On the corpus's contract-tier unsat requests (or on every request file of
``--requests DIR``, such as the held-out set ``heldout_requests.py`` writes),
each given as its JSON text:

* per request, text -> result with the compiled kernel, through
  ``_validate.validated_from_text`` (the compiled reader: "reader") and
  through ``validate(loads(text))`` (the exact path, what every JSON entry
  point did before: "exact"); the two are interleaved request by request and
  round by round, best of the rounds per request, then the median; and,
  interleaved with them, ``scc.run(request)`` from the request already
  parsed into a dict ("dict": validation, conversion, kernel, result);
* the time split of the reader's path: read + validate, kernel, output line,
  with the kernel's work counter (SPEC 4.3) per request and the kernel's time
  per unit of work, by family too; and how far the median could move on
  another draw of as many requests (a bootstrap interval);
  and reading alone on the largest request the contract allows (100k
  literals, ``bench_engines.maximal_request``);
* what a decline costs: texts the reader scans to the end before declining;
* two threads against one on the same requests, for both paths (alternating
  rounds; the kernel and now the reader run without the GIL).

Every figure comes from this one run, so the ratios compare like with like on
a shared machine; absolute times are for context.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import statistics
import sys
import threading
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from bench_engines import maximal_request

import sat_claim_check as scc
from sat_claim_check._core.jsontext import dumps, loads
from sat_claim_check._core.options import Options
from sat_claim_check._core.session import check_request
from sat_claim_check._core.types import Result
from sat_claim_check._core.validate import validate, validated_from_text
from sat_claim_check._core.validated import Validated
from sat_claim_check._engines import kernel_c
from sat_claim_check._engines.request_c import read_request
from sat_claim_check.errors import CheckError
from sat_claim_check.limits import CONTRACT_LIMITS as LIMITS

HERE = Path(__file__).resolve().parent
DEFAULT_CORPUS = HERE.parent.parent / "shared" / "corpus"


OPTIONS = Options("compiled", kernel_c, LIMITS, False, None)


def from_text_reader(text: bytes) -> Result:
    return check_request(validated_from_text(text, LIMITS), OPTIONS).result


def from_text_exact(text: bytes) -> Result:
    return check_request(validate(loads(text), LIMITS), OPTIONS).result


def exact_read(text: bytes) -> Validated:
    return validate(loads(text), LIMITS)


def run_kernel(v: Validated) -> tuple[int, int, int, int]:
    """The compiled kernel on an unsat claim's arrays: (status, step, steps, work)."""
    assert v.step_kinds is not None and v.step_offsets is not None and v.step_lits is not None
    return kernel_c.Kernel(
        v.num_vars,
        v.clause_offsets,
        v.clause_lits,
        v.step_kinds,
        v.step_offsets,
        v.step_lits,
        LIMITS.max_propagation_work,
    ).run()


def read_or_error(text: bytes) -> object:
    try:
        return validated_from_text(text, LIMITS)
    except CheckError as err:
        return err


def exact_or_error(text: bytes) -> object:
    try:
        return exact_read(text)
    except CheckError as err:
        return err


PATHS: dict[str, Callable[[bytes], Result]] = {"reader": from_text_reader, "exact": from_text_exact}


def corpus_texts(corpus: Path) -> list[tuple[str, bytes]]:
    index = json.loads((corpus / "index.json").read_text())
    return [
        (e["name"], (corpus / e["files"]["json"]).read_bytes())
        for e in index["instances"]
        if e["tier"] == "contract" and e["expected_claim"] == "unsat"
    ]


def directory_texts(folder: Path) -> list[tuple[str, bytes]]:
    """Every ``*.json`` file of a folder but its index, in name order."""
    paths = sorted(p for p in folder.glob("*.json") if p.name != "index.json")
    return [(p.stem, p.read_bytes()) for p in paths]


def timed(fn: Callable[..., Any], *args: Any) -> float:
    start = time.perf_counter()
    fn(*args)
    return time.perf_counter() - start


def from_dict(request: dict[str, Any]) -> Result:
    return scc.run(request, engine="compiled").result


def per_request(texts: list[tuple[str, bytes]], rounds: int) -> dict[str, list[float]]:
    """{path: [best seconds per request]}, the paths interleaved per request;
    "dict" is ``scc.run`` on the request parsed beforehand."""
    best = {name: [float("inf")] * len(texts) for name in [*PATHS, "dict"]}
    dicts = [loads(text) for _, text in texts]
    for r in range(rounds):
        order = list(PATHS) if r % 2 == 0 else list(reversed(PATHS))
        for i, (_, text) in enumerate(texts):
            for name in order:
                best[name][i] = min(best[name][i], timed(PATHS[name], text))
            best["dict"][i] = min(best["dict"][i], timed(from_dict, dicts[i]))
    return best


def time_split(texts: list[tuple[str, bytes]], rounds: int) -> dict[str, list[float]]:
    """Per request, the best time of each stage of the reader's path, and of
    the exact path's reading for comparison (the last entry)."""
    stages: dict[str, list[float]] = {
        "read + validate (validated_from_text)": [],
        "kernel": [],
        "output line": [],
        "(exact path: loads + validate)": [],
    }
    for _, text in texts:
        fns: list[Callable[[], object]] = [
            partial(validated_from_text, text, LIMITS),
            partial(run_kernel, validated_from_text(text, LIMITS)),
            partial(dumps, from_text_reader(text)),
            partial(exact_read, text),
        ]
        for name, fn in zip(stages, fns):
            stages[name].append(min(timed(fn) for _ in range(rounds)))
    return stages


def median_interval(values: list[float], draws: int = 2000) -> tuple[float, float]:
    """A bootstrap 90% interval of the median: how far another draw of as many
    requests of the same kind could put it."""
    rng = random.Random(0)
    meds = sorted(statistics.median(rng.choices(values, k=len(values))) for _ in range(draws))
    return meds[draws // 20], meds[draws - draws // 20 - 1]


def by_family(
    texts: list[tuple[str, bytes]], total: list[float], kernel: list[float], work: list[int]
) -> None:
    """Per family (the second word of a request's name): the median time, work
    and kernel time per unit of work."""
    rows: dict[str, list[tuple[float, float, int]]] = {}
    for (name, _), row in zip(texts, zip(total, kernel, work)):
        rows.setdefault(name.split("-")[1], []).append(row)
    for family, r in sorted(rows.items()):
        seconds = statistics.median(t for t, _, _ in r)
        print(
            f"  {family:8s} {len(r):3d} requests: {seconds * 1e3:7.3f} ms, "
            f"work {statistics.median(w for _, _, w in r):9.0f}, "
            f"{statistics.median(k / w for _, k, w in r if w) * 1e9:6.2f} ns per unit"
        )


def threads(
    texts: list[tuple[str, bytes]], rounds: int, repeat: int = 3
) -> dict[str, list[tuple[float, float]]]:
    """{path: [(one thread, two threads)] seconds per round}: 1 thread runs the
    requests 2*repeat times, 2 threads repeat times each; paths interleaved."""

    def work(fn: Callable[[bytes], Result], count: int) -> None:
        for _ in range(count):
            for _, text in texts:
                fn(text)

    def two(fn: Callable[[bytes], Result]) -> None:
        ts = [threading.Thread(target=work, args=(fn, repeat)) for _ in range(2)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()

    out: dict[str, list[tuple[float, float]]] = {name: [] for name in PATHS}
    for _ in range(rounds):
        for name, fn in PATHS.items():
            out[name].append((timed(work, fn, 2 * repeat), timed(two, fn)))
    return out


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--corpus",
        type=Path,
        default=Path(os.environ.get("SAT_CLAIM_CHECK_CORPUS", DEFAULT_CORPUS)),
    )
    parser.add_argument("--requests", type=Path, help="time these request files instead")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--thread-rounds", type=int, default=5)
    args = parser.parse_args(argv)
    gc.disable()  # steadier timings; nothing here builds cycles worth collecting

    texts = directory_texts(args.requests) if args.requests else corpus_texts(args.corpus)
    accepted = sum(read_request(t, LIMITS) is not None for _, t in texts)
    for _, text in texts:  # the same answer both ways
        assert from_text_reader(text) == from_text_exact(text)
    size = statistics.median(len(t) for _, t in texts)
    source = args.requests or "the corpus (contract-tier unsat)"
    print(
        f"# JSON text -> result (Python {sys.version.split()[0]}, {os.cpu_count()} cores): "
        f"{len(texts)} requests from {source}, median {size / 1e3:.1f} kB of text, "
        f"{accepted} accepted by the compiled reader"
    )

    best = per_request(texts, args.rounds)
    med = {name: statistics.median(values) for name, values in best.items()}
    ratios = [e / r for e, r in zip(best["exact"], best["reader"])]
    print(f"\n## Per request, best of {args.rounds} interleaved rounds, median over requests")
    print(f"  exact path (loads + validate) {med['exact'] * 1e3:7.3f} ms")
    print(f"  compiled reader               {med['reader'] * 1e3:7.3f} ms")
    print(f"  from a dict (scc.run)         {med['dict'] * 1e3:7.3f} ms")
    print(
        f"  ratio of medians {med['exact'] / med['reader']:.2f}x; per-request ratio: median "
        f"{statistics.median(ratios):.2f}x, min {min(ratios):.2f}x, max {max(ratios):.2f}x"
    )
    print(
        f"  requests at or under 1.0 ms: {sum(b <= 1e-3 for b in best['reader'])} of "
        f"{len(texts)} (reader), {sum(b <= 1e-3 for b in best['exact'])} (exact)"
    )

    stages = time_split(texts, args.rounds)
    split = {name: statistics.median(values) for name, values in stages.items()}
    exact_reading = split.pop("(exact path: loads + validate)")
    total = sum(split.values())
    print("\n## Time split of the reader's path (median over requests of each stage's best)")
    for name, seconds in split.items():
        print(f"  {name:40s} {seconds * 1e3:7.3f} ms  {100 * seconds / total:5.1f}%")
    print(
        f"  (the exact path reads in {exact_reading * 1e3:.3f} ms: "
        f"{exact_reading / split['read + validate (validated_from_text)']:.1f}x)"
    )
    work = [run_kernel(validated_from_text(t, LIMITS))[3] for _, t in texts]
    per_work = [k / w for k, w in zip(stages["kernel"], work) if w]
    print(
        f"  kernel work (SPEC 4.3) per request: median {statistics.median(work):.0f}, "
        f"mean {statistics.fmean(work):.0f}; kernel time per unit of work: median "
        f"{statistics.median(per_work) * 1e9:.2f} ns, overall "
        f"{sum(stages['kernel']) / sum(work) * 1e9:.2f} ns"
    )
    low, high = median_interval(best["reader"])
    print(
        f"  the reader's median, bootstrap 90% interval over draws of {len(texts)} such "
        f"requests: {low * 1e3:.3f} - {high * 1e3:.3f} ms"
    )
    print("  by family: median time (reader), median work, median kernel time per unit of work")
    by_family(texts, best["reader"], stages["kernel"], work)

    text = json.dumps(maximal_request()).encode()
    assert read_request(text, LIMITS) is not None
    exact = min(timed(exact_read, text) for _ in range(args.rounds))
    reader = min(timed(validated_from_text, text, LIMITS) for _ in range(args.rounds))
    print(
        f"\n## Reading the maximal request ({len(text) / 1e6:.2f} MB of text, 100k literals), "
        f"best of {args.rounds}"
    )
    print(
        f"  loads + validate {exact * 1e3:7.3f} ms, validated_from_text {reader * 1e3:7.3f} ms "
        f"({len(text) / reader / 1e6:.0f} MB/s) -> {exact / reader:.1f}x"
    )

    # The dearest decline: the whole text is scanned before the trailing byte.
    ratios = []
    for _, text in texts:
        bad = text + b" x"
        ratios.append(
            min(timed(read_or_error, bad) for _ in range(args.rounds))
            / min(timed(exact_or_error, bad) for _ in range(args.rounds))
        )
    print(
        "\n## Declining: corpus texts with one trailing byte (scanned to the end, then "
        "declined), validated_from_text / exact path"
    )
    print(f"  median {statistics.median(ratios):.3f}, max {max(ratios):.3f}")

    print(f"\n## Two threads vs one on the same requests ({args.thread_rounds} alternating rounds)")
    for name, rows in threads(texts, args.thread_rounds).items():
        per_round = [one / two for one, two in rows]
        one, two = min(r[0] for r in rows), min(r[1] for r in rows)
        print(
            f"  {name:6s}: best 1 thread {one:.3f} s, best 2 threads {two:.3f} s -> "
            f"x{one / two:.2f}; per round {', '.join(f'x{x:.2f}' for x in per_round)}"
        )


if __name__ == "__main__":
    main()
