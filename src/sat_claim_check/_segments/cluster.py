"""One proof on a Dask cluster: the segments of ``local``, a walker a task.

``ClusterSegments`` is ``front.Segments`` with one Dask task a walker (as
many as the cluster has threads).  Each task reads the proof file itself
(``walk_file``: the same reading and validation as here), checks its own
segments and replays the others, and returns its events; this process reads
the proof too, for the problems it may hold (a malformed line, a limit) and
the progress.  The CNF goes to the workers once (scattered).  A task whose
worker dies is run again by Dask on another (its events are those of a
fresh walk: the same); one given up (``KilledWorker``), or failing, ends
the check with WorkerFailed.  The workers must read the proof at the path
given: a shared file system, or a cluster on this machine.
"""

from __future__ import annotations

import os
import uuid
from typing import TYPE_CHECKING, Any

from .._engines import resolve
from .._io.proofstream import proof_parts
from . import local
from .front import Segments, Validation, WorkerFailed
from .walk import CHECK, REPLAY, Walker

if TYPE_CHECKING:
    from array import array

    from .._core.options import Options
    from .._core.report import Report
    from .._core.types import ProofFormat
    from ..limits import Limits

__all__ = ["ClusterSegments", "ProofChanged", "file_state", "walk_file"]

RETRIES = 2  # a task whose worker failed is run again this many times (beside Dask's own)


class ClusterSegments(Segments):
    """An unsat check of a proof file, by the tasks of a Dask ``client``."""

    def __init__(
        self,
        options: Options,
        num_vars: int,
        clause_offsets: array[int],
        clause_lits: array[int],
        client: Any,
        proof: str,
        proof_format: ProofFormat,
        max_bytes: int,
        segment_steps: int | None = None,
    ) -> None:
        segment_steps = local.SEGMENT_STEPS if segment_steps is None else segment_steps
        self._client = client
        self._cnf: Any = None
        self._tasks: dict[Any, int] = {}
        # Dask's own errors (a lost connection is an OSError) are not the files'.
        try:
            walkers = max(1, sum(client.nthreads().values()))
            super().__init__(options, num_vars, clause_offsets, clause_lits, segment_steps)
            # Its own key (no hash: another check of this CNF may release its own),
            # held here until the end: the tasks depend on it.
            self._cnf = client.scatter(
                [(num_vars, clause_offsets, clause_lits)], broadcast=True, hash=False
            )[0]
            self._path = os.path.abspath(proof)
            self._state = file_state(self._path)
            reading = (self._path, self._state, proof_format, max_bytes, options.limits)
            walk = (options.engine, options.reading_code, segment_steps)
            run = uuid.uuid4().hex
            for index in range(walkers):
                task = client.submit(
                    walk_file,
                    index,
                    walkers,
                    self._cnf,
                    reading,
                    walk,
                    key=f"sat-claim-check-segments-{run}-{index}",
                    pure=False,
                    retries=RETRIES,
                )
                self._tasks[task] = index
        except OSError as exc:
            self.close()
            raise WorkerFailed(
                f"the cluster cannot take the check: {type(exc).__name__}: {exc}"
            ) from None

    def _send(self, kinds: array[int], offsets: array[int], lits: array[int]) -> None:
        """The tasks read the steps themselves."""

    def _collect(self, timeout: float) -> None:
        from distributed import wait

        if not self._tasks:
            if not self._tally.decided:
                raise WorkerFailed("the tasks ended before the answer was known")
            return
        if timeout > 0:
            try:
                wait(list(self._tasks), timeout=timeout, return_when="FIRST_COMPLETED")
            except TimeoutError:
                pass  # none has ended yet
            except OSError as exc:
                raise WorkerFailed(f"the cluster was lost: {type(exc).__name__}: {exc}") from None
            except Exception:
                pass  # a task failed or was cancelled: its result says how, below
        for task in [t for t in self._tasks if t.done()]:
            index = self._tasks.pop(task)
            try:
                events = task.result()
            except Exception as exc:
                raise WorkerFailed(_failure(index, exc)) from None
            for event in events:
                self._tally.record(event)

    def finish(self) -> Report:
        """``Segments.finish``, unless the proof file changed meanwhile: then
        this process and the tasks may have read different proofs."""
        report = super().finish()
        if file_state(self._path) != self._state:
            raise WorkerFailed(ProofChanged.MESSAGE)
        return report

    def close(self) -> None:
        """Cancel the tasks still running (safe to call twice)."""
        tasks, self._tasks = list(self._tasks), {}
        held, self._cnf = self._cnf, None
        try:
            if tasks:
                self._client.cancel(tasks)
            if held is not None:
                held.release()
        except Exception:  # a lost scheduler: nothing left to cancel
            return


class ProofChanged(Exception):
    """A task found the proof file other than it was when the check began."""

    MESSAGE = (
        "the proof file changed while it was checked (its size or modification "
        "time): every task reads it, so check it once it is written in full"
    )


def file_state(path: str) -> tuple[int, int]:
    """(size, modification time in ns) of the proof file: what every task must
    find too, at its start and end (a solver still writing it changes both)."""
    st = os.stat(path)
    return st.st_size, st.st_mtime_ns


def _failure(index: int, exc: BaseException) -> str:
    from distributed import KilledWorker

    if isinstance(exc, ProofChanged):
        return ProofChanged.MESSAGE
    if isinstance(exc, KilledWorker):
        return f"the task checking segments {index} mod N was given up: its workers died ({exc})"
    return f"the task checking segments {index} mod N failed: {type(exc).__name__}: {exc}"


def walk_file(
    index: int,
    walkers: int,
    cnf: tuple[int, array[int], array[int]],
    reading: tuple[str, tuple[int, int], ProofFormat, int, Limits],
    walk: tuple[str, int, int],
) -> list[tuple[Any, ...]]:
    """A task: walk the proof file as walker ``index`` of ``walkers`` (its own
    segments checked), reading and validating it as the checker does; its events."""
    path, state, proof_format, max_bytes, limits = reading
    engine, reading_code, segment_steps = walk
    if file_state(path) != state:
        raise ProofChanged(ProofChanged.MESSAGE)

    def claim(segment: int) -> int:
        return CHECK if segment % walkers == index else REPLAY

    walker = Walker(resolve(engine)[1], reading_code, cnf, segment_steps, claim)
    events = list(walker.start_events)
    validation = Validation(cnf[0], limits)
    for part in proof_parts(path, max_bytes, proof_format):
        for chunk in validation.chunks(part.kinds, part.offsets, part.lits):
            if len(chunk.kinds) and not walker.stopped:
                events += walker.take(chunk.kinds, chunk.offsets, chunk.lits)
            if chunk.problem is not None or walker.stopped:
                return _unchanged(path, state, events + walker.end())
        if part.code or part.over_cap:
            break
    return _unchanged(path, state, events + walker.end())


def _unchanged(path: str, state: tuple[int, int], events: list[Any]) -> list[Any]:
    """``events``, unless the file changed while this task read it."""
    if file_state(path) != state:
        raise ProofChanged(ProofChanged.MESSAGE)
    return events
