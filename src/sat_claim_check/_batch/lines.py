"""Numbered lines from the input: the lines of a stream, with the byte cap, and
the lines of a regular file as Spans (where they are) for workers to read.

A line over the cap is never held whole: its number comes with the reason it
is refused (a str), and a line with no end within ``skip_bytes`` ends the
input there, the same rule to the byte for a stream and for a file.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import NamedTuple, Protocol, Union

__all__ = [
    "LineReader",
    "Numbered",
    "Span",
    "SpanScan",
    "numbered_lines",
    "numbered_spans",
    "read_span",
    "skip_bytes",
]

_SKIP_CHUNK = 1 << 20  # bytes read at a time while skipping a line that is too long
_SPAN_READ_BYTES = 1 << 20  # bytes of an input file scanned for line ends at a time
_SPAN_MIN_BYTES = 4096  # a shorter line goes to a worker as bytes: cheaper than a Span


class Span(NamedTuple):
    """Where a line is in the input file (without its newline).  With workers
    and an input file, the batch process sends them this for a long line and
    the worker reads it itself (read_span): its bytes then cross no pipe."""

    offset: int
    length: int


# (1-based line number, the line without its newline, a str: numbered_lines'
# reason for refusing a line too long to read, or where it is in the input file)
Numbered = tuple[int, Union[bytes, str, Span]]


class LineReader(Protocol):
    """What numbered_lines() reads: a binary file object, or reader._FdReader."""

    def readline(self, size: int = -1, /) -> bytes: ...


def numbered_lines(stream: LineReader, max_bytes: int | None = None) -> Iterator[Numbered]:
    """(1-based number, bytes) per line; a final newline ends the last line.

    A line longer than ``max_bytes`` is never held whole: its number comes
    with the reason (a str) instead, and the rest of it is skipped in chunks;
    a line longer than ``skip_bytes(max_bytes)`` (an endless stream) ends the
    input there (numbered_spans keeps the same rule to the byte).
    """
    if max_bytes is None:  # no cap: readline() to the end, or any iterable of lines
        reader = getattr(stream, "readline", None)
        lines: Iterator[bytes] = iter(reader, b"") if reader else iter(stream)  # type: ignore[call-overload]
        for number, line in enumerate(lines, 1):
            yield number, line[:-1] if line.endswith(b"\n") else line
        return
    number = 0
    while True:
        line = stream.readline(max_bytes + 1)
        if not line:
            return
        number += 1
        if line.endswith(b"\n"):
            yield number, line[:-1]
            continue
        if len(line) <= max_bytes:
            yield number, line  # the last line, with no newline
            continue
        most, skipped = skip_bytes(max_bytes), len(line)
        while line and not line.endswith(b"\n"):
            if _ends_input(skipped, max_bytes):
                yield number, _no_end(max_bytes)
                return
            # Not past most + 1: a line of more than most bytes stops the
            # input whatever the chunks.
            line = stream.readline(min(_SKIP_CHUNK, most + 1 - skipped))
            skipped += len(line)
        yield number, _too_long(max_bytes)


def skip_bytes(max_bytes: int) -> int:
    """How far a line over the cap is skipped before the input is given up."""
    return max(16 * max_bytes, 64 << 20)


def _too_long(max_bytes: int) -> str:
    return (
        f"the line is longer than {max_bytes} bytes, the most read at these "
        "limits (raise the limits, or --max-input-bytes)"
    )


def _no_end(max_bytes: int) -> str:
    return (
        f"{_too_long(max_bytes)}; it has no end within {skip_bytes(max_bytes)} bytes: "
        "the input stops here"
    )


def numbered_spans(fd: int, start: int, max_bytes: int | None = None) -> SpanScan:
    """numbered_lines() of the regular file ``fd`` from byte ``start`` on, a
    line within the cap as its Span, or its bytes when it is shorter than
    _SPAN_MIN_BYTES (or the same reason for refusing it, a str): the file is
    scanned for line ends a block at a time, and no long line is held."""
    return SpanScan(fd, start, max_bytes)


class SpanScan:
    """The lines of numbered_spans(), and how far they reach: ``position`` is
    the offset just after the last line given (and its newline)."""

    def __init__(self, fd: int, start: int, max_bytes: int | None) -> None:
        self.fd = fd
        self.position = start
        self._lines = self._scan(fd, start, max_bytes)

    def __iter__(self) -> Iterator[Numbered]:
        return self._lines

    def _scan(self, fd: int, start: int, max_bytes: int | None) -> Iterator[Numbered]:
        number = 0
        line_start = at = start
        while True:
            block = os.pread(fd, _SPAN_READ_BYTES, at)
            if not block:
                break
            found = block.find(b"\n")
            while found >= 0:
                number += 1
                length = at + found - line_start
                self.position = at + found + 1
                if max_bytes is None or length <= max_bytes:
                    if length < _SPAN_MIN_BYTES and line_start >= at:
                        yield number, block[found - length : found]
                    else:
                        yield number, Span(line_start, length)
                else:
                    yield number, _refusal(length, max_bytes)
                    if _ends_input(length, max_bytes):
                        return
                line_start = self.position
                found = block.find(b"\n", found + 1)
            at += len(block)
            if max_bytes is not None and _ends_input(at - line_start, max_bytes):
                self.position = at
                yield number + 1, _refusal(at - line_start, max_bytes)  # no need to read on
                return
        length = at - line_start
        if not length:
            return
        self.position = at  # the last line, with no newline
        if max_bytes is not None and length > max_bytes:
            yield number + 1, _refusal(length, max_bytes)
        elif length < _SPAN_MIN_BYTES:
            yield number + 1, read_span(fd, Span(line_start, length))
        else:
            yield number + 1, Span(line_start, length)


def _refusal(length: int, max_bytes: int) -> str:
    """numbered_lines' reason for refusing a line this long (over max_bytes)."""
    return _no_end(max_bytes) if _ends_input(length, max_bytes) else _too_long(max_bytes)


def _ends_input(length: int, max_bytes: int) -> bool:
    """Whether a line this long ends the input (numbered_lines' rule, to the byte)."""
    return length > skip_bytes(max_bytes)


def read_span(fd: int | None, span: Span) -> bytes | str:
    """The line at ``span`` of the input file, or why it cannot be read (a str:
    the line is rejected with it)."""
    assert fd is not None, "a Span without the input file"
    try:
        data = os.pread(fd, span.length, span.offset)
    except OSError as exc:
        return f"cannot read this line of the input: {exc.strerror or exc}"
    if len(data) != span.length:
        return "the input file changed while the batch read it: this line is no longer there"
    return data
