# The compiled engine's public surface: the same Kernel as the reference
# engine's (_engine_py); step kinds and status codes live in _codes.
from collections.abc import Callable, Sequence
from typing import Final

POLL_INTERVAL: Final[int]

class Kernel:
    """The clause multiset, watch lists and level-0 state of one unsat check."""

    reason_deletions: list[int]

    def __init__(
        self,
        num_vars: int,
        clause_offsets: Sequence[int],
        clause_lits: Sequence[int],
        step_kinds: Sequence[int],
        step_offsets: Sequence[int],
        step_lits: Sequence[int],
        max_work: int,
    ) -> None: ...
    @property
    def work(self) -> int: ...
    def run(
        self,
        progress: Callable[[int, int], object] | None = None,
        poll_interval: int = ...,
    ) -> tuple[int, int, int, int]:
        """Check the proof; return (status, step_index, steps_checked, work)."""
