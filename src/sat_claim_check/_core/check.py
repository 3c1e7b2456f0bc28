"""check() and run(): a request given as a dict, validated, then checked."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .options import Options
from .report import Report
from .session import check_request
from .types import Deletions, EngineName, Progress, ProofReading, Result
from .validate import validate

if TYPE_CHECKING:
    from ..limits import Limits

__all__ = ["check", "run"]


def run(
    request: dict[str, Any],
    *,
    engine: EngineName = "auto",
    limits: Limits | None = None,
    progress: Progress | None = None,
    deletions: Deletions = "strict",
    reading: ProofReading | None = None,
) -> Report:
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
    lists those steps).  Any other value raises ValueError.  ``reading`` is
    None (the one ``deletions`` names), "strict", "lenient" or "drat-trim": as
    drat-trim's forward mode reads a proof, deletions read leniently, and the
    check ends valid at the first point (after the CNF, or after a step)
    where unit propagation on the clauses finds a conflict, so the proof need
    not end with the empty clause and later steps are not checked
    (docs/semantics.md, "The drat-trim reading").  ValueError for another
    value, and for ``reading="strict"`` with ``deletions="lenient"``.

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
    options = Options.of(engine, limits, deletions, progress, reading)
    return check_request(validate(request, options.limits), options)


def check(
    request: dict[str, Any],
    *,
    engine: EngineName = "auto",
    limits: Limits | None = None,
    progress: Progress | None = None,
    deletions: Deletions = "strict",
    reading: ProofReading | None = None,
) -> Result:
    """Check a request; return the result object, a dict (see ``Result``).

    ``request`` is a dict (the parsed JSON object, not JSON text); ``engine``,
    ``limits``, ``progress``, ``deletions`` and ``reading`` are as for
    ``run``.  The result says whether the claim is ``valid`` and, when not,
    the ``reason`` and the ``first_discrepancy``.  Raises InvalidInput or LimitExceeded (both
    CheckError) when the request is rejected.  docs/semantics.md describes
    every outcome.
    """
    report = run(
        request,
        engine=engine,
        limits=limits,
        progress=progress,
        deletions=deletions,
        reading=reading,
    )
    return report.result
