"""`batch`: JSON Lines checked by worker processes here (``_batch.local``) or
on a Dask cluster (``--scheduler``, ``sat_claim_check.dask``), and the
summary on stderr."""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import time
from contextlib import suppress
from typing import IO, TYPE_CHECKING

from .._batch.console import BatchProgress, WriteError
from .._batch.local import run_batch
from .._batch.manifest import Manifest, manifest_root
from .._batch.output import BatchTotals
from .._batch.protocol import FAILED
from .._batch.sizing import default_worker_memory
from .._core.codes import (
    EXIT_INTERRUPTED,
    EXIT_NOT_VALID,
    EXIT_REJECTED,
    EXIT_TERMINATED,
    EXIT_VALID,
)
from .._core.options import Options
from .options import jobs_for, limits_from, request_cap
from .output import say, standard_input, stdout_closed, write_failed

if TYPE_CHECKING:
    from .._core.types import Deletions, EngineName
    from ..limits import Limits


class Refused(Exception):
    """The batch cannot start: the line to say on stderr (exit 2)."""


def command_batch(args: argparse.Namespace) -> int:
    limits = limits_from(args)
    try:
        jobs, memory = batch_workers(args)
        manifest = batch_manifest(args)
        stream = open_input(args.file)
    except Refused as refusal:
        say(str(refusal))
        return EXIT_REJECTED
    progress = BatchProgress(stream, input_size(args.file, stream))
    start = time.perf_counter()
    lost = None
    try:
        if args.scheduler is not None:
            outcome, lost = batch_on_cluster(
                args.scheduler,
                stream,
                progress,
                args.engine,
                limits,
                manifest,
                args.deletions,
                request_cap(args, limits),
            )
            if outcome is None:
                return EXIT_REJECTED
        else:
            outcome = run_batch(
                stream,
                sys.stdout,
                engine=args.engine,
                limits=limits,
                jobs=jobs,
                progress=progress,
                worker_memory=memory,
                max_line_bytes=request_cap(args, limits),
                manifest=manifest,
                deletions=args.deletions,
            )
    finally:
        progress.close()
        if args.file != "-":
            stream.close()
    return batch_ended(outcome, lost, source_name(args.file), start)


def batch_workers(args: argparse.Namespace) -> tuple[int, int | None]:
    """(the worker processes, the bytes of address space each may use or None),
    once the engine, or the cluster's options, and standard output are seen to
    be usable."""
    if args.scheduler is not None:
        if args.jobs is not None or args.worker_memory is not None:
            raise Refused(
                "--scheduler excludes --jobs and --worker-memory (the cluster's workers "
                "check the lines, under their own memory limit)"
            )
    else:
        Options.of(args.engine)  # an unavailable engine fails before any line
    if sys.stdout is None:  # nothing could be written: check nothing
        raise WriteError(stdout_closed())
    jobs = jobs_for(1 if args.jobs is None else args.jobs)
    if args.worker_memory is None:
        return jobs, default_worker_memory(jobs)
    return jobs, args.worker_memory << 20 or None


def batch_manifest(args: argparse.Namespace) -> Manifest | None:
    """With --manifest, where its paths lead."""
    if not args.manifest:
        if args.manifest_root is not None:
            raise Refused("--manifest-root needs --manifest")
        return None
    base = os.getcwd() if args.file == "-" else os.path.dirname(os.path.abspath(args.file))
    try:
        root = None if args.manifest_root is None else manifest_root(args.manifest_root)
    except ValueError as exc:
        raise Refused(str(exc)) from None
    return Manifest(base, root)


def source_name(name: str) -> str:
    return "standard input" if name == "-" else repr(name)


def open_input(name: str) -> IO[bytes]:
    try:
        return standard_input() if name == "-" else open(name, "rb")
    except OSError as exc:
        raise Refused(f"cannot read {source_name(name)}: {exc.strerror or exc}") from None


def input_size(name: str, stream: IO[bytes]) -> int:
    """The bytes of an input file, for the progress line; 0 when not known."""
    try:
        return 0 if name == "-" else os.fstat(stream.fileno()).st_size
    except (OSError, ValueError):
        return 0


def batch_ended(outcome: BatchTotals, lost: str | None, source: str, start: float) -> int:
    """Say how the batch ended, on stderr; its exit code."""
    if outcome.write_error is not None:
        return write_failed(outcome.write_error)
    counts = outcome.counts
    summary = f"{sum(counts)} lines: {counts[0]} valid, {counts[1]} not valid, {counts[2]} rejected"
    if counts[FAILED]:
        summary += f", {counts[FAILED]} failed"
    summary += f" ({time.perf_counter() - start:.2f} s)"
    if outcome.read_error is not None:
        error = outcome.read_error
        say(f"cannot read {source}: {error.strerror or error}")
    if lost is not None:
        say(f"batch: {lost}; stopped after {summary}")
        return EXIT_REJECTED
    if outcome.signal is not None:
        say(f"batch: stopped by {signal.Signals(outcome.signal).name} after {summary}")
        return EXIT_INTERRUPTED if outcome.signal == signal.SIGINT else EXIT_TERMINATED
    say(f"batch: {summary}")
    if outcome.read_error is not None or counts[EXIT_REJECTED] or counts[FAILED]:
        return EXIT_REJECTED
    return EXIT_NOT_VALID if counts[EXIT_NOT_VALID] else EXIT_VALID


def batch_on_cluster(
    scheduler: str,
    stream: IO[bytes],
    progress: BatchProgress,
    engine: EngineName,
    limits: Limits,
    manifest: Manifest | None,
    deletions: Deletions = "strict",
    max_line_bytes: int | None = None,
) -> tuple[BatchTotals | None, str | None]:
    """``batch --scheduler``: (the outcome, or None when the cluster could not run
    the batch, said on stderr; the words for a scheduler lost mid-batch)."""
    from ..dask import ClusterError, connect
    from ..dask import run_batch as run_on_cluster

    # Dask logs what it retries (dead workers, a lost scheduler) with tracebacks;
    # the batch says what matters on its own lines.
    logging.disable(logging.CRITICAL)
    try:
        client, cluster = connect(scheduler)
    except ClusterError as err:
        say(str(err))
        return None, None
    try:
        outcome = run_on_cluster(
            stream,
            sys.stdout,
            client=client,
            engine=engine,
            limits=limits,
            manifest=manifest and manifest.base,
            manifest_root=manifest and manifest.root,
            progress=progress,
            deletions=deletions,
            max_line_bytes=max_line_bytes,
        )
    except ClusterError as err:
        say(str(err))
        return None, None
    finally:
        with suppress(Exception):  # closing a cluster that is gone: nothing to do
            client.close()
            if cluster is not None:
                cluster.close()
        logging.disable(logging.NOTSET)
    return outcome, outcome.lost
