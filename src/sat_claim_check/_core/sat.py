"""The sat claim (docs/semantics.md, "The sat claim").  No propagation, so
both engines share it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .report import assignment_discrepancy, clause_discrepancy

if TYPE_CHECKING:
    from .types import Reason
    from .validated import Validated

__all__ = ["check_sat"]


def check_sat(v: Validated) -> tuple[Reason | None, dict[str, Any] | None, int]:
    """Return (reason, first_discrepancy, clauses_checked) for a Validated sat request."""
    assert v.assignment is not None  # a sat claim
    first_index: dict[int, int] = {}
    for i, a in enumerate(v.assignment):
        if a == 0 or abs(a) > v.num_vars:
            return ("assignment_variable_out_of_range", assignment_discrepancy(i, a), 0)
        if a in first_index:
            return ("duplicate_assignment_literal", assignment_discrepancy(i, a, first_index[a]), 0)
        if -a in first_index:
            return ("conflicting_assignment", assignment_discrepancy(i, a, first_index[-a]), 0)
        first_index[a] = i

    true = first_index.keys()
    # Lists, not the arrays: set operations on list slices box no ints.
    offsets, lits = v.clause_offsets.tolist(), v.clause_lits.tolist()
    for k in range(len(offsets) - 1):
        clause = lits[offsets[k] : offsets[k + 1]]
        if not true.isdisjoint(clause):
            continue
        unassigned = [lit for lit in clause if -lit not in true]
        if unassigned:
            return ("clause_undetermined", clause_discrepancy(k, clause, unassigned), k)
        return "clause_falsified", clause_discrepancy(k, clause), k
    return None, None, len(offsets) - 1
