"""One proof on every core: a proof checked in segments, each by one of several kernels.

Every lemma's RUP check depends only on the clauses alive at its step, so a
kernel that has replayed the steps before a segment (``Kernel.replay``:
taken as if they succeeded, unchecked) checks the segment as one check of
the whole proof would.  ``walk`` is a worker's walk through the proof,
``verdict`` the answer of the segments' events in stream order, ``local``
the worker processes of ``verify --jobs N``, ``cluster`` the tasks of
``verify --scheduler ADDRESS``; ``front`` what both do in this process.
docs/semantics.md, "One proof on every core", says what is the same as a
check on one core (every byte of the result) and what is not (the work
counter).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .._core.options import Options
    from .._io.dimacs_text import Input
    from .front import Segments

__all__ = ["cluster_path", "cluster_proof_path", "segments_for"]


def segments_for(
    jobs: int, cluster: Any, options: Options, explain: bool, lrat: bool
) -> Callable[..., Segments] | None:
    """How a proof is checked in segments: on ``cluster``'s workers (a Dask
    client) or ``jobs`` > 1 worker processes; None (on one core) for the lenient
    reading (which deletions it ignores after a conflict depends on the order
    of propagation), the steps ``--explain`` keeps and an LRAT (numbered in
    stream order)."""
    if (cluster is None and jobs < 2) or _one_core(options, explain, lrat):
        return None
    if cluster is not None:
        from .cluster import ClusterSegments

        def on_cluster(
            options: Options, n: int, o: Any, c: Any, proof: Input, *rest: Any
        ) -> Segments:
            path = cluster_path(proof)
            _can_open(path)  # its error is the one a check on one core gives
            return ClusterSegments(options, n, o, c, cluster, path, *rest)

        return on_cluster
    from .local import SegmentChecker

    def on_processes(options: Options, n: int, o: Any, c: Any, *_: Any) -> Segments:
        return SegmentChecker(options, n, o, c, jobs)

    return on_processes


def cluster_proof_path(
    cluster: Any, proof: Input | None, options: Options, explain: bool, lrat: bool
) -> str | None:
    """The path of the proof that ``cluster``'s workers read, None when no
    cluster checks it; ValueError when it is not a file's path.  A door asks
    before it reads anything, so that the error comes first."""
    if cluster is None or proof is None or _one_core(options, explain, lrat):
        return None
    return cluster_path(proof)


def _one_core(options: Options, explain: bool, lrat: bool) -> bool:
    """The checks that are not cut into segments (``segments_for``)."""
    return options.reading == "lenient" or explain or lrat


def _can_open(path: str) -> None:
    """OSError unless ``path`` (no pipe: ``cluster_path``) opens for reading,
    tried before the workers' tasks start: a task that cannot read the proof
    is a lost worker, not a bad input.  A directory is IsADirectoryError."""
    with open(path, "rb"):
        pass


def cluster_path(proof: Input) -> str:
    """The proof's path, for a cluster's workers to read; ValueError when it
    is not a path, or names a named pipe or a device: each worker and this
    process read the proof from its start, and a pipe gives its bytes once
    (the readers waited for each other's bytes forever).  A path that is
    absent or a directory is the "cannot read" error of ``_can_open``."""
    if not isinstance(proof, (str, os.PathLike)) or os.fspath(proof) == "-":
        raise ValueError(
            "a proof checked on a cluster is read by its workers: give the path of a file "
            "they can read, not - (standard input) or an open file"
        )
    path = os.fspath(proof)
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return path
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise ValueError(
            f"a proof checked on a cluster is read from its start by every worker: "
            f"{path!r} is not a regular file (a named pipe is read once)"
        )
    return path
