"""The errors: a rejected request is an exception, never a result.

docs/semantics.md ("Requests, results and errors") describes the error
objects and their keys.
"""

from __future__ import annotations

from typing import Any

__all__ = ["CheckError", "InvalidInput", "LimitExceeded"]


class CheckError(ValueError):
    """A request that was rejected before its claim was checked (a ValueError).

    ``field`` is the top-level key at fault (None when the request is not an
    object or not JSON at all), ``path`` a JSON Pointer to the offending value,
    ``message`` words for people.  ``to_dict()`` returns the error object that
    the command line writes (docs/semantics.md, "Requests, results and
    errors").
    """

    error = "check_error"

    def __init__(self, field: str | None, path: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.path = path
        self.message = message

    def to_dict(self) -> dict[str, Any]:
        """Return the error object: a new dict with the keys in contract order."""
        return {"error": self.error, "field": self.field, "path": self.path,
                "message": self.message}


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

    def __init__(self, field: str | None, path: str, message: str, *, limit: str, max: int,
                 actual: int | None = None, step_index: int | None = None) -> None:
        super().__init__(field, path, message)
        self.limit = limit
        self.max = max
        self.actual = actual
        self.step_index = step_index

    def to_dict(self) -> dict[str, Any]:
        """Return the error object, with ``actual`` or (for the work limit) ``step_index``."""
        out = {"error": self.error, "field": self.field, "path": self.path,
               "limit": self.limit, "max": self.max}
        if self.limit == "max_propagation_work":
            out["step_index"] = self.step_index
        else:
            out["actual"] = self.actual
        out["message"] = self.message
        return out
