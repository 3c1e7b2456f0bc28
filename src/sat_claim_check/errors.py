"""The errors of SPEC §1: a rejected request is an exception, never a result."""

__all__ = ["CheckError", "InvalidInput", "LimitExceeded"]


class CheckError(ValueError):
    """A request that was rejected before its claim was checked.

    ``to_dict()`` gives the error object of SPEC §1, keys in contract order.
    """

    error = "check_error"

    def __init__(self, field, path, message):
        super().__init__(message)
        self.field = field
        self.path = path
        self.message = message

    def to_dict(self):
        return {"error": self.error, "field": self.field, "path": self.path,
                "message": self.message}


class InvalidInput(CheckError):
    """The request breaks a rule of SPEC §2."""

    error = "invalid_input"


class LimitExceeded(CheckError):
    """The request is over one of the seven limits.

    Size limits carry ``actual``; the work limit carries ``step_index``
    instead (``None`` when the initial build passed the cap).
    """

    error = "limit_exceeded"

    def __init__(self, field, path, message, *, limit, max, actual=None,
                 step_index=None):
        super().__init__(field, path, message)
        self.limit = limit
        self.max = max
        self.actual = actual
        self.step_index = step_index

    def to_dict(self):
        out = {"error": self.error, "field": self.field, "path": self.path,
               "limit": self.limit, "max": self.max}
        if self.limit == "max_propagation_work":
            out["step_index"] = self.step_index
        else:
            out["actual"] = self.actual
        out["message"] = self.message
        return out
