"""check() and run(): validation, the engine, and output assembly."""

from __future__ import annotations

from typing import Any

from ._engine import resolve
from ._report import result, unsat_outcome
from ._sat import check_sat
from ._validate import Validated, out_of_memory, validate
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


def run(request, *, engine="auto", limits=None):
    """Check a request; return a Report, or raise CheckError when it is rejected."""
    limits = contract_limits(limits)
    name, module = resolve(engine)
    return run_validated(validate(request, limits), name, module, limits)


def contract_limits(limits):
    """The Limits to use for ``limits=``: None means the contract's."""
    if limits is None:
        return CONTRACT_LIMITS
    if not isinstance(limits, Limits):
        raise TypeError(f"limits must be a sat_claim_check.Limits, got {type(limits).__name__}")
    return limits


def run_validated(v: Validated, name: str, module: Any, limits: Limits) -> Report:
    """Check a request that passed §2 (a Validated) with the engine module given.

    A request too big for this machine's memory (possible only above the
    contract's limits) is rejected as limit_exceeded (``_validate.out_of_memory``).
    """
    try:
        return _run(v, name, module, limits)
    except MemoryError:
        error = out_of_memory(v, limits)
        if error is None:
            raise
    raise error


def _run(v: Validated, name: str, module: Any, limits: Limits) -> Report:
    if v.claim == "sat":
        reason, discrepancy, clauses_checked = check_sat(v)
        return Report(result("sat", reason, discrepancy, clauses_checked, 0), 0, name)
    kernel = module.Kernel(v.num_vars, v.clause_offsets, v.clause_lits,
                           v.step_kinds, v.step_offsets, v.step_lits,
                           limits.max_propagation_work)
    status, step_index, steps_checked, work = kernel.run()
    outcome = unsat_outcome(v, status, step_index, steps_checked,
                            limits.max_propagation_work)
    return Report(outcome, work, name, kernel.reason_deletions)


def check(request, *, engine="auto", limits=None):
    """Check a request; return the result object, or raise CheckError."""
    return run(request, engine=engine, limits=limits).result
