"""What to do next: the lines the command line adds to an error or a verdict.

Each function returns lines for people (without the ``sat-claim-check: ``
prefix), or [] when it has nothing to add.  The error objects and results
never change: hints go to standard error only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..limits import CEILINGS

if TYPE_CHECKING:
    from ..errors import LimitExceeded

__all__ = ["json_misread_lines", "limit_lines", "misread_lines"]


def limit_lines(err: LimitExceeded) -> list[str]:
    """How to lift the limit(s) an input passes: the flag and the ``Limits`` field
    of each limit known to be passed, so that one rerun is enough."""
    if err.out_of_memory:
        return [
            "this machine could not allocate the memory to check it, and raising the "
            "limits cannot help: check it where the process may use more memory"
        ]
    passed = [(err.limit, err.actual), *err.also_passed]
    beyond = [
        (name, actual) for name, actual in passed if actual is not None and actual > CEILINGS[name]
    ]
    if beyond:
        return [
            f"{name} cannot be raised to {actual:,}: {CEILINGS[name]:,} is the most "
            "the engines can represent, so this input cannot be checked"
            for name, actual in beyond
        ]
    lines = [
        f"the input also passes {name} (it has {actual:,})" for name, actual in err.also_passed
    ]
    settings = [(name, _enough(name, actual, err)) for name, actual in passed]
    flags = " ".join(f"--limit {name}={value}" for name, value in settings)
    fields = ", ".join(f"{name}={value}" for name, value in settings)
    lines.append(
        f"to check it anyway, rerun with {flags} (in Python: Limits({fields})), "
        "or with --unlimited (Limits.unlimited())"
    )
    if err.read_stopped:
        lines.append(
            "reading stopped at this limit: the rest of the input was not read, "
            "and may pass other limits (--unlimited lifts them all)"
        )
    return lines


# Counts a CNF's header gives exactly, however little is read.
_HEADER_COUNTS = ("max_vars", "max_clauses")


def _enough(name: str, actual: int | None, err: LimitExceeded) -> int:
    """A value of the limit that lets the input through (as far as it is known)."""
    if (
        name == "max_propagation_work"
        or actual is None
        or (err.read_stopped and name == err.limit and name not in _HEADER_COUNTS)
    ):
        # Only "more than the limit" is known: ten times it, within the ceiling.
        return min(CEILINGS[name], max(err.max, 1) * 10)
    return min(CEILINGS[name], actual)


# -- text that is not what the command expected --------------------------------------


def misread_lines(what: str, head: bytes, message: str) -> list[str]:
    """Hints for DIMACS/DRUP/model text that did not parse: ``what`` is "CNF",
    "proof" or "model", ``head`` the first bytes of the file, ``message`` the
    scanner's message."""
    kind = looks_like(head)
    if what == "proof" and kind == "cnf":
        return [
            "this file has a 'p cnf' header: it looks like a CNF. Are --cnf and --proof swapped?"
        ]
    if what == "CNF" and kind in ("drup", "binary") and "header" in message:
        return ["this file looks like a DRUP proof, not a CNF. Are --cnf and --proof swapped?"]
    if what == "proof" and kind == "binary":
        return [
            "this looks like a binary DRUP proof (bytes 'a'/'d' and variable-length "
            "integers): read it with --proof-format binary (or auto)"
        ]
    if what == "proof" and kind == "status":
        return [
            "a solver's status line ('s ...', 'v ...') in the proof: write the proof "
            "to a file or pipe of its own"
        ]
    return []


def json_misread_lines(head: bytes) -> list[str]:
    """Hints for a `check` input that is not JSON text but DIMACS or DRUP."""
    kind = looks_like(head)
    if kind == "cnf":
        return [
            "this looks like a DIMACS CNF, not a JSON request: check it with "
            "`sat-claim-check request --cnf FILE --proof PROOF --check` (or --model)"
        ]
    if kind in ("drup", "binary"):
        return [
            "this looks like a DRUP proof, not a JSON request: check it with "
            "`sat-claim-check request --cnf FORMULA --proof FILE --check`"
        ]
    return []


def looks_like(head: bytes) -> str | None:
    """ "cnf", "drup", "binary", "status" or None: a guess from a file's first bytes."""
    if not head:
        return None
    if any(b < 9 or (13 < b < 32 and b != 27) or b > 126 for b in head[:64]):
        return "binary" if head[:1] in (b"a", b"d") else None
    for line in head.split(b"\n"):
        words = line.split()
        if not words or words[0].startswith(b"c"):
            continue
        if words[0] == b"p":
            return "cnf"
        if words[0] in (b"s", b"v"):
            return "status"
        if words[0] == b"d" or _integers(words):
            return "drup"
        return None
    return None


def _integers(words: Sequence[bytes]) -> bool:
    return all(w.lstrip(b"-").isdigit() for w in words)
