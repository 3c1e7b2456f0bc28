"""The standard streams: a line on standard output (or in a file), a human line
on stderr, and what happens when a write fails; standard input's bytes.

What is written is described in docs/semantics.md ("Output bytes").
"""

from __future__ import annotations

import errno
import os
import sys
from contextlib import suppress
from typing import IO, Any

from .._batch.console import WriteError
from .._core.codes import EXIT_BROKEN_PIPE, EXIT_REJECTED
from .._core.hints import json_misread_lines, limit_lines
from ..errors import CheckError, LimitExceeded


def stdout_closed() -> OSError:
    return OSError(errno.EBADF, "it is closed")


def write_line(text: str) -> None:
    """One line on standard output, flushed; WriteError when that fails."""
    if sys.stdout is None:  # the process was started with it closed
        raise WriteError(stdout_closed())
    try:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
    except OSError as exc:
        raise WriteError(exc) from None


def write_output(name: str, text: str, code: int) -> int:
    """write_line, or the line in the file ``name`` (an error there: a line on
    stderr, exit 2)."""
    if name == "-":
        write_line(text)
        return code
    try:
        with open(name, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    except OSError as exc:
        say(f"cannot write {name!r}: {exc.strerror or exc}")
        return EXIT_REJECTED
    return code


def write_failed(error: OSError) -> int:
    """Report a failed write on standard output; the exit status."""
    # Python flushes stdout again at exit: that must not fail (and print) too.
    to_devnull(sys.stdout)
    if isinstance(error, BrokenPipeError):
        return EXIT_BROKEN_PIPE  # the reader went away: it needs no message
    say(f"cannot write standard output: {error.strerror or error}")
    return EXIT_REJECTED


def to_devnull(stream: Any) -> None:
    """Point a standard stream's descriptor at the null device (what Python's
    documentation advises after a broken pipe)."""
    if stream is None:
        return
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # no descriptor (an in-memory stream)
        pass


def say(text: str) -> None:
    """One human line on stderr; never fails (an odd character, stderr closed or full)."""
    stream = sys.stderr
    if stream is None:
        return
    data = f"sat-claim-check: {text}\n"
    try:
        if hasattr(stream, "buffer"):
            stream.buffer.write(data.encode("utf-8", "backslashreplace"))
        else:
            stream.write(data)
        stream.flush()
    except (OSError, ValueError):
        to_devnull(stream)


def describe_error(err: CheckError) -> str:
    where = f" at {err.path}" if err.path else ""
    if isinstance(err, LimitExceeded) and err.file_line is not None:
        where += f" ({err.file_line[0]}:{err.file_line[1]})"
    return f"{err.error}{where}: {err.to_dict()['message']}"  # a file's name and line too


def say_error(err: CheckError, data: bytes | None = None, one_line: bool = False) -> None:
    """The error's line on stderr, then what to do about it (``one_line``: in the
    same line, as `check` writes one line).  ``data``: the input, when a `check`
    input that is not JSON text may be DIMACS."""
    if err.error == "invalid_input" and err.path == "" and err.message.startswith("cannot read "):
        say(err.message)  # the words of every command for an unreadable file
        return
    if isinstance(err, LimitExceeded):
        hints = limit_lines(err)
    elif data is not None and err.path == "" and err.message.startswith("malformed JSON"):
        hints = json_misread_lines(data[:4096])
    else:
        hints = []
    if one_line:
        say("; ".join([describe_error(err), *hints]))
        return
    for line in [describe_error(err), *hints]:
        say(line)


def standard_input() -> IO[bytes]:
    """sys.stdin's bytes; OSError when the process has no standard input."""
    if sys.stdin is None:
        raise OSError("standard input is closed")
    return sys.stdin.buffer


def reserve_standard_descriptors() -> None:
    """Open the null device on descriptor 0, 1 or 2 when the process was started
    with it closed, so that no file or pipe opened later takes that number and
    gets what is meant for standard input, output or error.  sys.stdin, stdout
    or stderr stays None: the commands see it is closed."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            with suppress(OSError):
                os.open(os.devnull, os.O_RDWR)  # the lowest free number: fd
