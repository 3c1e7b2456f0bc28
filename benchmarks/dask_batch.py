"""batch on a Dask LocalCluster against batch --jobs N, on the corpus's contract tier.

    pip install -e ".[dask]"
    python benchmarks/dask_batch.py [--corpus DIR] [--copies 10] [--rounds 3]

The input is every contract-tier request of the corpus (each c*.json is one
request), compacted to one line, the whole list repeated --copies times.
Four ways of checking it run in turns, --rounds times, so that a burst of
other work on the shared machine hits them all alike:

* jobs1: ``batch --jobs 1`` (in this process), the baseline;
* jobs2: ``batch --jobs 2`` (two worker processes);
* dask1, dask2: ``batch --scheduler`` on a LocalCluster of 1 and 2 worker
  processes (one thread each), started once before the rounds as
  ``--scheduler local:1`` and ``local:2`` start theirs: the times are
  those of ``sat_claim_check.dask.run_batch``, without the cluster's start-up
  (printed apart).

Every output is checked to be the bytes of jobs1. Then dask2 runs once for
each chunk size in --chunks, for the cost of a task. Ratios use the median of
the rounds.

``--local`` runs jobs1 and jobs2 only (no cluster, dask not needed), for the
throughput of ``batch --jobs 2`` against ``--jobs 1``: both read the input
from a file, as ``batch FILE`` does (the workers read their lines from it
themselves), and ``jobs2-stream`` reads it from an in-memory stream, as from
a pipe (the batch process sends the lines to the workers).
"""

from __future__ import annotations

import argparse
import io
import json
import logging
import os
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DEFAULT_CORPUS = Path(
    os.environ.get("SAT_CLAIM_CHECK_CORPUS", HERE.parent.parent / "shared" / "corpus")
)


def corpus_lines(corpus: Path) -> list[bytes]:
    """Each contract-tier request of the corpus as one compact JSON line."""
    lines = []
    for path in sorted(corpus.glob("c*.json")):
        lines.append(json.dumps(json.loads(path.read_bytes()), separators=(",", ":")).encode())
    return lines


def batch_input(args: argparse.Namespace, more: str) -> tuple[list[bytes], bytes]:
    """The corpus's lines --copies times, and the input they make; says what
    it is (and ``more``)."""
    from sat_claim_check._batch.sizing import available_cpus
    from sat_claim_check._engines import implementations

    base = corpus_lines(args.corpus)
    if not base:
        raise SystemExit(f"no c*.json request in {args.corpus} (set SAT_CLAIM_CHECK_CORPUS)")
    lines = base * args.copies
    data = b"".join(line + b"\n" for line in lines)
    print(
        f"{len(lines)} lines ({len(base)} requests x {args.copies}), "
        f"{len(data) / 2**20:.1f} MiB; {implementations()}; Python {sys.version.split()[0]}; "
        f"{available_cpus()} CPUs; {more}"
    )
    return lines, data


def cpu(who: int = resource.RUSAGE_SELF) -> float:
    """CPU seconds (user + system) of this process (the batch's reader and
    writer and, for a LocalCluster, its scheduler), or of its ended children."""
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def workers_cpu(client: Any) -> float:
    """CPU seconds of the cluster's worker processes, so far."""
    return sum(client.run(cpu).values()) if client is not None else 0.0


def timed(
    run: Callable[[Any, io.StringIO], Any],
    data: bytes,
    client: Any = None,
    path: Path | None = None,
) -> tuple[float, float, float, str]:
    """(wall seconds, this process's CPU seconds, its workers' CPU seconds,
    output) of one run; the workers are ``client``'s, else this process's
    children (batch --jobs N, whose workers end with the batch).  The input
    is the file ``path`` (which holds ``data``), else an in-memory stream."""
    stream = io.BytesIO(data) if path is None else open(path, "rb")  # noqa: SIM115
    out = io.StringIO()
    before = (time.perf_counter(), cpu(), cpu(resource.RUSAGE_CHILDREN), workers_cpu(client))
    with stream:
        run(stream, out)
    after = (time.perf_counter(), cpu(), cpu(resource.RUSAGE_CHILDREN), workers_cpu(client))
    wall, own, children, workers = (b - a for a, b in zip(before, after))
    return wall, own, children + workers, out.getvalue()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--copies", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--chunks", default="8,16,32,64,128,256")
    parser.add_argument("--engine", default="auto")
    parser.add_argument(
        "--local", action="store_true", help="only batch --jobs 1 and --jobs 2 (no Dask cluster)"
    )
    args = parser.parse_args()
    if args.local:
        local_only(args)
        return

    import dask
    import distributed

    from sat_claim_check import dask as on_dask
    from sat_claim_check._batch import local as _batch
    from sat_claim_check._batch.cluster import connect
    from sat_claim_check._batch.console import BatchProgress
    from sat_claim_check._batch.sizing import available_cpus

    logging.getLogger("distributed").setLevel(logging.ERROR)  # its notes on closing
    lines, data = batch_input(
        args, f"dask {dask.__version__}, distributed {distributed.__version__}"
    )

    clusters = {}
    for workers in (1, 2):
        start = time.perf_counter()
        client, cluster = connect(f"local:{workers}")  # as batch --scheduler local:N
        client.wait_for_workers(workers)
        print(f"LocalCluster of {workers}: started in {time.perf_counter() - start:.2f} s")
        clusters[workers] = (cluster, client)

    def local(jobs: int) -> Callable[[io.BytesIO, io.StringIO], Any]:
        return lambda stream, out: _batch.run_batch(
            stream,
            out,
            engine=args.engine,
            limits=None,
            jobs=jobs,
            progress=BatchProgress(stream, 0),
        )

    def cluster(
        workers: int, chunk: int = on_dask.CHUNK_LINES
    ) -> Callable[[io.BytesIO, io.StringIO], Any]:
        client = clusters[workers][1]
        return lambda stream, out: on_dask.run_batch(
            stream, out, client=client, engine=args.engine, chunk_lines=chunk
        )

    ways = {"jobs1": local(1), "jobs2": local(2), "dask1": cluster(1), "dask2": cluster(2)}
    clients = {"dask1": clusters[1][1], "dask2": clusters[2][1]}
    times: dict[str, list[float]] = {name: [] for name in ways}
    cpus: dict[str, list[float]] = {name: [] for name in ways}
    worker_cpus: dict[str, list[float]] = {name: [] for name in ways}
    reference = None
    for round_ in range(args.rounds):
        order = list(ways) if round_ % 2 == 0 else list(reversed(ways))
        for name in order:
            seconds, used, workers, out = timed(ways[name], data, clients.get(name))
            reference = reference or (out if name == "jobs1" else None)
            if reference is not None and out != reference:
                raise SystemExit(f"{name}: the output differs from jobs1")
            times[name].append(seconds)
            cpus[name].append(used)
            worker_cpus[name].append(workers)
        print(
            f"round {round_ + 1}: " + ", ".join(f"{name} {times[name][-1]:.2f} s" for name in ways)
        )
    if reference is None:
        raise SystemExit("jobs1 did not run")

    median = {name: statistics.median(values) for name, values in times.items()}
    print()
    per_line = {
        name: (
            statistics.median(cpus[name]) / len(lines) * 1e3,
            statistics.median(worker_cpus[name]) / len(lines) * 1e3,
        )
        for name in ways
    }
    print(
        "| way | median | best | lines/s (median) | CPU per line: batch process | workers | all |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name in ways:
        own, workers = per_line[name]
        print(
            f"| {name} | {median[name]:.2f} s | {min(times[name]):.2f} s | "
            f"{len(lines) / median[name]:.0f} | {own:.3f} ms | {workers:.3f} ms | "
            f"{own + workers:.3f} ms |"
        )
    print()
    print(f"dask2 / dask1 throughput: {median['dask1'] / median['dask2']:.2f}x (goal >= 1.6)")
    print(f"dask2 / jobs2 throughput: {median['jobs2'] / median['dask2']:.2f}x (goal >= 0.8)")
    print(
        f"per-line overhead of the cluster path, dask1 - jobs1: wall "
        f"{(median['dask1'] - median['jobs1']) / len(lines) * 1e3:.3f} ms, CPU "
        f"{sum(per_line['dask1']) - sum(per_line['jobs1']):.3f} ms "
        f"(a line takes {median['jobs1'] / len(lines) * 1e3:.3f} ms in jobs1)"
    )
    # On an idle machine of `cores` CPUs, no way can check faster than its total CPU
    # per line allows, nor faster than its busiest process (one CPU at most) allows.
    cores = available_cpus()

    def ceiling(name: str, workers: int) -> float:
        own, work = per_line[name]
        return 1e3 / max((own + work) / cores, own, work / workers)

    bound = {
        name: ceiling(name, w)
        for name, w in (("jobs1", 1), ("jobs2", 2), ("dask1", 1), ("dask2", 2))
    }
    bound["jobs1"] = 1e3 / sum(per_line["jobs1"])  # one process does it all
    print(
        "ceilings from CPU per line, idle machine: "
        + ", ".join(f"{name} {value:.0f} lines/s" for name, value in bound.items())
    )
    print(
        f"  dask2 / dask1 {bound['dask2'] / bound['dask1']:.2f}x, "
        f"dask2 / jobs2 {bound['dask2'] / bound['jobs2']:.2f}x"
    )

    print()
    print("| chunk lines | tasks | dask2 | lines/s | CPU per line: batch process | workers | all |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for chunk in (int(c) for c in args.chunks.split(",")):
        seconds, own, workers, out = timed(cluster(2, chunk), data, clients["dask2"])
        if out != reference:
            raise SystemExit(f"dask2 chunk {chunk}: the output differs from jobs1")
        own, workers = own / len(lines) * 1e3, workers / len(lines) * 1e3
        print(
            f"| {chunk} | {-(-len(lines) // chunk)} | {seconds:.2f} s | "
            f"{len(lines) / seconds:.0f} | {own:.3f} ms | {workers:.3f} ms | "
            f"{own + workers:.3f} ms |"
        )

    for cluster_, client in clusters.values():
        client.close()
        cluster_.close()


def local_only(args: argparse.Namespace) -> None:
    """batch --jobs 1 against --jobs 2, alternating rounds (--local)."""
    from sat_claim_check._batch import local as _batch
    from sat_claim_check._batch.console import BatchProgress

    lines, data = batch_input(args, f"load average {os.getloadavg()[0]:.2f}")

    def local(jobs: int) -> Callable[[Any, io.StringIO], Any]:
        return lambda stream, out: _batch.run_batch(
            stream,
            out,
            engine=args.engine,
            limits=None,
            jobs=jobs,
            progress=BatchProgress(stream, 0),
        )

    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "requests.jsonl"
        path.write_bytes(data)
        ways = {
            "jobs1": (local(1), path),
            "jobs2": (local(2), path),
            "jobs2-stream": (local(2), None),
        }
        times: dict[str, list[float]] = {name: [] for name in ways}
        cpus: dict[str, list[float]] = {name: [] for name in ways}
        reference = None
        for round_ in range(args.rounds):
            for name in ways if round_ % 2 == 0 else reversed(list(ways)):
                run, source = ways[name]
                seconds, own, workers, out = timed(run, data, path=source)
                reference = reference or out
                if out != reference:
                    raise SystemExit(f"{name}: the output differs")
                times[name].append(seconds)
                cpus[name].append(own + workers)
            print(
                f"round {round_ + 1}: "
                + ", ".join(f"{name} {times[name][-1]:.2f} s" for name in ways)
                + f", ratio {times['jobs1'][-1] / times['jobs2'][-1]:.2f}; load average "
                f"{os.getloadavg()[0]:.2f}"
            )
    median = {name: statistics.median(values) for name, values in times.items()}
    cpu_line = {name: statistics.median(cpus[name]) / len(lines) * 1e3 for name in ways}
    for name in ways:
        print(
            f"{name}: median {median[name]:.2f} s, best {min(times[name]):.2f} s, "
            f"{len(lines) / median[name]:.0f} lines/s, CPU {cpu_line[name]:.3f} ms a line"
        )
    print(
        f"jobs2 / jobs1 throughput: median {median['jobs1'] / median['jobs2']:.2f}x, "
        f"best {min(times['jobs1']) / min(times['jobs2']):.2f}x (goal >= 1.8); "
        f"ceiling from CPU per line on 2 idle cores "
        f"{2 * cpu_line['jobs1'] / cpu_line['jobs2']:.2f}x"
    )
    print(
        f"jobs2-stream / jobs1 throughput: median "
        f"{median['jobs1'] / median['jobs2-stream']:.2f}x, ceiling "
        f"{2 * cpu_line['jobs1'] / cpu_line['jobs2-stream']:.2f}x"
    )


if __name__ == "__main__":
    main()
