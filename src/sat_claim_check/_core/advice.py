"""A word on every rejection: the one-line hint of a verdict that is not valid.

``verdict_hint`` words what the result alone tells (``Report.hint``); a
door that can read the proof again (a file, not a pipe) checks it under the
drat-trim reading and words what that says instead (``reread_hint``).  A
hint names the flag that helps, and never one already in force.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ..errors import LimitExceeded

if TYPE_CHECKING:
    from .report import Report

__all__ = ["READING_FLAGS", "reread_hint", "verdict_hint"]

# The flag and the keyword argument that select each reading.
READING_FLAGS = {
    "strict": "--reading strict (in Python: reading='strict')",
    "lenient": "--deletions lenient (in Python: deletions='lenient')",
    "drat-trim": "--reading drat-trim (in Python: reading='drat-trim')",
}
_DRAT_TRIM = READING_FLAGS["drat-trim"]


def verdict_hint(report: Report, reading: str = "strict") -> str | None:
    """The hint of a Report's result read under ``reading`` ("strict",
    "lenient" or "drat-trim"), from the result alone; None when valid."""
    if report.result["valid"]:
        return None
    what, flags = _words(report, reading)
    return what if flags is None else f"{what}: try {flags}"


def _words(report: Report, reading: str) -> tuple[str, str | None]:
    """What may be wrong with a result that is not valid, and the flags that
    may help (None: no reading does)."""
    res = report.result
    reason, d = res["reason"], res["first_discrepancy"]
    assert d is not None
    if res["claim"] == "sat":
        return _sat_hint(str(reason), d), None
    if reason == "empty_clause_not_derived":
        if reading == "drat-trim":
            return (
                "the clauses alive after the last step do not propagate to a conflict: "
                "the proof stops short of a refutation (cut short, or of another formula?)"
            ), None
        return (
            "the proof ends without the empty clause; drat-trim also accepts a proof "
            "whose clauses propagate to a conflict at a step boundary"
        ), _DRAT_TRIM
    s = d["step_index"]
    if reason == "literal_out_of_range":
        return (
            f"step {s} uses the variable {abs(d['literal'])}, beyond the formula's: a proof "
            "of another formula (are the files a pair?), or one that adds variables "
            "(extended resolution, DRAT), which a DRUP check does not allow"
        ), None
    lenient = _lenient_flag(reading)
    if reason == "deleted_clause_not_found":
        return (
            f"step {s} deletes a clause that is not live (solvers of the MiniSat family "
            "write such deletions)"
        ), lenient
    earlier = [t for t in report.reason_deletions if t < s]
    if earlier:
        return (
            f"step {s} is not RUP after {_count(earlier, 'deletion')} of reason clauses "
            f"(first at step {earlier[0]}), which drat-trim ignores"
        ), lenient
    if reading == "strict":
        return (
            f"step {s} is not RUP: it may be a RAT lemma (DRAT; a DRUP check accepts RUP "
            "lemmas only), or follow deletions drat-trim ignores"
        ), _DRAT_TRIM
    return (
        f"step {s} is not RUP: it may be a RAT lemma (DRAT; a DRUP check accepts RUP "
        "lemmas only: check it with a DRAT checker such as drat-trim), or the proof is "
        "of another formula"
    ), None


def reread_hint(
    report: Report, reading: str, again: Callable[[str], Report], pipe: bool = False
) -> str | None:
    """The hint of a Report once the proof is checked again under the drat-trim
    reading (``again(reading)`` checks it; called only when it can help).  A
    proof from a pipe (``pipe``) cannot be read again: the hint says so."""
    first = verdict_hint(report, reading)
    res = report.result
    if res["valid"] or res["claim"] != "unsat" or reading == "drat-trim":
        return first
    if pipe:
        return f"{first} (the proof came from a pipe: it is not read again to see)"
    try:
        other = again("drat-trim")
    except LimitExceeded as err:
        return f"{first}; read as drat-trim reads it, it passes the work cap ({err.max:,})"
    if not other.result["valid"]:
        if res["reason"] == "empty_clause_not_derived":
            return (
                "the proof ends without the empty clause, and its clauses propagate to "
                "a conflict at no step boundary either (as --reading drat-trim would "
                "accept): it stops short of a refutation (cut short, or of another formula?)"
            )
        d = other.result["first_discrepancy"]
        assert d is not None
        where = f" at step {d['step_index']}" if d["kind"] == "step" else ""
        return (
            f"{_words(report, reading)[0]}; read as drat-trim reads it (--reading drat-trim) it "
            f"is not valid either: {other.result['reason']}{where}"
        )
    how = []
    ignored = other.ignored_deletions
    if ignored:
        how.append(
            f"{_count(ignored, 'deletion')} of unit or reason clauses, or of clauses "
            "not there, ignored"
        )
    steps = other.result["steps_checked"]
    if res["reason"] == "empty_clause_not_derived" or steps < _stop(report):
        how.append(
            f"the clauses alive after step {steps - 1} propagate to a conflict"
            if steps
            else "the formula's units alone propagate to a conflict"
        )
    detail = f" ({'; '.join(how)})" if how else ""
    return f"valid as drat-trim reads it{detail}: rerun with {_DRAT_TRIM}"


def _sat_hint(reason: str, d: dict[str, object]) -> str:
    if reason == "clause_undetermined":
        return (
            f"the model leaves a variable of clause {d['clause_index']} unassigned: "
            "a model cut short (its 'v' lines), or a model of another formula?"
        )
    if reason == "clause_falsified":
        return (
            f"the model falsifies clause {d['clause_index']}: a model of another formula, "
            "or the files are not a pair?"
        )
    return "the model assigns a variable twice or both ways: not a solver's model?"


def _lenient_flag(reading: str) -> str:
    if reading == "lenient":
        return _DRAT_TRIM
    return (
        "--deletions lenient or --reading drat-trim "
        "(in Python: deletions='lenient' or reading='drat-trim')"
    )


def _count(steps: Sequence[int], word: str) -> str:
    return f"{len(steps):,} {word}{'s' if len(steps) != 1 else ''}"


def _stop(report: Report) -> int:
    """The steps a failed unsat check read: up to and with its failing step."""
    d = report.result["first_discrepancy"]
    assert d is not None
    return int(d["step_count"]) if d["kind"] == "conclusion" else int(d["step_index"]) + 1
