"""Options: the engine, limits, reading and progress of a check, read once.

Every door (``run``, ``check``, ``check_json``, ``explain``, the ``Checker``,
the file doors, batch, Dask, the service and the command line) turns its
keyword arguments into an Options before it reads any input, so a bad value
is refused the same way whatever the door, in this order: ``limits`` that is
not a Limits (TypeError), ``progress`` that is not callable (TypeError),
``deletions`` other than "strict" or "lenient" (ValueError), ``reading``
other than None, "strict", "lenient" or "drat-trim", or at odds with
``deletions`` (ValueError), then an engine that is not known (ValueError) or
not built here (ImportError).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple, cast

from .._engines import resolve
from ..limits import CONTRACT_LIMITS, Limits
from .codes import READINGS

if TYPE_CHECKING:
    from .types import KernelModule, KernelName, Progress, ProofReading

__all__ = ["DELETIONS", "READINGS", "Options", "checked_settings", "reading_of"]

# The readings of a delete step: SPEC §4.1 (strict, the default) or §4.4.
DELETIONS = ("strict", "lenient")
# READINGS, the readings of a proof: §4.1, §4.4 and §4.5 ("drat-trim"), by code.


class Options(NamedTuple):
    """A check's settings, checked: see ``Options.of``."""

    engine: KernelName  # "compiled" or "reference": what "auto" chose
    kernel: KernelModule  # that engine's module (its Kernel)
    limits: Limits
    lenient: bool  # deletions read leniently: reading "lenient" or "drat-trim"
    progress: Progress | None
    # reading="drat-trim": with ``lenient``, the check ends valid at the first
    # inconsistent state (SPEC §4.5).  Two flags, not one name, so that
    # ``_replace(lenient=...)`` (explain's reruns) keeps a consistent reading.
    drat_trim: bool = False

    @classmethod
    def of(
        cls,
        engine: Any = "auto",
        limits: Any = None,
        deletions: Any = "strict",
        progress: Any = None,
        reading: Any = None,
    ) -> Options:
        """The Options of a door's keyword arguments (``run`` documents them);
        None for ``limits`` means the contract's, None for ``reading`` the one
        ``deletions`` names."""
        limits = checked_settings(limits, deletions, progress, reading)
        name, module = resolve(engine)
        chosen = reading_of(deletions, reading)
        return cls(name, module, limits, chosen != "strict", progress, chosen == "drat-trim")

    @property
    def deletions(self) -> str:
        """The reading of delete steps: "lenient" (for the drat-trim reading
        too) or "strict"."""
        return "lenient" if self.lenient else "strict"

    @property
    def reading(self) -> ProofReading:
        """The reading of the proof: "strict", "lenient" or "drat-trim"."""
        if not self.lenient:
            return "strict"
        return "drat-trim" if self.drat_trim else "lenient"

    @property
    def reading_code(self) -> int:
        """The reading as the kernels take it: a READING_* code."""
        return READINGS.index(self.reading)

    # Sent to a worker process by what it was made of: the worker resolves the
    # engine itself (the kernel module is not pickled, and a callback cannot go).
    def __reduce__(self) -> tuple[Any, ...]:
        if self.progress is not None:
            raise TypeError("Options with a progress callback stay in their process")
        return Options.of, (self.engine, self.limits, self.deletions, None, self.reading)


def checked_settings(
    limits: Any, deletions: Any = "strict", progress: Any = None, reading: Any = None
) -> Limits:
    """Check ``limits``, ``deletions``, ``progress`` and ``reading`` as
    ``Options.of`` does, without choosing the engine (a Dask client leaves
    "auto" to its workers); return the Limits in force."""
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
    reading_of(deletions, reading)
    return in_force


def reading_of(deletions: str, reading: Any) -> ProofReading:
    """The reading in force: ``reading`` when given, else the one ``deletions``
    names; return it.  ValueError for a reading that is not known, and for
    ``deletions="lenient"`` with ``reading="strict"`` (they contradict)."""
    if reading is None:
        return "lenient" if deletions == "lenient" else "strict"
    if not isinstance(reading, str) or reading not in READINGS:
        raise ValueError(
            f"reading must be 'strict', 'lenient' or 'drat-trim' (or None), got {reading!r}"
        )
    if reading == "strict" and deletions == "lenient":
        raise ValueError(
            "deletions='lenient' contradicts reading='strict': give one of them "
            "(reading='lenient' is deletions='lenient')"
        )
    return cast("ProofReading", reading)
