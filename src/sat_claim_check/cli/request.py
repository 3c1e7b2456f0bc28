"""`request`: the JSON request from a DIMACS CNF and a DRUP proof or a model,
written, or checked at once (``--check``): a proof as it is read, a model
read whole."""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping, Sequence
from contextlib import closing
from typing import TYPE_CHECKING, cast

from .._core.codes import EXIT_REJECTED, EXIT_VALID
from .._core.explain import (
    explain_lines,
    explanation_of,
    with_empty_clause,
    worth_lenient,
    worth_rerun,
)
from .._core.hints import misread_lines
from .._core.jsontext import dumps
from .._core.options import Options
from .._core.outcome import exit_code
from .._core.validated import request_step
from ..dimacs import (
    DimacsError,
    StepMemo,
    clause_line,
    file_chunks,
    files_report,
    parse_files,
    parsed_report,
    request_from_files,
)
from ..errors import CheckError
from .options import limits_from
from .output import say, say_error, write_output
from .position import Position

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
    if not args.check:
        return write_request(args)
    if args.proof is not None:
        return check_proof_files(args)
    return check_model_files(args)


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
        say_error(err)
        return EXIT_REJECTED
    return write_output(args.output, text, EXIT_VALID)


def check_model_files(args: argparse.Namespace) -> int:
    """request --check with a model: the files read whole, then checked."""
    position = Position(args.progress)
    options = Options.of(args.engine, limits_from(args), args.deletions, position)
    try:
        report: Report | CheckError = files_report(
            options, args.cnf, model_path=args.model, max_bytes=args.max_input_bytes
        )
    except (DimacsError, OSError) as err:
        return reading_failed(args, err)
    except CheckError as err:
        report = err
    return checked(args, options, position, report, None)


def check_proof_files(args: argparse.Namespace) -> int:
    """request --check with a proof: checked as it is read (dimacs.files_report)."""
    position = Position(args.progress)
    options = Options.of(args.engine, limits_from(args), args.deletions, position)
    memo = StepMemo(args.proof) if args.explain else None
    try:
        report: Report | CheckError = files_report(
            options,
            args.cnf,
            args.proof,
            max_bytes=args.max_input_bytes,
            reading=position.line.bytes,
            memo=memo,
            proof_format=args.proof_format,
        )
    except KeyboardInterrupt:
        return position.interrupted(None)
    except (DimacsError, OSError) as err:
        position.line.close()
        return reading_failed(args, err)
    except CheckError as err:
        report = err
    return checked(args, options, position, report, memo)


def reading_failed(args: argparse.Namespace, err: DimacsError | OSError) -> int:
    if isinstance(err, DimacsError):
        say(str(err))
        what = err.message.split(":", 1)[0]
        if err.file is not None:
            for line in misread_lines(what, file_head(err.file), err.message):
                say(line)
        return EXIT_REJECTED
    # A read error (not an open error) does not carry the file name.
    files = [args.cnf, args.proof or args.model]
    name = repr(err.filename) if err.filename else " or ".join(map(repr, files))
    say(f"cannot read {name}: {err.strerror or err}")
    return EXIT_REJECTED


def checked(
    args: argparse.Namespace,
    options: Options,
    position: Position,
    report: Report | CheckError,
    memo: StepMemo | None,
) -> int:
    """Write the result (or the error object) of request --check; its exit code."""
    position.line.close()
    if isinstance(report, CheckError):
        code = write_output(args.output, dumps(report.to_dict()), EXIT_REJECTED)
        say_error(report)  # after the error object, as `check` writes them
        return code
    code = write_output(args.output, dumps(report.result), exit_code(report.result))
    if args.explain and code != EXIT_REJECTED:
        for line in explain_files(args, options, report, memo):
            say(line)
    return code


def file_head(name: str) -> bytes:
    """The first bytes of a regular file (gzip, xz or bz2 decompressed), for a
    hint; b"" when it cannot be read again (a pipe)."""
    try:
        if not os.path.isfile(name):
            return b""
        chunks = file_chunks(name)
        with closing(chunks):
            return next(chunks, b"")[:4096]
    except (OSError, ValueError):
        return b""


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
