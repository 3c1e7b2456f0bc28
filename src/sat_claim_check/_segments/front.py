"""What every way of checking a proof in segments does in this process.

``Segments`` stands where a ``Checker`` stands for ``check_stream``
(``_feed_arrays``, ``steps``, ``checked``, ``work``, ``done``, then
``finish``, or ``stop_at`` when reading stops at a problem).  The steps it
is fed are validated here, in stream order, as the Checker validates them;
``_send`` hands those that pass to the walkers (``local``: worker
processes through pipes; ``cluster``: nothing, Dask tasks read the proof
themselves), ``_collect`` takes the walkers' events into the ``Tally``.
``Validation`` is that validation, for this process and for a walker that
reads the proof itself (``cluster.walk_file``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from .._core.checker import ARRAY_CHUNK
from .._core.report import Report, outcome
from .._core.sizes import cnf_sizes, proof_memory_error
from .._core.steps import ProofChunk, step_arrays_chunk
from .._core.validate import validate_cnf_arrays
from .verdict import Tally

if TYPE_CHECKING:
    from array import array

    from .._core.options import Options
    from ..limits import Limits

__all__ = ["POLL_SECONDS", "Segments", "Validation", "WorkerFailed"]

POLL_SECONDS = 0.2  # how often the progress callback (and its deadline) is called when waiting


class WorkerFailed(RuntimeError):
    """A worker died, or failed, before the answer was known."""


class Validation:
    """The steps of a proof validated in stream order, as the Checker validates
    them: how many so far (``steps``, ``literals``), and the ``chunks`` of the
    next ones."""

    def __init__(self, num_vars: int, limits: Limits) -> None:
        self.num_vars = num_vars
        self.limits = limits
        self.steps = 0
        self.literals = 0

    def chunks(
        self, kinds: array[int], offsets: array[int], lits: array[int]
    ) -> Iterator[ProofChunk]:
        """The next steps (flat arrays, as a part of the proof holds them) in
        chunks of at most ARRAY_CHUNK steps that pass; the last one has the
        problem after its steps, if there is one (none follows).  A chunk's
        steps are counted once the caller asks for the next."""
        for a in range(0, len(kinds), ARRAY_CHUNK):
            b = min(a + ARRAY_CHUNK, len(kinds))
            chunk = step_arrays_chunk(
                kinds, offsets, lits, a, b, self.steps, self.literals, self.num_vars, self.limits
            )
            yield chunk
            n = len(chunk.kinds)
            self.steps += n
            self.literals += chunk.offsets[n] - chunk.offsets[0]
            if chunk.problem is not None:
                return


class Segments:
    """An unsat check of the steps fed, by walkers elsewhere."""

    def __init__(
        self,
        options: Options,
        num_vars: int,
        clause_offsets: array[int],
        clause_lits: array[int],
        segment_steps: int,
    ) -> None:
        validate_cnf_arrays(num_vars, clause_offsets, clause_lits, options.limits)
        self._options = options
        self._num_vars = num_vars
        self._cnf_sizes = cnf_sizes(num_vars, clause_offsets, clause_lits)
        self._validation = Validation(num_vars, options.limits)
        self._tally = Tally(segment_steps)
        self._done = False

    # -- what the subclass does ---------------------------------------------------------

    def _send(self, kinds: array[int], offsets: array[int], lits: array[int]) -> None:
        """Hand validated steps to the walkers (``lits[offsets[0]:offsets[-1]]``)."""
        raise NotImplementedError

    def _collect(self, timeout: float) -> None:
        """Take the walkers' events (waiting up to ``timeout`` for some); raise
        WorkerFailed when a walker the answer needs is lost."""
        raise NotImplementedError

    def close(self) -> None:
        """End every walker (safe to call twice)."""
        raise NotImplementedError

    # -- what check_stream calls --------------------------------------------------------

    def stop_at(self, problem: BaseException) -> None:
        """Reading stopped at ``problem`` (a malformed line, a read error) after
        the steps fed: raise it once they are known to pass, unless one of them
        fails (that is the verdict: ``finish`` gives it)."""
        self._tally.stop_at(problem)
        self._wait()
        self._tally.answer()  # raises the problem when it is the answer
        self._done = True

    def _reading_ran_out(self, open_literals: int) -> None:
        """Reading the next step ran out of memory, ``open_literals`` of it
        read: the limit error the counts explain (else the MemoryError) is
        where reading stopped (``stop_at``)."""
        v = self._validation
        error = proof_memory_error(
            self._cnf_sizes, v.steps + 1, v.literals + open_literals, self._options.limits
        )
        self.stop_at(error or MemoryError("not enough memory to read the proof"))

    def _feed_arrays(self, kinds: array[int], offsets: array[int], lits: array[int]) -> None:
        """Validate steps as the Checker does, and hand those that pass to the
        walkers; a problem is raised once every step before it is known to pass
        (unless one of them fails: that is the verdict)."""
        problem = None
        for chunk in self._validation.chunks(kinds, offsets, lits):
            if self._done:
                return
            n = len(chunk.kinds)
            if n:
                self._send(chunk.kinds, chunk.offsets, chunk.lits)
                self._tally.fed_steps(n)
            problem = chunk.problem
        if problem is not None:  # its steps counted: the last chunk was taken
            self.stop_at(problem)
            return
        self._collect(0)

    @property
    def steps(self) -> int:
        """The steps fed so far (validated and handed out)."""
        return self._validation.steps

    @property
    def checked(self) -> int:
        """The steps known to pass, from the first on."""
        return self._tally.steps_checked

    @property
    def work(self) -> int:
        """The work the segments' checks have counted so far."""
        return self._tally.work

    @property
    def done(self) -> bool:
        """True once the answer is fixed within the steps fed: reading can stop."""
        return self._done or self._tally.event is not None

    def finish(self) -> Report:
        """Wait for the answer; return the Report (its work is what the segments'
        checks counted: the exact counter belongs to a check on one core)."""
        try:
            if not self._tally.ended:
                self._tally.end()
            self._wait()
            status, step_index, steps_checked, clause = self._tally.answer()
            verdict = outcome(
                status,
                step_index,
                steps_checked,
                clause,
                self._num_vars,
                self._options.limits.max_propagation_work,
            )
            reasons, ignored = self._tally.deletions(steps_checked)
            return Report(verdict, self._tally.work, self._options.engine, reasons, ignored)
        finally:
            self.close()

    # -- waiting ------------------------------------------------------------------------

    def _wait(self) -> None:
        """Wait until the answer is known."""
        self._end_of_steps()
        while not self._tally.decided:
            self._idle(POLL_SECONDS)

    def _end_of_steps(self) -> None:
        """No more steps come (the walkers may be told)."""

    def _idle(self, seconds: float) -> None:
        """Take the walkers' events for a while, then say how far the check is
        (the progress callback: a deadline, the progress line)."""
        self._collect(seconds)
        if self._options.progress is not None:
            self._options.progress(self._tally.steps_checked, self._tally.work)

    def __enter__(self) -> Segments:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
