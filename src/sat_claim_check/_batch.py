"""``batch``: JSON Lines in, one output line per input line, in input order.

One job checks in this process; more jobs check chunks of lines in worker
processes, with a bounded number of chunks in flight so memory stays bounded
whatever the input size.
"""

from __future__ import annotations

import sys
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import IO, TYPE_CHECKING, TypeVar

from ._check import run_validated
from ._codes import EXIT_NOT_VALID, EXIT_REJECTED, EXIT_VALID
from ._engine import resolve
from ._jsontext import dumps, validated_from_text
from .errors import CheckError, InvalidInput

if TYPE_CHECKING:
    from concurrent.futures import Executor, Future

    from ._types import EngineName
    from .limits import Limits

_T = TypeVar("_T")
_R = TypeVar("_R")

__all__ = ["CHUNK_LINES", "Progress", "check_lines", "run_batch"]

CHUNK_LINES = 32        # lines per task sent to a worker


def check_lines(engine: EngineName, limits: Limits,
                lines: Iterable[tuple[int, bytes]]) -> list[tuple[int, str]]:
    """Check numbered JSON lines; [(exit code, output text)], in order.

    Runs in the worker processes of ``batch --jobs N`` (module level, so it
    pickles) and in the main process for one job.
    """
    out = []
    for number, line in lines:
        try:
            if not line.strip():
                raise InvalidInput(None, "", "blank line: every line must hold one "
                                   "JSON request")
            v = validated_from_text(line, limits)
            result = run_validated(v, *resolve(engine), limits).result
        except CheckError as err:
            error = err.to_dict()
            error["line"] = number
            out.append((EXIT_REJECTED, dumps(error)))
        else:
            out.append((EXIT_VALID if result["valid"] else EXIT_NOT_VALID, dumps(result)))
    return out


def numbered_lines(stream: Iterable[bytes]) -> Iterator[tuple[int, bytes]]:
    """(1-based number, bytes) per line; a final newline ends the last line."""
    for number, line in enumerate(stream, 1):
        yield number, line[:-1] if line.endswith(b"\n") else line


def chunks(items: Iterable[_T], size: int) -> Iterator[list[_T]]:
    chunk = []
    for item in items:
        chunk.append(item)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def in_order(executor: Executor, fn: Callable[[_T], _R], work: Iterable[_T],
             ahead: int) -> Iterator[_R]:
    """executor.map with at most ``ahead`` tasks in flight (bounded memory)."""
    pending: deque[Future[_R]] = deque()
    for item in work:
        pending.append(executor.submit(fn, item))
        if len(pending) >= ahead:
            yield pending.popleft().result()
    while pending:
        yield pending.popleft().result()


class Progress:
    """A progress line on stderr, only when stderr is a terminal."""

    def __init__(self, stream: IO[bytes], total_bytes: int) -> None:
        self.enabled = sys.stderr.isatty()
        self.stream = stream
        self.total = total_bytes
        self.last = 0.0

    def update(self, counts: list[int]) -> None:
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

    def close(self) -> None:
        if self.enabled:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()


def run_batch(stream: IO[bytes], out: IO[str], *, engine: EngineName, limits: Limits,
              jobs: int, progress: Progress) -> list[int]:
    """Check every line of ``stream`` (binary), writing one line each to ``out``.

    Returns the counts [valid, not valid, rejected].  OSError from reading
    the input propagates.
    """
    counts = [0, 0, 0]
    work = chunks(numbered_lines(stream), CHUNK_LINES)
    if jobs == 1:
        _write(out, (check_lines(engine, limits, chunk) for chunk in work), counts, progress)
        return counts
    from concurrent.futures import ProcessPoolExecutor
    from functools import partial
    with ProcessPoolExecutor(jobs) as executor:
        results = in_order(executor, partial(check_lines, engine, limits), work, 4 * jobs)
        _write(out, results, counts, progress)
    return counts


def _write(out: IO[str], results: Iterable[list[tuple[int, str]]], counts: list[int],
           progress: Progress) -> None:
    for chunk in results:
        for code, text in chunk:
            counts[code] += 1
            out.write(text + "\n")
        out.flush()
        progress.update(counts)
