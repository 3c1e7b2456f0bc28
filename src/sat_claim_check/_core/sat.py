"""The sat claim (docs/semantics.md, "The sat claim").  No propagation, so
both engines share it."""

from __future__ import annotations

from bisect import bisect_right
from typing import TYPE_CHECKING, Any

from .report import assignment_discrepancy, clause_discrepancy

if TYPE_CHECKING:
    from .types import Reason
    from .validated import Validated

__all__ = ["check_sat"]

BLOCK = 1 << 18  # literals of the clauses made lists at a time


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
    offsets, lits = v.clause_offsets, v.clause_lits
    m = len(offsets) - 1
    first = 0
    while first < m:
        # A block of clauses as lists (set operations on list slices box no
        # ints), about BLOCK literals at a time: the CNF's literals are never
        # all Python ints at once (28 bytes each, against 4 in the array).
        last = bisect_right(offsets, offsets[first] + BLOCK, first + 1, m + 1) - 1
        last = max(last, first + 1)
        base = offsets[first]
        block_offsets = offsets[first : last + 1].tolist()
        block = lits[base : offsets[last]].tolist()
        for k in range(first, last):
            clause = block[block_offsets[k - first] - base : block_offsets[k - first + 1] - base]
            if not true.isdisjoint(clause):
                continue
            unassigned = [lit for lit in clause if -lit not in true]
            if unassigned:
                return ("clause_undetermined", clause_discrepancy(k, clause, unassigned), k)
            return "clause_falsified", clause_discrepancy(k, clause), k
        first = last
    return None, None, m
