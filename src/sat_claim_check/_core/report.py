"""The Report, discrepancies and the result object, shared by both engines.

``outcome`` is the one place where an engine's status code becomes a
result or an error.  The result's keys come in the output schema's order
(docs/semantics.md, "Output bytes").
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ..errors import LimitExceeded
from .codes import (
    STATUS_DELETED_CLAUSE_NOT_FOUND,
    STATUS_EMPTY_CLAUSE_NOT_DERIVED,
    STATUS_LEMMA_NOT_RUP,
    STATUS_LITERAL_OUT_OF_RANGE,
    STATUS_VALID,
    STATUS_WORK_LIMIT,
)
from .types import Claim, KernelName, Reason, Result

if TYPE_CHECKING:
    from .validated import Validated


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
    ``hint`` is one line for people when the claim is not valid: what may be
    wrong and which flag or setting may help (None when valid); it is not
    part of the result, and equal Reports may word it differently.
    """

    __slots__ = ("_ignored", "_reasons", "engine", "hint", "result", "work")

    result: Result
    work: int
    engine: KernelName

    def __init__(
        self,
        result: Result,
        work: int,
        engine: KernelName,
        reason_deletions: Iterable[int] = (),
        ignored_deletions: Iterable[int] = (),
    ) -> None:
        self.result = result
        self.work = work
        self.engine = engine
        # Kept as 8-byte integers (a proof may delete millions of reason clauses);
        # the tuples are made when asked for.
        self._reasons = array("q", reason_deletions)
        self._ignored = array("q", ignored_deletions)
        self.hint: str | None = None

    @property
    def reason_deletions(self) -> tuple[int, ...]:
        """The steps whose delete removed the reason of a level-0 literal."""
        return tuple(self._reasons)

    @property
    def ignored_deletions(self) -> tuple[int, ...]:
        """The steps whose delete was ignored (lenient deletions; else empty)."""
        return tuple(self._ignored)

    def __repr__(self) -> str:
        return (
            f"Report(result={self.result!r}, work={self.work}, engine={self.engine!r}, "
            f"reason_deletions={self.reason_deletions!r}, "
            f"ignored_deletions={self.ignored_deletions!r})"
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Report):
            return NotImplemented
        return (self.result, self.work, self.engine, self._reasons, self._ignored) == (
            other.result,
            other.work,
            other.engine,
            other._reasons,
            other._ignored,
        )


REFERENCE_VERSION = "r71-sat-1.0.0+dimacs-cnf-1993+resolution-robinson-1965+drup-2013"

_STEP_REASONS: dict[int, Reason] = {
    STATUS_LEMMA_NOT_RUP: "lemma_not_rup",
    STATUS_LITERAL_OUT_OF_RANGE: "literal_out_of_range",
    STATUS_DELETED_CLAUSE_NOT_FOUND: "deleted_clause_not_found",
}


def result(
    claim: Claim,
    reason: Reason | None,
    first_discrepancy: dict[str, Any] | None,
    clauses_checked: int,
    steps_checked: int,
) -> Result:
    """A result object, keys in the output schema's order."""
    return {
        "valid": reason is None,
        "reason": reason,
        "first_discrepancy": first_discrepancy,
        "claim": claim,
        "clauses_checked": clauses_checked,
        "steps_checked": steps_checked,
        "reference_version": REFERENCE_VERSION,
    }


def assignment_discrepancy(
    index: int, literal: int, previous_index: int | None = None
) -> dict[str, Any]:
    out = {"kind": "assignment", "assignment_index": index, "literal": literal}
    if previous_index is not None:
        out["previous_index"] = previous_index
    return out


def clause_discrepancy(
    index: int, clause: list[int], unassigned_literals: list[int] | None = None
) -> dict[str, Any]:
    out = {"kind": "clause", "clause_index": index, "clause": clause}
    if unassigned_literals is not None:
        out["unassigned_literals"] = unassigned_literals
    return out


def unsat_outcome(
    v: Validated, status: int, step_index: int, steps_checked: int, max_work: int
) -> Result:
    """Map an engine's (status, step_index, steps_checked) to a result, or raise."""
    clause = v.step(step_index) if step_index >= 0 else []
    return outcome(status, step_index, steps_checked, clause, v.num_vars, max_work)


def outcome(
    status: int,
    step_index: int,
    steps_checked: int,
    clause: list[int],
    num_vars: int,
    max_work: int,
) -> Result:
    """The result of an unsat check that ended with an engine's (status,
    step_index, steps_checked); ``clause`` is the failing step's literals as
    given.  Raises the work limit's LimitExceeded for STATUS_WORK_LIMIT."""
    if status == STATUS_VALID:
        return result("unsat", None, None, 0, steps_checked)
    if status == STATUS_WORK_LIMIT:
        raise work_limit_error(step_index, max_work)
    if status == STATUS_EMPTY_CLAUSE_NOT_DERIVED:
        return result(
            "unsat",
            "empty_clause_not_derived",
            {"kind": "conclusion", "step_count": steps_checked},
            0,
            steps_checked,
        )
    reason = _STEP_REASONS[status]
    discrepancy: dict[str, Any] = {"kind": "step", "step_index": step_index}
    if status == STATUS_LITERAL_OUT_OF_RANGE:
        discrepancy["literal"] = next(lit for lit in clause if not 1 <= abs(lit) <= num_vars)
    discrepancy["clause"] = clause
    return result("unsat", reason, discrepancy, 0, steps_checked)


def work_limit_error(step_index: int, max_work: int) -> LimitExceeded:
    """The error when the work counter passed the cap at proof step ``step_index``
    (-1: in the initial build)."""
    if step_index < 0:
        return LimitExceeded(
            "cnf",
            "/cnf",
            f"propagation work passed the cap of {max_work} while propagating the CNF's units",
            limit="max_propagation_work",
            max=max_work,
        )
    return LimitExceeded(
        "proof",
        f"/proof/{step_index}",
        f"propagation work passed the cap of {max_work} at proof step {step_index}",
        limit="max_propagation_work",
        max=max_work,
        step_index=step_index,
    )
