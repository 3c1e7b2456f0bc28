"""check() and run(): validation, the engine, and output assembly."""

from ._engine import resolve
from ._report import result, unsat_outcome
from ._sat import check_sat
from ._validate import validate
from .limits import CONTRACT_LIMITS, Limits

__all__ = ["Report", "check", "run"]


class Report:
    """The outcome of one checked request.

    ``result`` is the contract's result object; ``work`` the SPEC §4.3 counter
    (0 for a sat claim); ``engine`` the engine that ran ("compiled" or
    "reference").  ``reason_deletions`` lists the proof steps, up to the end of
    the check, whose delete removed the reason of a level-0 literal and forced
    a rebuild: when a later lemma is not RUP, those deletions are the usual
    cause (checkers that ignore such deletions would accept the lemma).
    """

    __slots__ = ("engine", "reason_deletions", "result", "work")

    def __init__(self, result, work, engine, reason_deletions=()):
        self.result = result
        self.work = work
        self.engine = engine
        self.reason_deletions = tuple(reason_deletions)

    def __repr__(self):
        return (f"Report(result={self.result!r}, work={self.work}, engine={self.engine!r}, "
                f"reason_deletions={self.reason_deletions!r})")

    def __eq__(self, other):
        if not isinstance(other, Report):
            return NotImplemented
        return (self.result, self.work, self.engine, self.reason_deletions) == (
            other.result, other.work, other.engine, other.reason_deletions)


def run(request, *, engine="auto", limits=None, progress=None):
    """Check a request; return a Report, or raise CheckError when it is rejected.

    ``progress``, when given, is called as ``progress(steps_checked, work)``
    about every 2**20 units of the SPEC §4.3 counter while an unsat proof is
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
    name, module = resolve(engine)
    return run_validated(validate(request, limits), name, module, limits, progress)


def contract_limits(limits):
    """The Limits to use for ``limits=``: None means the contract's."""
    if limits is None:
        return CONTRACT_LIMITS
    if not isinstance(limits, Limits):
        raise TypeError(f"limits must be a sat_claim_check.Limits, got {type(limits).__name__}")
    return limits


def checked_progress(progress):
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be callable or None, got {type(progress).__name__}")
    return progress


def run_validated(v, name, module, limits, progress=None):
    """Check a request that passed §2 (a Validated) with the engine module given;
    ``progress`` as for run()."""
    if v.claim == "sat":
        reason, discrepancy, clauses_checked = check_sat(v)
        return Report(result("sat", reason, discrepancy, clauses_checked, 0), 0, name)
    kernel = module.Kernel(v.num_vars, v.clause_offsets, v.clause_lits,
                           v.step_kinds, v.step_offsets, v.step_lits,
                           limits.max_propagation_work)
    status, step_index, steps_checked, work = kernel.run(progress)
    outcome = unsat_outcome(v, status, step_index, steps_checked,
                            limits.max_propagation_work)
    return Report(outcome, work, name, kernel.reason_deletions)


def check(request, *, engine="auto", limits=None, progress=None):
    """Check a request; return the result object, or raise CheckError.

    ``progress`` as for run(): called about every 2**20 units of work, and
    an exception it raises stops the check.
    """
    return run(request, engine=engine, limits=limits, progress=progress).result
