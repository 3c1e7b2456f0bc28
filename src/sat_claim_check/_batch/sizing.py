"""How many workers, how much memory: the CPUs this process may use, and each
worker's share of the address space."""

from __future__ import annotations

import os

try:
    import resource
except ImportError:  # Windows: no address-space limit
    resource = None  # type: ignore[assignment]

__all__ = ["available_cpus", "default_worker_memory", "limit_memory"]


def available_cpus() -> int:
    """The CPUs this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


def default_worker_memory(jobs: int) -> int | None:
    """Bytes of address space per worker: physical memory / (jobs + 1), so that
    every worker at its limit still leaves a share for the rest; None if unknown."""
    try:
        total = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None
    return total // (jobs + 1) if total > 0 else None


def limit_memory(memory: int | None) -> int | None:
    """Cap this process's address space at ``memory`` bytes, so that a huge
    line raises MemoryError here instead of exhausting the machine; return
    the cap in force (a lower one set by the user stays)."""
    if resource is None or not hasattr(resource, "RLIMIT_AS"):
        return None
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if soft != resource.RLIM_INFINITY and (memory is None or soft < memory):
        return soft
    if memory is None:
        return None
    try:
        resource.setrlimit(resource.RLIMIT_AS, (memory, hard))
    except (ValueError, OSError):
        return None
    return memory
