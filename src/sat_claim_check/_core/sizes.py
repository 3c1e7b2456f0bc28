"""The size limits: which limit each count answers to, and its error.

Also the error for a request that ran out of memory: the limit its counts
explain (``out_of_memory``, ``memory_error``).
"""

from __future__ import annotations

from array import array
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..errors import LimitExceeded
from ..limits import CONTRACT_LIMITS
from .values import number_text

if TYPE_CHECKING:
    from ..limits import Limits

    Flat = tuple[array[int], array[int]]  # (offsets, literals)
    Steps = tuple[array[int], array[int], array[int]]  # (kinds, offsets, literals)
    PathOf = Callable[[int, int], str]  # (array, item) -> JSON Pointer


__all__ = [
    "SIZE_LIMITS",
    "check_size",
    "cnf_sizes",
    "memory_error",
    "out_of_memory",
    "proof_memory_error",
    "size_error",
    "sizes",
]


# Where each size limit points (SPEC §1), and what it counts, for messages.
SIZE_LIMITS = {
    "max_vars": ("cnf", "/cnf/num_vars", "num_vars"),
    "max_clauses": ("cnf", "/cnf/clauses", "the number of clauses"),
    "max_total_literals": ("cnf", "/cnf/clauses", "the number of CNF literals"),
    "max_assignment_literals": ("assignment", "/assignment", "the number of assignment literals"),
    "max_proof_steps": ("proof", "/proof", "the number of proof steps"),
    "max_proof_literals": ("proof", "/proof", "the number of proof literals"),
}


def check_size(limit: str, actual: int, limits: Limits) -> None:
    """Raise limit_exceeded when ``actual`` is over ``limits.<limit>``."""
    if actual > getattr(limits, limit):
        raise size_error(limit, actual, limits)


def size_error(limit: str, actual: int, limits: Limits) -> LimitExceeded:
    """The limit_exceeded error for ``actual``, over ``limits.<limit>``."""
    maximum = getattr(limits, limit)
    field, path, what = SIZE_LIMITS[limit]
    return LimitExceeded(
        field,
        path,
        f"{what} ({number_text(actual)}) is over the limit of {maximum}",
        limit=limit,
        max=maximum,
        actual=actual,
    )


def cnf_sizes(num_vars: int, clause_offsets: Any, clause_lits: Any) -> list[tuple[str, int]]:
    """The sizes of a CNF's arrays, as (limit, size), in validation order."""
    return [
        ("max_vars", num_vars),
        ("max_clauses", len(clause_offsets) - 1),
        ("max_total_literals", len(clause_lits)),
    ]


def sizes(v: Any) -> list[tuple[str, int]]:
    """The sizes of a validated request, as (limit, size), in validation order."""
    out = cnf_sizes(v.num_vars, v.clause_offsets, v.clause_lits)
    if v.assignment is not None:
        out.append(("max_assignment_literals", len(v.assignment)))
    if v.step_kinds is not None:
        out += [("max_proof_steps", len(v.step_kinds)), ("max_proof_literals", len(v.step_lits))]
    return out


def out_of_memory(v: Any, limits: Limits) -> LimitExceeded | None:
    """``memory_error`` for a validated request (its sizes)."""
    return memory_error(sizes(v), limits)


def memory_error(counts: list[tuple[str, int]], limits: Limits) -> LimitExceeded | None:
    """The error for a check that could not allocate its memory, given the sizes
    of what it was checking (``counts``: (limit, size) in validation order), or
    None when they are all within the contract's limits (then the shortage is
    not the request's doing).

    It names the size furthest above its contract value, as a multiple of it
    (the first in validation order on a tie): the size that made the checker allocate
    the most.  ``max`` is the limit in force, so here ``actual <= max``; the
    error's ``out_of_memory`` is True (raising the limits cannot help).
    """
    ratio, name, actual = max(
        ((size / getattr(CONTRACT_LIMITS, name), name, size) for name, size in counts),
        key=lambda t: t[0],
    )
    if ratio <= 1:
        return None
    field, path, what = SIZE_LIMITS[name]
    maximum = getattr(limits, name)
    error = LimitExceeded(
        field,
        path,
        f"{what} ({number_text(actual)}) is within the limit of {maximum}, "
        f"but more than this machine could allocate memory for",
        limit=name,
        max=maximum,
        actual=actual,
    )
    error.out_of_memory = True
    return error


# -- literal arrays ------------------------------------------------------------


def proof_memory_error(
    cnf: list[tuple[str, int]], steps: int, literals: int, limits: Limits
) -> LimitExceeded | None:
    """``memory_error`` for an unsat check that ran out of memory with
    ``steps`` proof steps and ``literals`` literals in hand (0 steps: the CNF
    alone; ``cnf``: its ``cnf_sizes``).  A step still being read when memory
    ran out may have taken a count past its limit: that count's error then."""
    if not steps:
        return memory_error(cnf, limits)
    proof = [("max_proof_steps", steps), ("max_proof_literals", literals)]
    for name, actual in proof:
        if actual > getattr(limits, name):
            return size_error(name, actual, limits)
    return memory_error([*cnf, *proof], limits)
