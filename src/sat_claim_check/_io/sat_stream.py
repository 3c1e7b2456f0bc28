"""A sat claim from files, checked as the CNF streams.

The model is read first (its size is bounded by ``max_assignment_literals``),
then the CNF part by part: each part's clauses are checked against the model
as they are scanned and dropped, so memory follows the model and the longest
clause, not the formula.  The answers are those of the CNF and the model read
whole (``_io.whole_files``), then checked (``_core.sat``), in the validation
order of docs/semantics.md: the CNF's errors come first (a malformed line
anywhere in it, a limit it passes), then the model's, then the assignment's
scan, then the first clause that fails.  So a problem met early waits for the
end of the CNF: the model's error is kept, and so is the first failing
clause, while the rest of the CNF is read.

The CNF is read as ``_io.whole_files.read_cnf`` reads it: the same chunks, its
text scanned up to the last whitespace read (a ``p`` line waits whole), and
its decisions taken at the same points (each time the bytes read double from
one chunk on): an error found waits for the next such point, where the byte
cap and the run without whitespace are checked too.
"""

from __future__ import annotations

import contextlib
import re
from array import array
from collections.abc import KeysView
from typing import TYPE_CHECKING, Any, Callable

from .._core import codes as _codes
from .._core.report import Report, result
from .._core.sat import first_failure, scan_assignment
from .._core.session import with_hint as with_verdict_hint
from .._core.sizes import check_size, memory_error
from .._core.validate import validate_arrays
from .._engines import scanner
from . import bounds as _bounds
from . import source as _source
from .dimacs_text import (
    LONGEST_RUN,
    Input,
    after_last_whitespace,
    file_chunks,
    no_whitespace,
    text_error,
    too_long,
    with_hint,
)
from .whole_files import raise_passed, read_model

if TYPE_CHECKING:
    from .._core.options import Options
    from .._core.sat import Failure
    from ..limits import Limits

    # Told of each part's clauses: (num_vars, index of the first, offsets, lits).
    OnClauses = Callable[[int, int, array[int], array[int]], None]

_HEAD = 4096  # the first bytes of a file, for a hint
_NOT_SPACE = re.compile(rb"[^ \t\n\r\x0b\x0c]")  # not the whitespace of bytes.split()
_LEADS = (b"p", b"s")  # a line starting so waits whole (as whole_files._whole_tokens)


def sat_report(
    options: Options,
    cnf_path: Input,
    model_path: Input,
    max_bytes: int | None,
    notes: Callable[[str], None] | None,
) -> Report:
    """The Report of a CNF file with a model file, checked as the CNF streams."""
    limits = options.limits
    said: list[str] = []  # the model's notes, told once the CNF is read
    claim = _SatClaim(limits)
    try:
        model_cap = _bounds.model_bytes(limits) if max_bytes is None else max_bytes
        claim.take(read_model(model_path, limits, model_cap, said.append))
    except Exception as exc:  # the CNF's errors come first: it waits for them
        claim.problem = exc
    cnf_cap = _bounds.cnf_bytes(limits) if max_bytes is None else max_bytes
    num_vars, clauses, literals = stream_cnf(cnf_path, limits, cnf_cap, claim.clauses)
    if notes is not None:
        for note in said:
            notes(note)
    reason, discrepancy, checked = claim.outcome(num_vars, clauses, literals)
    report = Report(result("sat", reason, discrepancy, checked, 0), 0, options.engine)
    return with_verdict_hint(report, options)


class _SatClaim:
    """The model, and what checking the clauses against it found so far."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.problem: Exception | None = None  # the model's error, raised after the CNF's
        self.model: array[int] | None = None  # the model, until its scan
        self.true: KeysView[int] | None = None  # its literals, once scanned
        self.failure: Failure | None = None  # the first fault found

    def take(self, model: list[int]) -> None:
        """The model read; its validation (as the request's) waits for the CNF."""
        try:
            self.model = validate_arrays(
                0, array("i", [0]), array("i"), assignment=model, limits=self.limits
            ).assignment
        except Exception as exc:
            self.problem = exc

    def _scan(self, num_vars: int) -> None:
        """The assignment's scan, once the header is known."""
        if self.model is not None and self.true is None and self.failure is None:
            found = scan_assignment(self.model, num_vars)
            if isinstance(found, KeysView):
                self.true = found
            else:
                self.failure = found
            self.model = None  # the set of its literals is all that is needed now

    def clauses(self, num_vars: int, base: int, offsets: array[int], lits: array[int]) -> None:
        """Check a part's clauses (numbered from ``base``), up to the first fault."""
        self._scan(num_vars)
        if self.true is not None and self.failure is None:
            self.failure = first_failure(self.true, offsets, lits, base)

    def outcome(self, num_vars: int, clauses: int, literals: int) -> tuple[Any, Any, int]:
        """(reason, discrepancy, clauses_checked) once the CNF is read whole, or
        the first error of the request's validation after the CNF's."""
        if self.problem is not None:
            raise self.problem
        for name, count in (
            ("max_vars", num_vars),
            ("max_clauses", clauses),
            ("max_total_literals", literals),
        ):
            check_size(name, count, self.limits)
        self._scan(num_vars)  # a CNF without clauses
        if self.failure is not None:
            return self.failure
        return None, None, clauses


def stream_cnf(
    path: Input, limits: Limits, max_bytes: int, on_clauses: OnClauses
) -> tuple[int, int, int]:
    """Read and scan a CNF file part by part, telling ``on_clauses`` of each
    part's clauses; return (num_vars, clauses, literals), or raise what
    ``read_cnf`` raises for the same file."""
    reader = _CnfReader(path, limits, max_bytes, on_clauses)
    try:
        return reader.read()
    except MemoryError:
        num_vars, num_clauses = reader.stream.header
        counts = [
            (name, count)
            for name, count in (("max_vars", num_vars), ("max_clauses", num_clauses))
            if count >= 0
        ]
        error = memory_error(counts, limits) if counts else None
        if error is None:
            raise
        raise error from None


class _CnfReader:
    """One CNF file read and scanned in parts (``stream_cnf``)."""

    def __init__(self, path: Input, limits: Limits, max_bytes: int, on_clauses: OnClauses):
        self.path = path
        self.name = _source.path_text(path)
        self.limits = limits
        self.max_bytes = max_bytes
        self.on_clauses = on_clauses
        self.stream = scanner().CnfTextStream(
            limits.max_vars, limits.max_clauses, limits.max_total_literals
        )
        self.pending = bytearray()  # read, not scanned yet (from a line's start or a token's)
        self.scanned = 0  # bytes scanned: where pending starts in the file
        self.lead: bytes | None = None  # the first token's byte on pending's line, if before it
        self.clauses = 0  # clauses scanned
        self.literals = 0  # their literals
        self.found: tuple[Any, ...] | None = None  # a part's error or stop, waiting for a decision
        self.head = bytearray()  # the file's first bytes
        # What _cut found in pending[:searched] (bytes it need not search
        # again): where the bytes after its last whitespace and after its
        # last newline start (0: none).
        self.searched = self.after_space = self.after_newline = 0
        self.hint_head: bytes | None = None  # those of the first decision's text (read_cnf's)

    def read(self) -> tuple[int, int, int]:
        read = 0  # bytes read
        next_scan = _bounds.CHUNK
        chunks = file_chunks(self.path)
        with contextlib.closing(chunks):  # closes the file when reading stops early
            for chunk in chunks:
                read += len(chunk)
                if len(self.head) < _HEAD:
                    self.head += chunk[: _HEAD - len(self.head)]
                over = read > self.max_bytes
                if self.found is None or self.scanned < _HEAD:  # (for hint_head)
                    self.pending += chunk
                within = len(self.pending) - max(0, read - self.max_bytes)
                if self.found is None:
                    self._scan(self._cut(within), False)
                if over or read >= next_scan:  # a decision, where read_cnf's would be
                    if self.hint_head is None:  # the text read_cnf scanned first
                        cut = self.scanned + (self._cut(within) if self.found else 0)
                        self.hint_head = bytes(self.head[: min(_HEAD, cut)])
                    if self.found is not None:
                        self._raise(self.found)
                    if over:
                        raise too_long("CNF", self.max_bytes, self.name)
                    run_start = self.scanned + after_last_whitespace(
                        self.pending, len(self.pending)
                    )
                    if read - run_start >= LONGEST_RUN:
                        raise no_whitespace("CNF", self.name, run_start)
                    next_scan = 2 * read
        if self.hint_head is None:
            self.hint_head = bytes(self.head)
        if self.found is None:
            self._scan(len(self.pending), True)
        if self.found is not None:
            self._raise(self.found)
        return self.stream.header[0], self.clauses, self.literals

    def _cut(self, end: int) -> int:
        """Where the part to scan now ends: after the last whitespace in
        pending[:end], or at the start of its line when that line starts with
        'p' or 's' (as ``whole_files._whole_tokens`` cuts the text read)."""
        pending = self.pending
        if end < self.searched:  # (a cut before the byte cap) searched afresh
            self.searched = self.after_space = self.after_newline = 0
        # Only the bytes added since the last call are searched: a line that
        # waits whole, or a run without whitespace, is not searched again at
        # every chunk.
        start = self.searched
        self.after_space = after_last_whitespace(pending, end, start) or self.after_space
        self.after_newline = pending.rfind(b"\n", start, end) + 1 or self.after_newline
        self.searched = end
        cut = self.after_space
        line_start = self.after_newline  # a newline is whitespace: the last is before cut
        found = _NOT_SPACE.search(pending, line_start, cut)
        lead = b"" if found is None else bytes(pending[found.start() : found.start() + 1])
        if line_start == 0 and self.lead is not None:
            lead = self.lead  # the line started in a part scanned before
        return line_start if lead in _LEADS else cut

    def _scan(self, cut: int, final: bool) -> None:
        if cut == 0 and not final:
            return
        with memoryview(self.pending)[:cut] as part:
            found = self.stream.scan(part, final)
        code, _, _, _, offsets, lits = found
        line_start = self.pending.rfind(b"\n", 0, cut) + 1
        lead = bytes(self.pending[line_start:cut].lstrip()[:1]) or None
        self.lead = lead if line_start else self.lead or lead
        del self.pending[:cut]
        self.scanned += cut
        self.searched = max(self.searched - cut, 0)
        self.after_space = max(self.after_space - cut, 0)
        self.after_newline = max(self.after_newline - cut, 0)
        if code == _codes.SCAN_OK and len(offsets) > 1:
            self.on_clauses(self.stream.header[0], self.clauses, offsets, lits)
        self.clauses += len(offsets) - 1
        self.literals += len(lits)
        if code != _codes.SCAN_OK:
            self.found = found

    def _raise(self, found: tuple[Any, ...]) -> None:
        code, line, token, value = found[:4]
        num_vars, num_clauses = self.stream.header
        if code == _codes.SCAN_STOPPED:  # at least one of these is passed
            raise_passed(
                [
                    ("max_vars", num_vars),
                    ("max_clauses", num_clauses),
                    ("max_total_literals", self.literals),
                ],
                self.limits,
            )
        err = text_error(code, line, token, value, self.name, "CNF", (num_vars, num_clauses))
        raise with_hint(err, self.hint_head or b"")
