"""`verify CNF PROOF` and `verify CNF --model FILE`: files checked as drat-trim
checks them, with no size limits unless asked; also `request --check`, the
same check under the contract's limits."""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import threading
from collections.abc import Iterator
from typing import Any

from .._batch.cluster import ClusterError
from .._core.codes import EXIT_REJECTED
from .._core.hints import limit_lines
from .._core.options import Options
from .._io.lrat_out import LratOut, LratWriteError
from .._segments.front import WorkerFailed
from ..dimacs import StepMemo
from ..errors import CheckError, LimitExceeded
from ..files import Deadline, files_outcome
from ..limits import Limits
from .options import limits_from
from .output import describe_error, say, write_failed, write_output
from .position import Position
from .segments import Refused, cluster_of, segments_options


def command_verify(args: argparse.Namespace) -> int:
    if (args.proof is None) == (args.model is None):
        say(
            "give the proof (verify CNF PROOF: an unsat claim) or a model "
            "(verify CNF --model FILE: a sat claim), not both"
            if args.proof is not None
            else "give the proof (verify CNF PROOF, - for standard input) or a model "
            "(verify CNF --model FILE)"
        )
        return EXIT_REJECTED
    if args.reading is None:  # drat-trim's reading, unless --deletions says otherwise
        args.reading = {None: "drat-trim", "lenient": "lenient", "strict": "strict"}[args.deletions]
    if args.deletions is None:
        args.deletions = "strict"
    limits = limits_from(args)
    try:
        segments_options(args, limits)
        with cluster_of(args) as cluster:
            return check_files_command(args, limits, cluster)
    except (Refused, ClusterError, ImportError) as err:
        say(str(err))
        return EXIT_REJECTED


def check_files_command(args: argparse.Namespace, limits: Limits, cluster: Any = None) -> int:
    """Check args.cnf with args.proof or args.model (on ``cluster``'s workers,
    a Dask client, when given); write the result line or the error object, the
    hint on stderr; the exit code."""
    if [args.cnf, args.proof, args.model].count("-") > 1:
        say("only one of the CNF, the proof and the model can be - (standard input)")
        return EXIT_REJECTED
    lrat = lrat_of(args)
    if isinstance(lrat, int):
        return lrat
    position = Position(args.progress)
    clock = Deadline(getattr(args, "timeout", None), position)
    try:
        options = Options.of(args.engine, limits, args.deletions, clock, reading=args.reading)
    except ValueError as err:  # --reading and --deletions that contradict each other
        say(str(err))
        return EXIT_REJECTED
    memo = StepMemo(args.proof) if args.explain and args.proof is not None else None
    try:
        with _signals_end_the_check(lrat is not None):
            outcome = files_outcome(
                options,
                args.cnf,
                args.proof,
                args.model,
                clock,
                notes=say,
                proof_format=args.proof_format,
                max_bytes=args.max_input_bytes,
                reading=position.line.bytes,
                memo=memo,
                lrat=lrat,
                jobs=getattr(args, "jobs", 1),
                cluster=cluster,
            )
    except KeyboardInterrupt:
        return position.interrupted(None)
    except _Terminated as stop:
        position.line.close()
        say(f"{signal.Signals(stop.signum).name}: stopped; {lrat.message if lrat else ''}")
        return 128 + stop.signum
    except WorkerFailed as err:
        position.line.close()
        say(str(err))
        say("hint: without --jobs and --scheduler, the proof is checked in this process")
        return EXIT_REJECTED
    except LratWriteError as err:
        position.line.close()
        if err.broken_pipe:
            return write_failed(BrokenPipeError())  # the reader went away: no message
        say(str(err))
        return EXIT_REJECTED
    position.line.close()
    if lrat is not None and lrat.path == "-" and args.output == "-":
        print(outcome.body.decode("ascii"), file=sys.stderr)  # stdout holds the LRAT
        code = outcome.exit_code
    else:
        code = write_output(args.output, outcome.body.decode("ascii"), outcome.exit_code)
    if lrat is not None and lrat.message:
        say(lrat.message)
    if outcome.error is not None:
        say_rejected(outcome.error)
        return code
    report = outcome.report
    assert report is not None
    if args.explain and code != EXIT_REJECTED and not report.result["valid"]:
        from .request import explain_files  # the lines of --explain

        for line in explain_files(args, options._replace(progress=None), report, memo):
            say(line)
    elif report.hint is not None:  # --explain says more than the hint
        say(f"hint: {report.hint}")
    return code


class _Terminated(BaseException):
    """SIGTERM or SIGHUP during a check that writes an LRAT: the check ends as
    on Ctrl-C, the LRAT's temporary file removed."""

    def __init__(self, signum: int) -> None:
        self.signum = signum


@contextlib.contextmanager
def _signals_end_the_check(on: bool) -> Iterator[None]:
    def stop(signum: int, frame: Any) -> None:
        raise _Terminated(signum)

    kept = {}
    if on and threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGTERM, signal.SIGHUP):
            kept[sig] = signal.signal(sig, stop)
    try:
        yield
    finally:
        for sig, handler in kept.items():
            signal.signal(sig, handler)


def lrat_of(args: argparse.Namespace) -> LratOut | int | None:
    """--lrat's LratOut (None without it), or the exit code of a misuse."""
    if getattr(args, "lrat", None) is None:
        if getattr(args, "lrat_binary", False):
            say("--lrat-binary needs --lrat FILE")
            return EXIT_REJECTED
        return None
    if args.proof is None:
        say("--lrat needs a proof: a sat claim (--model) has no LRAT")
        return EXIT_REJECTED
    out = LratOut(args.lrat, args.lrat_binary)
    try:
        out.check_inputs(CNF=args.cnf, proof=args.proof, output=args.output)
    except ValueError as err:
        say(str(err))
        return EXIT_REJECTED
    return out


def say_rejected(err: CheckError) -> None:
    """The error's line on stderr, then its hint (for a limit, the flags that lift it)."""
    if err.message.startswith("cannot read ") and err.path == "":
        say(err.message)
        return
    say(describe_error(err))
    lines = limit_lines(err) if isinstance(err, LimitExceeded) else [err.hint or ""]
    for line in lines:
        if line:
            say(f"hint: {line}")
