"""Options: the engine, limits, deletions and progress of a check, read once.

Every door (``run``, ``check``, ``check_json``, ``explain``, the ``Checker``,
the file doors, batch, Dask, the service and the command line) turns its
keyword arguments into an Options before it reads any input, so a bad value
is refused the same way whatever the door, in this order: ``limits`` that is
not a Limits (TypeError), ``progress`` that is not callable (TypeError),
``deletions`` other than "strict" or "lenient" (ValueError), then an engine
that is not known (ValueError) or not built here (ImportError).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from .._engines import resolve
from ..limits import CONTRACT_LIMITS, Limits

if TYPE_CHECKING:
    from .types import KernelModule, KernelName, Progress

__all__ = ["DELETIONS", "Options", "checked_settings"]

# The readings of a delete step: SPEC §4.1 (strict, the default) or §4.4.
DELETIONS = ("strict", "lenient")


class Options(NamedTuple):
    """A check's settings, checked: see ``Options.of``."""

    engine: KernelName  # "compiled" or "reference": what "auto" chose
    kernel: KernelModule  # that engine's module (its Kernel)
    limits: Limits
    lenient: bool  # deletions="lenient"
    progress: Progress | None

    @classmethod
    def of(
        cls,
        engine: Any = "auto",
        limits: Any = None,
        deletions: Any = "strict",
        progress: Any = None,
    ) -> Options:
        """The Options of a door's keyword arguments (``run`` documents them);
        None for ``limits`` means the contract's."""
        limits = checked_settings(limits, deletions, progress)
        name, module = resolve(engine)
        return cls(name, module, limits, deletions == "lenient", progress)

    @property
    def deletions(self) -> str:
        """The reading of delete steps, as given to ``of``: "lenient" or "strict"."""
        return "lenient" if self.lenient else "strict"

    # Sent to a worker process by what it was made of: the worker resolves the
    # engine itself (the kernel module is not pickled, and a callback cannot go).
    def __reduce__(self) -> tuple[Any, ...]:
        if self.progress is not None:
            raise TypeError("Options with a progress callback stay in their process")
        return Options.of, (self.engine, self.limits, self.deletions)


def checked_settings(limits: Any, deletions: Any = "strict", progress: Any = None) -> Limits:
    """Check ``limits``, ``deletions`` and ``progress`` as ``Options.of`` does,
    without choosing the engine (a Dask client leaves "auto" to its workers);
    return the Limits in force."""
    if limits is None:
        in_force = CONTRACT_LIMITS
    elif isinstance(limits, Limits):
        in_force = limits
    else:
        raise TypeError(f"limits must be a sat_claim_check.Limits, got {type(limits).__name__}")
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be callable or None, got {type(progress).__name__}")
    if deletions not in DELETIONS:
        raise ValueError(f"deletions must be 'strict' or 'lenient', got {deletions!r}")
    return in_force
