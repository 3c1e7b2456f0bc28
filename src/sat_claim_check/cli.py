"""The command line: arguments, exit codes, JSON writing.

What is read and written is described in docs/semantics.md ("JSON text",
"Output bytes"); the exit codes are in ``_codes``.

The commands ``check``, ``request`` and ``schema`` live here; ``batch`` runs
in ``_batch`` and ``--explain`` words its lines in ``_explain``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from importlib import resources
from typing import IO, TYPE_CHECKING, Any, cast

from . import __version__
from ._batch import Progress, run_batch
from ._check import run_validated
from ._codes import EXIT_INTERRUPTED, EXIT_NOT_VALID, EXIT_REJECTED, EXIT_VALID
from ._engine import ENGINES, implementations, resolve
from ._explain import explain_lines
from ._jsontext import dumps, validated_from_text
from ._validate import request_step
from .dimacs import DimacsError, parse_files, request_from_files, run_parsed
from .errors import CheckError, InvalidInput
from .limits import CEILINGS, Limits

if TYPE_CHECKING:
    from ._types import ProofArrays, Result

DESCRIPTION = """\
Check a SAT solver certificate given as one JSON request:
  {"cnf": {"num_vars": N, "clauses": [[1, -2], ...]}, "claim": "sat", "assignment": [1, 2, ...]}
  {"cnf": {...}, "claim": "unsat", "proof": [{"add": [1]}, {"delete": [1, -2]}, ..., {"add": []}]}
A sat claim is valid when the assignment (no 0, out-of-range, repeated or
contradictory literal) makes every clause true. An unsat claim is valid when
every added lemma is RUP (reverse unit propagation) in the clause multiset at
that point, every delete finds its clause, and the empty clause is in the CNF
or derived. The result is one JSON line naming the first discrepancy.
Schemas: `sat-claim-check schema input|output`."""

EPILOG = """\
exit status: 0 the claim is valid, 1 it is not, 2 the request was rejected (the
error object is written on stdout, a human line on stderr) or the command could
not run (a usage error, or --engine compiled where it is not built: a line on
stderr only), 130 interrupted (Ctrl-C: a line on stderr naming the proof step
reached, nothing on stdout)."""

REQUEST_EPILOG = """\
exit status: without --check, 0 when the request was written; with --check, as
for `check` (0 valid, 1 not valid, 2 rejected: the error object is written to
OUT). Malformed DIMACS, DRUP or model text, or an unreadable file: a line on
stderr, nothing written, exit 2. Interrupted (Ctrl-C): a line on stderr,
nothing written, exit 130."""


REQUEST_DESCRIPTION = """\
Build the contract's JSON request from a DIMACS CNF and a DRUP proof (an unsat
claim) or a model (a sat claim), and write it as one compact line; with
--check, check it at once and write the result instead. Files may be gzip
compressed. Malformed DIMACS/DRUP/model text: a message naming the file and
line on stderr, nothing on stdout, exit 2."""

BATCH_DESCRIPTION = """\
Check JSON Lines: every input line is one request (as for `check`) and gives
exactly one output line, in input order: the result, or the error object with
one more key, "line" (the 1-based input line). A line that is blank or not a
request is rejected like any other malformed request; no line is ever
dropped, and a bad line never stops the batch. A summary goes to stderr."""

BATCH_EPILOG = """\
exit status: 0 every claim was valid, 1 some claim was not valid (and no line
was rejected), 2 some line was rejected, 130 interrupted (Ctrl-C)."""


def jobs_count(text: str) -> int:
    try:
        number = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if number < 0:
        raise argparse.ArgumentTypeError("--jobs must be >= 0")
    return number or os.cpu_count() or 1


def version_line() -> str:
    parts = ", ".join(f"{part}: {name}" for part, name in implementations().items())
    return f"sat-claim-check {__version__} ({parts}; Python {sys.version.split()[0]})"


def limit_assignment(text: str) -> tuple[str, int]:
    """--limit NAME=VALUE"""
    name, sep, value = text.partition("=")
    if not sep or name not in CEILINGS:
        raise argparse.ArgumentTypeError(
            f"expected NAME=VALUE with NAME one of {', '.join(CEILINGS)}; got {text!r}")
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{name}: {value!r} is not an integer") from None
    if not 0 <= number <= CEILINGS[name]:
        raise argparse.ArgumentTypeError(f"{name} must be in 0..{CEILINGS[name]}")
    return name, number


def add_engine_options(parser: argparse.ArgumentParser) -> None:
    """--engine, --limit, --unlimited: shared by every command that checks."""
    parser.add_argument("--engine", choices=ENGINES, default="auto",
                        help="which engine checks unsat proofs (default: auto, the "
                             "compiled one when it is installed)")
    parser.add_argument("--limit", type=limit_assignment, action="append", default=[],
                        metavar="NAME=VALUE",
                        help="raise or lower one limit, e.g. --limit max_proof_steps=300000 "
                             f"(names: {', '.join(CEILINGS)})")
    parser.add_argument("--unlimited", action="store_true",
                        help="set every limit to the largest value the engines support")


def limits_from(args: argparse.Namespace) -> Limits:
    values = dict(CEILINGS) if args.unlimited else Limits().as_dict()
    values.update(args.limit)
    return Limits(**values)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sat-claim-check", description=DESCRIPTION, epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=version_line(),
                        help="print the version and which implementation (compiled or "
                             "reference) of the kernel, the converter, the scanner and "
                             "the JSON reader is in use, then exit")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    check = commands.add_parser(
        "check", help="check one JSON request", description=DESCRIPTION, epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    check.add_argument("file", nargs="?", default="-", metavar="FILE",
                       help="the request as JSON text; - or nothing reads standard input")
    check.add_argument("--pretty", action="store_true",
                       help="indent the JSON output (the default is one compact line)")
    check.add_argument("--explain", action="store_true",
                       help="when the claim is not valid, say on stderr why (the failing "
                            "step, and deletions of reason clauses before it)")
    add_engine_options(check)
    check.set_defaults(handler=command_check)

    request = commands.add_parser(
        "request", help="build the JSON request from DIMACS and DRUP or model files",
        description=REQUEST_DESCRIPTION, epilog=REQUEST_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    request.add_argument("--cnf", required=True, metavar="FILE.cnf",
                         help="the formula, DIMACS CNF (.gz is read transparently)")
    which = request.add_mutually_exclusive_group(required=True)
    which.add_argument("--proof", metavar="FILE.drup",
                       help="a DRUP proof: the claim is unsat")
    which.add_argument("--model", metavar="FILE",
                       help="solver output ('s SATISFIABLE', 'v ... 0' lines) or a literal "
                            "list: the claim is sat")
    request.add_argument("--check", action="store_true",
                         help="check the request at once and write the result instead "
                              "(exit codes as for check)")
    request.add_argument("--explain", action="store_true",
                         help="with --check: when the claim is not valid, say on stderr why")
    request.add_argument("-o", "--output", default="-", metavar="OUT",
                         help="write to OUT instead of standard output")
    add_engine_options(request)
    request.set_defaults(handler=command_request)

    batch = commands.add_parser(
        "batch", help="check JSON Lines: one request per line, one output line per line",
        description=BATCH_DESCRIPTION, epilog=BATCH_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    batch.add_argument("file", nargs="?", default="-", metavar="FILE",
                       help="JSON Lines; - or nothing reads standard input")
    batch.add_argument("--jobs", "-j", type=jobs_count, default=1, metavar="N",
                       help="worker processes (default 1; 0 means one per CPU)")
    add_engine_options(batch)
    batch.set_defaults(handler=command_batch)

    schema = commands.add_parser("schema", help="print the input or output JSON Schema")
    schema.add_argument("which", choices=("input", "output"))
    schema.set_defaults(handler=command_schema)
    return parser


# -- writing -------------------------------------------------------------------

def write_line(text: str, stream: IO[str] | None = None) -> None:
    stream = stream or sys.stdout
    stream.write(text + "\n")
    stream.flush()


def say(text: str) -> None:
    """One human line on stderr; never fails on an odd character."""
    data = f"sat-claim-check: {text}\n".encode("utf-8", "backslashreplace")
    sys.stderr.buffer.write(data) if hasattr(sys.stderr, "buffer") else sys.stderr.write(
        data.decode("utf-8"))
    sys.stderr.flush()


def describe_error(err: CheckError) -> str:
    where = f" at {err.path}" if err.path else ""
    return f"{err.error}{where}: {err.message}"


def exit_code(result: Result) -> int:
    return EXIT_VALID if result["valid"] else EXIT_NOT_VALID


# -- commands ------------------------------------------------------------------

def standard_input() -> IO[bytes]:
    """sys.stdin's bytes; OSError when the process has no standard input."""
    if sys.stdin is None:
        raise OSError("standard input is closed")
    return sys.stdin.buffer


def read_input(name: str) -> bytes:
    """The bytes of FILE, or of standard input for '-'; InvalidInput if unreadable."""
    try:
        if name == "-":
            return standard_input().read()
        with open(name, "rb") as f:
            return f.read()
    except (OSError, ValueError) as exc:
        source = "standard input" if name == "-" else repr(name)
        raise InvalidInput(None, "", f"cannot read {source}: {exc}") from None


class Position:
    """The progress callback of one check: the last (steps_checked, work) the
    engine reported, for the line on stderr when Ctrl-C stops the check."""

    def __init__(self) -> None:
        self.steps_checked: int | None = None
        self.work: int | None = None

    def __call__(self, steps_checked: int, work: int) -> None:
        self.steps_checked = steps_checked
        self.work = work

    def interrupted(self, step_count: Callable[[], int]) -> int:
        """Say where the check was stopped; the exit code of an interrupted run.

        ``step_count()`` gives the number of proof steps; it is called only
        when the engine has reported, so the proof has passed validation.
        """
        if self.steps_checked is None:
            say("interrupted")
        else:
            say(f"interrupted at proof step {self.steps_checked} of {step_count()} "
                f"(work {self.work})")
        return EXIT_INTERRUPTED


def command_check(args: argparse.Namespace) -> int:
    position = Position()
    limits = limits_from(args)
    name, module = resolve(args.engine)     # an unavailable engine fails before reading
    try:
        v = validated_from_text(read_input(args.file), limits)
        report = run_validated(v, name, module, limits, position)
    except KeyboardInterrupt:
        # Reported only after validation: v holds the proof arrays by then.
        return position.interrupted(lambda: len(v.step_kinds or ()))
    except CheckError as err:
        write_line(dumps(err.to_dict(), args.pretty))
        say(describe_error(err))
        return EXIT_REJECTED
    write_line(dumps(report.result, args.pretty))
    if args.explain:
        # None for sat: step_of is never called.
        proof = cast("ProofArrays", (v.step_kinds, v.step_offsets, v.step_lits))
        for line in explain_lines(report, lambda s: request_step(*proof, s)):
            say(line)
    return exit_code(report.result)


def command_request(args: argparse.Namespace) -> int:
    position = Position()
    try:
        if args.check:
            parsed = parse_files(args.cnf, args.proof, args.model)
            report = run_parsed(parsed, args.engine, limits_from(args), position)
        else:
            text = dumps(request_from_files(args.cnf, args.proof, args.model))
    except KeyboardInterrupt:
        # Reported only after validation: parsed holds the proof arrays by then.
        return position.interrupted(lambda: len(cast("ProofArrays", parsed[1])[0]))
    except DimacsError as err:
        say(str(err))
        return EXIT_REJECTED
    except OSError as exc:
        say(f"cannot read {exc.filename!r}: {exc.strerror or exc}")
        return EXIT_REJECTED
    except CheckError as err:
        out: Mapping[str, Any] = err.to_dict()
        code = EXIT_REJECTED
        say(describe_error(err))
    else:
        if not args.check:
            return write_output(args.output, text, EXIT_VALID)
        out = report.result
        code = exit_code(out)
    code = write_output(args.output, dumps(out), code)
    if args.check and args.explain and code != EXIT_REJECTED:
        proof = cast("ProofArrays", parsed[1])      # None for sat: step_of is never called
        for line in explain_lines(report, lambda s: request_step(*proof, s)):
            say(line)
    return code


def write_output(name: str, text: str, code: int) -> int:
    if name == "-":
        write_line(text)
        return code
    try:
        with open(name, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    except OSError as exc:
        say(f"cannot write {name!r}: {exc.strerror or exc}")
        return EXIT_REJECTED
    return code


# -- batch ---------------------------------------------------------------------

def command_batch(args: argparse.Namespace) -> int:
    limits = limits_from(args)
    resolve(args.engine)        # an unavailable engine fails before any line
    try:
        stream = standard_input() if args.file == "-" else open(args.file, "rb")  # noqa: SIM115
    except OSError as exc:
        say(f"cannot read {args.file!r}: {exc.strerror or exc}")
        return EXIT_REJECTED
    try:
        size = 0 if args.file == "-" else os.fstat(stream.fileno()).st_size
    except (OSError, ValueError):
        size = 0
    progress = Progress(stream, size)
    start = time.perf_counter()
    try:
        counts = run_batch(stream, sys.stdout, engine=args.engine, limits=limits,
                           jobs=args.jobs, progress=progress)
    except OSError as exc:      # a read error in the middle of the input
        progress.close()
        say(f"cannot read {args.file!r}: {exc}")
        return EXIT_REJECTED
    finally:
        if args.file != "-":
            stream.close()
    progress.close()
    say(f"batch: {sum(counts)} lines: {counts[0]} valid, {counts[1]} not valid, "
        f"{counts[2]} rejected ({time.perf_counter() - start:.2f} s)")
    if counts[2]:
        return EXIT_REJECTED
    return EXIT_NOT_VALID if counts[1] else EXIT_VALID


def command_schema(args: argparse.Namespace) -> int:
    text = resources.files(__package__).joinpath(
        f"schemas/{args.which}.schema.json").read_text(encoding="utf-8")
    write_line(json.dumps(json.loads(text), indent=2))
    return EXIT_VALID


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line on ``argv`` (default: sys.argv[1:]); return the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return EXIT_REJECTED
    try:
        return cast(int, args.handler(args))
    except ImportError as exc:      # --engine compiled where it is not built
        say(str(exc))
        return EXIT_REJECTED
    except KeyboardInterrupt:
        say("interrupted")
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return EXIT_REJECTED
    except OSError as exc:          # writing the output failed (a full disk...)
        say(f"cannot write the output: {exc}")
        return EXIT_REJECTED


if __name__ == "__main__":
    sys.exit(main())
