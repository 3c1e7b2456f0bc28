"""Checker: an unsat claim checked step by step, as the proof arrives.

    checker = Checker(cnf, engine="auto", limits=None, deletions="strict", reading=None,
                      lrat=None, lrat_binary=False)
    checker.add([1, 2]); checker.delete([1, 2])     # one step each
    checker.feed(steps)                             # an iterable of {"add": ...}/{"delete": ...}
    report = checker.finish()                       # a Report, as run() gives

It holds the clauses alive at the time, never the steps: the kernel is fed
chunk by chunk (``kernel_py`` describes start/feed/finish), and each step is
validated when it arrives (``_core.steps.steps_chunk``), in stream order.
``_feed_arrays`` is the way in for flat arrays (the DIMACS/DRUP door): no
Python object per step.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, NoReturn

from ..errors import LimitExceeded
from . import session
from .codes import (
    STATUS_CONCLUDED,
    STATUS_VALID,
    STATUS_WORK_LIMIT,
    STEP_ADD,
    STEP_DELETE,
    check_sink,
)
from .one_call import ALREADY_RUNNING, one_call_at_a_time
from .options import Options
from .report import Report, work_limit_error
from .sizes import cnf_sizes, proof_memory_error
from .steps import BATCH, ProofChunk, next_batch, one_step, step_arrays_chunk, steps_chunk
from .validate import validate_cnf, validate_cnf_arrays

if TYPE_CHECKING:
    from ..limits import Limits
    from .types import Deletions, EngineName, KernelObject, Progress, ProofReading

__all__ = ["Checker", "checker_of_arrays"]

# Steps validated and fed at a time by _feed_arrays() (feed(): steps.BATCH).
ARRAY_CHUNK = 1 << 16


class Checker:
    """An unsat check fed step by step; ``finish()`` returns the Report.

    ``cnf`` is a request's ``cnf`` object ({"num_vars": N, "clauses": [...]}),
    checked as ``run`` checks it when the Checker is made (errors raise then:
    InvalidInput or LimitExceeded); the initial propagation, and its work cap,
    happen then too.  ``engine``, ``limits``, ``progress``, ``deletions``
    ("strict", the default, or "lenient") and ``reading`` (None, "strict",
    "lenient" or "drat-trim") are as for ``run``.

    Steps are numbered in the order given, across calls, from 0.  Each is
    validated and checked when it arrives: a malformed step raises
    InvalidInput (its index in the path), the step that takes the count past
    ``max_proof_steps`` or ``max_proof_literals`` raises LimitExceeded, and
    the step that passes the work cap raises LimitExceeded as ``run`` does.
    A step that fails the check (a lemma that is not RUP, a deletion of a
    clause that is not there...) fixes the verdict: later steps are ignored,
    not even validated; so does the end of a drat-trim reading (valid at the
    first inconsistent state).  ``done`` tells either.  ``finish()`` ends it.

    For a well-formed request within limits, feeding its proof in any split
    gives the Report ``run`` gives: result, work, engine, reason_deletions,
    ignored_deletions.
    Otherwise the first problem in stream order is the answer (a failing step
    before a malformed one is the verdict, where ``run`` would reject the
    request).  Memory follows the clauses alive at the time, whatever the
    number of steps fed.  docs/semantics.md, "Checking step by step".

    ``lrat``, a binary stream (``write(bytes)``), receives the proof as LRAT
    as it is checked (binary LRAT with ``lrat_binary=True``), for a formally
    verified checker to confirm; its last line, the empty clause, is written
    by ``finish()`` only when the verdict is valid (docs/semantics.md, "LRAT
    out").

    After ``finish()``, or after a call raised (an error, or an exception
    from ``progress``), every call raises RuntimeError.  One call at a time:
    a Checker is not shared between threads.
    """

    _closed: str | None  # why every call now raises, or None

    def __init__(
        self,
        cnf: Any,
        *,
        engine: EngineName = "auto",
        limits: Limits | None = None,
        deletions: Deletions = "strict",
        reading: ProofReading | None = None,
        progress: Progress | None = None,
        lrat: Any = None,
        lrat_binary: bool = False,
    ) -> None:
        options = Options.of(engine, limits, deletions, progress, reading)
        check_sink(lrat, lrat_binary)
        sink = None if lrat is None else (lrat, lrat_binary)
        self._open(*validate_cnf(cnf, options.limits), options, sink)

    # A check in progress lives in the kernel's memory: it is not copied.
    def __reduce__(self) -> NoReturn:
        raise TypeError(
            "a Checker cannot be pickled or copied: it holds a check in "
            "progress (pickle the request, or its cnf and steps, instead)"
        )

    @classmethod
    def _from_arrays(
        cls,
        num_vars: int,
        clause_offsets: array[int],
        clause_lits: array[int],
        *,
        engine: EngineName = "auto",
        limits: Limits | None = None,
        deletions: Deletions = "strict",
        reading: ProofReading | None = None,
        progress: Progress | None = None,
    ) -> Checker:
        """A Checker for a CNF that arrives as flat arrays (``checker_of_arrays``)."""
        opts = Options.of(engine, limits, deletions, progress, reading)
        return checker_of_arrays(num_vars, clause_offsets, clause_lits, opts)

    def _open(
        self,
        num_vars: int,
        clause_offsets: array[int],
        clause_lits: array[int],
        options: Options,
        lrat: tuple[Any, bool] | None = None,
    ) -> None:
        if hasattr(self, "_idle"):  # __init__ called again, from a callback or later
            self._closed = "__init__() was called again"
            raise RuntimeError("a Checker is made once: make a new one for another check")
        limits = options.limits
        # One token, taken by the call running (list.pop is atomic, and cheaper
        # than a lock: add() and delete() take it per step).
        self._idle = [True]
        self._closed = None
        self._options = options
        self._num_vars = num_vars
        self._limits = limits
        self._cnf_sizes = cnf_sizes(num_vars, clause_offsets, clause_lits)
        self._max_steps = limits.max_proof_steps  # read at every add() and delete()
        self._max_literals = limits.max_proof_literals
        self._steps = 0  # steps checked so far: the next step's index
        self._literals = 0  # their literals
        self._failed: list[int] | None = None  # the falsified clause, once a step failed
        self._done = False  # a step failed, or the check concluded: later steps are ignored
        self._one_kind = array("b", [0])  # add() and delete() the exact way: the
        self._one_offsets = array("i", [0, 0])  # step's kind and offsets (the kernel copies them)
        try:
            self._kernel: KernelObject  # done at once: a CNF that ends a drat-trim check
            self._kernel, self._done = session.start(
                options, num_vars, clause_offsets, clause_lits, lrat
            )
        except LimitExceeded:
            self._closed = "the work cap was passed"
            raise
        except BaseException as exc:
            self._closed = f"the initial propagation raised {type(exc).__name__}"
            if isinstance(exc, MemoryError):
                self._out_of_memory(0, 0)
            raise

    # -- steps ----------------------------------------------------------------

    def add(self, lits: Sequence[int]) -> None:
        """Check the next step, {"add": lits}: a lemma that must be RUP; return None."""
        self._one("add", STEP_ADD, lits)

    def delete(self, lits: Sequence[int]) -> None:
        """Check the next step, {"delete": lits}: remove a clause with these
        literals; return None."""
        self._one("delete", STEP_DELETE, lits)

    def _one(self, key: str, kind: int, value: Any) -> None:
        """One step, {key: value}: what _take([{key: value}]) does, with less to build,
        one call at a time (as ``one_call_at_a_time`` does, inline).

        The kernel's feed_step takes the common step (a plain list of plain ints
        in range, within the limits) as it is; it declines any other, changing
        nothing, and the exact way (one_step, then feed) finds its error or kind."""
        try:
            self._idle.pop()
        except IndexError:
            self._refuse(key)
        try:
            if self._closed is not None or self._done:
                self._check_open()
                return
            try:
                status = self._kernel.feed_step(
                    kind, value, self._max_steps - self._steps, self._max_literals - self._literals
                )
                if status is None:
                    lits = one_step(
                        key,
                        value,
                        self._steps,
                        self._literals,
                        self._num_vars,
                        self._limits,
                        self._one_kind,
                        self._one_offsets,
                    )
                    status = self._kernel.feed(self._one_kind, self._one_offsets, lits)[0]
                    value = lits
            except MemoryError:
                self._out_of_memory(self._steps + 1, self._literals + len(value))
                raise
            if status in (STATUS_VALID, STATUS_CONCLUDED):
                self._steps += 1
                self._literals += len(value)
                self._done = status == STATUS_CONCLUDED
            else:
                self._stop(status, 0, list(value))
        except BaseException as exc:
            self._raised(f"step {self._steps}", exc)
            raise
        finally:
            self._idle.append(True)

    @one_call_at_a_time
    def feed(self, steps: Iterable[Any]) -> None:
        """Check the steps of an iterable in order (each {"add": [...]} or
        {"delete": [...]}); return None.  The iterable is read 4096 items at a
        time (fewer once they hold 2**20 literals), and no further than the
        batch holding a step that fails."""
        self._check_open()
        if self._done:
            return
        if isinstance(steps, (list, tuple)):
            for a in range(0, len(steps), BATCH):
                if not self._take(steps[a : a + BATCH]):
                    return
            return
        items = iter(steps)
        while True:
            batch = next_batch(items)
            if not batch or not self._take(batch):
                return

    @one_call_at_a_time
    def _feed_arrays(self, kinds: array[int], offsets: array[int], lits: array[int]) -> None:
        """Check steps given as flat arrays, as the DIMACS/DRUP scanner makes them:
        ``kinds`` STEP_ADD or STEP_DELETE, step s being ``lits[offsets[s]:offsets[s
        + 1]]`` (``offsets`` has one entry more than ``kinds``); return None.  No
        Python object per step; the arrays are not changed."""
        self._check_open()
        if len(offsets) != len(kinds) + 1:
            raise ValueError(
                f"{len(kinds)} step kinds need {len(kinds) + 1} offsets, got {len(offsets)}"
            )
        if self._done:
            return
        for a in range(0, len(kinds), ARRAY_CHUNK):
            b = min(a + ARRAY_CHUNK, len(kinds))
            if not self._check_chunk(
                self._guarded(
                    step_arrays_chunk,
                    kinds,
                    offsets,
                    lits,
                    a,
                    b,
                    self._steps,
                    self._literals,
                    self._num_vars,
                    self._limits,
                )
            ):
                return

    def _take(self, steps: Sequence[Any]) -> bool:
        """Validate and check steps; False once the check is done (later ones are ignored)."""
        self._check_open()
        if self._done:
            return False
        return self._check_chunk(
            self._guarded(
                steps_chunk, steps, self._steps, self._literals, self._num_vars, self._limits
            )
        )

    def _check_chunk(self, chunk: ProofChunk) -> bool:
        """Feed the steps that passed validation, then raise the problem after them,
        unless a step fails or the check concludes first; False once it is done."""
        kinds, offsets, lits = chunk.kinds, chunk.offsets, chunk.lits
        if len(kinds):
            try:
                status, i = self._kernel.feed(kinds, offsets, lits)
            except BaseException as exc:
                self._closed = f"step {self._steps} or after raised {type(exc).__name__}"
                if isinstance(exc, MemoryError):
                    self._out_of_memory(
                        self._steps + len(kinds), self._literals + offsets[len(kinds)] - offsets[0]
                    )
                raise
            if status == STATUS_CONCLUDED:  # valid after step i: the rest is never reached
                self._steps += i + 1
                self._literals += offsets[i + 1] - offsets[0]
                self._done = True
                return False
            if status != STATUS_VALID:
                self._stop(status, i, lits[offsets[i] : offsets[i + 1]].tolist())
                return False
            self._steps += len(kinds)
            self._literals += offsets[len(kinds)] - offsets[0]
        if chunk.problem is not None:
            self._closed = f"step {self._steps} raised {type(chunk.problem).__name__}"
            raise chunk.problem
        return True

    def _stop(self, status: int, i: int, clause: list[int]) -> None:
        """Step i of the chunk just fed (its literals: ``clause``) failed (the
        verdict) or passed the work cap."""
        self._steps += i
        if status == STATUS_WORK_LIMIT:
            self._closed = "the work cap was passed"
            raise work_limit_error(self._steps, self._limits.max_propagation_work)
        self._failed = clause
        self._done = True

    def _refuse(self, call: str) -> NoReturn:
        """A call while another runs: end the Checker, and say why."""
        self._closed = f"{call}() was called while another call ran"
        raise RuntimeError(ALREADY_RUNNING)

    def _raised(self, what: str, exc: BaseException) -> None:
        """``what`` (a call, or a step) is letting ``exc`` out: the Checker ends,
        keeping the reason it had when it had one."""
        if self._closed is None:
            self._closed = f"{what} raised {type(exc).__name__}"

    def _out_of_memory(self, steps: int, literals: int) -> None:
        """While a MemoryError is handled: raise the limit error that the sizes
        checked so far explain (as ``run`` does), when one does; else return
        (the caller raises the MemoryError).  ``steps`` and ``literals``: the
        proof's counts with the steps being checked."""
        error = proof_memory_error(self._cnf_sizes, steps, literals, self._limits)
        if error is not None:
            raise error from None

    def _reading_ran_out(self, open_literals: int) -> None:
        """Reading the next step ran out of memory, ``open_literals`` of it read:
        raise the limit error the counts explain, if any (else the caller
        raises the MemoryError)."""
        self._closed = f"reading step {self._steps} raised MemoryError"
        self._out_of_memory(self._steps + 1, self._literals + open_literals)

    def _guarded(self, validate: Any, *args: Any) -> ProofChunk:
        try:
            chunk: ProofChunk = validate(*args)
        except BaseException as exc:
            self._closed = f"step {self._steps} or after raised {type(exc).__name__}"
            raise
        return chunk

    # -- where the check stands --------------------------------------------------

    @property
    def steps(self) -> int:
        """The number of steps checked so far (the index of the next step)."""
        return self._steps

    @property
    def checked(self) -> int:
        """The number of steps known to pass (``steps``, but for a failing step)."""
        return self._steps

    @property
    def failed(self) -> bool:
        """True once a step has failed (``done`` too: later steps are ignored)."""
        return self._failed is not None

    @property
    def done(self) -> bool:
        """True once the verdict is fixed: a step failed, or the check concluded
        valid (``reading="drat-trim"``, at an inconsistent state); later steps
        are ignored, and a caller reading a proof can stop reading."""
        return self._done

    @property
    def work(self) -> int:
        """The work counted so far (docs/semantics.md, "The work counter")."""
        return int(self._kernel.work)

    @property
    def reason_deletions(self) -> tuple[int, ...]:
        """The steps so far whose deletion removed the reason of a level-0 literal."""
        return tuple(self._kernel.reason_deletions)

    def _reason_deletions_from(self, first: int, most: int) -> list[int]:
        """At most ``most`` of the reason deletions so far, from the ``first``-th
        one on (a stream's memo takes the new ones after each part)."""
        return self._kernel.reason_deletions[first : first + most].tolist()

    def _reason_deletion_count(self) -> int:
        return len(self._kernel.reason_deletions)

    # -- the end --------------------------------------------------------------

    @one_call_at_a_time
    def finish(self) -> Report:
        """End the check; return its Report (the result, the work, the engine, the
        reason deletions, the ignored deletions), as ``run`` returns it for the
        whole request."""
        self._check_open()
        self._closed = "finish() was called"
        clause = self._failed if self._failed is not None else []
        return session.finish(self._options, self._kernel, clause, self._num_vars)

    def _check_open(self) -> None:
        if self._closed is not None:
            raise RuntimeError(f"this Checker has ended ({self._closed})")

    def __repr__(self) -> str:
        states = (
            ("ended", self._closed is not None),
            ("failed", self._failed is not None),
            ("concluded", self._done),
        )
        state = next((name for name, now in states if now), "checking")
        return f"<Checker {self._options.engine} engine, {self._steps} steps, {state}>"


def checker_of_arrays(
    num_vars: int,
    clause_offsets: array[int],
    clause_lits: array[int],
    options: Options,
    lrat: tuple[Any, bool] | None = None,
) -> Checker:
    """A Checker for a CNF that arrives as flat arrays (the DIMACS door: literals
    already within ``1..num_vars``, checked against the size limits here);
    ``lrat`` (sink, binary) as for ``session.start``."""
    validate_cnf_arrays(num_vars, clause_offsets, clause_lits, options.limits)
    checker = Checker.__new__(Checker)
    checker._open(num_vars, clause_offsets, clause_lits, options, lrat)
    return checker
