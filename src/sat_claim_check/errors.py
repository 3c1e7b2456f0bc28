"""The errors: a rejected request is an exception, never a result.

docs/semantics.md ("Requests, results and errors") describes the error
objects and their keys.
"""

from __future__ import annotations

from typing import Any

__all__ = ["CheckError", "InvalidInput", "LimitExceeded", "TimedOut"]


class CheckError(ValueError):
    """A request that was rejected before its claim was checked (a ValueError).

    ``field`` is the top-level key at fault (None when the request is not an
    object or not JSON at all), ``path`` a JSON Pointer to the offending value,
    ``message`` words for people.  ``to_dict()`` returns the error object that
    the command line writes (docs/semantics.md, "Requests, results and
    errors").
    ``hint`` is one line for people saying what to do about it (which flag
    or setting helps), or None; it is not part of the error object.
    Errors pickle (the workers of ``batch --jobs N`` send them back) and two
    errors are equal when their class and every attribute are (``hint``
    aside).
    """

    error = "check_error"

    def __init__(self, field: str | None, path: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.path = path
        self.message = message

    @property
    def hint(self) -> str | None:
        """What to do about it, one line (None when there is nothing to say)."""
        given: str | None = self.__dict__.get("_hint")
        return given if given is not None else self._default_hint()

    @hint.setter
    def hint(self, text: str | None) -> None:
        self._hint = text

    def _default_hint(self) -> str | None:
        return None

    def to_dict(self) -> dict[str, Any]:
        """Return the error object: a new dict with the keys in contract order."""
        return {
            "error": self.error,
            "field": self.field,
            "path": self.path,
            "message": self.message,
        }

    def _arguments(self) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """The positional and keyword arguments that build an equal error."""
        return (self.field, self.path, self.message), {}

    def __reduce__(self) -> tuple[Any, ...]:
        # The default (cls, self.args) would call cls(message) and fail.
        args, kwargs = self._arguments()
        return _rebuild, (type(self), args, kwargs), self.__dict__

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CheckError) or type(other) is not type(self):
            return NotImplemented
        return self._arguments() == other._arguments()

    def __hash__(self) -> int:
        args, kwargs = self._arguments()
        return hash((type(self), args, tuple(sorted(kwargs.items()))))


def _rebuild(cls: type[CheckError], args: tuple[Any, ...], kwargs: dict[str, Any]) -> CheckError:
    return cls(*args, **kwargs)


class InvalidInput(CheckError):
    """The request breaks a rule of the input schema (``error`` "invalid_input").

    docs/semantics.md ("Validation order") lists the rules in the order they
    are checked; only the first broken one is reported.
    """

    error = "invalid_input"


class LimitExceeded(CheckError):
    """The request is over one of the seven limits (``error`` "limit_exceeded").

    ``limit`` names the limit (a field of ``Limits``), ``max`` its value.
    Size limits carry ``actual``; the work limit carries ``step_index``
    instead (``None`` when the initial build passed the cap).  See
    docs/semantics.md ("Validation order" for the limits, "Propagation and the
    work counter" for the work).
    """

    error = "limit_exceeded"

    # Set by the file readers, for the command line's hints (not in the error
    # object): the other limits the input is known to pass, as (limit, actual);
    # whether reading stopped at this limit (the rest was not read); and the
    # (file, line) of the step that passed it.
    also_passed: tuple[tuple[str, int], ...] = ()
    read_stopped: bool = False
    file_line: tuple[str, int] | None = None
    # The input's real count for this limit, when reading stopped at it but
    # the file could be counted to its end (``actual`` stays where reading
    # stopped, as the error object says).
    counted: int | None = None
    # True when the input is within the limit but the machine ran out of memory
    # checking it (``actual <= max``): raising the limits cannot help.
    out_of_memory: bool = False

    def __init__(
        self,
        field: str | None,
        path: str,
        message: str,
        *,
        limit: str,
        max: int,
        actual: int | None = None,
        step_index: int | None = None,
    ) -> None:
        super().__init__(field, path, message)
        self.limit = limit
        self.max = max
        self.actual = actual
        self.step_index = step_index

    def _default_hint(self) -> str | None:
        from ._core.hints import limit_lines  # the hints read this module's names

        return "; ".join(limit_lines(self)) or None

    def to_dict(self) -> dict[str, Any]:
        """Return the error object, with ``actual`` or (for the work limit) ``step_index``."""
        out: dict[str, Any] = {
            "error": self.error,
            "field": self.field,
            "path": self.path,
            "limit": self.limit,
            "max": self.max,
        }
        if self.limit == "max_propagation_work":
            out["step_index"] = self.step_index
        else:
            out["actual"] = self.actual
        out["message"] = self.message
        return out

    def _arguments(self) -> tuple[tuple[Any, ...], dict[str, Any]]:
        return (self.field, self.path, self.message), {
            "limit": self.limit,
            "max": self.max,
            "actual": self.actual,
            "step_index": self.step_index,
        }


class TimedOut(CheckError):
    """The check ran past its time (``error`` "timeout"): no verdict.

    ``seconds`` is the time allowed, ``steps_checked`` the proof steps checked
    when it ran out (step ``steps_checked`` was being checked, or read).  Only
    the file doors that take ``timeout=`` (``check_files``, ``verify
    --timeout``) raise it; the JSON contract has no time limit.
    docs/semantics.md ("Checking files") gives its error object.
    """

    error = "timeout"

    def __init__(
        self, field: str | None, path: str, message: str, *, seconds: float, steps_checked: int
    ) -> None:
        super().__init__(field, path, message)
        self.seconds = seconds
        self.steps_checked = steps_checked

    def to_dict(self) -> dict[str, Any]:
        """Return the error object, with ``seconds`` and ``steps_checked``."""
        return {
            "error": self.error,
            "field": self.field,
            "path": self.path,
            "seconds": self.seconds,
            "steps_checked": self.steps_checked,
            "message": self.message,
        }

    def _default_hint(self) -> str | None:
        return "give it more time: a larger --timeout (in Python: timeout=), or none"

    def _arguments(self) -> tuple[tuple[Any, ...], dict[str, Any]]:
        return (self.field, self.path, self.message), {
            "seconds": self.seconds,
            "steps_checked": self.steps_checked,
        }
