"""A proof checked as it is read: parts scanned by a reader thread, fed to a Checker.

``check_stream`` is what ``dimacs.run_files`` and ``request --check`` run
for an unsat claim: memory follows the clauses alive, not the length of the
proof, a named pipe or standard input is checked while its writer writes,
and reading stops at the first step that fails or passes a limit.
``StepMemo`` keeps the steps ``--explain`` names.
"""

from __future__ import annotations

import collections
import contextlib
import os
import queue
import stat
import threading
from collections.abc import Generator, Iterator
from typing import IO, TYPE_CHECKING, Any, cast

from .._core import codes as _codes
from .._core.checker import Checker
from .._engines import scanner
from ..errors import LimitExceeded
from . import source as _source
from .dimacs_text import (
    LONGEST_RUN,
    DimacsError,
    Input,
    after_last_whitespace,
    binary_error,
    check_format,
    file_name,
    no_whitespace,
    text_error,
    too_long,
    with_hint,
)
from .frat import FRAT_NOTE, FratText
from .proof_head import Head, Notes, SkipNotes, proof_kind, rup_note

if TYPE_CHECKING:
    from .._core.types import DrupPart, Progress, ProofFormat, Reading
    from .._segments.front import Segments


# Parts of a proof read ahead of the checker, and their size (of text, after
# decompression): enough to keep both threads busy, little enough that the
# parts in flight weigh less than the clauses they bring.
READ_AHEAD = 2
PART_BYTES = 1 << 18


def check_stream(
    checker: Checker | Segments,
    path: Input,
    max_bytes: int,
    *,
    progress: Progress | None = None,
    reading: Reading | None = None,
    memo: StepMemo | None = None,
    proof_format: ProofFormat = "auto",
    notes: Notes | None = None,
) -> None:
    """Feed ``checker`` the DRUP proof of a file or pipe, as it is read.

    A thread reads, decompresses and scans the text (all three without the
    GIL in the compiled build) while this thread checks the steps scanned
    so far.  Reading stops at the first step that fails (the verdict is then
    the checker's), at the first limit the checker raises, at a malformed
    line (DimacsError, raised once the steps before it are checked), past
    ``max_bytes`` of text (DimacsError) and at a step the scanner cannot
    hold (the limit error the counts explain, else the MemoryError).  ``memo`` keeps the steps that
    ``--explain`` needs (the failing one is the checker's).  ``proof_format``:
    "auto" (told by the first bytes), "text" or "binary".  ``notes(text)`` is
    told, in this thread, once each, of lines skipped and of a proof read as
    FRAT or PicoSAT's (``proof_parts``).
    """
    name = file_name(path)
    # Notes arise in the reader thread and are said here, before the part
    # they came with is checked.
    pending: collections.deque[str] = collections.deque()
    parts = proof_parts(path, max_bytes, proof_format, None if notes is None else pending.append)
    # A file of at most one part on disk is read here: a thread would only add
    # its start-up.  (A small compressed file that holds more is then read and
    # checked in turn, without the overlap.)
    reader = _ReadAhead(parts) if _more_than_a_chunk(path) else contextlib.closing(parts)
    try:
        _check_parts(checker, reader, name, max_bytes, progress, reading, memo, pending, notes)
    except ProofOutOfMemory as exc:
        checker._reading_ran_out(exc.open_literals)  # raises the limit it passed, if any
        if not checker.done:
            raise
    finally:
        while notes is not None and pending:
            notes(pending.popleft())


def _check_parts(
    checker: Checker | Segments,
    reader: Any,
    name: str,
    max_bytes: int,
    progress: Progress | None,
    reading: Reading | None,
    memo: StepMemo | None,
    pending: collections.deque[str],
    notes: Notes | None,
) -> None:
    with reader as parts:
        for part in parts:
            while notes is not None and pending:
                notes(pending.popleft())
            base = checker.steps
            try:
                checker._feed_arrays(part.kinds, part.offsets, part.lits)
            except LimitExceeded as err:
                err.read_stopped = True
                s = checker.steps - base  # the step that passed it
                if 0 <= s < len(part.lines):
                    err.file_line = part.place(s, name)
                raise
            if memo is not None and isinstance(checker, Checker):
                memo.keep(checker, base, part)
            if progress is not None:
                progress(checker.checked, checker.work)
            if reading is not None:
                reading(part.bytes_read, part.total_bytes)
            if checker.done:  # failed, or concluded (the drat-trim reading)
                return
            part.raise_problem(name, max_bytes)


class _Part:
    """Steps scanned from one part of a proof: the arrays, then what ended the
    scan there (a scanner code, or the byte cap), and how far reading got."""

    __slots__ = (
        "binary",
        "bytes_read",
        "code",
        "head",
        "kinds",
        "line",
        "lines",
        "lits",
        "offsets",
        "over_cap",
        "token",
        "total_bytes",
        "value",
    )

    def __init__(
        self,
        scan: DrupPart,
        source: _source.Source,
        binary: bool,
        head: bytes,
        over_cap: bool = False,
    ) -> None:
        # For a binary proof, line is the error's byte offset and lines the
        # steps' byte offsets.
        (
            self.code,
            self.line,
            self.token,
            self.value,
            self.kinds,
            self.offsets,
            self.lits,
            self.lines,
        ) = scan
        self.bytes_read, self.total_bytes = source.bytes_read, source.size
        self.binary = binary
        self.head = head  # the proof's first bytes, for a hint
        self.over_cap = over_cap

    def raise_problem(self, name: str, max_bytes: int) -> None:
        """Raise what ended the scan at this part, if anything: malformed text
        (the scanner's code) or the byte cap."""
        if self.code and self.binary:
            err = binary_error(self.code, self.line, self.token, self.value, name)
            raise with_hint(err, self.head)
        if self.code:
            err = text_error(self.code, self.line, self.token, self.value, name, "proof")
            raise with_hint(err, self.head)
        if self.over_cap:
            raise too_long("proof", max_bytes, name)

    def place(self, i: int, name: str) -> tuple[str, int] | None:
        """(file, line) where step i of the part starts; None for a binary proof."""
        return None if self.binary else (name, self.lines[i])


def proof_parts(
    path: Input, max_bytes: int, proof_format: ProofFormat, notes: Notes | None = None
) -> Generator[_Part, None, None]:
    """The proof's steps, a part at a time, scanned as the bytes are read.

    The first bytes say whether the proof is text or binary (``proof_format``
    "auto"), FRAT or PicoSAT's (``_io.proof_head.proof_kind``).  A text chunk
    is cut after its last whitespace byte (no token is cut in two: the rest
    waits for the next chunk); a binary chunk goes as it is.  The scanner
    keeps a step that spans parts.  The generator ends after a part with an
    error, or at the byte cap (``max_bytes`` after decompression), or at the
    end of the proof.  ``notes(text)``, when given, is told once each of a
    proof read as FRAT, of PicoSAT's header and of the first status line
    (and, in a binary proof, comment line) skipped.
    """
    with _source.chunks(path, PART_BYTES) as source:
        chunks = iter(source)
        try:
            gathered = Head()
            for chunk in chunks:
                if gathered.add(chunk):
                    break
            head = gathered.data
            check_format(proof_format)
            kind, start = proof_kind(head, proof_format)
            binary = kind == "binary"
            say = notes or _quiet
            if kind == "rup":
                say(rup_note(head, start))
                head = head[:start] + b"c" + head[start + 1 :]  # the header, made a comment
            stream: Any = scanner().BinaryDrupStream() if binary else scanner().DrupTextStream()
            if kind == "frat":
                say(FRAT_NOTE)
                stream = FratText(stream, file_name(path))
            skipped = None if notes is None else SkipNotes(stream, binary, notes)
            first = head[:4096]
            # The text after the last whitespace read (a token not yet whole),
            # kept as its chunks: joined once, when a chunk ends it, not again
            # for every chunk that adds to it (a chunk may be a few bytes).
            run: list[bytes] = []
            run_bytes = 0
            read = 0
            for chunk in _prepend(head, chunks):
                read += len(chunk)
                over = read > max_bytes
                if over:
                    chunk = chunk[: len(chunk) - (read - max_bytes)]
                cut = len(chunk) if binary else after_last_whitespace(chunk, len(chunk))
                if cut == 0 and not binary:  # the run goes on: nothing to scan yet
                    run.append(chunk)
                    run_bytes += len(chunk)
                    data = b""
                else:
                    data = b"".join([*run, chunk]) if run else chunk
                    cut += run_bytes
                    tail = data[cut:]
                    run, run_bytes = ([tail] if tail else []), len(tail)
                view = memoryview(data)[:cut]
                part = _Part(_scan(stream, view, False), source, binary, first, over)
                if skipped is not None:
                    skipped.after(view)
                yield part
                if part.code or over:
                    return
                if run_bytes >= LONGEST_RUN:
                    raise no_whitespace("proof", file_name(path), read - run_bytes)
        except _source.SourceError as exc:
            raise DimacsError(str(exc), file_name(path)) from None
        rest = b"".join(run)
        part = _Part(_scan(stream, rest, True), source, binary, first)
        if skipped is not None:
            skipped.after(rest)
        yield part


class ProofOutOfMemory(MemoryError):
    """The scanner could not hold the step it was reading: ``open_literals``
    of it were read."""

    def __init__(self, open_literals: int) -> None:
        super().__init__("not enough memory for the proof step being read")
        self.open_literals = open_literals


def _scan(stream: Any, data: bytes | memoryview, final: bool) -> DrupPart:
    try:
        part: DrupPart = stream.scan(data, final)
    except MemoryError:
        raise ProofOutOfMemory(stream.open_literals) from None
    return part


def _quiet(note: str) -> None:
    """The notes of a caller that wants none."""


def _prepend(first: bytes, rest: Iterator[bytes]) -> Iterator[bytes]:
    if first:
        yield first
    yield from rest


def _more_than_a_chunk(path: Input) -> bool:
    """False for a regular file of at most one chunk; True otherwise (a pipe)."""
    if isinstance(path, str) and path == "-":
        return True
    try:
        if _source.is_open_file(path):
            info = os.fstat(cast("IO[bytes]", path).fileno())
        else:
            info = os.stat(cast("str", path))
    except (OSError, ValueError):
        return True  # the error is the reader's to raise
    return not stat.S_ISREG(info.st_mode) or info.st_size > PART_BYTES


class _ReadAhead:
    """Iterate over a generator run in a thread, at most READ_AHEAD items ahead.

    The thread's exception is raised here, in order.  Leaving the ``with``
    stops the thread at its next item (a thread blocked on a pipe that says
    nothing more is left behind: it is a daemon and ends with its read).
    """

    _END = object()

    def __init__(self, items: Generator[Any, None, None]) -> None:
        self._items = items
        self._queue: queue.Queue[Any] = queue.Queue(READ_AHEAD)
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._run, name="sat-claim-check reader", daemon=True
        )

    def _run(self) -> None:
        try:
            for item in self._items:
                if not self._put(item):
                    break
        except BaseException as exc:  # raised in the checking thread, in order
            self._put(_Raised(exc))
        else:
            self._put(self._END)
        finally:
            self._items.close()

    def _put(self, item: Any) -> bool:
        while not self._stop.is_set():
            try:
                self._queue.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def __enter__(self) -> Generator[Any, None, None]:
        self._thread.start()
        return self._take()

    def _take(self) -> Generator[Any, None, None]:
        while True:
            item = self._queue.get()
            if item is self._END:
                return
            if isinstance(item, _Raised):
                raise item.exc
            yield item

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        with contextlib.suppress(queue.Empty):
            while True:
                self._queue.get_nowait()
        if not self._thread.is_alive() or exc_info[0] is None:
            self._thread.join(timeout=1.0)


class _Raised:
    __slots__ = ("exc",)

    def __init__(self, exc: BaseException) -> None:
        self.exc = exc


class StepMemo:
    """The proof steps ``--explain`` may name, kept as a proof is streamed:
    the failing step and the deletions of reason clauses (the first ``most``),
    with the line of the file where each starts."""

    def __init__(self, file: str, most: int = 1000) -> None:
        self.file = file
        self.steps: dict[int, dict[str, list[int]]] = {}
        self.places: dict[int, str] = {}
        self.most = most
        self._seen = 0

    def keep(self, checker: Checker, base: int, part: _Part) -> None:
        """Keep what the part just fed holds of those steps (steps base...)."""
        wanted = checker._reason_deletions_from(self._seen, max(self.most - len(self.steps), 0))
        self._seen = checker._reason_deletion_count()
        if checker.failed:
            wanted.append(checker.steps)  # the failing step's index
        for s in wanted:
            i = s - base
            if 0 <= i < len(part.kinds):
                lits = part.lits[part.offsets[i] : part.offsets[i + 1]].tolist()
                self.steps[s] = {_codes.step_key(part.kinds[i]): lits}
                self.places[s] = (
                    f"{self.file}:byte {part.lines[i]}"
                    if part.binary
                    else f"{self.file}:{part.lines[i]}"
                )

    def step_of(self, step: int) -> dict[str, list[int]]:
        """The step as a request step, or {} when it was not kept."""
        return self.steps.get(step, {})

    def where(self, step: int) -> str | None:
        """ "FILE:LINE" ("FILE:byte N" for a binary proof) of a kept step, else None."""
        return self.places.get(step)
