"""JSON text in, bytes out: ``check_json`` and its ``Outcome``.

The command line (``check``, ``batch``) and the HTTP service write what an
Outcome holds, so the three give the same bytes for the same request.
docs/semantics.md ("JSON text", "Output bytes") says what is read and written.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from ..errors import CheckError, LimitExceeded
from .codes import EXIT_NOT_VALID, EXIT_REJECTED, EXIT_VALID
from .jsontext import dumps
from .options import Options
from .session import check_request
from .validate import validated_from_text

if TYPE_CHECKING:
    from ..limits import Limits
    from .report import Report
    from .types import Deletions, EngineName, Progress, ProofReading, Result
    from .validated import Validated

__all__ = ["Outcome", "check_json", "exit_code", "http_status", "outcome_of"]

Status = Literal["valid", "not_valid", "rejected"]

# What became of a request, as each door says it: the command line's exit
# code (batch counts its lines by it too) and the HTTP status of the service.
# A rejected request's HTTP status depends on its error (``http_status``).
EXIT_CODES: dict[Status, int] = {
    "valid": EXIT_VALID,
    "not_valid": EXIT_NOT_VALID,
    "rejected": EXIT_REJECTED,
}
HTTP_RESULT = 200  # a result, valid or not
HTTP_INVALID_INPUT = 400
HTTP_SIZE_LIMIT = 413
HTTP_WORK_LIMIT = 422


def status_of(result: Result) -> Status:
    """ "valid" or "not_valid" for a result object."""
    return "valid" if result["valid"] else "not_valid"


def exit_code(result: Result) -> int:
    """The exit code of a result: 0 valid, 1 not valid."""
    return EXIT_CODES[status_of(result)]


def http_status(error: CheckError | None) -> int:
    """The HTTP status of an answer: 200 for a result (``error`` None), 400 for
    invalid_input, 413 for a size limit, 422 for the work limit."""
    if error is None:
        return HTTP_RESULT
    if isinstance(error, LimitExceeded):
        return HTTP_WORK_LIMIT if error.limit == "max_propagation_work" else HTTP_SIZE_LIMIT
    return HTTP_INVALID_INPUT


class Outcome:
    """What became of one request given as JSON text, as ``check_json`` returns it.

    ``status`` is "valid", "not_valid" (a result whose ``valid`` is false) or
    "rejected" (an error: invalid_input or limit_exceeded).  ``body`` is the
    JSON text written for it, as bytes: the result, one compact line with the
    keys in the output schema's order, or the error object; pure ASCII, with
    no line terminator (``sat-claim-check check`` writes ``body`` and a
    newline; the HTTP service sends ``body`` as it is).  ``exit_code`` is the
    command line's: 0 valid, 1 not valid, 2 rejected.  ``report`` is the
    Report (None when rejected) and ``error`` the CheckError (None unless
    rejected).  docs/semantics.md describes results and errors.
    """

    __slots__ = ("body", "error", "exit_code", "report", "status")

    status: Status
    body: bytes
    exit_code: int
    report: Report | None
    error: CheckError | None

    def __init__(
        self,
        status: Status,
        body: bytes,
        exit_code: int,
        report: Report | None,
        error: CheckError | None,
    ) -> None:
        self.status = status
        self.body = body
        self.exit_code = exit_code
        self.report = report
        self.error = error

    @classmethod
    def checked(cls, report: Report) -> Outcome:
        """Return the Outcome of a checked request: "valid" or "not_valid"."""
        status = status_of(report.result)
        return cls(status, dumps(report.result).encode(), EXIT_CODES[status], report, None)

    @classmethod
    def rejected(cls, error: CheckError) -> Outcome:
        """Return the Outcome of a rejected request: its body is the error object."""
        return cls("rejected", dumps(error.to_dict()).encode(), EXIT_CODES["rejected"], None, error)

    @property
    def hint(self) -> str | None:
        """One line for people on a verdict that is not valid or an error: what
        may be wrong and which flag or setting helps (None when valid)."""
        if self.report is not None:
            return self.report.hint
        assert self.error is not None
        return self.error.hint

    @property
    def http_status(self) -> int:
        """The HTTP status the service answers with (see ``http_status``)."""
        return http_status(self.error)

    @property
    def data(self) -> dict[str, Any]:
        """Return what ``body`` encodes, as a new dict: the result or the error object."""
        if self.report is not None:
            return dict(self.report.result)
        assert self.error is not None
        return self.error.to_dict()

    def __repr__(self) -> str:
        return f"Outcome(status={self.status!r}, body={self.body!r})"


def check_json(
    data: bytes | bytearray | str,
    *,
    engine: EngineName = "auto",
    limits: Limits | None = None,
    progress: Progress | None = None,
    deletions: Deletions = "strict",
    reading: ProofReading | None = None,
) -> Outcome:
    """Check one request given as JSON text; return its Outcome.

    ``data`` is the JSON text as bytes (UTF-8) or str, read as
    ``sat-claim-check check`` reads it: standard JSON only, so malformed
    text, bytes that are not UTF-8, ``NaN``, nesting deeper than the parser
    allows and a key repeated in an object are rejected as invalid_input
    with ``field`` null and ``path`` "".  Integers are read exactly, whatever
    their size, in time linear in their length.  The common request is read
    by a compiled reader without holding the GIL, so threads check in
    parallel.  ``data`` is not capped here: callers that read it from
    outside cap it first (the command line and the service refuse more bytes
    than the limits could need).

    ``engine``, ``limits``, ``progress``, ``deletions`` and ``reading`` are as for
    ``run``.  What the text holds never raises; TypeError for ``data`` that is not text,
    ImportError for an engine that is not built, and an exception raised by
    ``progress`` (it stops the check) come out of this call.

    ``check_json(text).body + b"\\n"`` is what ``sat-claim-check check``
    writes on standard output; docs/semantics.md ("JSON text", "Output
    bytes") has the details.
    """
    if not isinstance(data, (bytes, bytearray, str)):
        raise TypeError(f"data must be bytes or str (JSON text), got {type(data).__name__}")
    options = Options.of(engine, limits, deletions, progress, reading)
    try:
        validated = validated_from_text(data, options.limits)
    except CheckError as err:
        return Outcome.rejected(err)
    return outcome_of(validated, options)


def outcome_of(validated: Validated, options: Options) -> Outcome:
    """The Outcome of a request already read and validated (a Validated).

    For callers that keep the Validated (the command line's ``--explain``
    reads its proof steps); ``check_json`` is this after reading.
    """
    try:
        report = check_request(validated, options)
    except CheckError as err:
        return Outcome.rejected(err)
    return Outcome.checked(report)
