# The compiled engine's public surface: the same Kernel as the reference
# engine's (_engine_py), with the same signatures; step kinds and status codes
# live in _codes.
from typing import Final

from ._types import Ints, Progress

POLL_INTERVAL: Final[int]

class Kernel:
    """The clause multiset, watch lists and level-0 state of one unsat check."""

    reason_deletions: list[int]

    def __init__(
        self,
        num_vars: int,
        clause_offsets: Ints,
        clause_lits: Ints,
        step_kinds: Ints,
        step_offsets: Ints,
        step_lits: Ints,
        max_work: int,
    ) -> None: ...
    @property
    def work(self) -> int:
        """The work counter after the last run."""
    def run(
        self,
        progress: Progress | None = None,
        poll_interval: int = POLL_INTERVAL,
    ) -> tuple[int, int, int, int]:
        """Check the proof; return (status, step_index, steps_checked, work)."""
