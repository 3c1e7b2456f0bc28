"""check() and run(): validation, the engine, and output assembly."""

from __future__ import annotations

from array import array
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from .._engines import resolve
from ..limits import CONTRACT_LIMITS, Limits
from .report import result, unsat_outcome
from .sat import check_sat
from .types import Deletions, EngineName, KernelName, Progress, Result
from .validate import out_of_memory, validate

if TYPE_CHECKING:
    from .types import KernelModule
    from .validate import Validated

__all__ = ["DELETIONS", "Report", "check", "run"]

# The readings of a delete step: SPEC §4.1 (strict, the default) or §4.4.
DELETIONS = ("strict", "lenient")


class Report:
    """The outcome of one checked request, as ``run`` returns it.

    ``result`` is the result object (the dict ``check`` returns, a ``Result``);
    ``work`` the propagation work counter, an int (0 for a sat claim; see
    docs/semantics.md, "Propagation and the work counter"); ``engine`` the
    engine that ran ("compiled" or "reference").  ``reason_deletions`` is a
    tuple of the proof steps, up to the end of the check, whose delete removed
    the reason of a level-0 literal and forced a rebuild: when a later lemma
    is not RUP, those deletions are the usual cause (checkers that ignore such
    deletions would accept the lemma).  It is always empty with
    ``deletions="lenient"``, where those deletions are ignored:
    ``ignored_deletions`` is the tuple of the steps whose delete was ignored
    (docs/semantics.md, "Lenient deletions"), always empty when strict.
    """

    __slots__ = ("_ignored", "_reasons", "engine", "result", "work")

    result: Result
    work: int
    engine: KernelName

    def __init__(self, result: Result, work: int, engine: KernelName,
                 reason_deletions: Iterable[int] = (),
                 ignored_deletions: Iterable[int] = ()) -> None:
        self.result = result
        self.work = work
        self.engine = engine
        # Kept as 8-byte integers (a proof may delete millions of reason clauses);
        # the tuples are made when asked for.
        self._reasons = array("q", reason_deletions)
        self._ignored = array("q", ignored_deletions)

    @property
    def reason_deletions(self) -> tuple[int, ...]:
        """The steps whose delete removed the reason of a level-0 literal."""
        return tuple(self._reasons)

    @property
    def ignored_deletions(self) -> tuple[int, ...]:
        """The steps whose delete was ignored (lenient deletions; else empty)."""
        return tuple(self._ignored)

    def __repr__(self) -> str:
        return (f"Report(result={self.result!r}, work={self.work}, engine={self.engine!r}, "
                f"reason_deletions={self.reason_deletions!r}, "
                f"ignored_deletions={self.ignored_deletions!r})")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Report):
            return NotImplemented
        return (self.result, self.work, self.engine, self._reasons,
                self._ignored) == (other.result, other.work, other.engine,
                                   other._reasons, other._ignored)


def run(request: dict[str, Any], *, engine: EngineName = "auto",
        limits: Limits | None = None, progress: Progress | None = None,
        deletions: Deletions = "strict") -> Report:
    """Check a request; return a Report (the result, the work, the engine).

    ``request`` is the request as a dict (the parsed JSON object, not JSON
    text): {"cnf": {"num_vars": N, "clauses": [[1, -2], ...]}, "claim": "sat",
    "assignment": [...]} or {..., "claim": "unsat", "proof": [{"add": [...]},
    {"delete": [...]}, ...]}.  ``engine`` is "auto" (the compiled engine when it
    is built, else the reference one), "compiled" (ImportError where it is not
    built) or "reference"; both give equal results, errors and work.
    ``limits`` is a Limits, None for the contract's.  ``deletions`` is
    "strict" (the contract's reading: every delete removes its clause, and
    one that matches none fails) or "lenient" (as drat-trim reads them: a
    delete that matches no clause, or would remove a unit clause or the
    reason of a unit-implied literal, is ignored; ``Report.ignored_deletions``
    lists those steps).  Any other value raises ValueError.

    Raises InvalidInput or LimitExceeded (both CheckError, a ValueError) when
    the request is rejected: an error is never a result.  docs/semantics.md
    says what is checked, in which order, and how work is counted.

    ``progress``, when given, is called as ``progress(steps_checked, work)``
    about every 2**20 units of the work counter while an unsat proof is
    checked (never for a sat claim, nor for a check that does less work):
    ``steps_checked`` proof steps have succeeded, and step ``steps_checked``
    (0-based) is being checked; ``work`` is the counter so far.  It is how a
    long check, under raised limits, shows progress or is cancelled: any
    exception it raises stops the check and propagates out of run(), with
    nothing left allocated.  A callback that returns changes nothing: same
    result, same work.  Ctrl-C (KeyboardInterrupt) stops a check with or
    without it, with both engines.

    A deadline, for example::

        import time
        deadline = time.monotonic() + 10.0

        def progress(steps_checked, work):
            if time.monotonic() > deadline:
                raise TimeoutError(f"gave up at proof step {steps_checked}")

        report = scc.run(request, limits=scc.Limits.unlimited(), progress=progress)
    """
    limits = contract_limits(limits)
    progress = checked_progress(progress)
    lenient = lenient_deletions(deletions)
    name, module = resolve(engine)
    return run_validated(validate(request, limits), name, module, limits, progress, lenient)


def contract_limits(limits: Limits | None) -> Limits:
    """The Limits to use for ``limits=``: None means the contract's."""
    if limits is None:
        return CONTRACT_LIMITS
    if not isinstance(limits, Limits):
        raise TypeError(f"limits must be a sat_claim_check.Limits, got {type(limits).__name__}")
    return limits


def checked_progress(progress: Progress | None) -> Progress | None:
    """``progress`` if it is None or callable; TypeError otherwise."""
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be callable or None, got {type(progress).__name__}")
    return progress


def lenient_deletions(deletions: object) -> bool:
    """True for deletions="lenient", False for "strict"; ValueError otherwise."""
    if deletions not in DELETIONS:
        raise ValueError(f"deletions must be 'strict' or 'lenient', got {deletions!r}")
    return deletions == "lenient"


def run_validated(v: Validated, name: KernelName, module: KernelModule,
                  limits: Limits, progress: Progress | None = None,
                  lenient: bool = False) -> Report:
    """Check a validated request (a Validated) with the engine module given;
    ``progress`` as for run(); ``lenient`` reads deletions as
    ``deletions="lenient"`` does.

    A request too big for this machine's memory (possible only above the
    contract's limits) is rejected as limit_exceeded (``_validate.out_of_memory``).
    """
    try:
        return _run(v, name, module, limits, progress, lenient)
    except MemoryError:
        error = out_of_memory(v, limits)
        if error is None:
            raise
    raise error


def _run(v: Validated, name: KernelName, module: KernelModule, limits: Limits,
         progress: Progress | None, lenient: bool) -> Report:
    if v.claim == "sat":
        reason, discrepancy, clauses_checked = check_sat(v)
        return Report(result("sat", reason, discrepancy, clauses_checked, 0), 0, name)
    assert v.step_kinds is not None and v.step_offsets is not None and v.step_lits is not None
    kernel = module.Kernel(v.num_vars, v.clause_offsets, v.clause_lits,
                           v.step_kinds, v.step_offsets, v.step_lits,
                           limits.max_propagation_work, lenient)
    status, step_index, steps_checked, work = kernel.run(progress)
    outcome = unsat_outcome(v, status, step_index, steps_checked,
                            limits.max_propagation_work)
    return Report(outcome, work, name, kernel.reason_deletions, kernel.ignored_deletions)


def check(request: dict[str, Any], *, engine: EngineName = "auto",
          limits: Limits | None = None, progress: Progress | None = None,
          deletions: Deletions = "strict") -> Result:
    """Check a request; return the result object, a dict (see ``Result``).

    ``request`` is a dict (the parsed JSON object, not JSON text); ``engine``,
    ``limits``, ``progress`` and ``deletions`` are as for ``run``.  The result says whether
    the claim is ``valid`` and, when not, the ``reason`` and the
    ``first_discrepancy``.  Raises InvalidInput or LimitExceeded (both
    CheckError) when the request is rejected.  docs/semantics.md describes
    every outcome.
    """
    return run(request, engine=engine, limits=limits, progress=progress,
               deletions=deletions).result
