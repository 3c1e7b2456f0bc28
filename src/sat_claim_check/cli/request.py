"""`request`: the JSON request from a DIMACS CNF and a DRUP proof or a model,
written, or checked at once (``--check``: as ``verify`` checks, under the
contract's limits)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, cast

from .._core.codes import EXIT_REJECTED, EXIT_VALID
from .._core.explain import (
    explain_lines,
    explanation_of,
    with_empty_clause,
    worth_lenient,
    worth_rerun,
)
from .._core.jsontext import dumps
from .._core.options import Options
from .._core.validated import request_step
from ..dimacs import (
    DimacsError,
    StepMemo,
    clause_line,
    parse_files,
    parsed_report,
    request_from_files,
)
from ..errors import CheckError, LimitExceeded
from ..files import exact_counts
from .options import limits_from
from .output import say, say_error, write_output
from .verify import check_files_command

if TYPE_CHECKING:
    from .._core.report import Report
    from .._core.types import ProofArrays


def command_request(args: argparse.Namespace) -> int:
    if [args.cnf, args.proof, args.model].count("-") > 1:
        say("only one of --cnf, --proof and --model can be - (standard input)")
        return EXIT_REJECTED
    if args.explain and not args.check:
        say(
            "--explain needs --check: without --check, request only writes the request "
            "(add --check to check it and explain the verdict)"
        )
        return EXIT_REJECTED
    if (args.lrat is not None or args.lrat_binary) and not args.check:
        say("--lrat needs --check: without --check, request only writes the request")
        return EXIT_REJECTED
    if not args.check:
        return write_request(args)
    return check_files_command(args, limits_from(args))


def write_request(args: argparse.Namespace) -> int:
    """request without --check: the request, as one compact line."""
    limits = limits_from(args)
    try:
        text = dumps(
            request_from_files(
                args.cnf,
                args.proof,
                args.model,
                limits=limits,
                max_bytes=args.max_input_bytes,
                proof_format=args.proof_format,
            )
        )
    except (DimacsError, OSError) as err:
        return reading_failed(args, err)
    except CheckError as err:  # reading stopped at a limit: no request to write
        if isinstance(err, LimitExceeded):
            exact_counts(err, limits, args.cnf, args.proof, args.proof_format)
        say_error(err)
        return EXIT_REJECTED
    return write_output(args.output, text, EXIT_VALID)


def reading_failed(args: argparse.Namespace, err: DimacsError | OSError) -> int:
    if isinstance(err, DimacsError):
        say(str(err))
        if err.hint is not None:  # the reader's, from the text's first bytes
            say(err.hint)
        return EXIT_REJECTED
    # A read error (not an open error) does not carry the file name.
    files = [args.cnf, args.proof or args.model]
    name = repr(err.filename) if err.filename else " or ".join(map(repr, files))
    say(f"cannot read {name}: {err.strerror or err}")
    return EXIT_REJECTED


def explain_files(
    args: argparse.Namespace, options: Options, report: Report, memo: StepMemo | None
) -> list[str]:
    """The --explain lines of request --check.  A proof was checked as it was
    read (``memo`` holds the steps to name); to say whether it checks with
    lenient deletions the proof is read again whole, when it is a file."""
    if memo is None:  # a sat claim: a falsified clause is named by its CNF line

        def clause_place(index: int) -> str | None:
            line = clause_line(args.cnf, index)
            return None if line is None else f"{args.cnf}:{line}"

        return explain_lines(report, no_steps, clause_place)
    lenient = options.lenient
    if not worth_rerun(report, lenient):
        return explain_lines(report, memo.step_of, memo.where)
    again = (
        "whether it checks with lenient deletions, as drat-trim reads them, run the "
        "check again with --deletions lenient"
        if worth_lenient(report) and not lenient
        else "whether its clauses propagate to a conflict at the end, add a final "
        "line '0' and run the check again"
    )
    if not os.path.isfile(args.proof):
        return [
            *explain_lines(report, memo.step_of, memo.where),
            f"explain: the proof came from a pipe and cannot be read again: to see {again}",
        ]
    try:
        parsed = parse_files(
            args.cnf, args.proof, None, options.limits, args.max_input_bytes, args.proof_format
        )
    except (CheckError, DimacsError, OSError):
        # Past the failing step the proof passes a limit or is malformed.
        return [
            *explain_lines(report, memo.step_of, memo.where),
            f"explain: the proof cannot be read whole within the limits: to see {again}",
        ]
    cnf, proof = parsed[0], cast("ProofArrays", parsed[1])

    def rerun(lenient: bool, close: bool) -> Report:
        steps = with_empty_clause(*proof) if close else proof
        return parsed_report((cnf, steps, None), options._replace(lenient=lenient, progress=None))

    explanation = explanation_of(
        report, lambda s: request_step(*proof, s), rerun, cnf[1:], memo.where, lenient
    )
    return list(explanation.lines)


def no_steps(step: int) -> Mapping[str, Sequence[float]]:  # a sat claim has no steps
    raise AssertionError(f"a sat claim has no proof step {step}")
