"""``batch``: JSON Lines in, one output line per input line, in input order.

One job checks in this process; more jobs check chunks of lines in worker
processes, with a bounded number of chunks in flight so memory stays bounded
whatever the input size.
"""

from __future__ import annotations

import sys
import time
from collections import deque
from collections.abc import Iterable, Iterator
from typing import BinaryIO, TextIO

from ._check import run
from ._codes import EXIT_NOT_VALID, EXIT_REJECTED, EXIT_VALID
from ._jsontext import dumps, loads
from .errors import CheckError, InvalidInput
from .limits import Limits

__all__ = ["CHUNK_LINES", "Progress", "check_lines", "run_batch"]

CHUNK_LINES = 32        # lines per task sent to a worker
_SKIP_CHUNK = 1 << 20   # bytes read at a time while skipping a line that is too long


def check_lines(engine: str, limits: Limits, lines: Iterable[tuple[int, bytes | str]],
                ) -> list[tuple[int, str]]:
    """Check numbered JSON lines; [(exit code, output text)], in order.

    Runs in the worker processes of ``batch --jobs N`` (module level, so it
    pickles) and in the main process for one job.
    """
    out = []
    for number, line in lines:
        try:
            if isinstance(line, str):       # numbered_lines' reason for refusing the line
                raise InvalidInput(None, "", line)
            if not line.strip():
                raise InvalidInput(None, "", "blank line: every line must hold one "
                                   "JSON request")
            result = run(loads(line), engine=engine, limits=limits).result
        except CheckError as err:
            error = err.to_dict()
            error["line"] = number
            out.append((EXIT_REJECTED, dumps(error)))
        else:
            out.append((EXIT_VALID if result["valid"] else EXIT_NOT_VALID, dumps(result)))
    return out


def numbered_lines(stream: BinaryIO, max_bytes: int | None = None,
                   ) -> Iterator[tuple[int, bytes | str]]:
    """(1-based number, bytes) per line; a final newline ends the last line.

    A line longer than ``max_bytes`` is never held whole: its number comes
    with the reason (a str) instead, and the rest of it is skipped in chunks,
    up to ``skip_bytes(max_bytes)``; a line with no end by then (an endless
    stream) ends the input there.
    """
    number = 0
    while True:
        line = stream.readline() if max_bytes is None else stream.readline(max_bytes + 1)
        if not line:
            return
        number += 1
        if line.endswith(b"\n"):
            yield number, line[:-1]
            continue
        if max_bytes is None or len(line) <= max_bytes:
            yield number, line          # the last line, with no newline
            continue
        reason = (f"the line is longer than {max_bytes} bytes, the most read at these "
                  "limits (raise the limits, or --max-input-bytes)")
        most, skipped = skip_bytes(max_bytes), len(line)
        while line and not line.endswith(b"\n"):
            if skipped > most:
                yield number, f"{reason}; it has no end within {most} bytes: the input stops here"
                return
            line = stream.readline(_SKIP_CHUNK)
            skipped += len(line)
        yield number, reason


def skip_bytes(max_bytes: int) -> int:
    """How far a line over the cap is skipped before the input is given up."""
    return max(16 * max_bytes, 64 << 20)


def chunks(items, size):
    chunk = []
    for item in items:
        chunk.append(item)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def in_order(executor, fn, work, ahead):
    """executor.map with at most ``ahead`` tasks in flight (bounded memory)."""
    pending = deque()
    for item in work:
        pending.append(executor.submit(fn, item))
        if len(pending) >= ahead:
            yield pending.popleft().result()
    while pending:
        yield pending.popleft().result()


class Progress:
    """A progress line on stderr, only when stderr is a terminal."""

    def __init__(self, stream, total_bytes):
        self.enabled = sys.stderr.isatty()
        self.stream = stream
        self.total = total_bytes
        self.last = 0.0

    def update(self, counts):
        now = time.monotonic()
        if not self.enabled or now - self.last < 0.2:
            return
        self.last = now
        line = f"{sum(counts)} lines ({counts[0]} valid, {counts[1]} not, {counts[2]} rejected)"
        if self.total:
            # The reader runs a few chunks ahead of the writer: close enough.
            frac = min(1.0, self.stream.tell() / self.total)
            bar = "#" * int(30 * frac)
            line = f"[{bar:<30}] {100 * frac:3.0f}% {line}"
        sys.stderr.write("\r" + line)
        sys.stderr.flush()

    def close(self):
        if self.enabled:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()


def run_batch(stream: BinaryIO, out: TextIO, *, engine: str, limits: Limits, jobs: int,
              progress: Progress, max_line_bytes: int | None = None) -> list[int]:
    """Check every line of ``stream`` (binary), writing one line each to ``out``.

    Returns the counts [valid, not valid, rejected].  OSError from reading
    the input propagates.  A line over ``max_line_bytes`` is rejected unread.
    """
    counts = [0, 0, 0]
    work = chunks(numbered_lines(stream, max_line_bytes), CHUNK_LINES)
    if jobs == 1:
        _write(out, (check_lines(engine, limits, chunk) for chunk in work), counts, progress)
        return counts
    from concurrent.futures import ProcessPoolExecutor
    from functools import partial
    with ProcessPoolExecutor(jobs) as executor:
        results = in_order(executor, partial(check_lines, engine, limits), work, 4 * jobs)
        _write(out, results, counts, progress)
    return counts


def _write(out, results, counts, progress):
    for chunk in results:
        for code, text in chunk:
            counts[code] += 1
            out.write(text + "\n")
        out.flush()
        progress.update(counts)
