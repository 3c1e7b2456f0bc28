"""FRAT text (CryptoMiniSat's ``--frat`` proofs) read as DRUP text.

A FRAT step names its clause by an id and may carry the ids of the clauses
it follows from (``a ID LITERALS 0 l HINTS 0``); a DRUP checker needs only
the literals.  So ``a`` steps become additions, ``d ID LITERALS 0``
deletions, and the lines that list clauses without changing the formula
(``o`` original, ``f`` final, ``r`` relocated) are left out.  Every line
keeps its place, so that the scanner's line numbers are the file's.
Binary FRAT is not read.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .dimacs_text import DimacsError

if TYPE_CHECKING:
    from .._core.types import DrupPart

__all__ = ["FRAT_NOTE", "FratText", "drup_of_frat", "is_frat"]

FRAT_NOTE = "proof: read as FRAT (clause ids and hints ignored)"

_ID = re.compile(rb"[0-9]+")
_WORD = re.compile(rb"-?[0-9]+|l")
_HEAD = re.compile(rb"\s*(\S+)\s*(\S*)")  # a line's first two words
_HINTS = re.compile(rb"(?<!\S)l(?!\S)")  # the word "l": the hints follow it
_LISTS = (b"o", b"f", b"r")  # lines that change nothing a DRUP check sees
# A FRAT step waits for its line's end; a line this long is refused, so that a
# file without newlines cannot make the wait hold all of it.
LONGEST_LINE = 1 << 26


def is_frat(body: bytes) -> bool:
    """Whether text whose first line (after comments) is ``body``'s reads as
    FRAT: ``o``, ``a`` or ``f``, a clause id, then integers (and ``l``).
    A first line ``d ID ...`` is read as DRUP (where it is a deletion)."""
    end = body.find(b"\n")
    line = body if end < 0 else body[:end]
    if not line.isascii():
        return False
    words = line.split()
    if end < 0 and len(words) > 2:
        words.pop()  # may be cut short
    return (
        len(words) >= 2
        and words[0] in (b"o", b"a", b"f")
        and _ID.fullmatch(words[1]) is not None
        and all(_WORD.fullmatch(w) for w in words[2:])
    )


def drup_of_frat(text: bytes) -> bytes:
    """The DRUP text of FRAT lines, line for line.  A line that is no FRAT
    step is kept as it is, for the scanner to report.  A step's literals are
    kept as a slice of its line, not as words: a line of millions of them
    costs a copy or two, not an object each."""
    lines = text.split(b"\n")
    for k, line in enumerate(lines):
        head = _HEAD.match(line)
        if head is None:  # a blank line
            continue
        first = head.group(1)
        if first in _LISTS:
            lines[k] = b""
        elif (first == b"a" or first == b"d") and _ID.fullmatch(head.group(2)):
            body = line[head.end() :]
            if first == b"a":
                hints = _HINTS.search(body)
                lines[k] = body if hints is None else body[: hints.start()]
            else:
                lines[k] = b"d" + body
    return b"\n".join(lines)


class FratText:
    """A DRUP text stream (``DrupTextStream``) fed FRAT text, whole lines at a
    time: the same ``scan(data, final)``, ``status_lines`` and
    ``open_literals``; ``scanned`` is the DRUP text of the last call
    (``status_lines``' offsets are in it)."""

    def __init__(self, inner: object, name: str) -> None:
        self._inner = inner
        self._name = name
        self._rest: list[bytes] = []  # the line not yet whole, as its parts
        self._rest_bytes = 0
        self.scanned = b""

    @property
    def status_lines(self) -> tuple[int, int, int]:
        return self._inner.status_lines  # type: ignore[attr-defined, no-any-return]

    @property
    def open_literals(self) -> int:
        return self._inner.open_literals  # type: ignore[attr-defined, no-any-return]

    def scan(self, data: bytes | bytearray | memoryview, final: bool) -> DrupPart:
        data = bytes(data)
        end = len(data) if final else data.rfind(b"\n") + 1
        if end == 0 and not final:  # the line goes on: its parts wait, not joined again
            self._rest.append(data)
            self._rest_bytes += len(data)
            whole = b""
        else:
            whole = b"".join([*self._rest, data[:end]])
            self._rest, self._rest_bytes = [data[end:]], len(data) - end
        if self._rest_bytes > LONGEST_LINE:
            raise DimacsError(f"proof (FRAT): a line longer than {LONGEST_LINE} bytes", self._name)
        self.scanned = drup_of_frat(whole)
        return self._inner.scan(self.scanned, final)  # type: ignore[attr-defined, no-any-return]
