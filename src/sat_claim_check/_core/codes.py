"""Step kinds and status codes: the small vocabulary the layers share.

The validator classifies each proof step with a ``STEP_*`` kind, the engines
return a ``STATUS_*`` code, and ``_core.report`` turns the code into a result or an
error; the scanners return a ``SCAN_*`` code that ``dimacs`` words; the
command line exits with an ``EXIT_*`` code.  Both
engines, both converters, both scanners and the tests import them from here.
"""

from __future__ import annotations

__all__ = [
    "EXIT_BROKEN_PIPE",
    "EXIT_INTERRUPTED",
    "EXIT_NOT_VALID",
    "EXIT_REJECTED",
    "EXIT_TERMINATED",
    "EXIT_VALID",
    "READINGS",
    "READING_DRAT_TRIM",
    "READING_LENIENT",
    "READING_STRICT",
    "SCAN_ERR_BAD_HEADER",
    "SCAN_ERR_CLAUSE_COUNT",
    "SCAN_ERR_INT_RANGE",
    "SCAN_ERR_NO_HEADER",
    "SCAN_ERR_SECOND_HEADER",
    "SCAN_ERR_TOKEN",
    "SCAN_ERR_UNTERMINATED",
    "SCAN_ERR_VAR_RANGE",
    "SCAN_OK",
    "SCAN_STOPPED",
    "STATUS_CONCLUDED",
    "STATUS_DELETED_CLAUSE_NOT_FOUND",
    "STATUS_EMPTY_CLAUSE_NOT_DERIVED",
    "STATUS_LEMMA_NOT_RUP",
    "STATUS_LITERAL_OUT_OF_RANGE",
    "STATUS_VALID",
    "STATUS_WORK_LIMIT",
    "STEP_ADD",
    "STEP_ADD_OUT_OF_RANGE",
    "STEP_DELETE",
    "STEP_DELETE_NO_MATCH",
    "STEP_KEYS",
    "reading_code",
    "step_key",
]

# Step kinds (the validator's classification of each proof step).
STEP_ADD = 0
STEP_DELETE = 1
STEP_ADD_OUT_OF_RANGE = 2  # an add with a literal outside 1..num_vars
STEP_DELETE_NO_MATCH = 3  # a delete with a literal outside 1..num_vars

# The request key of each step kind.
STEP_KEYS = ("add", "delete")


def step_key(kind: int) -> str:
    """ "add" or "delete" for any step kind, out-of-range ones included."""
    return "add" if kind in (STEP_ADD, STEP_ADD_OUT_OF_RANGE) else "delete"


# Run outcomes.
STATUS_VALID = 0
STATUS_LEMMA_NOT_RUP = 1
STATUS_LITERAL_OUT_OF_RANGE = 2
STATUS_DELETED_CLAUSE_NOT_FOUND = 3
STATUS_EMPTY_CLAUSE_NOT_DERIVED = 4
STATUS_WORK_LIMIT = 5
# The check ended valid before the proof's end: the drat-trim reading stops at
# the first step boundary where the level-0 state is inconsistent (SPEC §4.5).
# Only start() and feed() return it; finish() then returns STATUS_VALID.
STATUS_CONCLUDED = 6

# How an unsat proof is read (a Kernel's ``reading``): SPEC §4.1 strict, §4.4
# lenient deletions, §4.5 drat-trim (lenient deletions, and the early end).
READING_STRICT = 0
READING_LENIENT = 1
READING_DRAT_TRIM = 2
READINGS = ("strict", "lenient", "drat-trim")  # the names, by code


def reading_code(reading: object) -> int:
    """The READING_* code a Kernel is given as ``reading``: one of the codes, or
    a bool (False strict, True lenient: the flag it once took); return it.
    Anything else raises ValueError (exact types only: no hostile int-likes)."""
    if type(reading) is bool:
        return int(reading)
    if type(reading) is int and READING_STRICT <= reading <= READING_DRAT_TRIM:
        return reading
    got = repr(reading) if type(reading) is int else f"a {type(reading).__name__}"
    raise ValueError(
        "reading must be READING_STRICT (0), READING_LENIENT (1) or "
        f"READING_DRAT_TRIM (2), or a bool, got {got}"
    )


def check_sink(lrat: object, lrat_binary: object) -> None:
    """TypeError unless a Kernel's ``lrat`` is None or has a callable ``write``
    and ``lrat_binary`` is a bool (docs/semantics.md, "LRAT out"; the compiled
    kernel checks the same)."""
    if lrat is not None and not callable(getattr(lrat, "write", None)):
        raise TypeError(f"lrat must have a write() method, not {type(lrat).__name__}")
    if type(lrat_binary) is not bool:
        raise TypeError(f"lrat_binary must be a bool, not {type(lrat_binary).__name__}")


# DIMACS/DRUP scanner outcomes (the same numbers as csrc/dimacs_scan.h's SCC_*).
SCAN_OK = 0
SCAN_ERR_TOKEN = 1  # not an integer (or a misplaced 'd' / 'p')
SCAN_ERR_INT_RANGE = 2  # an integer beyond 32 bits
SCAN_ERR_VAR_RANGE = 3  # a CNF literal above the header's V
SCAN_ERR_NO_HEADER = 4  # a literal before "p cnf", or no header at all
SCAN_ERR_BAD_HEADER = 5  # a "p" line that is not "p cnf V C"
SCAN_ERR_SECOND_HEADER = 6  # a second "p" line
SCAN_ERR_UNTERMINATED = 7  # the text ends inside a step
SCAN_ERR_CLAUSE_COUNT = 8  # the number of clauses differs from the header
SCAN_STOPPED = 9  # a stop limit was passed: the arrays hold what was read

# Exit codes of the command line; the last three are 128 + the signal number,
# what a shell reports for a process that signal killed.
EXIT_VALID = 0
EXIT_NOT_VALID = 1
EXIT_REJECTED = 2
EXIT_INTERRUPTED = 130  # SIGINT (Ctrl-C)
EXIT_BROKEN_PIPE = 141  # SIGPIPE: the reader of standard output went away
EXIT_TERMINATED = 143  # SIGTERM
