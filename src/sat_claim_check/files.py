"""``check_files``: a CNF file with a proof or a model, checked as ``verify`` does.

    >>> import sat_claim_check as scc
    >>> outcome = scc.check_files("examples/php5.cnf", "examples/php5.drup")
    >>> outcome.status, outcome.exit_code
    ('valid', 0)

The door a solver pipeline reaches for: no size limits unless asked
(``limits=Limits()`` applies the contract's), a time bound when asked
(``timeout=``), and the answer as ``check_json`` gives it, an ``Outcome``:
what the files hold never raises.  A verdict that is not valid carries a
hint (``outcome.hint``).  Proofs are read as drat-trim's forward mode reads
them unless ``reading=`` says otherwise.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from contextlib import closing
from typing import TYPE_CHECKING, Any

from ._core.advice import reread_hint, verdict_hint
from ._core.options import Options
from ._core.outcome import Outcome
from ._io.dimacs_text import DimacsError, Input
from ._io.lrat_out import LratOut, LratWriteError
from ._io.proofstream import proof_parts
from ._io.whole_files import OutOfTime, read_cnf
from ._segments import cluster_proof_path
from .dimacs import StepMemo, files_report
from .errors import CheckError, InvalidInput, LimitExceeded, TimedOut
from .limits import Limits

if TYPE_CHECKING:
    from ._core.report import Report
    from ._core.types import EngineName, Progress, ProofFormat, Reading

__all__ = ["LratWriteError", "check_files"]

Notes = Callable[[str], None]


def check_files(
    cnf: Input,
    proof: Input | None = None,
    model: Input | None = None,
    *,
    engine: EngineName = "auto",
    limits: Limits | None = None,
    reading: str | None = None,
    deletions: str | None = None,
    timeout: float | None = None,
    progress: Progress | None = None,
    notes: Notes | None = None,
    proof_format: ProofFormat = "auto",
    max_bytes: int | None = None,
    lrat: Any = None,
    lrat_binary: bool = False,
    jobs: int = 1,
    cluster: Any = None,
) -> Outcome:
    """Check a DIMACS CNF file with a DRUP proof (an unsat claim) or a model (a
    sat claim) file; return the Outcome, as ``check_json`` does for text.

    Give exactly one of ``proof`` and ``model`` (else TypeError).  Files may be
    compressed (gzip, xz, bz2), ``"-"`` is standard input, and the proof is
    text or binary DRUP, told by its content, checked as it is read (memory
    follows the live clauses).  ``limits=None`` means no size limits (the
    largest the engines represent); ``Limits()`` is the contract's.
    ``reading`` is "drat-trim" (the default, as for ``verify``: drat-trim's
    forward mode; docs/semantics.md, "The drat-trim reading"), "lenient" or
    "strict" (the contract's); ``deletions`` as for ``run`` (given alone, it
    names the reading: "strict" or "lenient").
    ``timeout`` (seconds) ends a longer check with a rejected Outcome whose
    error is a ``TimedOut`` naming the step reached.  ``progress`` is as for
    ``run``; ``notes(text)`` is called with a line for each kind of solver
    output skipped (status lines, a header).  Malformed text, unreadable
    files and limits give a rejected Outcome with the error (a CheckError)
    and its ``hint``; a result that is not valid a Report with its ``hint``.
    ``lrat`` (a path, or a binary stream) receives the proof as LRAT, binary
    with ``lrat_binary``: a file is put in place only when the verdict is
    valid (else it is removed), a stream gets the empty clause only then;
    LratWriteError (an OSError) when it cannot be written.
    ``jobs`` > 1 checks the proof on that many worker processes (0: one
    per CPU this process may use), in segments: the same result, byte for
    byte, without a work cap, and the Report's ``work`` is what the
    segments' checks counted (the exact counter is a check on one core's);
    the lenient reading and ``lrat`` check on one core.  ``cluster`` (a
    ``distributed.Client``) checks it so on the cluster's workers instead,
    which read the proof file at its path (``jobs`` is then unused; a proof
    that is not a file's path is a ValueError, raised before anything is
    read).  docs/semantics.md ("Checking files", "LRAT out", "One proof on
    every core") has the details.
    """
    if (proof is None) == (model is None):
        raise TypeError("give exactly one of proof (an unsat claim) and model (a sat claim)")
    if lrat is not None and proof is None:
        raise TypeError("lrat needs a proof: a sat claim has no LRAT")
    if type(lrat_binary) is not bool:
        raise TypeError(f"lrat_binary must be a bool, not {type(lrat_binary).__name__}")
    out = None if lrat is None else LratOut(lrat, lrat_binary)
    if out is not None:
        out.check_inputs(CNF=cnf, proof=proof)
    if timeout is not None and not (isinstance(timeout, (int, float)) and timeout > 0):
        raise ValueError(f"timeout must be a positive number of seconds or None, got {timeout!r}")
    if type(jobs) is not int or jobs < 0:
        raise ValueError(f"jobs must be an int >= 0 (0: one per CPU), got {jobs!r}")
    if jobs == 0:  # as `verify --jobs 0`
        from ._batch.sizing import available_cpus

        jobs = available_cpus()
    clock = Deadline(timeout, progress)
    in_force = Limits.unlimited() if limits is None else limits
    if reading is None and deletions is None:
        reading = "drat-trim"  # verify's reading: drat-trim -f's
    options = Options.of(engine, in_force, deletions or "strict", clock, reading=reading)
    cluster_proof_path(cluster, proof, options, False, out is not None)  # before any reading
    return files_outcome(
        options,
        cnf,
        proof,
        model,
        clock,
        notes=notes,
        proof_format=proof_format,
        max_bytes=max_bytes,
        lrat=out,
        jobs=jobs,
        cluster=cluster,
    )


class Deadline:
    """The progress callback of a timed check: passes the call on, and raises
    ``_TimeUp`` past the deadline (``seconds`` None: never)."""

    def __init__(self, seconds: float | None, progress: Progress | None = None) -> None:
        self.seconds = seconds
        self.progress = progress
        self.end = None if seconds is None else time.monotonic() + seconds
        self.steps_checked = 0

    def __call__(self, steps_checked: int, work: int) -> None:
        self.steps_checked = steps_checked
        self.check()
        if self.progress is not None:
            self.progress(steps_checked, work)

    def bytes(self, read: int, total: int | None) -> None:
        """The byte-progress callback: the deadline is looked at there too."""
        self.check()

    def check(self) -> None:
        if self.end is not None and time.monotonic() > self.end:
            raise _TimeUp

    def error(self) -> TimedOut:
        s = self.steps_checked
        return TimedOut(
            "proof" if s else None,
            f"/proof/{s}" if s else "",
            f"the check ran past its timeout of {self.seconds:g} s at proof step {s} "
            f"({s:,} steps checked)",
            seconds=float(self.seconds or 0),
            steps_checked=s,
        )


class _TimeUp(Exception):
    """Raised by Deadline through the engine's progress calls."""


def files_outcome(
    options: Options,
    cnf: Input,
    proof: Input | None,
    model: Input | None,
    clock: Deadline,
    *,
    notes: Notes | None = None,
    proof_format: ProofFormat = "auto",
    max_bytes: int | None = None,
    reading: Reading | None = None,
    memo: StepMemo | None = None,
    lrat: LratOut | None = None,
    jobs: int = 1,
    cluster: Any = None,
) -> Outcome:
    """``check_files`` under Options made by the door (``clock`` is their
    progress callback); ``reading`` gets the byte progress, ``memo`` keeps
    the steps that ``--explain`` names, ``lrat`` the first reading's LRAT
    (closed here: put in place when valid, else taken away), ``jobs`` the
    worker processes (or ``cluster`` the Dask client) of a proof checked in
    segments."""

    def on_bytes(read: int, total: int | None) -> None:
        clock.bytes(read, total)
        if reading is not None:
            reading(read, total)

    def report_of(opts: Options, keep: StepMemo | None = None) -> Report:
        first = opts is options  # a second reading says nothing, writes nothing
        return files_report(
            opts,
            cnf,
            proof,
            model,
            max_bytes=max_bytes,
            reading=on_bytes,
            memo=keep,
            proof_format=proof_format,
            notes=notes if first else None,
            lrat=lrat.open() if first and lrat is not None else None,
            jobs=jobs,
            cluster=cluster,
        )

    try:
        try:
            report = report_of(options, memo)
        except BaseException:
            if lrat is not None:
                lrat.close(False, "the check did not end")
            raise
    except _TimeUp:
        return Outcome.rejected(clock.error())
    except LratWriteError:
        raise  # the output failed, not the input
    except (DimacsError, OSError) as err:
        return Outcome.rejected(file_error(err, cnf, proof, model))
    except LimitExceeded as err:
        exact_counts(err, options.limits, cnf, proof, proof_format)
        return Outcome.rejected(err)
    except CheckError as err:
        return Outcome.rejected(err)
    if lrat is not None:
        lrat.close(report.result["valid"])
    if not report.result["valid"]:
        report.hint = verdict_of_files(report, options, report_of, proof)
    return Outcome.checked(report)


def verdict_of_files(
    report: Report, options: Options, report_of: Callable[[Options], Report], proof: Input | None
) -> str | None:
    """The hint of a failed check, the proof read again under the drat-trim
    reading when it is a regular file (within the same deadline)."""
    quiet = options._replace(progress=_no_progress(options.progress))

    def again(reading: str) -> Report:
        return report_of(
            quiet._replace(lenient=reading != "strict", drat_trim=reading == "drat-trim")
        )

    pipe = not (isinstance(proof, (str, os.PathLike)) and os.path.isfile(proof))
    try:
        return reread_hint(report, options.reading, again, pipe=proof is not None and pipe)
    except (_TimeUp, CheckError, OSError, KeyboardInterrupt):
        # The second reading cannot finish (the deadline, Ctrl-C, a file that
        # changed): the verdict stands, with what its result alone says.
        return verdict_hint(report, options.reading)


def _no_progress(progress: Any) -> Any:
    """The deadline without the caller's progress (a second reading is not
    progress of the check the caller sees)."""
    if isinstance(progress, Deadline):
        return Deadline(None if progress.end is None else progress.end - time.monotonic())
    return None


def file_error(
    err: DimacsError | OSError, cnf: Input, proof: Input | None, model: Input | None
) -> CheckError:
    """A file that cannot be read or parsed, as a CheckError with its hint."""
    if isinstance(err, DimacsError):
        return err  # its hint is the reader's, from the text's first bytes
    # A read error (not an open error) does not carry the file name.
    files = [cnf, proof if proof is not None else model]
    name = repr(err.filename) if err.filename else " or ".join(map(repr, map(str, files)))
    return InvalidInput(None, "", f"cannot read {name}: {err.strerror or err}")


# The most text, and time, a limit hint spends counting a proof to give its
# real count: past either (a decompression bomb), the count is not known.
COUNT_BYTES = 256 << 20
COUNT_SECONDS = 2.0


def exact_counts(
    err: LimitExceeded, limits: Limits, cnf: Input, proof: Input | None, proof_format: ProofFormat
) -> None:
    """The input's real counts, when reading stopped at a size limit in
    regular files: each limit the input passes then gets its exact figure
    (``counted``, ``also_passed``), for a hint that one rerun is enough to
    follow.  The error object keeps the count where reading stopped."""
    if not err.read_stopped or err.limit == "max_propagation_work":
        return
    counts: dict[str, int] = {}
    if err.limit in ("max_proof_steps", "max_proof_literals") and _regular(proof):
        assert proof is not None
        steps = literals = 0
        parts = proof_parts(proof, COUNT_BYTES, proof_format)
        until = time.monotonic() + COUNT_SECONDS
        with closing(parts):
            for part in parts:
                if part.code or part.over_cap or time.monotonic() > until:
                    return  # malformed further on, or too long to count: not known
                steps += len(part.kinds)
                literals += len(part.lits)
        counts = {"max_proof_steps": steps, "max_proof_literals": literals}
    elif err.limit == "max_total_literals" and _regular(cnf):
        try:
            lits = read_cnf(cnf, Limits.unlimited(), COUNT_BYTES, time.monotonic() + COUNT_SECONDS)[
                2
            ]
        except (CheckError, DimacsError, OSError, OutOfTime):
            return  # malformed further on, or too long to count: not known
        counts = {"max_total_literals": len(lits)}
    if err.limit not in counts:
        return
    err.counted = counts[err.limit]
    known = dict(err.also_passed)
    known.update(
        (name, n) for name, n in counts.items() if name != err.limit and n > getattr(limits, name)
    )
    err.also_passed = tuple(known.items())


def _regular(path: Input | None) -> bool:
    return isinstance(path, (str, os.PathLike)) and os.path.isfile(path)
