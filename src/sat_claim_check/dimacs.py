"""Front doors for solver pipelines: DIMACS CNF, DRUP proofs, solver models.

    >>> from sat_claim_check.dimacs import request_from_dimacs
    >>> request_from_dimacs("p cnf 1 2\\n1 0\\n-1 0\\n", proof="0\\n")
    {'cnf': {'num_vars': 1, 'clauses': [[1], [-1]]}, 'claim': 'unsat', 'proof': [{'add': []}]}

``request_from_dimacs`` and ``request_from_files`` build the contract's JSON
request; ``run_dimacs`` and ``run_files`` check the same request without
building it, straight from the parsed arrays, with the same results, errors
and work.  ``run_files`` checks a proof as it reads it (a ``Checker`` fed by
a reader thread, in stream order): the way to check proofs of millions of
steps, or a proof on a pipe that a solver is still writing.

The accepted text:

* CNF: DIMACS with ``c`` comment lines and one ``p cnf V C`` header before the
  first clause; a clause is a run of literals ended by ``0`` and may span
  lines; every literal is in ``1..V`` in magnitude and there are exactly ``C``
  clauses; a line starting with ``%`` ends the formula (SATLIB files).
* proof: DRUP text, one step per ``0``-terminated run of literals, ``d`` in
  front of a deletion, ``c`` comment lines; or binary DRUP, told by its first
  bytes (``is_binary_proof``) unless ``proof_format`` says "text" or
  "binary".  Literals above ``V`` are allowed here: the contract classifies
  them (``literal_out_of_range``).
* model: solver output (``c`` comments, ``s SATISFIABLE``, ``v ... 0`` lines)
  or a plain whitespace-separated literal list, optionally ended by ``0``.

Texts are ``str`` or ``bytes``; a proof may also be a sequence of lines (what
PySAT's ``get_proof()`` returns).  Files compressed with gzip, xz or bz2 are
decompressed as they are read (``_source``), and ``"-"`` is standard input.
Malformed text raises ``DimacsError`` (a ``ValueError``) naming the file,
when known, and the 1-based line (the byte offset in a binary proof).

Files are read within the limits, in chunks.  Reading stops at the first
limit passed, which is then raised as ``LimitExceeded``: for a CNF, a model
or a proof read whole, with ``actual`` the count where reading stopped (the
limit plus one; for ``max_vars`` and ``max_clauses``, the CNF header's
numbers); for a proof checked as it is read, at the step that passes it,
unless a step fails first (that is the verdict).  Text after that point is
never read, so a malformed line there goes unreported.  A file that passes no
limit but is longer than its byte cap (``_bounds``; ``max_bytes`` overrides
it) is refused with a ``DimacsError``.  Texts given in memory are parsed
whole, with exact counts.  What is checked is described in docs/semantics.md.
"""

from __future__ import annotations

import contextlib
import os
import queue
import re
import stat
import threading
from array import array
from bisect import bisect_right
from collections.abc import Generator, Iterator
from typing import IO, TYPE_CHECKING, Any, Callable, cast

from . import _bounds, _codes, _source
from ._check import Report, checked_progress, contract_limits, lenient_deletions, run_validated
from ._checker import Checker
from ._engine import resolve, scanner
from ._sniff import SNIFF_BYTES, looks_binary
from ._tokens import int32
from ._validate import check_size, memory_error, proof_steps, validate_arrays
from .errors import LimitExceeded
from .limits import Limits

if TYPE_CHECKING:
    from ._types import (
        CnfArrays,
        Deletions,
        DrupPart,
        EngineName,
        Parsed,
        Progress,
        ProofArrays,
        ProofFormat,
        Reading,
    )

__all__ = ["DimacsError", "request_from_dimacs", "request_from_files",
           "run_dimacs", "run_files"]

_INTEGER = re.compile(rb"-?[0-9]+")          # a model literal
# A file to read: a path, "-" (standard input), or a binary file already open.
_Path = _source.Input


class DimacsError(ValueError):
    """Malformed DIMACS, DRUP or model text.

    ``file`` is the file name when known (else None), ``line`` the 1-based
    line (None when the fault is not on one line), ``offset`` the 0-based
    byte offset in a binary proof (else None), ``message`` the rest.
    """

    def __init__(self, message: str, file: str | None = None, line: int | None = None,
                 offset: int | None = None) -> None:
        self.message = message
        self.file = file
        self.line = line
        self.offset = offset
        super().__init__(self._text())

    def _text(self) -> str:
        where = []
        if self.file is not None:
            where.append(str(self.file))
        if self.line is not None:
            where.append(f"line {self.line}" if self.file is None else str(self.line))
        if self.offset is not None:
            where.append(f"byte {self.offset}")
        return (":".join(where) + ": " if where else "") + self.message


# -- parsing -------------------------------------------------------------------

def _as_bytes(text: object, what: str) -> bytes:
    if isinstance(text, (bytes, bytearray, memoryview)):
        return bytes(text)
    if isinstance(text, str):
        return text.encode("utf-8", "surrogatepass")
    if what == "proof" and isinstance(text, (list, tuple)):
        return "\n".join(text).encode("utf-8", "surrogatepass") + b"\n"
    raise TypeError(f"the {what} must be str or bytes, got {type(text).__name__}")


# A solver's answers other than SATISFIABLE, quoted whole.
_ANSWERS = (b"UNSATISFIABLE", b"UNKNOWN", b"INDETERMINATE")
# The most of a file's text a message quotes: a short excerpt, never a line's
# worth (a manifest may name any file the batch can read).
SHOWN = 12


def _show(token: bytes) -> str:
    """A token of the text, quoted for a message: at most SHOWN characters (a
    longer one is cut, with "..."), non-printable ones escaped."""
    text = token[:4 * SHOWN].decode("utf-8", "backslashreplace")
    return repr(text if len(text) <= SHOWN else text[:SHOWN - 3] + "...")


def _binary_error(code: int, offset: int, token: bytes | None, value: int,
                  file: str | None) -> DimacsError:
    """The DimacsError of a binary DRUP proof's scanner code, at a byte offset."""
    if code == _codes.SCAN_ERR_TOKEN and value == 1:
        message = "the integer 1 (a literal '-0') in a binary step"
    elif code == _codes.SCAN_ERR_TOKEN:
        message = (f"byte {_show(token or b'')} where a binary step starts: expected 'a' "
                   "(an addition) or 'd' (a deletion)")
    elif code == _codes.SCAN_ERR_INT_RANGE:
        message = "a binary literal out of the 32-bit range of DIMACS (or longer than 5 bytes)"
    else:
        message = "the binary step starting here has no terminating 0 before the end"
    return DimacsError(f"proof (binary): {message}", file, offset=offset)


def _error(code: int, line: int, token: bytes | None, value: int, file: str | None, what: str,
           header: tuple[int, int] | None = None) -> DimacsError:
    # The scanners give a token with these codes, and the CNF's header with VAR_RANGE
    # and CLAUSE_COUNT (the asserts say so to the type checker).
    if code == _codes.SCAN_ERR_TOKEN:
        assert token is not None
        message = f"{_show(token)} is not an integer"
        if what == "proof" and token == b"d":
            message = "'d' inside a step: a deletion starts with 'd' before its literals"
        elif what == "proof" and token[:1] == b"d":
            message += " (write 'd' and the literals apart: 'd 1 2 0')"
    elif code == _codes.SCAN_ERR_INT_RANGE:
        assert token is not None
        message = f"the literal {_show(token)} is out of the 32-bit range of DIMACS"
    elif code == _codes.SCAN_ERR_VAR_RANGE:
        assert header is not None
        message = (f"the literal {value} is out of range: the header declares "
                   f"{header[0]} variables")
    elif code == _codes.SCAN_ERR_NO_HEADER:
        message = ("a clause before the 'p cnf' header" if token is not None
                   else "no 'p cnf VARIABLES CLAUSES' header")
    elif code == _codes.SCAN_ERR_BAD_HEADER:
        assert token is not None
        message = (f"malformed header {_show(token)}: expected 'p cnf VARIABLES CLAUSES' "
                   "with two non-negative integers")
    elif code == _codes.SCAN_ERR_SECOND_HEADER:
        message = "a second 'p' header"
    elif code == _codes.SCAN_ERR_UNTERMINATED:
        message = (f"the {'clause' if what == 'CNF' else 'step'} starting on this line "
                   "has no terminating 0 before the end of the text")
    elif code == _codes.SCAN_ERR_CLAUSE_COUNT:
        assert header is not None
        message = f"the header declares {header[1]} clauses but the formula has {value}"
    else:   # pragma: no cover - the parsers have no other codes
        message = f"unexpected parser status {code}"
    return DimacsError(f"{what}: {message}", file, line)


def cnf_arrays(data: bytes, file: str | None = None) -> CnfArrays:
    """(num_vars, offsets, lits) of DIMACS CNF bytes, or raise DimacsError."""
    code, line, token, value, num_vars, num_clauses, offsets, lits = scanner().parse_cnf(data)
    if code:
        raise _error(code, line, token, value, file, "CNF", (num_vars, num_clauses))
    assert offsets is not None and lits is not None     # SCAN_OK comes with the arrays
    return num_vars, offsets, lits


def drup_arrays(data: bytes, file: str | None = None,
                proof_format: ProofFormat = "auto") -> ProofArrays:
    """(kinds, offsets, lits) of DRUP bytes, text or binary (``proof_format``:
    "text", "binary", or "auto": told as ``is_binary_proof`` says), or raise
    DimacsError."""
    if _binary(data[:SNIFF_BYTES], proof_format):
        code, offset, token, value, kinds, offsets, lits, _ = (
            scanner().BinaryDrupStream().scan(data, True))
        if code:
            raise _binary_error(code, offset, token, value, file)
        return kinds, offsets, lits
    code, line, token, value, t_kinds, t_offsets, t_lits = scanner().parse_drup(data)
    if code:
        raise _error(code, line, token, value, file, "proof")
    assert t_kinds is not None and t_offsets is not None and t_lits is not None
    return t_kinds, t_offsets, t_lits


PROOF_FORMATS = ("auto", "text", "binary")


def is_binary_proof(head: bytes) -> bool:
    """Whether a proof starting with ``head`` (its first 12 bytes after
    decompression, or all of it when shorter) is read as binary DRUP: by the
    rule of drat-trim (``_sniff.looks_binary``: docs/semantics.md, "Proof
    formats and compression"), when it starts with 'a' or 'd', as every binary
    proof does.  Anything else is text, so that malformed text (a proof of
    fewer than 2 bytes, "0"; a stray letter) is reported as text."""
    return len(head) >= 2 and head[:1] in (b"a", b"d") and looks_binary(head)


def _binary(head: bytes, proof_format: str) -> bool:
    _check_format(proof_format)
    return proof_format == "binary" or (proof_format == "auto" and is_binary_proof(head))


def _check_format(proof_format: object) -> None:
    if proof_format not in PROOF_FORMATS:
        raise ValueError(f"proof_format must be one of {', '.join(map(repr, PROOF_FORMATS))}, "
                         f"got {proof_format!r}")


def _model(data: bytes, file: str | None = None, max_literals: int = -1) -> list[int]:
    """The literals of solver output or of a plain literal list.

    With ``max_literals >= 0`` reading stops at the literal that takes the
    count past it (the list returned then holds ``max_literals + 1``).
    """
    out: list[int] = []
    style = None            # "v" (solver output) or "plain"
    ended = 0               # line of the terminating 0
    for n, line in enumerate(bytes(data).split(b"\n"), 1):
        toks = line.split()
        if not toks or toks[0][:1] == b"c":
            continue
        if toks[0] == b"s":
            status = b" ".join(toks[1:])
            if status != b"SATISFIABLE":
                answer = repr(status.decode()) if status in _ANSWERS else _show(status)
                raise DimacsError(f"model: the solver answered {answer}, "
                                  "not SATISFIABLE: there is no model", file, n)
            continue
        if toks[0] == b"v":
            line_style, toks = "v", toks[1:]
        else:
            line_style = "plain"
        if style is not None and line_style != style:
            raise DimacsError("model: 'v' lines mixed with plain literal lines", file, n)
        style = line_style
        for tok in toks:
            if ended:
                raise DimacsError(f"model: {_show(tok)} after the terminating 0 "
                                  f"(line {ended})", file, n)
            if not _INTEGER.fullmatch(tok):
                raise DimacsError(f"model: {_show(tok)} is not an integer", file, n)
            v = int32(tok)      # DIMACS literals are 32-bit, as the scanners read them
            if v is None:
                raise DimacsError(f"model: {_show(tok)} is out of the 32-bit range of "
                                  "DIMACS literals", file, n)
            if v == 0:
                ended = n
            else:
                out.append(v)
                if 0 <= max_literals < len(out):
                    return out
    if style is None:
        raise DimacsError("model: no literals (expected 'v ... 0' lines or a literal list)",
                          file)
    return out


def clause_line(path: _Path, index: int) -> int | None:
    """The 1-based line of the CNF file where clause ``index`` (0-based) starts,
    or None when the file has no such clause (or cannot be read again: a pipe)."""
    if (isinstance(path, str) and path == "-") or _source.is_open_file(path):
        return None
    count, start = 0, 0
    for line, text in enumerate(_lines(path), 1):
        words = text.split()
        if words and not words[0].startswith((b"c", b"p", b"%")):
            for word in words:
                start = start or line
                if word == b"0":
                    if count == index:
                        return start
                    count, start = count + 1, 0
    return None


def _lines(path: _Path) -> Generator[bytes, None, None]:
    """The lines of a file, read in chunks (the last one may lack its newline)."""
    rest = b""
    for chunk in file_chunks(path):
        lines = (rest + chunk).split(b"\n")
        rest = lines.pop()
        yield from lines
    yield rest


def clause_lists(offsets: array[int], lits: array[int]) -> list[list[int]]:
    """The clauses of flat arrays as lists of ints."""
    return [lits[offsets[k]:offsets[k + 1]].tolist() for k in range(len(offsets) - 1)]


def _check_texts(proof: object, model: object) -> None:
    if (proof is None) == (model is None):
        raise TypeError("give exactly one of proof (an unsat claim) and model (a sat claim)")


def _request(cnf: CnfArrays, proof: ProofArrays | None,
             model: list[int] | None) -> dict[str, Any]:
    num_vars, offsets, lits = cnf
    request: dict[str, Any] = {
        "cnf": {"num_vars": num_vars, "clauses": clause_lists(offsets, lits)}}
    if model is not None:
        request["claim"] = "sat"
        request["assignment"] = model
    else:
        assert proof is not None        # one of the two, as _check_texts made sure
        request["claim"] = "unsat"
        request["proof"] = proof_steps(*proof)
    return request


def request_from_dimacs(cnf_text: str | bytes,
                        proof: str | bytes | list[str] | tuple[str, ...] | None = None,
                        model: str | bytes | None = None) -> dict[str, Any]:
    """Return the request (a dict, ready for ``check``) for a DIMACS CNF and a
    DRUP proof or a model.

    Texts are str or bytes; ``proof`` may also be a list of lines.  Give
    exactly one of ``proof`` (an unsat claim: the request gets a "proof" of
    {"add": [...]} and {"delete": [...]} steps) and ``model`` (a sat claim:
    the request gets an "assignment"), else TypeError.  Raises DimacsError
    (a ValueError) on malformed text.  The request format is in
    docs/semantics.md ("Requests, results and errors").
    """
    _check_texts(proof, model)
    return _request(*_parse_texts(cnf_text, proof, model, None, None, None))


def request_from_files(cnf_path: _Path, proof_path: _Path | None = None,
                       model_path: _Path | None = None, *, limits: Limits | None = None,
                       max_bytes: int | None = None,
                       proof_format: ProofFormat = "auto") -> dict[str, Any]:
    """request_from_dimacs() on files: return the request, a dict.

    Files compressed with gzip, xz or bz2 are read transparently, "-" is
    standard input, and the proof may be text or binary DRUP (``proof_format``
    "auto": told by its first bytes; or "text", "binary").  Raises DimacsError on
    malformed text (naming the file) and OSError when a file cannot be read.

    The files are read within ``limits`` (None: the contract's), as
    ``parse_files`` does: the first limit passed raises its CheckError.
    """
    _check_texts(proof_path, model_path)
    return _request(*parse_files(cnf_path, proof_path, model_path, limits, max_bytes,
                                 proof_format))


def _parse_texts(cnf_text: object, proof: object, model: object, cnf_file: str | None,
                 proof_file: str | None, model_file: str | None) -> Parsed:
    cnf = cnf_arrays(_as_bytes(cnf_text, "CNF"), cnf_file)
    if model is not None:
        return cnf, None, _model(_as_bytes(model, "model"), model_file)
    return cnf, drup_arrays(_as_bytes(proof, "proof"), proof_file), None


# -- reading files within the limits -------------------------------------------

_WHITESPACE = b" \t\n\r\x0b\x0c"      # what bytes.split() and the scanners split on
# A run of bytes without whitespace waits for its end before it is scanned;
# one of this length is refused, so that /dev/zero or a stray binary file
# cannot make the wait hold the whole input.
LONGEST_RUN = 1 << 20
# Scanner outcomes that only the end of the text decides: a scan of the first
# part of a text is the whole text's answer unless it ends with one of these.
_AT_THE_END = (_codes.SCAN_OK, _codes.SCAN_ERR_UNTERMINATED, _codes.SCAN_ERR_CLAUSE_COUNT)


def file_chunks(path: _Path) -> Generator[bytes, None, None]:
    """The file's bytes in chunks ("-": standard input), decompressed as they
    come when they start with the magic bytes of gzip, xz or bz2 (never the
    whole file at once: ``_source``).  A chunk is what one read gives, so the
    bytes of a pipe come as they are written.  Compressed data that cannot be
    read raises DimacsError naming the file."""
    with _source.chunks(path) as source:
        try:
            yield from source
        except _source.SourceError as exc:
            raise DimacsError(str(exc), _file_name(path)) from None


def _file_name(path: _Path) -> str:
    """How messages name a file ("-": standard input; an open file: its name)."""
    return "standard input" if isinstance(path, str) and path == "-" else _source.path_text(path)


def _after_last_whitespace(buf: bytes | bytearray, end: int) -> int:
    """Where the bytes after buf[:end]'s last whitespace start (0: none)."""
    return max(buf.rfind(c, 0, end) for c in _WHITESPACE) + 1


def _whole_tokens(buf: bytearray, end: int) -> memoryview:
    """buf[:end] cut after its last whitespace, so that no token is cut short.

    A line that is cut is read as it stands, so a line whose meaning needs all
    of it (a ``p cnf`` header, a model's ``s`` line) is left out whole.
    """
    cut = _after_last_whitespace(buf, end)
    line_start = buf.rfind(b"\n", 0, cut) + 1
    if bytes(buf[line_start:cut].lstrip()[:1]) in (b"p", b"s"):
        cut = line_start
    return memoryview(buf)[:cut]


class _OutOfMemory(MemoryError):
    """Reading a whole file ran out of memory; ``last`` is the last scan of the
    text read before (None when there was none), for the sizes it knew."""

    def __init__(self, last: Any) -> None:
        super().__init__()
        self.last = last


def _read_scanned(path: _Path, scan: Callable[[Any], Any], settled: Callable[[Any], bool],
                  max_bytes: int, what: str) -> Any:
    """``scan`` of the file's text, read in chunks and no further than needed.

    The part read so far is scanned each time it doubles, from one chunk on
    (at most twice the scanning of the whole text); a scan that ``settled``
    (an error in the text, or a stop limit passed) is the whole file's answer,
    and reading stops there: /dev/zero stops at its first chunk whatever the
    limits.  Past ``max_bytes`` bytes with nothing settled, the file is
    refused.  (When a scan runs changes how much is read, never the answer.)
    """
    buf = bytearray()
    next_scan = _bounds.CHUNK
    last = None                         # the last scan, for _OutOfMemory
    chunks = file_chunks(path)
    with contextlib.closing(chunks):    # closes the file when reading stops early
        try:
            for chunk in chunks:
                buf += chunk
                over = len(buf) > max_bytes
                if over or len(buf) >= next_scan:
                    with _whole_tokens(buf, min(len(buf), max_bytes)) as part:
                        last = scan(part)
                    if settled(last):
                        return last
                    if over:
                        raise too_long(what, max_bytes, _source.path_text(path))
                    run_start = _after_last_whitespace(buf, len(buf))
                    if len(buf) - run_start >= LONGEST_RUN:
                        raise no_whitespace(what, _source.path_text(path), run_start)
                    next_scan = 2 * len(buf)
            return scan(buf)
        except MemoryError:
            del buf                     # first: what the error's wording needs is small
            raise _OutOfMemory(last) from None


def no_whitespace(what: str, name: str, offset: int) -> DimacsError:
    """The error of a run of bytes that never ends (NUL bytes, a binary file)."""
    return DimacsError(f"{what}: more than {LONGEST_RUN} bytes without whitespace (no "
                       "DIMACS token is that long)", name, offset=offset)


def too_long(what: str, max_bytes: int, name: str) -> DimacsError:
    """The error of a file that passes no limit within its byte cap."""
    return DimacsError(f"{what}: the file is longer than {max_bytes} bytes, the most read at "
                       "these limits (raise the limits, or the cap: --max-input-bytes)", name)


def _scan_settled(result: tuple[Any, ...]) -> bool:
    code, _, token = result[:3]
    return code not in _AT_THE_END and not (code == _codes.SCAN_ERR_NO_HEADER and token is None)


def _read_cnf(path: _Path, limits: Limits, max_bytes: int) -> tuple[Any, ...]:
    name = _source.path_text(path)
    try:
        result = _read_scanned(path, lambda data: scanner().parse_cnf(
            data, limits.max_vars, limits.max_clauses, limits.max_total_literals),
            _scan_settled, max_bytes, "CNF")
    except _OutOfMemory as exc:
        # The header's counts, when a scan of the text read before saw them.
        seen = (None, None) if exc.last is None else exc.last[4:6]
        counts = [(name, count) for name, count in zip(("max_vars", "max_clauses"), seen)
                  if isinstance(count, int) and count >= 0]
        _raise_out_of_memory(counts, limits)
        raise
    code, line, token, value, num_vars, num_clauses, offsets, lits = result
    if code == _codes.SCAN_STOPPED:     # at least one of these is passed
        _raise_passed([("max_vars", num_vars), ("max_clauses", num_clauses),
                       ("max_total_literals", len(lits))], limits)
    if code:
        raise _error(code, line, token, value, name, "CNF", (num_vars, num_clauses))
    return num_vars, offsets, lits


def _raise_out_of_memory(counts: list[tuple[str, int]], limits: Limits) -> None:
    """While reading ran out of memory: raise the limit error the sizes seen
    explain (``_validate.memory_error``), when they do; else return."""
    error = memory_error(counts, limits) if counts else None
    if error is not None:
        raise error from None


def _raise_passed(counts: list[tuple[str, int]], limits: Limits) -> None:
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


def _read_drup(path: _Path, cnf: tuple[Any, ...], limits: Limits, max_bytes: int,
               proof_format: ProofFormat = "auto") -> ProofArrays:
    """The whole proof's arrays, text or binary, read part by part no further
    than the step or literal that passes its limit: the steps read up to
    there are then validated as the whole proof would be (so an earlier
    literal over max_vars is still the error), and the limit is raised."""
    name = _file_name(path)
    kinds, offsets, lits = array("b"), array("i", [0]), array("i")
    parts = _proof_parts(path, max_bytes, proof_format)
    with contextlib.closing(parts):
        for part in parts:
            base = len(lits)
            kinds.extend(part.kinds)
            offsets.extend([base + o for o in part.offsets[1:]])
            lits.extend(part.lits)
            stop = _stop_point(offsets, limits)
            if stop is not None:
                n_steps, n_lits = stop
                del kinds[n_steps:], offsets[n_steps + 1:], lits[n_lits:]
                offsets[n_steps] = n_lits       # a step cut at its literal limit
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
    if n_lits > max_lits:       # the step holding literal number max_lits + 1
        over_lits = bisect_right(offsets, max_lits) - 1
    if over_lits is None or over_lits > max_steps:
        return max_steps + 1, offsets[max_steps + 1]
    return over_lits + 1, max_lits + 1


def _read_model(path: _Path, limits: Limits, max_bytes: int) -> list[int]:
    name = _source.path_text(path)
    most = limits.max_assignment_literals

    def scan(data: Any) -> list[int] | DimacsError:
        try:
            return _model(data, name, most)
        except DimacsError as exc:
            return exc

    def settled(result: list[int] | DimacsError) -> bool:
        # An error on a line is the file's answer ("no literals" is only known at the end).
        if isinstance(result, DimacsError):
            return result.line is not None
        return len(result) > most

    try:
        result = _read_scanned(path, scan, settled, max_bytes, "model")
    except _OutOfMemory as exc:
        counts = [] if not isinstance(exc.last, list) else [
            ("max_assignment_literals", len(exc.last))]
        _raise_out_of_memory(counts, limits)
        raise
    if isinstance(result, DimacsError):
        raise result
    _raise_passed([("max_assignment_literals", len(result))], limits)
    return cast("list[int]", result)


def parse_files(cnf_path: _Path, proof_path: _Path | None, model_path: _Path | None,
                limits: Limits | None = None, max_bytes: int | None = None,
                proof_format: ProofFormat = "auto") -> Parsed:
    """((num_vars, offsets, lits), proof arrays or None, model literals or None)
    of the files, read within ``limits`` (None: the contract's).

    Raises DimacsError (malformed text, or a file over its byte cap:
    ``max_bytes``, or by default the cap ``_bounds`` derives from the limits),
    OSError, or the CheckError of the first limit passed, where reading stopped.
    """
    limits = contract_limits(limits)

    def cap(default: Callable[[Limits], int]) -> int:
        return default(limits) if max_bytes is None else max_bytes

    if (proof_path is None) == (model_path is None):
        raise TypeError("give exactly one of proof_path and model_path")
    cnf = _read_cnf(cnf_path, limits, cap(_bounds.cnf_bytes))
    if model_path is not None:
        return cnf, None, _read_model(model_path, limits, cap(_bounds.model_bytes))
    assert proof_path is not None       # checked above; for type checkers
    return cnf, _read_drup(proof_path, cnf, limits, cap(_bounds.proof_bytes),
                           proof_format), None


# -- checking from the arrays --------------------------------------------------

def run_dimacs(cnf_text: str | bytes,
               proof: str | bytes | list[str] | tuple[str, ...] | None = None,
               model: str | bytes | None = None, *,
               engine: EngineName = "auto", limits: Limits | None = None,
               progress: Progress | None = None, deletions: Deletions = "strict") -> Report:
    """Check DIMACS/DRUP/model text; return a Report, like run(request_from_dimacs(...)).

    The request is never built as Python lists: the parsed arrays go through
    the same limits and range rules as ``check`` (docs/semantics.md,
    "Validation order") and then to the engine.  ``engine``, ``limits``,
    ``progress`` and ``deletions`` are as for ``run``.  Raises DimacsError on
    malformed text and CheckError on a rejected request.
    """
    _check_texts(proof, model)
    return run_parsed(_parse_texts(cnf_text, proof, model, None, None, None), engine, limits,
                      progress, deletions)


def run_files(cnf_path: _Path, proof_path: _Path | None = None,
              model_path: _Path | None = None, *, engine: EngineName = "auto",
              limits: Limits | None = None, progress: Progress | None = None,
              max_bytes: int | None = None, reading: Reading | None = None,
              deletions: Deletions = "strict", proof_format: ProofFormat = "auto") -> Report:
    """run_dimacs() on files (gzip, xz, bz2 read transparently; "-" is standard
    input; a text or binary proof, as ``proof_format`` says): return a Report.

    The way to check big proofs.  ``engine``, ``limits``, ``progress`` and
    ``deletions`` are as for ``run``.  The CNF (or model) file is read within the limits (see
    ``parse_files``).  The proof is checked as it is read, in stream order
    (a ``Checker`` fed part by part): memory follows the live clauses, not the
    length of the proof, a named pipe or ``/dev/stdin`` is checked while its
    writer writes, and reading stops at the first step that fails or passes
    a limit (a failing step before a malformed line is the verdict).
    ``progress(steps_checked, work)`` is also called after each part read,
    and ``reading(bytes_read, total_bytes)`` (total None when unknown, as for
    a pipe) after each part too.  Raises DimacsError on malformed text,
    OSError when a file cannot be read and CheckError on a rejected request.
    """
    _check_texts(proof_path, model_path)
    if proof_path is None:
        parsed = parse_files(cnf_path, proof_path, model_path, limits, max_bytes)
        return run_parsed(parsed, engine, limits, progress, deletions)
    return check_files(cnf_path, proof_path, engine=engine, limits=limits, progress=progress,
                       max_bytes=max_bytes, reading=reading, deletions=deletions,
                       proof_format=proof_format)


def check_files(cnf_path: _Path, proof_path: _Path, *, engine: EngineName = "auto",
                limits: Limits | None = None, progress: Progress | None = None,
                max_bytes: int | None = None, reading: Reading | None = None,
                memo: StepMemo | None = None, deletions: Deletions = "strict",
                proof_format: ProofFormat = "auto") -> Report:
    """run_files() for an unsat claim, the proof checked as it is read; ``memo``
    keeps the steps ``--explain`` names."""
    limits = contract_limits(limits)
    progress = checked_progress(progress)
    lenient_deletions(deletions)    # a bad value fails before any reading
    _check_format(proof_format)
    resolve(engine)     # an engine that is not built fails before any reading
    num_vars, offsets, lits = _read_cnf(
        cnf_path, limits, _bounds.cnf_bytes(limits) if max_bytes is None else max_bytes)
    checker = Checker._from_arrays(num_vars, offsets, lits, engine=engine, limits=limits,
                                   deletions=deletions, progress=progress)
    check_stream(checker, proof_path,
                 _bounds.proof_bytes(limits) if max_bytes is None else max_bytes,
                 progress=progress, reading=reading, memo=memo, proof_format=proof_format)
    return checker.finish()


def run_parsed(parsed: Parsed, engine: EngineName = "auto", limits: Limits | None = None,
               progress: Progress | None = None, deletions: Deletions = "strict") -> Report:
    """Check what ``parse_files`` returned; a Report, or raise CheckError.
    ``deletions`` as for ``run``."""
    limits = contract_limits(limits)
    progress = checked_progress(progress)
    lenient = lenient_deletions(deletions)
    name, module = resolve(engine)
    (num_vars, offsets, lits), proof, model = parsed
    v = validate_arrays(num_vars, offsets, lits, proof=proof, assignment=model, limits=limits)
    return run_validated(v, name, module, limits, progress, lenient)


# -- checking a proof as it is read ------------------------------------------------

# Parts of a proof read ahead of the checker, and their size (of text, after
# decompression): enough to keep both threads busy, little enough that the
# parts in flight weigh less than the clauses they bring.
READ_AHEAD = 2
PART_BYTES = 1 << 18


def check_stream(checker: Checker, path: _Path, max_bytes: int, *,
                 progress: Progress | None = None, reading: Reading | None = None,
                 memo: StepMemo | None = None, proof_format: ProofFormat = "auto") -> None:
    """Feed ``checker`` the DRUP proof of a file or pipe, as it is read.

    A thread reads, decompresses and scans the text (all three without the
    GIL in the compiled build) while this thread checks the steps scanned
    so far.  Reading stops at the first step that fails (the verdict is then
    the checker's), at the first limit the checker raises, at a malformed
    line (DimacsError, raised once the steps before it are checked) and past
    ``max_bytes`` of text (DimacsError).  ``memo`` keeps the steps that
    ``--explain`` needs (the failing one is the checker's).  ``proof_format``:
    "auto" (told by the first bytes), "text" or "binary".
    """
    name = _file_name(path)
    parts = _proof_parts(path, max_bytes, proof_format)
    # A file of at most one part on disk is read here: a thread would only add
    # its start-up.  (A small compressed file that holds more is then read and
    # checked in turn, without the overlap.)
    reader = _ReadAhead(parts) if _more_than_a_chunk(path) else contextlib.closing(parts)
    with reader as parts:
        for part in parts:
            base = checker.steps
            try:
                checker._feed_arrays(part.kinds, part.offsets, part.lits)
            except LimitExceeded as err:
                err.read_stopped = True
                s = checker.steps - base        # the step that passed it
                if 0 <= s < len(part.lines):
                    err.file_line = part.place(s, name)
                raise
            if memo is not None:
                memo.keep(checker, base, part)
            if progress is not None:
                progress(checker.steps, checker.work)
            if reading is not None:
                reading(part.bytes_read, part.total_bytes)
            if checker.failed:
                return
            part.raise_problem(name, max_bytes)


class _Part:
    """Steps scanned from one part of a proof: the arrays, then what ended the
    scan there (a scanner code, or the byte cap), and how far reading got."""

    __slots__ = ("binary", "bytes_read", "code", "kinds", "line", "lines", "lits", "offsets",
                 "over_cap", "token", "total_bytes", "value")

    def __init__(self, scan: DrupPart, source: _source.Source, binary: bool,
                 over_cap: bool = False) -> None:
        # For a binary proof, line is the error's byte offset and lines the
        # steps' byte offsets.
        (self.code, self.line, self.token, self.value,
         self.kinds, self.offsets, self.lits, self.lines) = scan
        self.bytes_read, self.total_bytes = source.bytes_read, source.size
        self.binary = binary
        self.over_cap = over_cap

    def raise_problem(self, name: str, max_bytes: int) -> None:
        """Raise what ended the scan at this part, if anything: malformed text
        (the scanner's code) or the byte cap."""
        if self.code and self.binary:
            raise _binary_error(self.code, self.line, self.token, self.value, name)
        if self.code:
            raise _error(self.code, self.line, self.token, self.value, name, "proof")
        if self.over_cap:
            raise too_long("proof", max_bytes, name)

    def place(self, i: int, name: str) -> tuple[str, int] | None:
        """(file, line) where step i of the part starts; None for a binary proof."""
        return None if self.binary else (name, self.lines[i])


def _proof_parts(path: _Path, max_bytes: int,
                 proof_format: ProofFormat) -> Generator[_Part, None, None]:
    """The proof's steps, a part at a time, scanned as the bytes are read.

    The first bytes say whether the proof is text or binary (``proof_format``
    "auto"; ``is_binary_proof``).  A text chunk is cut after its last
    whitespace byte (no token is cut in two: the rest waits for the next
    chunk); a binary chunk goes as it is.  The scanner keeps a step that spans
    parts.  The generator ends after a part with an error, or at the byte cap
    (``max_bytes`` after decompression), or at the end of the proof.
    """
    with _source.chunks(path, PART_BYTES) as source:
        chunks = iter(source)
        head = b""
        try:
            for chunk in chunks:
                head += chunk
                if len(head) >= SNIFF_BYTES:
                    break
            binary = _binary(head[:SNIFF_BYTES], proof_format)
            stream = scanner().BinaryDrupStream() if binary else scanner().DrupTextStream()
            rest = b""
            read = 0
            for chunk in _prepend(head, chunks):
                read += len(chunk)
                over = read > max_bytes
                if over:
                    chunk = chunk[:len(chunk) - (read - max_bytes)]
                data = rest + chunk if rest else chunk
                cut = len(data) if binary else _after_last_whitespace(data, len(data))
                rest = data[cut:]
                part = _Part(stream.scan(memoryview(data)[:cut], False), source, binary, over)
                yield part
                if part.code or over:
                    return
                if len(rest) >= LONGEST_RUN:
                    raise no_whitespace("proof", _file_name(path), read - len(rest))
        except _source.SourceError as exc:
            raise DimacsError(str(exc), _file_name(path)) from None
        yield _Part(stream.scan(rest, True), source, binary)


def _prepend(first: bytes, rest: Iterator[bytes]) -> Iterator[bytes]:
    if first:
        yield first
    yield from rest


def _more_than_a_chunk(path: _Path) -> bool:
    """False for a regular file of at most one chunk; True otherwise (a pipe)."""
    if isinstance(path, str) and path == "-":
        return True
    try:
        if _source.is_open_file(path):
            info = os.fstat(cast("IO[bytes]", path).fileno())
        else:
            info = os.stat(cast("str", path))
    except (OSError, ValueError):
        return True         # the error is the reader's to raise
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
        self._thread = threading.Thread(target=self._run, name="sat-claim-check reader",
                                        daemon=True)

    def _run(self) -> None:
        try:
            for item in self._items:
                if not self._put(item):
                    break
        except BaseException as exc:        # raised in the checking thread, in order
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
            wanted.append(checker.steps)        # the failing step's index
        for s in wanted:
            i = s - base
            if 0 <= i < len(part.kinds):
                lits = part.lits[part.offsets[i]:part.offsets[i + 1]].tolist()
                self.steps[s] = {_codes.step_key(part.kinds[i]): lits}
                self.places[s] = (f"{self.file}:byte {part.lines[i]}" if part.binary
                                  else f"{self.file}:{part.lines[i]}")

    def step_of(self, step: int) -> dict[str, list[int]]:
        """The step as a request step, or {} when it was not kept."""
        return self.steps.get(step, {})

    def where(self, step: int) -> str | None:
        """"FILE:LINE" ("FILE:byte N" for a binary proof) of a kept step, else None."""
        return self.places.get(step)
