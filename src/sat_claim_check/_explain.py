"""``--explain``: why a claim is not valid, as lines for people.

The lines go to standard error (``cli`` writes them); standard output keeps
only the result.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._check import Report

# What step_of(s) returns: a request step, {"add": [...]} or {"delete": [...]}.
StepOf = Callable[[int], Mapping[str, Sequence[float]]]

__all__ = ["explain_lines", "step_text"]


def explain_lines(report: Report, step_of: StepOf,
                  where: Callable[[int], str | None] | None = None) -> list[str]:
    """The explanation of a Report's result, as lines ([] when it is valid).

    ``step_of(s)`` gives proof step s as a request step ({"add": [...]});
    ``where(s)``, when given, the "FILE:LINE" where step s starts (or None).
    """
    res = report.result
    if res["valid"]:
        return []
    reason, d = res["reason"], res["first_discrepancy"]
    assert d is not None            # a result that is not valid names one
    if d["kind"] == "assignment":
        seen = f" (see index {d['previous_index']})" if "previous_index" in d else ""
        return [f"explain: {reason}: assignment literal {d['literal']} at index "
                f"{d['assignment_index']}{seen}"]
    if d["kind"] == "clause":
        extra = (f"; unassigned: {d['unassigned_literals']}"
                 if "unassigned_literals" in d else "")
        lines = [f"explain: {reason}: clause {d['clause_index']} {d['clause']} is not "
                 f"satisfied by the assignment{extra}"]
        if d.get("unassigned_literals"):
            lines.append("explain: the assignment leaves variables of this clause "
                         "unassigned: a model cut short (its 'v' lines), or a model of "
                         "another formula?")
        return lines
    if d["kind"] == "conclusion":
        return [f"explain: all {d['step_count']} steps passed but no step added the "
                "empty clause (a DRUP proof ends with a line '0')"]
    s = d["step_index"]
    at = _at(where, s)
    lines = [f"explain: step {s}{at} fails: {reason}",
             f"explain:   step {s}: {step_text(step_of(s))}"]
    if reason == "literal_out_of_range":
        lines.append(f"explain: the literal {d['literal']} is outside 1..num_vars: "
                     "a proof of another formula, or one that adds variables (extended "
                     "resolution, DRAT), which DRUP does not allow")
    elif reason == "deleted_clause_not_found":
        lines.append("explain: no live clause has this literal set (it was never added, "
                     "or was already deleted)")
    elif reason == "lemma_not_rup":
        lines += _not_rup_lines(report, s, step_of, where)
    return lines


def _not_rup_lines(report: Report, s: int, step_of: StepOf,
                   where: Callable[[int], str | None] | None) -> list[str]:
    lines = ["explain: unit propagation on the negated clause over the clauses live at "
             "this step reaches no conflict"]
    earlier = [t for t in report.reason_deletions if t < s]
    if not earlier:
        lines.append("explain: no earlier step deleted a reason clause; the lemma is not "
                     "implied by unit propagation")
        lines.append("explain: if this proof is DRAT, the lemma may be a RAT lemma: "
                     "RAT lemmas are out of scope here (DRUP: every lemma must be RUP)")
        return lines
    lines.append(f"explain: {len(earlier)} earlier step{'s' if len(earlier) != 1 else ''} "
                 "deleted a clause that was the reason of a level-0 (unit-implied) "
                 "literal:")
    lines += [f"explain:   step {t}{_at(where, t)}: {step_text(step_of(t))}"
              for t in earlier]
    lines.append("explain: drat-trim-style checkers ignore deletions of such reason "
                 "clauses and may accept this proof; this checker honours every deletion "
                 "(docs/semantics.md): the level-0 assignment is rebuilt without the "
                 "deleted clause")
    return lines


def _at(where: Callable[[int], str | None] | None, step: int) -> str:
    place = where(step) if where is not None else None
    return f" ({place})" if place else ""


def step_text(step: Mapping[str, Sequence[float]]) -> str:
    """A request step in DRUP text: "1 -2 0", "d 1 -2 0" ({}: a step not kept)."""
    if not step:
        return "(not kept: a proof read as a stream keeps only the first steps to explain)"
    (key, lits), = step.items()
    text = " ".join(str(int(lit)) for lit in lits)     # 3.0 is the literal 3
    return f"{'d ' if key == 'delete' else ''}{text}{' ' if lits else ''}0"

