"""Which worker checks which segment: the first to reach a segment claims it.

A worker at a segment's first step claims it unless another has (``claim``):
the worker ahead, having replayed the others' segments at a fraction of
their cost, takes the next one, so the checking is shared by what each
segment costs, not by its number.  Every segment is claimed exactly once:
the first walker to reach it finds it free.  The owners of the last
``RING`` segments claimed are kept, for the checker to know what a worker
that died leaves unchecked.  Shared memory, for worker processes of one
machine.
"""

from __future__ import annotations

from typing import Any

__all__ = ["RING", "Claims"]

RING = 1 << 16  # the owners of this many segments, the last claimed, are kept


class Claims:
    """The segments claimed so far, and their owners (process-shared)."""

    def __init__(self, context: Any) -> None:
        self._lock = context.Lock()
        self._next = context.RawValue("q", 0)  # every segment before it is claimed
        self._owners = context.RawArray("i", RING)

    def claim(self, segment: int, worker: int) -> bool:
        """Whether ``worker``, at ``segment``'s first step, is the first there."""
        with self._lock:
            if segment < self._next.value:
                return False
            self._next.value = segment + 1
            self._owners[segment % RING] = worker
            return True

    @property
    def claimed(self) -> int:
        """The number of segments claimed (all those before it)."""
        return int(self._next.value)

    def owned_by(self, worker: int) -> Any:
        """A test of whether a segment is (or may be: its owner forgotten) ``worker``'s."""
        claimed = self.claimed

        def owned(segment: int) -> bool:
            return claimed - segment > RING or self._owners[segment % RING] == worker

        return owned
