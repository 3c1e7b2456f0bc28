"""One input line, one output line: the line protocol of ``batch``.

A line is a JSON request, or an envelope ``{"id": ..., "request": {...}}``
(``envelope``) whose output line carries the id first; with ``--manifest``
it is a manifest entry naming files to check (``manifest``), whose id goes
first too.  Its output line is the result, or the error object with the
line's number as ``"line"``: the request's error, ``invalid_input`` for a
line that is blank, too long or not JSON, and ``check_failed`` for a check
that could not finish (out of memory, an unexpected exception, a worker
that kept dying).  Every kind of line gets its answer here, whoever checks
it: this process, a worker process or a Dask worker.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from .._core.codes import EXIT_REJECTED
from .._core.jsontext import dumps, loads
from .._core.outcome import exit_code
from .._core.session import check_request
from .._core.validate import read_common_case, validate
from ..errors import CheckError, InvalidInput
from .envelope import Ident, line_id, split_envelope, with_id
from .lines import Numbered, Span, read_span
from .manifest import Manifest, check_entry, entry_id

if TYPE_CHECKING:
    from .._core.options import Options
    from .._core.types import Result

__all__ = [
    "CHECK_FAILED",
    "FAILED",
    "OUT_OF_MEMORY",
    "Checked",
    "answer_line",
    "bug_message",
    "check_line",
    "check_lines",
    "check_manifest_line",
    "check_one",
    "failed_line",
    "memory_message",
    "unfinished",
]

FAILED = 3  # the count (after EXIT_VALID, _NOT_VALID, _REJECTED) of lines
# whose check could not finish
CHECK_FAILED = "check_failed"
Checked = tuple[int, str]  # (EXIT_VALID, _NOT_VALID, _REJECTED or FAILED, output)


def failed_line(number: int, message: str, ident: Ident | None = None) -> str:
    """The error object of a line whose check could not finish (its id first, if any)."""
    return dumps(
        with_id(
            ident,
            {"error": CHECK_FAILED, "field": None, "path": "", "message": message, "line": number},
        )
    )


OUT_OF_MEMORY = "out of memory"  # a MemoryError, until it is worded by memory_message


def memory_message(memory: int | None) -> str:
    """The check_failed message of a line whose check ran out of memory."""
    message = "the check of this line ran out of memory"
    if memory:
        message += f" (the limit is {memory >> 20} MiB per worker: see --worker-memory)"
    return message


def bug_message(exc: Exception) -> str:
    """The check_failed message of a line whose check raised an unexpected exception."""
    return (
        f"the check of this line raised {type(exc).__name__}: {exc} "
        "(a bug in sat-claim-check: please report it)"
    )


def answer_line(
    number: int,
    line: bytes | str,
    memory: int | None,
    what: str,
    check: Callable[[bytes, Callable[[Ident], None]], Result],
) -> Checked:
    """The kind and output line of one numbered line, whatever its check does.

    ``check(line, note_id)`` returns the line's result, or raises CheckError
    (the line's error object); it calls ``note_id`` as soon as it knows the
    line's id, which then goes first on the output line.  A line that
    ``numbered_lines`` refused (a str) or a blank one is rejected; a check that
    runs out of memory (``memory``: the worker's limit, for the message) or
    fails with an unexpected exception gives ``check_failed``.  ``what`` names
    what a line must hold.
    """
    failure = None
    ident: Ident | None = None

    def note_id(found: Ident) -> None:
        nonlocal ident
        ident = found

    try:
        if isinstance(line, str):  # numbered_lines' reason for refusing the line
            raise InvalidInput(None, "", line)
        if not line.strip():
            raise InvalidInput(None, "", f"blank line: every line must hold one {what}")
        result = check(line, note_id)
    except CheckError as err:
        error = err.to_dict()
        error["line"] = number
        return EXIT_REJECTED, dumps(with_id(ident, error))
    except MemoryError:
        # Worded after the except clause, which frees what the check had built.
        failure = OUT_OF_MEMORY
    except Exception as exc:  # a bug: say so on this line rather than lose the batch
        failure = bug_message(exc)
    if failure is not None:
        if failure is OUT_OF_MEMORY:
            failure = memory_message(memory)
        return FAILED, failed_line(number, failure, ident)
    return exit_code(result), dumps(with_id(ident, result))


def check_line(
    options: Options, number: int, line: bytes | str, memory: int | None = None
) -> Checked:
    """Check one numbered JSON line under ``options``: its kind and its output line.

    ``memory`` is the worker's address-space limit, for the message when the
    check runs out of memory.  An envelope's id goes first on its output line.
    """

    def check(text: bytes, note_id: Callable[[Ident], None]) -> Result:
        v = read_common_case(text, options.limits)  # the compiled reader: no envelope
        if v is None:
            ident, request = split_envelope(loads(text))
            if ident is not None:
                note_id(ident)
            v = validate(request, options.limits)
        return check_request(v, options).result

    return answer_line(number, line, memory, "JSON request", check)


def check_manifest_line(
    options: Options, number: int, line: bytes | str, manifest: Manifest, memory: int | None = None
) -> Checked:
    """Check the files one numbered manifest line names: its kind and its output
    line, as ``check_line`` gives for a request.  ``manifest`` says where
    its paths lead."""

    def check(text: bytes, note_id: Callable[[Ident], None]) -> Result:
        entry = loads(text)
        ident = entry_id(entry)
        if ident is not None:
            note_id(ident)
        return check_entry(entry, manifest, options)

    return answer_line(number, line, memory, "manifest entry", check)


def check_lines(
    options: Options,
    lines: list[Numbered],
    memory: int | None = None,
    manifest: Manifest | None = None,
    input_fd: int | None = None,
) -> list[Checked]:
    """check_line() on each numbered line, in order (what a worker does per chunk).

    With ``manifest`` (where their paths lead) the lines are manifest lines:
    ``check_manifest_line``.  A Span is read from ``input_fd`` first.
    """
    checked = []
    for number, line in lines:
        if isinstance(line, Span):
            try:
                line = read_span(input_fd, line)
            except MemoryError:
                checked.append((FAILED, failed_line(number, memory_message(memory))))
                continue
        if manifest is not None:
            checked.append(check_manifest_line(options, number, line, manifest, memory))
        else:
            checked.append(check_line(options, number, line, memory))
    return checked


def check_one(
    options: Options,
    number: int,
    line: bytes | str | Span,
    manifest: Manifest | None = None,
    input_fd: int | None = None,
) -> Checked:
    """check_lines() of one line, in this process."""
    return check_lines(options, [(number, line)], None, manifest, input_fd)[0]


def unfinished(number: int, line: bytes | str, message: str, manifest: bool) -> Checked:
    """The answer of a line whose check never finished (its worker died): its
    id, when it has one, read without parsing the line (``manifest``: it is a
    manifest entry)."""
    return FAILED, failed_line(number, message, line_id(line, manifest))
