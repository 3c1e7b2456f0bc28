# The compiled engine's public surface: the same Kernel as the reference
# engine's (kernel_py), with the same signatures; step kinds and status codes
# live in _codes.
from array import array
from typing import Any, Final

from .._core.codes import READING_STRICT
from .._core.types import Ints, Progress

POLL_INTERVAL: Final[int]
RUN_SLICE: Final[int]

class Kernel:
    """The clause multiset, watch lists and level-0 state of one unsat check."""

    reason_deletions: array[int]
    reading: int
    lenient: bool
    ignored_deletions: array[int]
    derived_empty: bool

    def __init__(
        self,
        num_vars: int,
        clause_offsets: Ints,
        clause_lits: Ints,
        step_kinds: Ints | None,
        step_offsets: Ints | None,
        step_lits: Ints | None,
        max_work: int,
        reading: int = READING_STRICT,
        lrat: Any = None,
        lrat_binary: bool = False,
    ) -> None: ...
    @property
    def work(self) -> int:
        """The work counter so far."""
    def concluded(self) -> bool:
        """Whether the check ended valid before the proof's end (drat-trim reading)."""
    def start(
        self,
        progress: Progress | None = None,
        poll_interval: int = POLL_INTERVAL,
    ) -> int:
        """Store the CNF and make the initial build; return the status."""
    def feed(self, kinds: Ints, offsets: Ints, lits: Ints) -> tuple[int, int]:
        """Check a chunk of steps; return (status, index in the chunk or -1)."""
    def replay(self, kinds: Ints, offsets: Ints, lits: Ints) -> tuple[int, int]:
        """Take a chunk of steps unchecked; return (STATUS_VALID, -1) or (STATUS_CONCLUDED, i)."""
    def feed_step(self, kind: int, lits: Any, steps_left: int, literals_left: int) -> int | None:
        """Check one plain step; return its status, or None (declined, nothing changed)."""
    def finish(self) -> tuple[int, int, int, int]:
        """End the check; return (status, step_index, steps_checked, work)."""
    def run(
        self,
        progress: Progress | None = None,
        poll_interval: int = POLL_INTERVAL,
    ) -> tuple[int, int, int, int]:
        """Check the proof; return (status, step_index, steps_checked, work)."""
    def _check_invariants(self) -> None:
        """Raise AssertionError unless the stores agree with each other."""
    def _stats(self) -> dict[str, Any]:
        """The stores' sizes now."""
