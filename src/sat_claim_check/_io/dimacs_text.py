"""DIMACS, DRUP and model text: its arrays, its errors, and reading it from files.

``cnf_arrays``, ``drup_arrays`` and ``model_literals`` read texts in memory (the
scanner twin chosen in ``_engines`` does the work); ``DimacsError`` and the
scanner codes' wording (``text_error``, ``binary_error``) are every reader's;
``file_chunks`` gives a file's bytes in chunks, decompressed.  A message
quotes at most SHOWN characters of a file.  The public names are
``sat_claim_check.dimacs``'s.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Generator
from typing import TYPE_CHECKING, Any, Callable

from .._core import codes as _codes
from .._engines import scanner
from .._engines.tokens import int32
from ..errors import InvalidInput
from . import source as _source
from .sniff import looks_binary

if TYPE_CHECKING:
    from .._core.types import CnfArrays, ProofArrays, ProofFormat

_INTEGER = re.compile(rb"-?[0-9]+")  # a model literal
# A file to read: a path, "-" (standard input), or a binary file already open.
Input = _source.Input


class DimacsError(InvalidInput):
    """Malformed DIMACS, DRUP or model text: an ``InvalidInput`` (so a
    ``CheckError`` and a ``ValueError``), whose error object has ``field``
    "cnf", "proof" or "assignment" (the text at fault), ``path`` "" and the
    message ``str(err)``.

    ``file`` is the file name when known (else None), ``line`` the 1-based
    line (None when the fault is not on one line), ``offset`` the 0-based
    byte offset in a binary proof (else None), ``message`` the rest.
    ``hint`` is advice for people (the files may be swapped), or None.
    """

    def __init__(
        self,
        message: str,
        file: str | None = None,
        line: int | None = None,
        offset: int | None = None,
        *,
        hint: str | None = None,
    ) -> None:
        self.file = file
        self.line = line
        self.offset = offset
        field = _FIELDS.get(message.split(":", 1)[0])
        super().__init__(field, "", message)
        self.hint = hint
        ValueError.__init__(self, self._text())

    def to_dict(self) -> dict[str, Any]:
        """Return the error object: invalid_input, the message with its file and line."""
        return {**super().to_dict(), "message": self._text()}

    def __str__(self) -> str:
        return self._text()

    def _arguments(self) -> tuple[tuple[Any, ...], dict[str, Any]]:
        return (self.message, self.file, self.line, self.offset), {}

    def _text(self) -> str:
        where = []
        if self.file is not None:
            where.append(str(self.file))
        if self.line is not None:
            where.append(f"line {self.line}" if self.file is None else str(self.line))
        if self.offset is not None:
            where.append(f"byte {self.offset}")
        return (":".join(where) + ": " if where else "") + self.message


# The request field of the text a message names first ("CNF: ...").
_FIELDS = {"CNF": "cnf", "proof": "proof", "model": "assignment"}


# -- parsing -------------------------------------------------------------------


def as_bytes(text: object, what: str) -> bytes:
    if isinstance(text, (bytes, bytearray, memoryview)):
        return bytes(text)
    if isinstance(text, str):
        return text.encode("utf-8", "surrogatepass")
    if what == "proof" and isinstance(text, (list, tuple)):
        return "\n".join(text).encode("utf-8", "surrogatepass") + b"\n"
    raise TypeError(f"the {what} must be str or bytes, got {type(text).__name__}")


# A solver's answers other than SATISFIABLE, quoted whole.
_ANSWERS = (b"UNSATISFIABLE", b"UNKNOWN", b"INDETERMINATE")
_MINISAT = (b"SAT", b"UNSAT", b"INDET")  # the first line of MiniSat's result file
# The most of a file's text a message quotes: a short excerpt, never a line's
# worth (a manifest may name any file the batch can read).
SHOWN = 12


def _show(token: bytes) -> str:
    """A token of the text, quoted for a message: at most SHOWN characters (a
    longer one is cut, with "..."), non-printable ones escaped."""
    text = token[: 4 * SHOWN].decode("utf-8", "backslashreplace")
    return repr(text if len(text) <= SHOWN else text[: SHOWN - 3] + "...")


# A solver's answers, quoted whole in a note (any other line: as _show quotes it).
_STATUS_LINES = tuple(b"s " + answer for answer in (b"SATISFIABLE", *_ANSWERS))


def quoted(line: bytes) -> str:
    """A line a note quotes: a solver's status line whole, else as ``_show``."""
    return repr(line.decode()) if line in _STATUS_LINES else _show(line)


def with_hint(err: DimacsError, head: bytes) -> DimacsError:
    """``err`` with the advice ``_core.hints`` has for a file starting with
    ``head`` (decompressed), when it has none yet."""
    from .._core.hints import misread_lines  # hints is for people: imported when needed

    if err.hint is None:
        what = err.message.split(":", 1)[0].split(" ", 1)[0]
        err.hint = "; ".join(misread_lines(what, bytes(head[:4096]), err.message)) or None
    return err


def binary_error(
    code: int, offset: int, token: bytes | None, value: int, file: str | None
) -> DimacsError:
    """The DimacsError of a binary DRUP proof's scanner code, at a byte offset."""
    if code == _codes.SCAN_ERR_TOKEN and value == 1:
        message = "the integer 1 (a literal '-0') in a binary step"
    elif code == _codes.SCAN_ERR_TOKEN:
        message = (
            f"byte {_show(token or b'')} where a binary step starts: expected 'a' "
            "(an addition) or 'd' (a deletion)"
        )
    elif code == _codes.SCAN_ERR_INT_RANGE:
        message = "a binary literal out of the 32-bit range of DIMACS (or longer than 5 bytes)"
    else:
        message = "the binary step starting here has no terminating 0 before the end"
    return DimacsError(f"proof (binary): {message}", file, offset=offset)


def text_error(
    code: int,
    line: int,
    token: bytes | None,
    value: int,
    file: str | None,
    what: str,
    header: tuple[int, int] | None = None,
) -> DimacsError:
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
        message = f"the literal {value} is out of range: the header declares {header[0]} variables"
    elif code == _codes.SCAN_ERR_NO_HEADER:
        message = (
            "a clause before the 'p cnf' header"
            if token is not None
            else "no 'p cnf VARIABLES CLAUSES' header"
        )
    elif code == _codes.SCAN_ERR_BAD_HEADER:
        assert token is not None
        message = (
            f"malformed header {_show(token)}: expected 'p cnf VARIABLES CLAUSES' "
            "with two non-negative integers"
        )
    elif code == _codes.SCAN_ERR_SECOND_HEADER:
        message = "a second 'p' header"
    elif code == _codes.SCAN_ERR_UNTERMINATED:
        message = (
            f"the {'clause' if what == 'CNF' else 'step'} starting on this line "
            "has no terminating 0 before the end of the text"
        )
    elif code == _codes.SCAN_ERR_CLAUSE_COUNT:
        assert header is not None
        message = f"the header declares {header[1]} clauses but the formula has {value}"
    else:  # pragma: no cover - the parsers have no other codes
        message = f"unexpected parser status {code}"
    return DimacsError(f"{what}: {message}", file, line)


def cnf_arrays(data: bytes, file: str | None = None) -> CnfArrays:
    """(num_vars, offsets, lits) of DIMACS CNF bytes, or raise DimacsError."""
    code, line, token, value, num_vars, num_clauses, offsets, lits = scanner().parse_cnf(data)
    if code:
        err = text_error(code, line, token, value, file, "CNF", (num_vars, num_clauses))
        raise with_hint(err, data[:4096])
    assert offsets is not None and lits is not None  # SCAN_OK comes with the arrays
    return num_vars, offsets, lits


def drup_arrays(
    data: bytes,
    file: str | None = None,
    proof_format: ProofFormat = "auto",
    notes: Callable[[str], None] | None = None,
) -> ProofArrays:
    """(kinds, offsets, lits) of DRUP bytes, text or binary (``proof_format``:
    "text", "binary", or "auto": told by the first bytes, ``_io.proof_head``),
    or raise DimacsError.  FRAT text and PicoSAT's RUP proofs are read too;
    ``notes`` is told, once each, what is read so or skipped."""
    from .frat import FRAT_NOTE, FratText  # both import this module
    from .proof_head import HEAD_MOST, SkipNotes, proof_kind, rup_note

    check_format(proof_format)
    kind, start = proof_kind(data[:HEAD_MOST], proof_format)
    if kind == "text" and notes is None:  # the common case, scanned whole
        code, line, token, value, t_kinds, t_offsets, t_lits = scanner().parse_drup(data)
        if code:
            raise with_hint(text_error(code, line, token, value, file, "proof"), data)
        assert t_kinds is not None and t_offsets is not None and t_lits is not None
        return t_kinds, t_offsets, t_lits
    say = notes or _quiet
    if kind == "rup":
        say(rup_note(data, start))
        data = data[:start] + b"c" + data[start + 1 :]  # the header, made a comment
    stream: Any = scanner().BinaryDrupStream() if kind == "binary" else scanner().DrupTextStream()
    if kind == "frat":
        say(FRAT_NOTE)
        stream = FratText(stream, file or "proof")
    code, where, token, value, kinds, offsets, lits, _ = stream.scan(data, True)
    if notes is not None:
        SkipNotes(stream, kind == "binary", notes).after(data)
    if code and kind == "binary":
        raise with_hint(binary_error(code, where, token, value, file), data)
    if code:
        raise with_hint(text_error(code, where, token, value, file, "proof"), data)
    return kinds, offsets, lits


def _quiet(note: str) -> None:
    """The notes of a caller that wants none."""


PROOF_FORMATS = ("auto", "text", "binary")


def is_binary_proof(head: bytes) -> bool:
    """Whether a proof starting with ``head`` (its first 12 bytes after
    decompression, or all of it when shorter) is read as binary DRUP: by the
    rule of drat-trim (``_io.sniff.looks_binary``: docs/semantics.md, "Proof
    formats and compression"), when it starts with 'a' or 'd', as every binary
    proof does.  Anything else is text, so that malformed text (a proof of
    fewer than 2 bytes, "0"; a stray letter) is reported as text."""
    return len(head) >= 2 and head[:1] in (b"a", b"d") and looks_binary(head)


def read_as_binary(head: bytes, proof_format: str) -> bool:
    check_format(proof_format)
    return proof_format == "binary" or (proof_format == "auto" and is_binary_proof(head))


def check_format(proof_format: object) -> None:
    if proof_format not in PROOF_FORMATS:
        raise ValueError(
            f"proof_format must be one of {', '.join(map(repr, PROOF_FORMATS))}, "
            f"got {proof_format!r}"
        )


MINISAT_NOTE = "model: read as a MiniSat result file ('SAT', then the literals)"


def model_literals(
    data: bytes,
    file: str | None = None,
    max_literals: int = -1,
    notes: Callable[[str], None] | None = None,
) -> list[int]:
    """The literals of solver output (``s SATISFIABLE`` and ``v`` lines), of a
    MiniSat result file (``SAT``, then a line of literals) or of a plain
    literal list.

    With ``max_literals >= 0`` reading stops at the literal that takes the
    count past it (the list returned then holds ``max_literals + 1``).
    ``notes`` is told when the text is read as a MiniSat result file.
    """
    try:
        return _model_literals(data, file, max_literals, notes)
    except DimacsError as err:
        raise with_hint(err, data[:4096]) from None


def _model_literals(
    data: bytes, file: str | None, max_literals: int, notes: Callable[[str], None] | None
) -> list[int]:
    out: list[int] = []
    style = None  # "v" (solver output) or "plain"
    ended = 0  # line of the terminating 0
    for n, line in enumerate(bytes(data).split(b"\n"), 1):
        toks = line.split()
        if not toks or toks[0][:1] == b"c":
            continue
        if style is None and not out and len(toks) == 1 and toks[0] in _MINISAT:
            # MiniSat's first line: its answer.
            if toks[0] != b"SAT":
                raise DimacsError(
                    f"model: the file says {toks[0].decode()!r} (a MiniSat result): "
                    "there is no model",
                    file,
                    n,
                )
            if notes is not None:
                notes(MINISAT_NOTE)
            continue
        if toks[0] == b"s":
            status = b" ".join(toks[1:])
            if status != b"SATISFIABLE":
                answer = repr(status.decode()) if status in _ANSWERS else _show(status)
                raise DimacsError(
                    f"model: the solver answered {answer}, not SATISFIABLE: there is no model",
                    file,
                    n,
                )
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
                raise DimacsError(
                    f"model: {_show(tok)} after the terminating 0 (line {ended})", file, n
                )
            if not _INTEGER.fullmatch(tok):
                raise DimacsError(f"model: {_show(tok)} is not an integer", file, n)
            v = int32(tok)  # DIMACS literals are 32-bit, as the scanners read them
            if v is None:
                raise DimacsError(
                    f"model: {_show(tok)} is out of the 32-bit range of DIMACS literals", file, n
                )
            if v == 0:
                ended = n
            else:
                out.append(v)
                if 0 <= max_literals < len(out):
                    return out
    if style is None:
        raise DimacsError("model: no literals (expected 'v ... 0' lines or a literal list)", file)
    return out


def clause_lists(offsets: array[int], lits: array[int]) -> list[list[int]]:
    """The clauses of flat arrays as lists of ints."""
    return [lits[offsets[k] : offsets[k + 1]].tolist() for k in range(len(offsets) - 1)]


# -- reading text from files ---------------------------------------------------

_WHITESPACE = b" \t\n\r\x0b\x0c"  # what bytes.split() and the scanners split on
# A run of bytes without whitespace waits for its end before it is scanned;
# one of this length is refused, so that /dev/zero or a stray binary file
# cannot make the wait hold the whole input.
LONGEST_RUN = 1 << 20


def file_chunks(path: Input) -> Generator[bytes, None, None]:
    """The file's bytes in chunks ("-": standard input), decompressed as they
    come when they start with the magic bytes of gzip, xz or bz2 (never the
    whole file at once: ``_io.source``).  A chunk is what one read gives, so the
    bytes of a pipe come as they are written.  Compressed data that cannot be
    read raises DimacsError naming the file."""
    with _source.chunks(path) as source:
        try:
            yield from source
        except _source.SourceError as exc:
            raise DimacsError(str(exc), file_name(path)) from None


def file_name(path: Input) -> str:
    """How messages name a file ("-": standard input; an open file: its name)."""
    return "standard input" if isinstance(path, str) and path == "-" else _source.path_text(path)


def after_last_whitespace(buf: bytes | bytearray, end: int, start: int = 0) -> int:
    """Where the bytes after buf[start:end]'s last whitespace start (0: none)."""
    return max(buf.rfind(c, start, end) for c in _WHITESPACE) + 1


def no_whitespace(what: str, name: str, offset: int) -> DimacsError:
    """The error of a run of bytes that never ends (NUL bytes, a binary file)."""
    return DimacsError(
        f"{what}: more than {LONGEST_RUN} bytes without whitespace (no DIMACS token is that long)",
        name,
        offset=offset,
    )


def too_long(what: str, max_bytes: int, name: str) -> DimacsError:
    """The error of a file that passes no limit within its byte cap."""
    return DimacsError(
        f"{what}: the file is longer than {max_bytes} bytes, the most read at "
        "these limits (raise the limits, or the cap: --max-input-bytes)",
        name,
    )
