"""The sat claim (docs/semantics.md, "The sat claim").  No propagation, so
both engines share it.

``check_sat`` checks a Validated request; its two halves, the assignment's
scan (``scan_assignment``) and the clauses' (``first_failure``, on any run
of clauses), serve the files door too, which checks the clauses of a CNF
part by part as it reads them (``_io.sat_stream``).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, KeysView
from typing import TYPE_CHECKING, Any

from .report import assignment_discrepancy, clause_discrepancy

if TYPE_CHECKING:
    from array import array

    from .types import Reason
    from .validated import Validated

    # What a check found: (reason, first_discrepancy, clause index or 0).
    Failure = tuple[Reason, dict[str, Any], int]

__all__ = ["check_sat", "first_failure", "scan_assignment"]

BLOCK = 1 << 16  # literals of the clauses made lists at a time


def check_sat(v: Validated) -> tuple[Reason | None, dict[str, Any] | None, int]:
    """Return (reason, first_discrepancy, clauses_checked) for a Validated sat request."""
    assert v.assignment is not None  # a sat claim
    true = scan_assignment(v.assignment, v.num_vars)
    if not isinstance(true, KeysView):
        return true
    failure = first_failure(true, v.clause_offsets, v.clause_lits)
    if failure is not None:
        return failure
    return None, None, len(v.clause_offsets) - 1


def scan_assignment(assignment: Iterable[int], num_vars: int) -> Failure | KeysView[int]:
    """The assignment's first fault, as (reason, discrepancy, 0), or
    the set of its literals (those made TRUE) when it has none."""
    first_index: dict[int, int] = {}
    for i, a in enumerate(assignment):
        if a == 0 or abs(a) > num_vars:
            return ("assignment_variable_out_of_range", assignment_discrepancy(i, a), 0)
        if a in first_index:
            return ("duplicate_assignment_literal", assignment_discrepancy(i, a, first_index[a]), 0)
        if -a in first_index:
            return ("conflicting_assignment", assignment_discrepancy(i, a, first_index[-a]), 0)
        first_index[a] = i
    return first_index.keys()


def first_failure(
    true: KeysView[int], offsets: array[int], lits: array[int], base: int = 0
) -> Failure | None:
    """The first clause of the flat arrays that no literal of
    ``true`` satisfies, as (reason, discrepancy, its index), the clauses
    numbered from ``base``; None when every clause passes."""
    m = len(offsets) - 1
    first = 0
    while first < m:
        # A block of clauses as lists (set operations on list slices box no
        # ints), about BLOCK literals at a time: the CNF's literals are never
        # all Python ints at once (28 bytes each, against 4 in the array).
        last = bisect_right(offsets, offsets[first] + BLOCK, first + 1, m + 1) - 1
        last = max(last, first + 1)
        start = offsets[first]
        block_offsets = offsets[first : last + 1].tolist()
        block = lits[start : offsets[last]].tolist()
        for k in range(first, last):
            clause = block[block_offsets[k - first] - start : block_offsets[k - first + 1] - start]
            if not true.isdisjoint(clause):
                continue
            unassigned = [lit for lit in clause if -lit not in true]
            if unassigned:
                return (
                    "clause_undetermined",
                    clause_discrepancy(base + k, clause, unassigned),
                    base + k,
                )
            return "clause_falsified", clause_discrepancy(base + k, clause), base + k
        first = last
    return None
