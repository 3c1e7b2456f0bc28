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
PySAT's ``get_proof()`` returns).  Files ending in gzip data are decompressed.
Malformed text raises ``DimacsError`` (a ``ValueError``) naming the file, when
known, and the 1-based line.  What is checked is described in
docs/semantics.md.
"""

from __future__ import annotations

import gzip
import os
import re
import zlib
from typing import TYPE_CHECKING, Any

from . import _codes
from ._check import checked_progress, contract_limits, run_validated
from ._engine import resolve, scanner
from ._validate import proof_steps, validate_arrays

if TYPE_CHECKING:
    from array import array

    from ._check import Report
    from ._types import CnfArrays, EngineName, Parsed, Progress, ProofArrays
    from .limits import Limits

__all__ = ["DimacsError", "request_from_dimacs", "request_from_files",
           "run_dimacs", "run_files"]

_scanner = scanner()
_INTEGER = re.compile(rb"-?[0-9]+")          # a model literal


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


def _model(data: bytes, file: str | None = None) -> list[int]:
    """The literals of solver output or of a plain literal list."""
    out = []
    style = None            # "v" (solver output) or "plain"
    ended = 0               # line of the terminating 0
    for n, line in enumerate(data.split(b"\n"), 1):
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
            if len(tok.lstrip(b"+-")) > 10:     # DIMACS literals are 32-bit
                raise DimacsError(f"model: {_show(tok)} is out of the 32-bit range of "
                                  "DIMACS literals", file, n)
            v = int(tok)
            if v == 0:
                ended = n
            else:
                out.append(v)
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


def request_from_files(cnf_path: str | os.PathLike[str],
                       proof_path: str | os.PathLike[str] | None = None,
                       model_path: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """request_from_dimacs() on files: return the request, a dict.

    Gzip-compressed files are read transparently.  Raises DimacsError on
    malformed text (naming the file) and OSError when a file cannot be read.
    """
    _check_texts(proof_path, model_path)
    return _request(*parse_files(cnf_path, proof_path, model_path))


def _parse_texts(cnf_text: object, proof: object, model: object, cnf_file: str | None,
                 proof_file: str | None, model_file: str | None) -> Parsed:
    cnf = cnf_arrays(_as_bytes(cnf_text, "CNF"), cnf_file)
    if model is not None:
        return cnf, None, _model(_as_bytes(model, "model"), model_file)
    return cnf, drup_arrays(_as_bytes(proof, "proof"), proof_file), None


def read_file(path: str | os.PathLike[str]) -> bytes:
    """The bytes of a file, decompressed when they are gzip data."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            raise DimacsError(f"cannot decompress gzip data: {exc}", os.fspath(path)) from None
    return data


def parse_files(cnf_path: str | os.PathLike[str], proof_path: str | os.PathLike[str] | None,
                model_path: str | os.PathLike[str] | None) -> Parsed:
    """((num_vars, offsets, lits), proof arrays or None, model literals or None)
    of the files; raises DimacsError or OSError."""
    def name(path: str | os.PathLike[str] | None) -> str | None:
        return None if path is None else os.fspath(path)
    return _parse_texts(
        read_file(cnf_path),
        None if proof_path is None else read_file(proof_path),
        None if model_path is None else read_file(model_path),
        name(cnf_path), name(proof_path), name(model_path))


# -- checking from the arrays --------------------------------------------------

def run_dimacs(cnf_text: str | bytes,
               proof: str | bytes | list[str] | tuple[str, ...] | None = None,
               model: str | bytes | None = None, *,
               engine: EngineName = "auto", limits: Limits | None = None,
               progress: Progress | None = None) -> Report:
    """Check DIMACS/DRUP/model text; return a Report, like run(request_from_dimacs(...)).

    The request is never built as Python lists: the parsed arrays go through
    the same limits and range rules as ``check`` (docs/semantics.md,
    "Validation order") and then to the engine.  ``engine``, ``limits`` and
    ``progress`` are as for ``run``.  Raises DimacsError on malformed text and
    CheckError on a rejected request.
    """
    _check_texts(proof, model)
    return run_parsed(_parse_texts(cnf_text, proof, model, None, None, None), engine, limits,
                      progress)


def run_files(cnf_path: str | os.PathLike[str], proof_path: str | os.PathLike[str] | None = None,
              model_path: str | os.PathLike[str] | None = None, *, engine: EngineName = "auto",
              limits: Limits | None = None, progress: Progress | None = None) -> Report:
    """run_dimacs() on files (gzip read transparently): return a Report.

    The way to check big proofs.  ``engine``, ``limits`` and ``progress`` are
    as for ``run``.  Raises DimacsError on malformed text, OSError when a file
    cannot be read and CheckError on a rejected request.
    """
    _check_texts(proof_path, model_path)
    return run_parsed(parse_files(cnf_path, proof_path, model_path), engine, limits, progress)


def run_parsed(parsed: Parsed, engine: EngineName = "auto", limits: Limits | None = None,
               progress: Progress | None = None) -> Report:
    """Check what ``parse_files`` returned; a Report, or raise CheckError."""
    limits = contract_limits(limits)
    progress = checked_progress(progress)
    name, module = resolve(engine)
    (num_vars, offsets, lits), proof, model = parsed
    v = validate_arrays(num_vars, offsets, lits, proof=proof, assignment=model, limits=limits)
    return run_validated(v, name, module, limits, progress)
