"""Files read whole, within the limits: a CNF, a model, a proof made into a request.

Each is read in chunks and scanned as it grows, no further than needed: the
first limit passed is raised where reading stopped, a file that passes no
limit within its byte cap is refused, and one that does not fit in memory is
the limit error its counts explain (``_core.sizes.memory_error``).
``parse_files`` is the door (``sat_claim_check.dimacs`` names it);
``clause_line`` reads a CNF again for ``--explain``.
"""

from __future__ import annotations

import contextlib
import re
import time
from array import array
from bisect import bisect_right
from collections.abc import Generator, Iterable, Iterator
from typing import TYPE_CHECKING, Any, Callable, cast

from .._core import codes as _codes
from .._core.options import checked_settings
from .._core.sizes import check_size, memory_error
from .._core.validate import validate_arrays
from .._engines import scanner
from ..errors import LimitExceeded
from . import bounds as _bounds
from . import source as _source
from .dimacs_text import (
    LONGEST_RUN,
    DimacsError,
    Input,
    after_last_whitespace,
    file_chunks,
    file_name,
    model_literals,
    no_whitespace,
    text_error,
    too_long,
    with_hint,
)
from .proofstream import proof_parts

if TYPE_CHECKING:
    from .._core.types import Parsed, ProofArrays, ProofFormat
    from ..limits import Limits

_AT_THE_END = (_codes.SCAN_OK, _codes.SCAN_ERR_UNTERMINATED, _codes.SCAN_ERR_CLAUSE_COUNT)


def clause_line(path: Input, index: int) -> int | None:
    """The 1-based line of the CNF file where clause ``index`` (0-based) starts,
    or None when the file has no such clause (or cannot be read again: a pipe)."""
    if (isinstance(path, str) and path == "-") or _source.is_open_file(path):
        return None
    count, start = 0, 0
    for line, text in enumerate(_lines(path), 1):
        lead, words = _words(text)
        if lead is not None and not lead.startswith((b"c", b"p", b"%")):
            for word in words:
                start = start or line
                if word == b"0":
                    if count == index:
                        return start
                    count, start = count + 1, 0
    return None


_WORD = re.compile(rb"[^ \t\n\r\x0b\x0c]+")  # the words of bytes.split()
_SPACE = re.compile(rb"[ \t\n\r\x0b\x0c]")
_SPLIT_MOST = 1 << 16  # a line's words are split this many bytes at a time


def _words(text: bytes) -> tuple[bytes | None, Iterable[bytes]]:
    """(the first word or None, the words) of a line, as bytes.split() gives
    them, a block at a time (a line may hold millions: not all as objects at
    once)."""
    first = _WORD.search(text)
    return (None if first is None else first.group()), _blocks_words(text)


def _blocks_words(text: bytes) -> Iterator[bytes]:
    """The words of a long line, split a block of about _SPLIT_MOST bytes at a
    time (each block cut after whitespace)."""
    at, n = 0, len(text)
    while at < n:
        end = min(at + _SPLIT_MOST, n)
        if end < n:
            cut = after_last_whitespace(text, end, at)
            if cut:
                end = cut
            else:  # a word longer than a block: up to its end
                space = _SPACE.search(text, end)
                end = n if space is None else space.start()
        yield from text[at:end].split()
        at = end


def _lines(path: Input) -> Generator[bytes, None, None]:
    """The lines of a file, read in chunks (the last one may lack its newline).
    A line's chunks are joined once, at its end (not again at every chunk)."""
    pieces: list[bytes] = []  # the line not yet whole
    for chunk in file_chunks(path):
        lines = chunk.split(b"\n")
        if len(lines) > 1:
            lines[0] = b"".join([*pieces, lines[0]])
            pieces = []
            yield from lines[:-1]
        pieces.append(lines[-1])
    yield b"".join(pieces)


def _whole_tokens(buf: bytearray, end: int) -> memoryview:
    """buf[:end] cut after its last whitespace, so that no token is cut short.

    A line that is cut is read as it stands, so a line whose meaning needs all
    of it (a ``p cnf`` header, a model's ``s`` line) is left out whole.
    """
    cut = after_last_whitespace(buf, end)
    line_start = buf.rfind(b"\n", 0, cut) + 1
    if bytes(buf[line_start:cut].lstrip()[:1]) in (b"p", b"s"):
        cut = line_start
    return memoryview(buf)[:cut]


class _OutOfMemory(MemoryError):
    """Reading a whole file ran out of memory; ``last`` is what the last scan of
    the text read before knew of its sizes (None when there was none)."""

    def __init__(self, last: Any) -> None:
        super().__init__()
        self.last = last


def _read_scanned(
    path: Input,
    scan: Callable[[Any], Any],
    settled: Callable[[Any], bool],
    max_bytes: int,
    what: str,
    sizes: Callable[[Any], Any],
) -> Any:
    """``scan`` of the file's text, read in chunks and no further than needed.

    The part read so far is scanned each time it doubles, from one chunk on
    (at most twice the scanning of the whole text); a scan that ``settled``
    (an error in the text, or a stop limit passed) is the whole file's answer,
    and reading stops there: /dev/zero stops at its first chunk whatever the
    limits.  Past ``max_bytes`` bytes with nothing settled, the file is
    refused.  (When a scan runs changes how much is read, never the answer.)
    Of a scan that did not settle only its ``sizes`` are kept (for
    _OutOfMemory): its arrays go before the next scan makes new ones.
    """
    buf = bytearray()
    next_scan = _bounds.CHUNK
    last = None  # the sizes the last scan knew, for _OutOfMemory
    chunks = file_chunks(path)
    with contextlib.closing(chunks):  # closes the file when reading stops early
        try:
            for chunk in chunks:
                buf += chunk
                over = len(buf) > max_bytes
                if over or len(buf) >= next_scan:
                    with _whole_tokens(buf, min(len(buf), max_bytes)) as part:
                        scanned = scan(part)
                    if settled(scanned):
                        return scanned
                    last = sizes(scanned)
                    del scanned
                    if over:
                        raise too_long(what, max_bytes, _source.path_text(path))
                    run_start = after_last_whitespace(buf, len(buf))
                    if len(buf) - run_start >= LONGEST_RUN:
                        raise no_whitespace(what, _source.path_text(path), run_start)
                    next_scan = 2 * len(buf)
            return scan(buf)
        except MemoryError:
            del buf  # first: what the error's wording needs is small
            raise _OutOfMemory(last) from None


def _scan_settled(result: tuple[Any, ...]) -> bool:
    code, _, token = result[:3]
    return code not in _AT_THE_END and not (code == _codes.SCAN_ERR_NO_HEADER and token is None)


class OutOfTime(Exception):
    """read_cnf gave up at its ``until`` (a time.monotonic() value)."""


def read_cnf(
    path: Input, limits: Limits, max_bytes: int, until: float | None = None
) -> tuple[Any, ...]:
    name = _source.path_text(path)
    heads: list[bytes] = []  # the file's first bytes, for a hint

    def scan(data: Any) -> Any:
        if until is not None and time.monotonic() > until:
            raise OutOfTime  # each scan doubles the text: at most twice the time
        if not heads:
            heads.append(bytes(data[:4096]))
        return scanner().parse_cnf(
            data, limits.max_vars, limits.max_clauses, limits.max_total_literals
        )

    try:
        result = _read_scanned(
            path,
            scan,
            _scan_settled,
            max_bytes,
            "CNF",
            lambda scanned: scanned[4:6],  # the header's counts
        )
    except _OutOfMemory as exc:
        # The header's counts, when a scan of the text read before saw them.
        seen = (None, None) if exc.last is None else exc.last
        counts = [
            (name, count)
            for name, count in zip(("max_vars", "max_clauses"), seen)
            if isinstance(count, int) and count >= 0
        ]
        _raise_out_of_memory(counts, limits)
        raise
    code, line, token, value, num_vars, num_clauses, offsets, lits = result
    if code == _codes.SCAN_STOPPED:  # at least one of these is passed
        raise_passed(
            [
                ("max_vars", num_vars),
                ("max_clauses", num_clauses),
                ("max_total_literals", len(lits)),
            ],
            limits,
        )
    if code:
        err = text_error(code, line, token, value, name, "CNF", (num_vars, num_clauses))
        raise with_hint(err, heads[0] if heads else b"")
    return num_vars, offsets, lits


def _raise_out_of_memory(counts: list[tuple[str, int]], limits: Limits) -> None:
    """While reading ran out of memory: raise the limit error the sizes seen
    explain (``_core.sizes.memory_error``), when they do; else return."""
    error = memory_error(counts, limits) if counts else None
    if error is not None:
        raise error from None


def raise_passed(counts: list[tuple[str, int]], limits: Limits) -> None:
    """Raise the error of the first limit passed, naming the others passed too
    (reading stopped there: what was not read may pass more)."""
    passed = [(name, actual) for name, actual in counts if actual > getattr(limits, name)]
    try:
        for name, actual in passed:
            check_size(name, actual, limits)
    except LimitExceeded as err:
        err.also_passed = tuple(passed[1:])
        err.read_stopped = True
        raise


def _read_drup(
    path: Input,
    cnf: tuple[Any, ...],
    limits: Limits,
    max_bytes: int,
    proof_format: ProofFormat = "auto",
    notes: Callable[[str], None] | None = None,
) -> ProofArrays:
    """The whole proof's arrays, text or binary, read part by part no further
    than the step or literal that passes its limit: the steps read up to
    there are then validated as the whole proof would be (so an earlier
    literal over max_vars is still the error), and the limit is raised."""
    name = file_name(path)
    kinds, offsets, lits = array("b"), array("i", [0]), array("i")
    parts = proof_parts(path, max_bytes, proof_format, notes)
    with contextlib.closing(parts):
        for part in parts:
            base = len(lits)
            kinds.extend(part.kinds)
            offsets.extend([base + o for o in part.offsets[1:]])
            lits.extend(part.lits)
            stop = _stop_point(offsets, limits)
            if stop is not None:
                n_steps, n_lits = stop
                del kinds[n_steps:], offsets[n_steps + 1 :], lits[n_lits:]
                offsets[n_steps] = n_lits  # a step cut at its literal limit
                try:
                    validate_arrays(*cnf, proof=(kinds, offsets, lits), limits=limits)
                except LimitExceeded as err:
                    err.read_stopped = True
                    raise
                raise AssertionError("the steps read pass no limit")  # pragma: no cover
            part.raise_problem(name, max_bytes)
    return kinds, offsets, lits


def _stop_point(offsets: array[int], limits: Limits) -> tuple[int, int] | None:
    """Where reading a proof stops, as (steps, literals) kept, when the steps
    so far pass max_proof_steps or max_proof_literals: at the step after the
    last one allowed, or at the literal after the last one allowed (its step
    closed there), whichever comes first; None when they pass neither."""
    n_steps, n_lits = len(offsets) - 1, offsets[-1]
    max_steps, max_lits = limits.max_proof_steps, limits.max_proof_literals
    if n_steps <= max_steps and n_lits <= max_lits:
        return None
    over_lits = None
    if n_lits > max_lits:  # the step holding literal number max_lits + 1
        over_lits = bisect_right(offsets, max_lits) - 1
    if over_lits is None or over_lits > max_steps:
        return max_steps + 1, offsets[max_steps + 1]
    return over_lits + 1, max_lits + 1


def read_model(
    path: Input, limits: Limits, max_bytes: int, notes: Callable[[str], None] | None = None
) -> list[int]:
    name = _source.path_text(path)
    most = limits.max_assignment_literals
    said: list[str] = []  # the notes of the last scan (the text is scanned again as it grows)

    def scan(data: Any) -> list[int] | DimacsError:
        said.clear()
        try:
            return model_literals(data, name, most, said.append)
        except DimacsError as exc:
            return exc

    def settled(result: list[int] | DimacsError) -> bool:
        # An error on a line is the file's answer ("no literals" is only known at the end).
        if isinstance(result, DimacsError):
            return result.line is not None
        return len(result) > most

    try:
        result = _read_scanned(path, scan, settled, max_bytes, "model", _model_sizes)
    except _OutOfMemory as exc:
        counts = [] if exc.last is None else [("max_assignment_literals", exc.last)]
        _raise_out_of_memory(counts, limits)
        raise
    if notes is not None:
        for note in said:
            notes(note)
    if isinstance(result, DimacsError):
        raise result
    raise_passed([("max_assignment_literals", len(result))], limits)
    return cast("list[int]", result)


def _model_sizes(scanned: list[int] | DimacsError) -> int | None:
    """The literals a scan of a model read (None: it found an error)."""
    return len(scanned) if isinstance(scanned, list) else None


def parse_files(
    cnf_path: Input,
    proof_path: Input | None,
    model_path: Input | None,
    limits: Limits | None = None,
    max_bytes: int | None = None,
    proof_format: ProofFormat = "auto",
    notes: Callable[[str], None] | None = None,
) -> Parsed:
    """((num_vars, offsets, lits), proof arrays or None, model literals or None)
    of the files, read within ``limits`` (None: the contract's).

    Raises DimacsError (malformed text, or a file over its byte cap:
    ``max_bytes``, or by default the cap ``_io.bounds`` derives from the limits),
    OSError, or the CheckError of the first limit passed, where reading stopped.
    ``notes(text)`` is told, once each, of what was skipped or read in a
    solver's own format (a FRAT proof, a MiniSat result file, status lines).
    """
    return read_files(
        cnf_path, proof_path, model_path, checked_settings(limits), max_bytes, proof_format, notes
    )


def read_files(
    cnf_path: Input,
    proof_path: Input | None,
    model_path: Input | None,
    limits: Limits,
    max_bytes: int | None = None,
    proof_format: ProofFormat = "auto",
    notes: Callable[[str], None] | None = None,
) -> Parsed:
    """``parse_files`` within limits already made (an Options' limits)."""

    def cap(default: Callable[[Limits], int]) -> int:
        return default(limits) if max_bytes is None else max_bytes

    if (proof_path is None) == (model_path is None):
        raise TypeError("give exactly one of proof_path and model_path")
    cnf = read_cnf(cnf_path, limits, cap(_bounds.cnf_bytes))
    if model_path is not None:
        return cnf, None, read_model(model_path, limits, cap(_bounds.model_bytes), notes)
    assert proof_path is not None  # checked above; for type checkers
    proof = _read_drup(proof_path, cnf, limits, cap(_bounds.proof_bytes), proof_format, notes)
    return cnf, proof, None
