"""Front doors for solver pipelines: DIMACS CNF, DRUP proofs, solver models.

    >>> from sat_claim_check.dimacs import request_from_dimacs
    >>> request_from_dimacs("p cnf 1 2\\n1 0\\n-1 0\\n", proof="0\\n")
    {'cnf': {'num_vars': 1, 'clauses': [[1], [-1]]}, 'claim': 'unsat', 'proof': [{'add': []}]}

``request_from_dimacs`` and ``request_from_files`` build the contract's JSON
request; ``run_dimacs`` and ``run_files`` check the same request without
building it, straight from the parsed arrays (the way to check proofs of
millions of steps), with the same results, errors and work.

The accepted text:

* CNF: DIMACS with ``c`` comment lines and one ``p cnf V C`` header before the
  first clause; a clause is a run of literals ended by ``0`` and may span
  lines; every literal is in ``1..V`` in magnitude and there are exactly ``C``
  clauses; a line starting with ``%`` ends the formula (SATLIB files).
* proof: DRUP text, one step per ``0``-terminated run of literals, ``d`` in
  front of a deletion, ``c`` comment lines.  Literals above ``V`` are allowed
  here: the contract classifies them (``literal_out_of_range``).
* model: solver output (``c`` comments, ``s SATISFIABLE``, ``v ... 0`` lines)
  or a plain whitespace-separated literal list, optionally ended by ``0``.

Texts are ``str`` or ``bytes``; a proof may also be a sequence of lines (what
PySAT's ``get_proof()`` returns).  Files starting with gzip data are
decompressed as they are read.  Malformed text raises ``DimacsError`` (a
``ValueError``) naming the file, when known, and the 1-based line.

Files are read within the limits, in chunks.  Reading stops at the first
limit passed, which is then raised as ``LimitExceeded`` with ``actual`` the
count where reading stopped (the limit plus one; for ``max_vars`` and
``max_clauses``, the CNF header's numbers); text after that point is never
read, so a malformed line there goes unreported.  A file that passes no limit
but is longer than its byte cap (``_bounds``; ``max_bytes`` overrides it) is
refused with a ``DimacsError``.  Texts given in memory are parsed whole, with
exact counts.  What is checked is
described in docs/semantics.md.
"""

from __future__ import annotations

import contextlib
import gzip
import os
import re
import zlib
from collections.abc import Generator
from typing import TYPE_CHECKING, Any, Callable, Union, cast

from . import _bounds, _codes
from ._check import Report, checked_progress, contract_limits, lenient_deletions, run_validated
from ._engine import resolve, scanner
from ._tokens import int32
from ._validate import check_size, proof_steps, validate_arrays
from .limits import Limits

if TYPE_CHECKING:
    from array import array

    from ._types import CnfArrays, Deletions, EngineName, Parsed, Progress, ProofArrays

__all__ = ["DimacsError", "request_from_dimacs", "request_from_files",
           "run_dimacs", "run_files"]

_scanner = scanner()
_INTEGER = re.compile(rb"-?[0-9]+")          # a model literal
_GZIP_MAGIC = b"\x1f\x8b"
_Path = Union[str, "os.PathLike[str]"]


class DimacsError(ValueError):
    """Malformed DIMACS, DRUP or model text.

    ``file`` is the file name when known (else None), ``line`` the 1-based
    line (None when the fault is not on one line), ``message`` the rest.
    """

    def __init__(self, message: str, file: str | None = None, line: int | None = None) -> None:
        self.message = message
        self.file = file
        self.line = line
        super().__init__(self._text())

    def _text(self) -> str:
        where = []
        if self.file is not None:
            where.append(str(self.file))
        if self.line is not None:
            where.append(f"line {self.line}" if self.file is None else str(self.line))
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


def _show(token: bytes) -> str:
    text = token.decode("utf-8", "backslashreplace")
    return repr(text if len(text) <= 40 else text[:37] + "...")


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
    code, line, token, value, num_vars, num_clauses, offsets, lits = _scanner.parse_cnf(data)
    if code:
        raise _error(code, line, token, value, file, "CNF", (num_vars, num_clauses))
    assert offsets is not None and lits is not None     # SCAN_OK comes with the arrays
    return num_vars, offsets, lits


def drup_arrays(data: bytes, file: str | None = None) -> ProofArrays:
    """(kinds, offsets, lits) of DRUP bytes, or raise DimacsError."""
    code, line, token, value, kinds, offsets, lits = _scanner.parse_drup(data)
    if code:
        raise _error(code, line, token, value, file, "proof")
    assert kinds is not None and offsets is not None and lits is not None
    return kinds, offsets, lits


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
                raise DimacsError(f"model: the solver answered {_show(status)}, "
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
                       max_bytes: int | None = None) -> dict[str, Any]:
    """request_from_dimacs() on files: return the request, a dict.

    Gzip-compressed files are read transparently.  Raises DimacsError on
    malformed text (naming the file) and OSError when a file cannot be read.

    The files are read within ``limits`` (None: the contract's), as
    ``parse_files`` does: the first limit passed raises its CheckError.
    """
    _check_texts(proof_path, model_path)
    return _request(*parse_files(cnf_path, proof_path, model_path, limits, max_bytes))


def _parse_texts(cnf_text: object, proof: object, model: object, cnf_file: str | None,
                 proof_file: str | None, model_file: str | None) -> Parsed:
    cnf = cnf_arrays(_as_bytes(cnf_text, "CNF"), cnf_file)
    if model is not None:
        return cnf, None, _model(_as_bytes(model, "model"), model_file)
    return cnf, drup_arrays(_as_bytes(proof, "proof"), proof_file), None


# -- reading files within the limits -------------------------------------------

_WHITESPACE = b" \t\n\r\x0b\x0c"      # what bytes.split() and the scanners split on
# Scanner outcomes that only the end of the text decides: a scan of the first
# part of a text is the whole text's answer unless it ends with one of these.
_AT_THE_END = (_codes.SCAN_OK, _codes.SCAN_ERR_UNTERMINATED, _codes.SCAN_ERR_CLAUSE_COUNT)


def _chunks(path: _Path) -> Generator[bytes, None, None]:
    """The file's bytes in chunks, decompressed as they come when it starts
    with gzip's magic bytes (never the whole file at once)."""
    with open(path, "rb") as f:
        if f.peek(2)[:2] != _GZIP_MAGIC:
            yield from iter(lambda: f.read(_bounds.CHUNK), b"")
            return
        with gzip.GzipFile(fileobj=f) as stream:
            while True:
                try:
                    chunk = stream.read(_bounds.CHUNK)
                except (gzip.BadGzipFile, EOFError, zlib.error) as exc:
                    raise DimacsError(f"cannot decompress gzip data: {exc}",
                                      os.fspath(path)) from None
                if not chunk:
                    return
                yield chunk


def _whole_tokens(buf: bytearray, end: int) -> memoryview:
    """buf[:end] cut after its last whitespace, so that no token is cut short.

    A line that is cut is read as it stands, so a line whose meaning needs all
    of it (a ``p cnf`` header, a model's ``s`` line) is left out whole.
    """
    cut = max(buf.rfind(c, 0, end) for c in _WHITESPACE) + 1
    line_start = buf.rfind(b"\n", 0, cut) + 1
    if bytes(buf[line_start:cut].lstrip()[:1]) in (b"p", b"s"):
        cut = line_start
    return memoryview(buf)[:cut]


def _read_scanned(path: _Path, scan: Callable[[Any], Any], settled: Callable[[Any], bool],
                  fewest: int, max_bytes: int, what: str) -> Any:
    """``scan`` of the file's text, read in chunks and no further than needed.

    ``fewest`` is how many items (literals or steps, two bytes each at least)
    it takes to pass a stop limit.  From then on, the part read so far is
    scanned each time it doubles; a scan that ``settled`` (an error in the
    text, or a stop limit passed) is the whole file's answer, and reading
    stops there.  Past ``max_bytes`` bytes with nothing settled, the file is
    refused.  (When a scan runs changes how much is read, never the answer.)
    """
    buf = bytearray()
    next_scan = max(_bounds.CHUNK, 2 * fewest)
    chunks = _chunks(path)
    with contextlib.closing(chunks):    # closes the file when reading stops early
        for chunk in chunks:
            buf += chunk
            over = len(buf) > max_bytes
            if over or len(buf) >= next_scan:
                with _whole_tokens(buf, min(len(buf), max_bytes)) as part:
                    result = scan(part)
                if settled(result):
                    return result
                if over:
                    raise DimacsError(
                        f"{what}: the file is longer than {max_bytes} bytes, the most read "
                        "at these limits (raise the limits, or the cap: --max-input-bytes)",
                        os.fspath(path))
                next_scan = 2 * len(buf)
    return scan(buf)


def _scan_settled(result: tuple[Any, ...]) -> bool:
    code, _, token = result[:3]
    return code not in _AT_THE_END and not (code == _codes.SCAN_ERR_NO_HEADER and token is None)


def _read_cnf(path: _Path, limits: Limits, max_bytes: int) -> tuple[Any, ...]:
    name = os.fspath(path)
    result = _read_scanned(path, lambda data: _scanner.parse_cnf(
        data, limits.max_vars, limits.max_clauses, limits.max_total_literals),
        _scan_settled, limits.max_total_literals, max_bytes, "CNF")
    code, line, token, value, num_vars, num_clauses, offsets, lits = result
    if code == _codes.SCAN_STOPPED:     # one of these raises
        check_size("max_vars", num_vars, limits)
        check_size("max_clauses", num_clauses, limits)
        check_size("max_total_literals", len(lits), limits)
    if code:
        raise _error(code, line, token, value, name, "CNF", (num_vars, num_clauses))
    return num_vars, offsets, lits


def _read_drup(path: _Path, cnf: tuple[Any, ...], limits: Limits,
               max_bytes: int) -> tuple[Any, ...]:
    name = os.fspath(path)
    result = _read_scanned(path, lambda data: _scanner.parse_drup(
        data, limits.max_proof_steps, limits.max_proof_literals),
        _scan_settled, min(limits.max_proof_steps, limits.max_proof_literals), max_bytes,
        "proof")
    code, line, token, value, kinds, offsets, lits = result
    if code == _codes.SCAN_STOPPED:
        # The steps read so far hold one step or literal too many: validation
        # rejects them as it would the whole proof (steps, ranges, literals).
        validate_arrays(*cnf, proof=(kinds, offsets, lits), limits=limits)
    if code:
        raise _error(code, line, token, value, name, "proof")
    return kinds, offsets, lits


def _read_model(path: _Path, limits: Limits, max_bytes: int) -> list[int]:
    name = os.fspath(path)
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

    result = _read_scanned(path, scan, settled, most, max_bytes, "model")
    if isinstance(result, DimacsError):
        raise result
    check_size("max_assignment_literals", len(result), limits)
    return cast("list[int]", result)


def parse_files(cnf_path: _Path, proof_path: _Path | None, model_path: _Path | None,
                limits: Limits | None = None, max_bytes: int | None = None) -> Parsed:
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
    return cnf, _read_drup(proof_path, cnf, limits, cap(_bounds.proof_bytes)), None


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
              max_bytes: int | None = None, deletions: Deletions = "strict") -> Report:
    """run_dimacs() on files (gzip read transparently): return a Report.

    The way to check big proofs.  ``engine``, ``limits``, ``progress`` and
    ``deletions`` are as for ``run``.  The files are read within the limits (see
    ``parse_files``): reading stops at the first limit passed.  Raises
    DimacsError on malformed text, OSError when a file cannot be read and
    CheckError on a rejected request.
    """
    _check_texts(proof_path, model_path)
    parsed = parse_files(cnf_path, proof_path, model_path, limits, max_bytes)
    return run_parsed(parsed, engine, limits, progress, deletions)


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
