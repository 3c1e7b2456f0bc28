# The compiled converter's public surface: the same functions as its pure
# twin (convert_py), with the same signatures and answers.
from array import array
from typing import Any

def flatten(
    arrays: Any, bound: int, zero_ok: bool, max_total: int
) -> tuple[array[int], array[int]] | int | None:
    """(offsets, literals) as array('i') for a list of literal arrays, or None;
    the literal count instead when it is over ``max_total``."""

def flatten_steps(
    proof: Any, bound: int, max_total: int
) -> tuple[array[int], array[int], array[int]] | int | None:
    """(kinds, offsets, literals) for proof steps, or None; the literal count
    instead when it is over ``max_total``."""

def first_step_over(
    offsets: array[int], lits: array[int], bound: int, a: int, b: int
) -> int | None:
    """The first of steps a..b-1 with a literal over ``bound`` in magnitude, or None."""

def mark_out_of_range(
    kinds: array[int], offsets: array[int], lits: array[int], num_vars: int
) -> None:
    """Give each step with a literal outside 1..num_vars its own kind, in place."""

def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """json's object_pairs_hook: a dict, or ValueError for a repeated key or a
    string with a lone surrogate."""
