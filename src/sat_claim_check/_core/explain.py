"""``--explain``: why a claim is not valid, as lines for people.

The lines go to standard error (``cli`` writes them); standard output keeps
only the result.  When a strict check fails after deletions of reason
clauses (or on a delete of a clause that is not there), the proof is checked
again with deletions read leniently, and the lines say whether it checks
then; when a proof ends without the empty clause, it is checked again with
one added, and the lines say whether the clauses alive at the end propagate
to a conflict (drat-trim accepts such a proof).  ``explain(request)`` gives
the same as data, an ``Explanation``.
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import LimitExceeded
from .codes import STEP_ADD
from .options import Options
from .report import Report
from .session import check_request
from .validate import validate
from .validated import Validated, request_step

if TYPE_CHECKING:
    from ..limits import Limits
    from .types import EngineName

# What step_of(s) returns: a request step, {"add": [...]} or {"delete": [...]}.
StepOf = Callable[[int], Mapping[str, Sequence[float]]]
# rerun(lenient, close): the same request checked again, its deletions read
# leniently or not, with one more step {"add": []} at the end when ``close``.
Rerun = Callable[[bool, bool], Report]

__all__ = [
    "Explanation",
    "explain",
    "explain_lines",
    "explanation_of",
    "rerun_with",
    "step_text",
    "with_empty_clause",
    "worth_lenient",
    "worth_rerun",
]

# Ignored steps listed in full up to this many; more are shortened.
LISTED = 10


@dataclass(frozen=True)
class Explanation:
    """Why a claim is (not) valid, as ``explain`` gives it.

    ``strict`` is the Report of the check as ``run`` makes it (strict
    deletions, the default).  ``lenient`` is the Report of the same proof with
    ``deletions="lenient"`` (deletions of reason and unit clauses, and of
    clauses that are not there, ignored, as drat-trim does), or None when it
    was not run: the strict check did not fail after a deletion of a reason
    clause or on a delete of an absent clause (or the lenient one passed the
    work cap, which a line says).  ``lines`` are the lines
    ``sat-claim-check check --explain`` writes on standard error, without the
    program's name: empty when the claim is valid.  ``conflict_at_end`` is
    set when the check (the lenient one, when it ran) fails for want of the
    empty clause: True when the clauses alive after the last step propagate
    to a conflict (the proof only lacks its final empty clause, and drat-trim
    accepts it), False when they do not; None otherwise.  docs/semantics.md,
    "Lenient deletions", describes the two readings.
    """

    strict: Report
    lenient: Report | None
    lines: tuple[str, ...]
    conflict_at_end: bool | None = None


def explain_lines(
    report: Report, step_of: StepOf, where: Callable[[int], str | None] | None = None
) -> list[str]:
    """The explanation of a Report's result, as lines ([] when it is valid).

    ``step_of(s)`` gives proof step s as a request step ({"add": [...]});
    ``where(s)``, when given, the "FILE:LINE" where step s starts (or None);
    for a sat claim, where clause s of the CNF starts.
    """
    res = report.result
    if res["valid"]:
        return []
    reason, d = res["reason"], res["first_discrepancy"]
    assert d is not None  # a result that is not valid names one
    if d["kind"] == "assignment":
        seen = f" (see index {d['previous_index']})" if "previous_index" in d else ""
        return [
            f"explain: {reason}: assignment literal {d['literal']} at index "
            f"{d['assignment_index']}{seen}"
        ]
    if d["kind"] == "clause":
        extra = f"; unassigned: {d['unassigned_literals']}" if "unassigned_literals" in d else ""
        lines = [
            f"explain: {reason}: clause {d['clause_index']}{_at(where, d['clause_index'])} "
            f"{d['clause']} is not satisfied by the assignment{extra}"
        ]
        if d.get("unassigned_literals"):
            lines.append(
                "explain: the assignment leaves variables of this clause "
                "unassigned: a model cut short (its 'v' lines), or a model of "
                "another formula?"
            )
        return lines
    if d["kind"] == "conclusion":
        return [
            f"explain: all {d['step_count']} steps passed but no step added the "
            "empty clause (a DRUP proof ends with a line '0')"
        ]
    s = d["step_index"]
    at = _at(where, s)
    lines = [
        f"explain: step {s}{at} fails: {reason}",
        f"explain:   step {s}: {step_text(step_of(s))}",
    ]
    if reason == "literal_out_of_range":
        lines.append(
            f"explain: the literal {d['literal']} is outside 1..num_vars: "
            "a proof of another formula, or one that adds variables (extended "
            "resolution, DRAT), which DRUP does not allow"
        )
    elif reason == "deleted_clause_not_found":
        lines.append(
            "explain: no live clause has this literal set (it was never added, "
            "or was already deleted)"
        )
    elif reason == "lemma_not_rup":
        lines += _not_rup_lines(report, s, step_of, where)
    return lines


def _not_rup_lines(
    report: Report, s: int, step_of: StepOf, where: Callable[[int], str | None] | None
) -> list[str]:
    lines = [
        "explain: unit propagation on the negated clause over the clauses live at "
        "this step reaches no conflict"
    ]
    earlier = [t for t in report.reason_deletions if t < s]
    if not earlier:
        lines.append(
            "explain: no earlier step deleted a reason clause; the lemma is not "
            "implied by unit propagation (in a DRAT proof it may be a RAT lemma: "
            "RAT lemmas are out of scope here, every DRUP lemma must be RUP)"
        )
        return lines
    lines.append(
        f"explain: {len(earlier)} earlier step{'s' if len(earlier) != 1 else ''} "
        "deleted a clause that was the reason of a level-0 (unit-implied) "
        "literal:"
    )
    # The first ones and the last (the nearest the failure), not thousands.
    shown = earlier if len(earlier) <= LISTED else [*earlier[: LISTED - 1], earlier[-1]]
    lines += [f"explain:   step {t}{_at(where, t)}: {step_text(step_of(t))}" for t in shown]
    if len(shown) < len(earlier):
        lines.insert(-1, f"explain:   ... {len(earlier) - len(shown)} more")
    lines.append(
        "explain: drat-trim-style checkers ignore deletions of such reason "
        "clauses and may accept this proof; this checker honours every deletion "
        "(docs/semantics.md): the level-0 assignment is rebuilt without the "
        "deleted clause"
    )
    return lines


def _at(where: Callable[[int], str | None] | None, step: int) -> str:
    place = where(step) if where is not None else None
    return f" ({place})" if place else ""


def explain(
    request: dict[str, Any], *, engine: EngineName = "auto", limits: Limits | None = None
) -> Explanation:
    """Check a request (a dict, as for ``run``) and explain its result: return an
    Explanation with the strict Report, the lenient one when the strict check
    failed after deletions of reason clauses or at a delete of a clause that
    is not there (None otherwise, or when the lenient check passes the work
    cap), the lines of ``--explain``, and whether a proof that lacks the empty
    clause ends with clauses that propagate to a conflict.  ``engine`` and
    ``limits`` are as for ``run``; a rejected request raises InvalidInput or
    LimitExceeded, as ``run`` does.  docs/semantics.md, "Lenient deletions".
    """
    options = Options.of(engine, limits)
    v = validate(request, options.limits)
    strict = check_request(v, options)

    def step_of(s: int) -> dict[str, list[int]]:
        assert v.step_kinds is not None and v.step_offsets is not None
        assert v.step_lits is not None
        return request_step(v.step_kinds, v.step_offsets, v.step_lits, s)

    return explanation_of(
        strict, step_of, rerun_with(v, options), (v.clause_offsets, v.clause_lits)
    )


def rerun_with(v: Validated, options: Options) -> Rerun:
    """The ``rerun`` of ``explanation_of`` for a validated request: strict or
    lenient, without progress."""

    def rerun(lenient: bool, close: bool) -> Report:
        return check_request(
            closed(v) if close else v, options._replace(lenient=lenient, progress=None)
        )

    return rerun


def closed(v: Validated) -> Validated:
    """An unsat request's Validated with one more proof step: {"add": []}."""
    assert v.step_kinds is not None and v.step_offsets is not None
    assert v.step_lits is not None
    out = Validated(v.claim, v.num_vars, v.clause_offsets, v.clause_lits)
    out.step_kinds, out.step_offsets, out.step_lits = with_empty_clause(
        v.step_kinds, v.step_offsets, v.step_lits
    )
    return out


def with_empty_clause(
    kinds: array[int], offsets: array[int], lits: array[int]
) -> tuple[array[int], array[int], array[int]]:
    """Proof arrays with one more step at the end: the empty clause added."""
    return (
        array(kinds.typecode, [*kinds, STEP_ADD]),
        array(offsets.typecode, [*offsets, offsets[-1]]),
        lits,
    )


def explanation_of(
    report: Report,
    step_of: StepOf,
    rerun: Rerun,
    cnf: tuple[Sequence[int], Sequence[int]],
    where: Callable[[int], str | None] | None = None,
    lenient: bool = False,
) -> Explanation:
    """The Explanation of a Report (checked with lenient deletions when
    ``lenient``); ``rerun`` checks the same request again, and is called only
    when that can help; ``cnf`` is the request's clauses as (offsets,
    literals); ``where`` as for ``explain_lines``."""
    lines = explain_lines(report, step_of, where)
    second: Report | None = None
    last, last_lenient = report, lenient
    if not lenient and worth_lenient(report):
        try:
            second = rerun(True, False)
        except LimitExceeded as err:
            lines.append(
                f"explain: read leniently (--deletions lenient), the proof passes "
                f"the work cap ({err.max}) at step {err.step_index}: no verdict"
            )
            return Explanation(report, None, tuple(lines))
        lines += _lenient_lines(second, step_of, cnf)
        last, last_lenient = second, True
    conflict = None
    if last.result["reason"] == "empty_clause_not_derived":
        try:
            conflict = rerun(last_lenient, True).result["valid"]
        except LimitExceeded:
            conflict = None  # the extra step passes the work cap: nothing to say
        else:
            line = _CONFLICT_AT_END if conflict else _NO_CONFLICT_AT_END
            if last_lenient and not lenient:  # the reading of the line before
                line = line.replace(
                    "explain: the clauses", "explain: read leniently, the clauses", 1
                )
            lines.append(line)
    return Explanation(report, second, tuple(lines), conflict)


_CONFLICT_AT_END = (
    "explain: the clauses alive after the last step propagate to a conflict: "
    "the proof lacks only its final empty clause (a line '0'); drat-trim "
    "accepts such a proof, this checker needs the empty clause added"
)
_NO_CONFLICT_AT_END = (
    "explain: the clauses alive after the last step do not propagate to "
    "a conflict: the proof stops short of a refutation"
)


def worth_rerun(report: Report, lenient: bool = False) -> bool:
    """Whether ``explanation_of`` would check the proof again: for the lenient
    reading, or with the empty clause added at the end."""
    return (not lenient and worth_lenient(report)) or (
        report.result["reason"] == "empty_clause_not_derived"
    )


def worth_lenient(strict: Report) -> bool:
    """A failed unsat check with a reason deletion before the failure, or a
    delete of a clause that is not there: the lenient reading may differ."""
    res = strict.result
    if res["valid"] or res["claim"] != "unsat":
        return False
    if res["reason"] == "deleted_clause_not_found":
        return True
    d = res["first_discrepancy"]
    assert d is not None
    end = d["step_index"] if d["kind"] == "step" else d["step_count"]
    return any(t < end for t in strict.reason_deletions)


def ignored_kinds(
    ignored: Sequence[int], step_of: StepOf, cnf: tuple[Sequence[int], Sequence[int]]
) -> Counter[str]:
    """How many of the ignored deletes were of "reason" clauses, "unit" clauses
    and clauses "absent" (not there), from a replay of the literal sets alive
    in the lenient reading (every step up to the last ignored one succeeded)."""
    offsets, lits = cnf
    live = Counter(frozenset(lits[offsets[k] : offsets[k + 1]]) for k in range(len(offsets) - 1))
    skipped = set(ignored)
    kinds: Counter[str] = Counter()
    for s in range(max(ignored, default=-1) + 1):
        ((key, step),) = step_of(s).items()
        literals = frozenset(int(lit) for lit in step)
        if key == "add":
            live[literals] += 1
        elif s not in skipped:
            live[literals] -= 1
        elif live[literals] <= 0:
            kinds["absent"] += 1
        else:
            kinds["unit" if len(literals) == 1 else "reason"] += 1
    return kinds


_KIND_WORDS = (
    ("reason", "reason clauses"),
    ("unit", "unit clauses"),
    ("absent", "clauses that are not there"),
)
_ONE_KIND_WORDS = {
    "reason clauses": "a reason clause",
    "unit clauses": "a unit clause",
    "clauses that are not there": "a clause that is not there",
}


def _lenient_lines(
    lenient: Report, step_of: StepOf, cnf: tuple[Sequence[int], Sequence[int]]
) -> list[str]:
    ignored = lenient.ignored_deletions
    n = len(ignored)
    kinds = ignored_kinds(ignored, step_of, cnf)
    present = [(words, kinds[kind]) for kind, words in _KIND_WORDS if kinds[kind]]
    if len(present) != 1:
        what = " and ".join(f"{words} ({count})" for words, count in present)
    else:
        what = _ONE_KIND_WORDS[present[0][0]] if n == 1 else present[0][0]
    deletions = (
        f"the {n} deletion{'s' if n != 1 else ''} of {what} at "
        f"step{'s' if n != 1 else ''} {steps_list(ignored)}"
    )
    res = lenient.result
    if res["valid"]:
        return [
            f"explain: valid if {deletions} {'are' if n != 1 else 'is'} ignored, as "
            "drat-trim does (--deletions lenient)"
        ]
    d = res["first_discrepancy"]
    assert d is not None
    if d["kind"] == "conclusion":
        where = "no step adds the empty clause"
    else:
        where = (
            f"step {d['step_index']} fails: {res['reason']} ({step_text(step_of(d['step_index']))})"
        )
    if not ignored:
        return [
            f"explain: read leniently (--deletions lenient), as drat-trim does, it "
            f"fails anyway, no deletion being ignored: {where}"
        ]
    return [
        f"explain: it fails anyway if {deletions} {'are' if n != 1 else 'is'} ignored, "
        f"as drat-trim does (--deletions lenient): {where}"
    ]


def steps_list(steps: Sequence[int]) -> str:
    """Steps as words: 3, 8 and 12; past LISTED steps, the first ones, "...", the last
    and the count."""
    if not steps:
        return "(none)"
    if len(steps) > LISTED:
        head = ", ".join(map(str, steps[: LISTED - 2]))
        return f"{head}, ..., {steps[-1]} ({len(steps)} in all)"
    if len(steps) == 1:
        return str(steps[0])
    return f"{', '.join(map(str, steps[:-1]))} and {steps[-1]}"


def step_text(step: Mapping[str, Sequence[float]]) -> str:
    """A request step in DRUP text: "1 -2 0", "d 1 -2 0" ({}: a step not kept)."""
    if not step:
        return "(not kept: a proof read as a stream keeps only the first steps to explain)"
    ((key, lits),) = step.items()
    text = " ".join(str(int(lit)) for lit in lits)  # 3.0 is the literal 3
    return f"{'d ' if key == 'delete' else ''}{text}{' ' if lits else ''}0"
