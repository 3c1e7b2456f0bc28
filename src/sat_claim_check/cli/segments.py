"""`verify --jobs N` and `verify --scheduler ADDRESS`: what they cannot do
here, said on stderr, and the cluster the proof is checked on."""

from __future__ import annotations

import argparse
import contextlib
import logging
from collections.abc import Iterator
from typing import Any

from .._segments import cluster_path
from ..limits import Limits
from .options import jobs_for
from .output import say


class Refused(Exception):
    """The options cannot check in segments as asked: the message says why."""


def segments_options(args: argparse.Namespace, limits: Limits) -> None:
    """Settle args.jobs (1: on one core) and args.scheduler (None: not on a
    cluster), saying on stderr what they do not do here; Refused."""
    if args.proof is None:  # a sat claim: nothing to cut
        args.jobs, args.scheduler = 1, None
        return
    if args.scheduler is not None:
        if args.jobs != 1:
            raise Refused("--scheduler excludes --jobs (the cluster's workers check the segments)")
        try:
            cluster_path(args.proof)
        except ValueError as err:
            raise Refused(f"--scheduler: {err}") from None
        asked = f"--scheduler {args.scheduler}"
    else:
        args.jobs = jobs_for(args.jobs)
        if args.jobs == 1:
            return
        asked = f"--jobs {args.jobs}"
    one_core = [
        why
        for why, given in (
            ("the lenient reading", args.reading == "lenient"),
            ("--lrat", args.lrat is not None),
            ("--explain", args.explain),
        )
        if given
    ]
    if one_core:
        say(f"{asked}: {' and '.join(one_core)} check on one core")
        args.jobs, args.scheduler = 1, None
    elif limits.max_propagation_work < Limits.unlimited().max_propagation_work:
        say(
            f"{asked}: no work cap (max_propagation_work "
            f"{limits.max_propagation_work:,} applies to a check on one core, --jobs 1)"
        )


@contextlib.contextmanager
def cluster_of(args: argparse.Namespace) -> Iterator[Any]:
    """The Dask client of args.scheduler (None without it), its workers seen to
    run this version and engine; closed after.  Raises ClusterError, or
    ImportError without the dask extra."""
    if args.scheduler is None:
        yield None
        return
    from .._batch.cluster import check_workers, connect

    # Dask logs what it retries (a dead worker) with tracebacks; the check says
    # what matters on its own lines.
    logging.disable(logging.CRITICAL)
    try:
        client, cluster = connect(args.scheduler)
        try:
            check_workers(client, args.engine)
            if cluster is not None:  # local:N: the check is cut for the N
                client.wait_for_workers(len(cluster.workers))
            yield client
        finally:
            with contextlib.suppress(Exception):  # a cluster already gone
                client.close()
                if cluster is not None:
                    cluster.close()
    finally:
        logging.disable(logging.NOTSET)
