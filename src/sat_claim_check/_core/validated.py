"""A request that passed validation, as the engines' flat arrays."""

from __future__ import annotations

from array import array
from collections.abc import Callable
from typing import TYPE_CHECKING

from .codes import step_key

if TYPE_CHECKING:
    Flat = tuple[array[int], array[int]]  # (offsets, literals)
    Steps = tuple[array[int], array[int], array[int]]  # (kinds, offsets, literals)
    PathOf = Callable[[int, int], str]  # (array, item) -> JSON Pointer


__all__ = ["Validated", "proof_steps", "request_step"]


class Validated:
    """A request that passed validation, as flat arrays (see ``kernel_py``).

    ``assignment`` is set for a sat claim, the three step arrays for an
    unsat claim; the others are None.
    """

    __slots__ = (
        "assignment",
        "claim",
        "clause_lits",
        "clause_offsets",
        "num_vars",
        "step_kinds",
        "step_lits",
        "step_offsets",
    )

    claim: str
    num_vars: int
    clause_offsets: array[int]
    clause_lits: array[int]
    assignment: array[int] | None
    step_kinds: array[int] | None
    step_offsets: array[int] | None
    step_lits: array[int] | None

    def __init__(
        self, claim: str, num_vars: int, clause_offsets: array[int], clause_lits: array[int]
    ) -> None:
        self.claim = claim
        self.num_vars = num_vars
        self.clause_offsets = clause_offsets
        self.clause_lits = clause_lits
        self.assignment = None
        self.step_kinds = None
        self.step_offsets = None
        self.step_lits = None

    def clause(self, k: int) -> list[int]:
        return self.clause_lits[self.clause_offsets[k] : self.clause_offsets[k + 1]].tolist()

    def step(self, s: int) -> list[int]:
        assert self.step_lits is not None and self.step_offsets is not None  # an unsat claim
        return self.step_lits[self.step_offsets[s] : self.step_offsets[s + 1]].tolist()


def request_step(
    kinds: array[int], offsets: array[int], lits: array[int], s: int
) -> dict[str, list[int]]:
    """Proof step s of flat arrays as a request writes it: {"add"|"delete": [...]}."""
    return {step_key(kinds[s]): lits[offsets[s] : offsets[s + 1]].tolist()}


def proof_steps(
    kinds: array[int], offsets: array[int], lits: array[int]
) -> list[dict[str, list[int]]]:
    """A request's proof (a list of request steps) from flat arrays."""
    return [request_step(kinds, offsets, lits, s) for s in range(len(kinds))]


# -- JSON Schema types in Python form (SPEC §2, last paragraph) ----------------
#
# A subclass of list, tuple, dict, str, int or float is read as its base type,
# through the base type's own methods (list.__len__, list.__iter__, dict.items,
# str.__str__, int.__index__, float.__float__): nothing it overrides changes
# what is checked, and none of its methods runs.  Types are tested with ``is``
# and issubclass(type(x), ...), never with isinstance (which believes a
# ``__class__`` attribute) nor by hashing or comparing them (a metaclass can
# override both).  Plain objects, the common case, are used as they are.
