"""Batches on a Dask cluster: ``batch --scheduler`` and a ``dask.bag`` API.

Needs the extra: ``pip install "sat-claim-check[dask]"`` (``dask[bag]`` and
``distributed``); this module imports them only when it is used.

``run_batch(stream, out, client=...)`` is what ``sat-claim-check batch
--scheduler ADDRESS`` runs: the same output, byte for byte, as ``batch --jobs
1``.  Lines go to the cluster in chunks (``check_lines`` on each), with a
bounded number of chunks in flight and a reorder buffer no bigger than that
window, so memory stays bounded whatever the input size.  A worker that dies
costs no line: the scheduler runs its tasks again on another worker (up to
its ``distributed.scheduler.allowed-failures``), and a chunk that Dask gives
up on (``KilledWorker``) is checked again line by line, one line at a time
on the whole cluster, so that only a line that keeps killing workers gets a
``check_failed`` error object.

``check_bag(bag)`` checks a ``dask.bag`` of lines, requests or envelopes (or,
with ``manifest=``, manifest entries) and returns a bag of output lines, one
per element, in order.

    >>> import dask.bag as db                                  # doctest: +SKIP
    >>> from sat_claim_check.dask import check_bag             # doctest: +SKIP
    >>> lines = check_bag(db.read_text("requests-*.jsonl"))     # doctest: +SKIP
    >>> lines.to_textfiles("results-*.jsonl", last_endline=True)  # doctest: +SKIP
"""

from __future__ import annotations

import os
from collections import deque
from contextlib import suppress
from typing import IO, TYPE_CHECKING, Any

from ._batch import protocol
from ._batch.cluster import (
    ClusterError,
    check_workers,
    connect,
    require_dask,
)
from ._batch.console import BatchProgress, WriteError
from ._batch.lines import Numbered, Span, numbered_lines
from ._batch.manifest import Manifest, manifest_root
from ._batch.output import BatchTotals, OrderedOutput
from ._batch.protocol import Checked, check_one, unfinished
from ._batch.signals import Stop, StopSignals
from ._core.codes import EXIT_REJECTED
from ._core.jsontext import dumps
from ._core.options import Options, checked_settings
from ._engines import ENGINES
from .errors import InvalidInput

if TYPE_CHECKING:
    from collections.abc import Iterable

    from ._core.types import Deletions, EngineName
    from .limits import Limits

__all__ = [
    "CHUNK_BYTES",
    "CHUNK_LINES",
    "KINDS",
    "RETRIES",
    "ClusterError",
    "ClusterOutcome",
    "ClusterTotals",
    "check_bag",
    "connect",
    "run_batch",
]

CHUNK_LINES = 64  # lines per task, at most (benchmarks/README.md: per-task cost)
CHUNK_BYTES = 4 << 20  # bytes of input per task, at most (a longer line goes alone)
RETRIES = 2  # a task that raises is run again this many times
# check_bag(kinds=True): the names of the kinds EXIT_VALID, _NOT_VALID, _REJECTED, FAILED
KINDS = ("valid", "not_valid", "rejected", "failed")


class ClusterTotals(BatchTotals):
    """How a batch on a cluster ended: ``BatchTotals``, and ``lost``, the words for
    a scheduler that went away mid-batch (every line before it was written)."""

    def __init__(self, counts: list[int]) -> None:
        super().__init__(counts)
        self.lost: str | None = None


ClusterOutcome = ClusterTotals  # the name it has had in this module's API


# -- the batch ------------------------------------------------------------------


class _Lost(Exception):
    """The scheduler forgot a task: it restarted, or the connection to it broke."""


class _Chunks:
    """The input in chunks of at most ``lines`` lines and ``size`` bytes (a longer
    line goes alone); a read error ends it and is kept."""

    def __init__(
        self, stream: IO[bytes], lines: int, size: int, max_line_bytes: int | None
    ) -> None:
        self._lines = numbered_lines(stream, max_line_bytes)
        self._max_lines = lines
        self._max_bytes = size
        self._next: Numbered | None = None
        self.done = False
        self.error: OSError | None = None

    def next_chunk(self) -> list[Numbered] | None:
        chunk: list[Numbered] = []
        size = 0
        while not self.done and len(chunk) < self._max_lines:
            item = self._next
            self._next = None
            if item is None:
                try:
                    item = next(self._lines, None)
                except OSError as exc:  # the lines before it are still checked
                    self.error = exc
                    item = None
                if item is None:
                    self.done = True
                    break
            if chunk and size + len(item[1]) > self._max_bytes:
                self._next = item  # the first line of the next chunk
                break
            chunk.append(item)
            size += len(item[1])
        return chunk or None


def run_batch(
    stream: IO[bytes],
    out: IO[str],
    *,
    client: Any,
    engine: EngineName = "auto",
    limits: Limits | None = None,
    manifest: str | os.PathLike[str] | None = None,
    progress: BatchProgress | None = None,
    chunk_lines: int = CHUNK_LINES,
    chunk_bytes: int = CHUNK_BYTES,
    window: int | None = None,
    retries: int = RETRIES,
    deletions: Deletions = "strict",
    manifest_root: str | os.PathLike[str] | None = None,
    max_line_bytes: int | None = None,
) -> ClusterTotals:
    """Check every line of ``stream`` (binary) on the cluster of ``client`` (a
    ``distributed.Client``), writing one line each to ``out``, in input order:
    what ``batch --scheduler`` does, with its guarantees (module docstring).

    ``manifest`` (a directory) makes the lines manifest lines, their relative
    paths resolved against it; the workers read the files, so they must see
    them at the same paths; ``manifest_root`` (a directory) confines them as
    ``--manifest-root`` does.  At most ``window`` chunks (default: three per
    worker thread) are in flight or waiting to be written.  SIGINT and
    SIGTERM stop the batch after writing the lines already checked (in the
    main thread).  Returns a ClusterTotals: ``counts`` (lines written: valid,
    not valid, rejected, failed), ``signal``, ``read_error``, ``write_error``
    and ``lost``.  Raises ClusterError before any line when the workers do not
    match (``check_workers``).  ``deletions`` as for ``run``.  Arguments that
    cannot be used raise ValueError or TypeError before any line is read.
    A line over ``max_line_bytes`` is rejected unread, as ``batch`` rejects
    it (None: no cap).
    """
    require_dask()
    place = _checked_arguments(engine, limits, deletions, manifest, manifest_root)
    threads = check_workers(client, engine)
    window = max(2, 3 * threads) if window is None else max(1, window)
    if progress is None:
        progress = BatchProgress(stream, 0)
    chunks = _Chunks(stream, max(1, chunk_lines), max(1, chunk_bytes), max_line_bytes)
    with StopSignals() as signals:
        output = OrderedOutput(out, progress, signals)
        outcome = ClusterTotals(output.counts)
        try:
            _check_on_cluster(
                client, chunks, output, window, engine, limits, place, retries, deletions
            )
        except WriteError as exc:
            outcome.write_error = exc.error
        except _Lost as exc:
            outcome.lost = str(exc)
    outcome.signal = signals.signum
    outcome.read_error = chunks.error
    return outcome


def _check_on_cluster(
    client: Any,
    chunks: _Chunks,
    output: OrderedOutput,
    window: int,
    engine: EngineName,
    limits: Limits | None,
    manifest: Manifest | None,
    retries: int,
    deletions: Deletions,
) -> None:
    from distributed import as_completed

    tasks: dict[Any, list[Numbered]] = {}  # future -> its numbered lines
    finished = as_completed()
    unwritten: deque[int] = deque()  # the last line of each chunk not yet written
    # Lines of chunks that Dask gave up on, checked one at a time on an otherwise
    # idle cluster: a worker's death then counts against its one line only (every
    # task a dying worker holds counts one death, innocent or not).
    suspects: deque[Numbered] = deque()

    def submit(lines: list[Numbered]) -> None:
        future = client.submit(
            check_lines, engine, limits, deletions, lines, manifest, pure=False, retries=retries
        )
        tasks[future] = lines
        finished.add(future)

    def settle(future: Any, lines: list[Numbered]) -> None:
        if future.status == "finished":
            results: list[Checked] = future.result()
            for (number, _), checked in zip(lines, results):
                output.put(number, checked)
        elif future.status == "error":
            if len(lines) > 1:  # which line was it? each one alone will tell
                suspects.extend(lines)
                return
            number, line = lines[0]
            assert not isinstance(line, Span)  # the cluster's lines are read here
            output.put(
                number, unfinished(number, line, _failure(future.exception()), manifest is not None)
            )
        elif future.status in ("lost", "pending"):
            # Its result was on a worker that died since: the scheduler runs it again.
            tasks[future] = lines
            finished.add(future)
        else:
            raise _Lost(
                f"the scheduler lost the task of line {lines[0][0]} "
                f"({future.status}): it restarted, or the connection broke"
            )

    try:
        while True:
            while unwritten and unwritten[0] <= output.written:
                unwritten.popleft()
            while len(unwritten) < window and not suspects:
                chunk = chunks.next_chunk()
                if chunk is None:
                    break
                unwritten.append(chunk[-1][0])
                submit(chunk)
            if suspects and not tasks:
                submit([suspects.popleft()])
            if not tasks:
                return  # the input is done, and every line is written
            future = next(finished)
            settle(future, tasks.pop(future))
            output.write_ready()
    except Stop:
        # Results the cluster has finished are finished lines: keep them.
        for future, lines in list(tasks.items()):
            if future.status == "finished":
                settle(future, lines)
        output.write_ready()
        raise
    finally:
        if tasks:
            # Best effort: after a lost scheduler there is nothing left to cancel.
            with suppress(Exception):
                client.cancel(list(tasks))


def _failure(exc: BaseException | None) -> str:
    """The check_failed message of a one-line task that failed on the cluster."""
    from distributed import KilledWorker

    if isinstance(exc, KilledWorker):
        deaths = getattr(exc, "allowed_failures", None)
        worker = getattr(getattr(exc, "last_worker", None), "address", None)
        text = "the worker processes checking this line died"
        if isinstance(deaths, int):
            text += f" {deaths + 1} times"
        if worker:
            text += f" (Dask's KilledWorker; the last was {worker})"
        return text
    return f"the check of this line raised {type(exc).__name__} on the cluster: {exc}"


# -- dask.bag -------------------------------------------------------------------


def check_bag(
    bag: Any,
    *,
    engine: EngineName = "auto",
    limits: Limits | None = None,
    manifest: str | os.PathLike[str] | None = None,
    kinds: bool = False,
    deletions: Deletions = "strict",
    manifest_root: str | os.PathLike[str] | None = None,
) -> Any:
    """A ``dask.bag.Bag`` of the output lines (str, no newline) of ``bag``'s
    elements, one each, in order, as ``batch`` writes them.

    An element is a JSON line (str or bytes; one final newline is ignored, as
    ``dask.bag.read_text`` keeps it) or a JSON value (a request or an
    envelope as a dict), which is checked as its compact JSON text.  With
    ``manifest`` (a directory, against which relative paths are resolved)
    elements are manifest lines or entries.  An error object's ``"line"`` is
    the element's 1-based position in the bag.  With ``kinds`` the elements
    are (kind, line) pairs, kind one of KINDS.  ``deletions`` as for ``run``;
    ``manifest_root`` confines the manifest's paths, as ``--manifest-root``
    does.  Arguments that cannot be used raise ValueError or TypeError here,
    before anything is computed.

    Each partition is checked as one task: size partitions as chunks (the
    module's CHUNK_LINES).  A task that keeps killing workers fails the
    computation with ``KilledWorker``, as any Dask task does; ``run_batch``
    is the way that isolates such a line.
    """
    require_dask()
    import dask
    import dask.bag as db

    if not isinstance(bag, db.Bag):
        raise TypeError(
            f"check_bag takes a dask.bag.Bag, got {type(bag).__name__} "
            "(make one with dask.bag.from_sequence or dask.bag.read_text)"
        )
    if not isinstance(kinds, bool):
        raise TypeError(f"kinds must be True or False, got {kinds!r}")
    place = _checked_arguments(engine, limits, deletions, manifest, manifest_root)
    parts = bag.map_partitions(list).to_delayed()
    checked = []
    offset: Any = 0  # elements before the partition: a Delayed after the first
    for part in parts:
        checked.append(
            dask.delayed(_check_partition, pure=True)(
                part, offset, engine, limits, place, kinds, deletions
            )
        )
        offset = dask.delayed(_after, pure=True)(offset, part)
    return db.from_delayed(checked)


def _checked_arguments(
    engine: object,
    limits: object,
    deletions: object,
    manifest: str | os.PathLike[str] | None,
    root: str | os.PathLike[str] | None,
) -> Manifest | None:
    """Check the arguments every line would use, here rather than on each line;
    return where the manifest's paths lead (None without a manifest)."""
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(map(repr, ENGINES))}, got {engine!r}")
    checked_settings(limits, deletions)  # the engine is the workers' to choose
    for name, value in (("manifest", manifest), ("manifest_root", root)):
        if value is not None and not isinstance(value, (str, os.PathLike)):
            raise TypeError(
                f"{name} must be a directory (a str or a path), got {type(value).__name__}"
            )
    if manifest is None:
        if root is not None:
            raise ValueError("manifest_root needs manifest (the manifest's directory)")
        return None
    return Manifest(os.path.abspath(manifest), None if root is None else manifest_root(root))


def check_lines(
    engine: EngineName,
    limits: Limits | None,
    deletions: Deletions,
    lines: list[Numbered],
    manifest: Manifest | None,
) -> list[Checked]:
    """A task on a worker: the answers of a chunk's lines, with the engine the
    worker chooses for ``engine``."""
    return protocol.check_lines(Options.of(engine, limits, deletions), lines, None, manifest)


def _after(offset: int, part: list[Any]) -> int:
    return offset + len(part)


def _check_partition(
    part: Iterable[Any],
    offset: int,
    engine: EngineName,
    limits: Limits | None,
    manifest: Manifest | None,
    kinds: bool,
    deletions: Deletions = "strict",
) -> list[Any]:
    options = Options.of(engine, limits, deletions)
    out: list[Any] = []
    for number, element in enumerate(part, offset + 1):
        try:
            line = _as_line(element)
        except (TypeError, ValueError) as exc:
            error = InvalidInput(None, "", f"the element is not JSON: {exc}").to_dict()
            error["line"] = number
            kind, text = EXIT_REJECTED, dumps(error)
        else:
            kind, text = check_one(options, number, line, manifest)
        out.append((KINDS[kind], text) if kinds else text)
    return out


def _as_line(element: Any) -> bytes:
    if isinstance(element, str):
        element = element.encode("utf-8", "surrogatepass")
    if isinstance(element, (bytes, bytearray)):
        return bytes(element[:-1] if element.endswith(b"\n") else element)
    return dumps(element).encode("utf-8", "surrogatepass")
