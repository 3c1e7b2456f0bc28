"""One call at a time on a Checker: the guard of its methods.

A Checker's calls must not overlap (a progress callback or a second thread
calling in while a step is half checked); the guard refuses such a call, and
ends the Checker on any exception a call lets out.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["ALREADY_RUNNING", "one_call_at_a_time"]

_Call = TypeVar("_Call", bound=Callable[..., Any])
ALREADY_RUNNING = (
    "this Checker is already running a call (one call at a time: not from "
    "its progress callback, not from a second thread)"
)


def one_call_at_a_time(method: _Call) -> _Call:
    """Run a Checker method alone, and end the Checker if it raises.

    A call made while another one runs (from a progress callback, or from a
    second thread) is refused with RuntimeError and ends the Checker: the
    running call holds a half-checked step.  Any exception a call lets out
    ends the Checker too, so a step taken (from ``feed()``'s iterable, say) is
    either checked or never answered for.  (``add`` and ``delete`` do the
    same in ``_one``, without the wrapper's cost: they are called per step.)"""
    name = method.__name__

    @functools.wraps(method)
    def alone(self: Any, *args: Any) -> Any:
        try:
            self._idle.pop()
        except IndexError:
            self._refuse(name)
        try:
            return method(self, *args)
        except BaseException as exc:
            self._raised(f"{name}()", exc)
            raise
        finally:
            self._idle.append(True)

    return alone  # type: ignore[return-value]
