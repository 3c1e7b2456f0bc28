"""What a proof's first bytes say, and the notes on the lines skipped in it.

Solvers write more than DRUP steps: PicoSAT's ``-R`` proof starts with a
``%RUPD32 V C`` line, CryptoMiniSat writes FRAT (``_io.frat``), and a solver
writing its proof to standard output puts its comment and status lines
between the steps (text or binary: the scanners skip them).  ``proof_kind``
tells text, binary, FRAT or a PicoSAT proof from the first bytes;
``SkipNotes`` says once, through the caller's ``notes``, each kind of line
skipped.
"""

from __future__ import annotations

from typing import Callable

from .dimacs_text import is_binary_proof, quoted
from .frat import is_frat
from .sniff import SNIFF_BYTES, TEXT_BYTES

__all__ = ["HEAD_MOST", "Head", "SkipNotes", "head_enough", "proof_kind", "rup_note"]

# Bytes read at most before the kind of a proof is told: past the leading
# comment lines (CaDiCaL's banner) to the first line of steps.
HEAD_MOST = 1 << 16
# How much of the first line of steps is enough to tell FRAT from DRUP.
_FIRST_LINE = 256


def body_start(head: bytes) -> int | None:
    """Where the bytes after the leading comment and status lines (and blank
    lines) start; None when ``head`` ends inside them."""
    return _walk(head, 0, 0)[1]


def _walk(head: bytes | bytearray, i: int, searched: int) -> tuple[int, int | None, int]:
    """``body_start``'s walk over the leading lines, from ``i`` (a line's
    start; its newline already looked for up to ``searched``): (where it
    stopped, the body's start or None, how far it looked for a newline)."""
    n = len(head)
    while i < n:
        b = head[i]
        if b == 0x0A:
            i += 1
        elif b != 0x63 and b != 0x73:  # 'c', 's'
            return i, i, searched
        else:
            nl = head.find(b"\n", max(i, searched))
            if nl < 0:
                return i, None, n
            i = nl + 1
    return i, None, searched


def head_enough(head: bytes) -> bool:
    """Whether ``head`` (the first bytes read) is enough for ``proof_kind``."""
    return Head().add(head)


class Head:
    """A proof's first bytes, gathered chunk by chunk until they are enough
    for ``proof_kind`` (``head_enough``'s answer, for the bytes so far).

    Each byte is looked at once: the leading comment lines already passed are
    not scanned again as the head grows (a pipe, or a file of many small
    compressed members, may give a few bytes at a time).
    """

    def __init__(self) -> None:
        self._data = bytearray()
        self._line = 0  # where the first line not known to be skipped starts
        self._searched = 0  # how far that line's '\n' was looked for
        self._body: int | None = None  # body_start(), once known

    def add(self, chunk: bytes) -> bool:
        """Add the next chunk; whether the head is now enough (``head_enough``)."""
        head = self._data
        head += chunk
        n = len(head)
        if n < SNIFF_BYTES:
            return False
        if self._body is None:  # body_start's walk, resumed
            self._line, self._body, self._searched = _walk(head, self._line, self._searched)
        start = self._body
        if start is None:
            return n >= HEAD_MOST
        return head.find(b"\n", start) >= 0 or n - start >= _FIRST_LINE

    @property
    def data(self) -> bytes:
        """The bytes gathered."""
        return bytes(self._data)


def proof_kind(head: bytes, proof_format: str) -> tuple[str, int]:
    """("binary" | "text" | "frat" | "rup", where the steps start) of a proof
    whose first bytes are ``head``.  Binary as drat-trim tells it
    (``is_binary_proof``), or when the bytes after leading comment lines
    start binary steps (a solver's banner before them); "rup":
    text whose first line after comments is PicoSAT's ``%RUPD`` header."""
    if proof_format == "binary":
        return "binary", 0
    start = body_start(head) or 0
    body = head[start:]
    if body.startswith(b"%RUPD"):
        return "rup", start
    if is_frat(body):
        return "frat", start
    if proof_format == "auto" and (
        is_binary_proof(head[:SNIFF_BYTES]) or (start > 0 and _binary_steps(body))
    ):
        return "binary", start
    return "text", start


def _binary_steps(body: bytes) -> bool:
    """Whether bytes after comment lines start binary steps: 'a' or 'd', and
    a byte no DRUP text has before the line's end (a text proof's comments
    may hold any byte; its first step's line only digits, '-', 'd')."""
    line = body[:SNIFF_BYTES].split(b"\n", 1)[0]
    return body[:1] in (b"a", b"d") and any(c not in TEXT_BYTES for c in line)


def rup_note(head: bytes, start: int) -> str:
    """The note of a PicoSAT header at head[start:]: its counts, when they
    are integers (nothing else of the file is quoted)."""
    words = head[start : start + _FIRST_LINE].split(b"\n", 1)[0].split()
    counts = [w.decode() for w in words[1:3] if w.isdigit() and len(w) <= 10]
    shown = " ".join([words[0][:8].decode("ascii", "replace"), *counts])
    return f"proof: skipped PicoSAT header '{shown}' (line 1 of a 'picosat -R' proof)"


Notes = Callable[[str], None]


class SkipNotes:
    """After each scan of a proof part: a note for the first status line
    (and, in a binary proof, comment line) the scanner skipped, once each."""

    def __init__(self, stream: object, binary: bool, notes: Notes) -> None:
        self._stream = stream
        self._binary = binary
        self._notes = notes
        self._watch = ["status_lines", "comment_lines"] if binary else ["status_lines"]

    def after(self, data: bytes | memoryview) -> None:
        stream = self._stream
        found = [(getattr(stream, attr), attr) for attr in self._watch]
        for (count, where, at), attr in sorted(found, key=lambda f: f[0][1]):  # file order
            if not count:
                continue
            self._watch.remove(attr)
            text = getattr(stream, "scanned", data)  # FRAT: the DRUP text scanned
            line = bytes(text[at : at + 64]).split(b"\n", 1)[0].strip() if at >= 0 else b""
            place = f"byte {where}" if self._binary else f"line {where}"
            if attr == "status_lines":
                self._notes(
                    f"proof: skipped a solver's status line {quoted(line)} at {place} "
                    "(not a proof step; any later ones are skipped too)"
                )
            else:
                self._notes(
                    f"proof: skipped comment lines ('c ...') between the binary steps, "
                    f"the first at {place}"
                )
