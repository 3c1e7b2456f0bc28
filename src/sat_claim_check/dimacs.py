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
decompressed as they are read (``_io.source``), and ``"-"`` is standard input.
Malformed text raises ``DimacsError`` (a ``ValueError``) naming the file,
when known, and the 1-based line (the byte offset in a binary proof).

Files are read within the limits, in chunks.  Reading stops at the first
limit passed, which is then raised as ``LimitExceeded``: for a CNF, a model
or a proof read whole, with ``actual`` the count where reading stopped (the
limit plus one; for ``max_vars`` and ``max_clauses``, the CNF header's
numbers); for a proof checked as it is read, at the step that passes it,
unless a step fails first (that is the verdict).  Text after that point is
never read, so a malformed line there goes unreported.  A file that passes no
limit but is longer than its byte cap (``_io.bounds``; ``max_bytes`` overrides
it) is refused with a ``DimacsError``.  Texts given in memory are parsed
whole, with exact counts.  What is checked is described in docs/semantics.md.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ._core.checker import checker_of_arrays
from ._core.options import Options
from ._core.report import Report
from ._core.session import check_request
from ._core.validate import validate_arrays
from ._core.validated import proof_steps
from ._io import bounds as _bounds

# The parts of this door are modules of one concern each: _dimacs_text (text
# in memory and its errors), _whole_files (files read whole within the
# limits), _proofstream (a proof checked as it is read).  The names the other
# doors and callers use are here too ("as" marks the ones kept for them).
from ._io.dimacs_text import PROOF_FORMATS as PROOF_FORMATS
from ._io.dimacs_text import SHOWN as SHOWN
from ._io.dimacs_text import DimacsError, Input, as_bytes, check_format, model_literals
from ._io.dimacs_text import clause_lists as clause_lists
from ._io.dimacs_text import cnf_arrays as cnf_arrays
from ._io.dimacs_text import drup_arrays as drup_arrays
from ._io.dimacs_text import file_chunks as file_chunks
from ._io.dimacs_text import is_binary_proof as is_binary_proof
from ._io.proofstream import StepMemo as StepMemo
from ._io.proofstream import check_stream
from ._io.sat_stream import sat_report
from ._io.whole_files import clause_line as clause_line
from ._io.whole_files import parse_files as parse_files
from ._io.whole_files import read_cnf, read_files
from ._segments import segments_for
from .errors import LimitExceeded

if TYPE_CHECKING:
    from ._core.types import (
        CnfArrays,
        Deletions,
        EngineName,
        Parsed,
        Progress,
        ProofArrays,
        ProofFormat,
        Reading,
    )
    from .limits import Limits

__all__ = ["DimacsError", "request_from_dimacs", "request_from_files", "run_dimacs", "run_files"]


def _check_texts(proof: object, model: object) -> None:
    if (proof is None) == (model is None):
        raise TypeError("give exactly one of proof (an unsat claim) and model (a sat claim)")


def _request(cnf: CnfArrays, proof: ProofArrays | None, model: list[int] | None) -> dict[str, Any]:
    num_vars, offsets, lits = cnf
    request: dict[str, Any] = {
        "cnf": {"num_vars": num_vars, "clauses": clause_lists(offsets, lits)}
    }
    if model is not None:
        request["claim"] = "sat"
        request["assignment"] = model
    else:
        assert proof is not None  # one of the two, as _check_texts made sure
        request["claim"] = "unsat"
        request["proof"] = proof_steps(*proof)
    return request


def request_from_dimacs(
    cnf_text: str | bytes,
    proof: str | bytes | list[str] | tuple[str, ...] | None = None,
    model: str | bytes | None = None,
) -> dict[str, Any]:
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


def request_from_files(
    cnf_path: Input,
    proof_path: Input | None = None,
    model_path: Input | None = None,
    *,
    limits: Limits | None = None,
    max_bytes: int | None = None,
    proof_format: ProofFormat = "auto",
) -> dict[str, Any]:
    """request_from_dimacs() on files: return the request, a dict.

    Files compressed with gzip, xz or bz2 are read transparently, "-" is
    standard input, and the proof may be text or binary DRUP (``proof_format``
    "auto": told by its first bytes; or "text", "binary").  Raises DimacsError on
    malformed text (naming the file) and OSError when a file cannot be read.

    The files are read within ``limits`` (None: the contract's), as
    ``parse_files`` does: the first limit passed raises its CheckError.
    """
    _check_texts(proof_path, model_path)
    return _request(*parse_files(cnf_path, proof_path, model_path, limits, max_bytes, proof_format))


def _parse_texts(
    cnf_text: object,
    proof: object,
    model: object,
    cnf_file: str | None,
    proof_file: str | None,
    model_file: str | None,
) -> Parsed:
    cnf = cnf_arrays(as_bytes(cnf_text, "CNF"), cnf_file)
    if model is not None:
        return cnf, None, model_literals(as_bytes(model, "model"), model_file)
    return cnf, drup_arrays(as_bytes(proof, "proof"), proof_file), None


# -- checking from the arrays --------------------------------------------------


def run_dimacs(
    cnf_text: str | bytes,
    proof: str | bytes | list[str] | tuple[str, ...] | None = None,
    model: str | bytes | None = None,
    *,
    engine: EngineName = "auto",
    limits: Limits | None = None,
    progress: Progress | None = None,
    deletions: Deletions = "strict",
    reading: str | None = None,
) -> Report:
    """Check DIMACS/DRUP/model text; return a Report, like run(request_from_dimacs(...)).

    The request is never built as Python lists: the parsed arrays go through
    the same limits and range rules as ``check`` (docs/semantics.md,
    "Validation order") and then to the engine.  ``engine``, ``limits``,
    ``progress``, ``deletions`` and ``reading`` are as for ``run``.  Raises DimacsError on
    malformed text and CheckError on a rejected request.
    """
    _check_texts(proof, model)
    options = Options.of(engine, limits, deletions, progress, reading=reading)
    return parsed_report(_parse_texts(cnf_text, proof, model, None, None, None), options)


def run_files(
    cnf_path: Input,
    proof_path: Input | None = None,
    model_path: Input | None = None,
    *,
    engine: EngineName = "auto",
    limits: Limits | None = None,
    progress: Progress | None = None,
    max_bytes: int | None = None,
    reading: Reading | str | None = None,
    deletions: Deletions = "strict",
    proof_format: ProofFormat = "auto",
) -> Report:
    """run_dimacs() on files (gzip, xz, bz2 read transparently; "-" is standard
    input; a text or binary proof, as ``proof_format`` says): return a Report.

    The way to check big proofs.  ``engine``, ``limits``, ``progress`` and
    ``deletions`` are as for ``run``.  The CNF (or model) file is read within the limits (see
    ``parse_files``).  The proof is checked as it is read, in stream order
    (a ``Checker`` fed part by part): memory follows the live clauses, not the
    length of the proof, a named pipe or ``/dev/stdin`` is checked while its
    writer writes, and reading stops at the first step that fails or passes
    a limit (a failing step before a malformed line is the verdict).  With
    a model, the model is read first and the CNF checked as it is read
    (``_io.sat_stream``): memory follows the model, not the formula.
    ``progress(steps_checked, work)`` is also called after each part read,
    and ``reading(bytes_read, total_bytes)`` (total None when unknown, as for
    a pipe) after each part too; ``reading`` may instead name the proof's
    reading, "strict", "lenient" or "drat-trim", as for ``run`` (the byte
    progress is then not reported).  Raises DimacsError on malformed text,
    OSError when a file cannot be read and CheckError on a rejected request.
    """
    _check_texts(proof_path, model_path)
    # ``reading`` names the proof's reading, or (a callable) is the byte progress.
    proof_reading = reading if isinstance(reading, str) else None
    on_bytes = None if isinstance(reading, str) else reading
    options = Options.of(engine, limits, deletions, progress, reading=proof_reading)
    try:
        return files_report(
            options,
            cnf_path,
            proof_path,
            model_path,
            max_bytes=max_bytes,
            reading=on_bytes,
            proof_format=proof_format,
        )
    except LimitExceeded as err:
        from .files import exact_counts  # the file door counts what reading stopped in

        exact_counts(err, options.limits, cnf_path, proof_path, proof_format)
        raise


def run_parsed(
    parsed: Parsed,
    engine: EngineName = "auto",
    limits: Limits | None = None,
    progress: Progress | None = None,
    deletions: Deletions = "strict",
) -> Report:
    """Check what ``parse_files`` returned; a Report, or raise CheckError.
    ``deletions`` as for ``run``."""
    return parsed_report(parsed, Options.of(engine, limits, deletions, progress))


def files_report(
    options: Options,
    cnf_path: Input,
    proof_path: Input | None = None,
    model_path: Input | None = None,
    *,
    max_bytes: int | None = None,
    reading: Reading | None = None,
    memo: StepMemo | None = None,
    proof_format: ProofFormat = "auto",
    notes: Callable[[str], None] | None = None,
    lrat: tuple[Any, bool] | None = None,
    jobs: int = 1,
    cluster: Any = None,
) -> Report:
    """The Report of a CNF file with a proof or a model file (as ``run_files``),
    under ``options``, made once by the door that takes the files;
    ``notes(text)`` hears of solver output skipped (status lines, a header);
    ``lrat`` (sink, binary) receives the proof's LRAT (``Checker``);
    ``jobs`` > 1 checks the proof in segments on that many worker processes,
    ``cluster`` (a Dask client) on its workers (``segments_for`` says when)."""
    _check_texts(proof_path, model_path)
    limits = options.limits
    if proof_path is None:
        assert model_path is not None  # one of the two, as _check_texts made sure
        if _stdin(cnf_path) and _stdin(model_path):  # read one after the other
            parsed = read_files(cnf_path, None, model_path, limits, max_bytes, notes=notes)
            return parsed_report(parsed, options)
        # The model first, then the CNF checked as it is read (memory: the model's).
        return sat_report(options, cnf_path, model_path, max_bytes, notes)
    check_format(proof_format)
    num_vars, offsets, lits = read_cnf(
        cnf_path, limits, _bounds.cnf_bytes(limits) if max_bytes is None else max_bytes
    )
    max_proof = _bounds.proof_bytes(limits) if max_bytes is None else max_bytes
    stream = functools.partial(
        check_stream,
        path=proof_path,
        max_bytes=max_proof,
        progress=options.progress,
        reading=reading,
        memo=memo,
        proof_format=proof_format,
        notes=notes,
    )
    segments = segments_for(jobs, cluster, options, memo is not None, lrat is not None)
    if segments is not None:
        with segments(options, num_vars, offsets, lits, proof_path, proof_format, max_proof) as s:
            try:
                stream(s)
            except (DimacsError, OSError) as problem:  # the steps before it come first
                s.stop_at(problem)
            return s.finish()
    checker = checker_of_arrays(num_vars, offsets, lits, options, lrat)
    stream(checker)
    return checker.finish()


def _stdin(path: Input) -> bool:
    return isinstance(path, str) and path == "-"


def parsed_report(parsed: Parsed, options: Options) -> Report:
    """The Report of what ``parse_files`` returned, under ``options``."""
    (num_vars, offsets, lits), proof, model = parsed
    v = validate_arrays(
        num_vars, offsets, lits, proof=proof, assignment=model, limits=options.limits
    )
    return check_request(v, options)
