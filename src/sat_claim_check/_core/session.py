"""The one kernel driver: a check starts, takes steps and finishes here.

Every door reaches the kernel through this module: ``run`` and
``check_json`` with a whole request (``check_request``), the ``Checker`` and
the file doors step by step (``start``, the kernel's ``feed``, then
``finish``).  The kernel's status becomes a Report, or the work limit's
error, in ``report.outcome`` only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .advice import verdict_hint
from .codes import STATUS_CONCLUDED, STATUS_WORK_LIMIT
from .report import Report, outcome, result, unsat_outcome, work_limit_error
from .sat import check_sat
from .sizes import out_of_memory

if TYPE_CHECKING:
    from array import array

    from .options import Options
    from .types import KernelObject
    from .validated import Validated

__all__ = ["check_request", "finish", "start"]


def check_request(v: Validated, options: Options) -> Report:
    """Check a validated request (a Validated), sat or unsat; its Report.

    A request too big for this machine's memory (possible only above the
    contract's limits) is rejected as limit_exceeded (``sizes.out_of_memory``).
    """
    try:
        return with_hint(_check(v, options), options)
    except MemoryError:
        error = out_of_memory(v, options.limits)
        if error is None:
            raise
    raise error


def _check(v: Validated, options: Options) -> Report:
    if v.claim == "sat":
        reason, discrepancy, clauses_checked = check_sat(v)
        return Report(result("sat", reason, discrepancy, clauses_checked, 0), 0, options.engine)
    assert v.step_kinds is not None and v.step_offsets is not None and v.step_lits is not None
    max_work = options.limits.max_propagation_work
    kernel = options.kernel.Kernel(
        v.num_vars,
        v.clause_offsets,
        v.clause_lits,
        v.step_kinds,
        v.step_offsets,
        v.step_lits,
        max_work,
        options.reading_code,
    )
    status, step_index, steps_checked, work = kernel.run(options.progress)
    return Report(
        unsat_outcome(v, status, step_index, steps_checked, max_work),
        work,
        options.engine,
        kernel.reason_deletions,
        kernel.ignored_deletions,
    )


def start(
    options: Options,
    num_vars: int,
    clause_offsets: array[int],
    clause_lits: array[int],
    lrat: tuple[Any, bool] | None = None,
) -> tuple[KernelObject, bool]:
    """A kernel holding the CNF, its initial propagation done, and whether the
    check has concluded already (the drat-trim reading, a CNF inconsistent
    alone: no step is fed then).  Steps are fed to it (``feed``,
    ``feed_step``) until ``finish``.  Raises the work limit's LimitExceeded
    when the initial propagation passes the cap.  ``lrat``: (sink, binary),
    where the kernel writes the LRAT (docs/semantics.md, "LRAT out"), or None."""
    max_work = options.limits.max_propagation_work
    sink, binary = (None, False) if lrat is None else lrat
    kernel = options.kernel.Kernel(
        num_vars,
        clause_offsets,
        clause_lits,
        None,
        None,
        None,
        max_work,
        options.reading_code,
        lrat=sink,
        lrat_binary=binary,
    )
    status = kernel.start(options.progress)
    if status == STATUS_WORK_LIMIT:
        raise work_limit_error(-1, max_work)
    return kernel, status == STATUS_CONCLUDED


def finish(
    options: Options, kernel: KernelObject, failed_clause: list[int], num_vars: int
) -> Report:
    """End a check started with ``start``; its Report.  ``failed_clause``: the
    literals of the step that failed, if one did."""
    status, step_index, steps_checked, work = kernel.finish()
    verdict = outcome(
        status,
        step_index,
        steps_checked,
        failed_clause,
        num_vars,
        options.limits.max_propagation_work,
    )
    report = Report(
        verdict, work, options.engine, kernel.reason_deletions, kernel.ignored_deletions
    )
    return with_hint(report, options)


def with_hint(report: Report, options: Options) -> Report:
    """The Report with its hint (``advice.verdict_hint``): words on a verdict
    that is not valid, under the reading in force."""
    report.hint = verdict_hint(report, options.reading)
    return report
