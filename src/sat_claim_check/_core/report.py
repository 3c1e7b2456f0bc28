"""Discrepancies and the result object, shared by both engines.

``unsat_outcome`` is the one place where an engine's status code becomes a
result or an error.  The result's keys come in the output schema's order
(docs/semantics.md, "Output bytes").
"""

from __future__ import annotations

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
from .types import Claim, Reason, Result

if TYPE_CHECKING:
    from .validate import Validated

REFERENCE_VERSION = "r71-sat-1.0.0+dimacs-cnf-1993+resolution-robinson-1965+drup-2013"

_STEP_REASONS: dict[int, Reason] = {
    STATUS_LEMMA_NOT_RUP: "lemma_not_rup",
    STATUS_LITERAL_OUT_OF_RANGE: "literal_out_of_range",
    STATUS_DELETED_CLAUSE_NOT_FOUND: "deleted_clause_not_found",
}


def result(claim: Claim, reason: Reason | None, first_discrepancy: dict[str, Any] | None,
           clauses_checked: int, steps_checked: int) -> Result:
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


def assignment_discrepancy(index: int, literal: int,
                           previous_index: int | None = None) -> dict[str, Any]:
    out = {"kind": "assignment", "assignment_index": index, "literal": literal}
    if previous_index is not None:
        out["previous_index"] = previous_index
    return out


def clause_discrepancy(index: int, clause: list[int],
                       unassigned_literals: list[int] | None = None) -> dict[str, Any]:
    out = {"kind": "clause", "clause_index": index, "clause": clause}
    if unassigned_literals is not None:
        out["unassigned_literals"] = unassigned_literals
    return out


def unsat_outcome(v: Validated, status: int, step_index: int, steps_checked: int,
                  max_work: int) -> Result:
    """Map an engine's (status, step_index, steps_checked) to a result, or raise."""
    clause = v.step(step_index) if step_index >= 0 else []
    return outcome(status, step_index, steps_checked, clause, v.num_vars, max_work)


def outcome(status: int, step_index: int, steps_checked: int, clause: list[int],
            num_vars: int, max_work: int) -> Result:
    """The result of an unsat check that ended with an engine's (status,
    step_index, steps_checked); ``clause`` is the failing step's literals as
    given.  Raises the work limit's LimitExceeded for STATUS_WORK_LIMIT."""
    if status == STATUS_VALID:
        return result("unsat", None, None, 0, steps_checked)
    if status == STATUS_WORK_LIMIT:
        raise work_limit_error(step_index, max_work)
    if status == STATUS_EMPTY_CLAUSE_NOT_DERIVED:
        return result("unsat", "empty_clause_not_derived",
                      {"kind": "conclusion", "step_count": steps_checked}, 0, steps_checked)
    reason = _STEP_REASONS[status]
    discrepancy: dict[str, Any] = {"kind": "step", "step_index": step_index}
    if status == STATUS_LITERAL_OUT_OF_RANGE:
        discrepancy["literal"] = next(lit for lit in clause
                                      if not 1 <= abs(lit) <= num_vars)
    discrepancy["clause"] = clause
    return result("unsat", reason, discrepancy, 0, steps_checked)


def work_limit_error(step_index: int, max_work: int) -> LimitExceeded:
    """The error when the work counter passed the cap at proof step ``step_index``
    (-1: in the initial build)."""
    if step_index < 0:
        return LimitExceeded("cnf", "/cnf",
                             f"propagation work passed the cap of {max_work} "
                             "while propagating the CNF's units",
                             limit="max_propagation_work", max=max_work)
    return LimitExceeded("proof", f"/proof/{step_index}",
                         f"propagation work passed the cap of {max_work} "
                         f"at proof step {step_index}",
                         limit="max_propagation_work", max=max_work,
                         step_index=step_index)
