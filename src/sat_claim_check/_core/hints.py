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
    exact = err.counted is not None or not err.read_stopped or err.limit in _HEADER_COUNTS
    passed = [(err.limit, err.actual if err.counted is None else err.counted), *err.also_passed]
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
    if err.limit == "max_propagation_work":
        at = "in the initial build" if err.step_index is None else f"at step {err.step_index:,}"
        lines.append(
            f"to check it anyway, rerun with a larger --limit max_propagation_work (in "
            f"Python: Limits(max_propagation_work=...)): the work a check needs is known "
            f"only at its end, and this one passed {err.max:,} {at}; or with --unlimited"
        )
        return lines
    if not exact:
        lines.append(
            f"reading stopped at this limit: the input has more than {err.max:,} and how "
            "many is not known (a pipe, or a file too long to count), nor whether the rest passes "
            "other limits: rerun with --unlimited (in Python: Limits.unlimited())"
        )
        return lines
    settings = [(name, min(CEILINGS[name], actual)) for name, actual in passed if actual]
    flags = " ".join(f"--limit {name}={value}" for name, value in settings)
    fields = ", ".join(f"{name}={value}" for name, value in settings)
    lines.append(
        f"to check it anyway, rerun with {flags} (in Python: Limits({fields})), "
        "or with --unlimited (Limits.unlimited())"
    )
    return lines


# Counts a CNF's header gives exactly, however little is read.
_HEADER_COUNTS = ("max_vars", "max_clauses")


# -- text that is not what the command expected --------------------------------------


def misread_lines(what: str, head: bytes, message: str) -> list[str]:
    """Hints for DIMACS/DRUP/model text that did not parse: ``what`` is "CNF",
    "proof" or "model" (a message's first word), ``head`` the first bytes of
    the file (decompressed), ``message`` the scanner's message."""
    what = what.split(" ", 1)[0]
    kind = looks_like(head)
    if what == "proof" and kind == "cnf":
        return [
            "this file has a 'p cnf' header: it looks like a CNF. Are --cnf and --proof swapped?"
        ]
    if what == "model" and kind == "cnf":
        return [
            "this file has a 'p cnf' header: it looks like a CNF. Are --cnf and --model swapped?"
        ]
    if what == "CNF" and kind in _PROOFS:
        return [f"this file looks like {_PROOFS[kind]}, not a CNF. Are --cnf and --proof swapped?"]
    if what == "model" and (
        kind in ("binary", "frat") or (kind == "drup" and "after the terminating 0" in message)
    ):
        return [
            f"this file looks like {_PROOFS[kind]}, not a model. Are --model and --proof swapped?"
        ]
    if what in ("proof", "CNF") and kind == "model":
        other = "--proof" if what == "proof" else "--cnf"
        return [
            f"this file looks like a model (a solver's status line 's SATISFIABLE' or 'SAT', "
            f"and the values), not a {what}. Are {other} and --model swapped?"
        ]
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


# How a hint names each kind of proof looks_like tells.
_PROOFS = {"drup": "a DRUP proof", "binary": "a binary DRUP proof", "frat": "a FRAT proof"}


def json_misread_lines(head: bytes) -> list[str]:
    """Hints for a `check` input that is not JSON text but DIMACS or DRUP."""
    kind = looks_like(head)
    if kind == "cnf":
        return [
            "this looks like a DIMACS CNF, not a JSON request: check it with "
            "`sat-claim-check request --cnf FILE --proof PROOF --check` (or --model)"
        ]
    if kind in _PROOFS:
        return [
            "this looks like a DRUP proof, not a JSON request: check it with "
            "`sat-claim-check request --cnf FORMULA --proof FILE --check`"
        ]
    return []


def looks_like(head: bytes) -> str | None:
    """ "cnf", "drup", "binary", "frat", "model", "status" or None: a guess
    from a file's first bytes (decompressed), past its comment lines."""
    if not head:
        return None
    for line in head.split(b"\n"):
        words = line.split()
        if not words or words[0].startswith(b"c"):
            continue
        if any(b < 9 or (13 < b < 32 and b != 27) or b > 126 for b in line[:64]):
            return "binary" if line[:1] in (b"a", b"d") else None
        if words[0] == b"p":
            return "cnf"
        if words[0] == b"v" or words[:2] == [b"s", b"SATISFIABLE"] or words in _MINISAT:
            return "model"
        if words[0] == b"s":
            return "status"
        if words[0] in (b"o", b"a", b"f") and len(words) > 1 and words[1].isdigit():
            return "frat"
        if words[0] == b"d" or _integers(words):
            return "drup"
        return None
    return None


# The first line of a MiniSat result file.
_MINISAT = ([b"SAT"], [b"UNSAT"], [b"INDET"])


def _integers(words: Sequence[bytes]) -> bool:
    return all(w.lstrip(b"-").isdigit() for w in words)
