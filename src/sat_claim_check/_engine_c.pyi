# The compiled engine's public surface: the same names and signatures as the
# reference engine's (_engine_py).
from collections.abc import Callable, Sequence
from typing import Final

STEP_ADD: Final[int]
STEP_DELETE: Final[int]
STEP_ADD_OUT_OF_RANGE: Final[int]
STEP_DELETE_NO_MATCH: Final[int]

STATUS_VALID: Final[int]
STATUS_LEMMA_NOT_RUP: Final[int]
STATUS_LITERAL_OUT_OF_RANGE: Final[int]
STATUS_DELETED_CLAUSE_NOT_FOUND: Final[int]
STATUS_EMPTY_CLAUSE_NOT_DERIVED: Final[int]
STATUS_WORK_LIMIT: Final[int]

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
