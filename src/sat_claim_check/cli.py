"""The command line: arguments, exit codes, JSON writing (SPEC §8).

The commands ``check``, ``request`` and ``schema`` live here; ``batch`` runs
in ``_batch`` and ``--explain`` words its lines in ``_explain``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import textwrap
import time
from importlib import resources

from . import __version__, _bounds
from ._batch import Progress, run_batch
from ._check import run
from ._codes import EXIT_INTERRUPTED, EXIT_NOT_VALID, EXIT_REJECTED, EXIT_VALID
from ._engine import ENGINES, implementations, resolve
from ._explain import explain_lines
from ._jsontext import dumps, loads
from ._validate import request_step
from .dimacs import DimacsError, parse_files, request_from_files, run_parsed
from .errors import CheckError, InvalidInput
from .limits import CEILINGS, Limits

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

def _paragraph(text: str) -> str:
    """Text (with numbers filled in) as one paragraph of lines for --help."""
    return textwrap.fill(" ".join(text.split()), 79)


_CONTRACT = Limits()

EPILOG = """\
exit status: 0 the claim is valid, 1 it is not, 2 the request was rejected (the
error object is written on stdout, a human line on stderr) or the command could
not run (a usage error, or --engine compiled where it is not built: a line on
stderr only).

""" + _paragraph(f"""
input size: a request longer than --max-input-bytes is rejected (invalid_input,
field null) without reading past the cap. The default cap is
{_bounds.BYTES_PER_ITEM} bytes for every literal, clause and step the limits
allow, plus 1 MiB: {_bounds.request_bytes(_CONTRACT):,} bytes at the contract's
limits.""")

REQUEST_EPILOG = """\
exit status: without --check, 0 when the request was written; with --check, as
for `check` (0 valid, 1 not valid, 2 rejected: the error object is written to
OUT). Malformed DIMACS, DRUP or model text, or an unreadable file: a line on
stderr, nothing written, exit 2.

""" + _paragraph(f"""
reading: files are read in chunks (gzip decompressed as it is read) and reading
stops at the first limit passed, with or without --check: that limit is the
error (without --check, a line on stderr), its "actual" the count where reading
stopped (the limit + 1; for max_vars and max_clauses, the header's numbers), and
the text after that point is not read. A file that passes no limit but is longer
than its cap is refused as malformed. The default caps (after decompression)
are {_bounds.BYTES_PER_ITEM} bytes for every literal and clause or step the
limits allow, plus 1 MiB: at the contract's limits
{_bounds.cnf_bytes(_CONTRACT):,} bytes for the CNF,
{_bounds.proof_bytes(_CONTRACT):,} for a proof, {_bounds.model_bytes(_CONTRACT):,}
for a model; --max-input-bytes sets one cap for each file.""")


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
was rejected), 2 some line was rejected.

""" + _paragraph("""
line size: a line longer than --max-input-bytes (default: the cap of `check`,
which follows the limits) is rejected as that line's error object without being
held in memory, and the batch goes on with the next line; a line with no end
within 16 times the cap (at least 64 MiB) ends the input there.""")


def jobs_count(text):
    try:
        number = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if number < 0:
        raise argparse.ArgumentTypeError("--jobs must be >= 0")
    return number or os.cpu_count() or 1


def version_line():
    parts = ", ".join(f"{part}: {name}" for part, name in implementations().items())
    return f"sat-claim-check {__version__} ({parts}; Python {sys.version.split()[0]})"


def limit_assignment(text):
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
    """--engine, --limit, --unlimited, --max-input-bytes: shared by every command
    that reads a request."""
    parser.add_argument("--engine", choices=ENGINES, default="auto",
                        help="which engine checks unsat proofs (default: auto, the "
                             "compiled one when it is installed)")
    parser.add_argument("--limit", type=limit_assignment, action="append", default=[],
                        metavar="NAME=VALUE",
                        help="raise or lower one limit, e.g. --limit max_proof_steps=300000 "
                             f"(names: {', '.join(CEILINGS)})")
    parser.add_argument("--unlimited", action="store_true",
                        help="set every limit to the largest value the engines support")
    parser.add_argument("--max-input-bytes", type=byte_count, default=None, metavar="N",
                        help="read no input past N bytes (a request, a batch line, or each "
                             "file after decompression); the default follows the limits, "
                             "see below")


def byte_count(text: str) -> int:
    """--max-input-bytes N"""
    try:
        number = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if number < 0:
        raise argparse.ArgumentTypeError("--max-input-bytes must be >= 0")
    return number


def limits_from(args: argparse.Namespace) -> Limits:
    values = dict(CEILINGS) if args.unlimited else Limits().as_dict()
    values.update(args.limit)
    return Limits(**values)


def request_cap(args: argparse.Namespace, limits: Limits) -> int:
    """The most bytes one JSON request may take: --max-input-bytes, or what the limits allow."""
    if args.max_input_bytes is not None:
        return args.max_input_bytes
    return _bounds.request_bytes(limits)


def build_parser():
    parser = argparse.ArgumentParser(
        prog="sat-claim-check", description=DESCRIPTION, epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=version_line(),
                        help="print the version and which implementation (compiled or "
                             "reference) of the kernel, the converter and the scanner "
                             "is in use, then exit")
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

def write_line(text, stream=None):
    stream = stream or sys.stdout
    stream.write(text + "\n")
    stream.flush()


def say(text):
    """One human line on stderr; never fails on an odd character."""
    data = f"sat-claim-check: {text}\n".encode("utf-8", "backslashreplace")
    sys.stderr.buffer.write(data) if hasattr(sys.stderr, "buffer") else sys.stderr.write(
        data.decode("utf-8"))
    sys.stderr.flush()


def describe_error(err):
    where = f" at {err.path}" if err.path else ""
    return f"{err.error}{where}: {err.message}"


def exit_code(result):
    return EXIT_VALID if result["valid"] else EXIT_NOT_VALID


# -- commands ------------------------------------------------------------------

def standard_input():
    """sys.stdin's bytes; OSError when the process has no standard input."""
    if sys.stdin is None:
        raise OSError("standard input is closed")
    return sys.stdin.buffer


def read_input(name: str, max_bytes: int) -> bytes:
    """The bytes of FILE, or of standard input for '-', read no further than
    max_bytes + 1; InvalidInput if unreadable or longer than max_bytes."""
    source = "standard input" if name == "-" else repr(name)
    try:
        if name == "-":
            data = _bounds.read_at_most(standard_input(), max_bytes)
        else:
            with open(name, "rb") as f:
                data = _bounds.read_at_most(f, max_bytes)
    except (OSError, ValueError) as exc:
        raise InvalidInput(None, "", f"cannot read {source}: {exc}") from None
    if len(data) > max_bytes:
        raise InvalidInput(None, "", f"the request in {source} is longer than {max_bytes} "
                           "bytes, the most read at these limits (raise the limits, or "
                           "--max-input-bytes)")
    return data


def command_check(args: argparse.Namespace) -> int:
    limits = limits_from(args)
    try:
        request = loads(read_input(args.file, request_cap(args, limits)))
        report = run(request, engine=args.engine, limits=limits)
    except CheckError as err:
        write_line(dumps(err.to_dict(), args.pretty))
        say(describe_error(err))
        return EXIT_REJECTED
    write_line(dumps(report.result, args.pretty))
    if args.explain:
        for line in explain_lines(report, lambda s: request["proof"][s]):
            say(line)
    return exit_code(report.result)


def command_request(args: argparse.Namespace) -> int:
    limits = limits_from(args)
    try:
        if args.check:
            parsed = parse_files(args.cnf, args.proof, args.model, limits, args.max_input_bytes)
            report = run_parsed(parsed, args.engine, limits)
        else:
            text = dumps(request_from_files(args.cnf, args.proof, args.model, limits=limits,
                                            max_bytes=args.max_input_bytes))
    except DimacsError as err:
        say(str(err))
        return EXIT_REJECTED
    except OSError as exc:
        say(f"cannot read {exc.filename!r}: {exc.strerror or exc}")
        return EXIT_REJECTED
    except CheckError as err:
        if not args.check:      # reading stopped at a limit: no request to write
            say(describe_error(err))
            return EXIT_REJECTED
        out = err.to_dict()
        code = EXIT_REJECTED
        say(describe_error(err))
    else:
        if not args.check:
            return write_output(args.output, text, EXIT_VALID)
        out = report.result
        code = exit_code(out)
    code = write_output(args.output, dumps(out), code)
    if args.check and args.explain and code != EXIT_REJECTED:
        proof = parsed[1]
        for line in explain_lines(report, lambda s: request_step(*proof, s)):
            say(line)
    return code


def write_output(name, text, code):
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
                           jobs=args.jobs, progress=progress,
                           max_line_bytes=request_cap(args, limits))
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


def command_schema(args):
    text = resources.files(__package__).joinpath(
        f"schemas/{args.which}.schema.json").read_text(encoding="utf-8")
    write_line(json.dumps(json.loads(text), indent=2))
    return EXIT_VALID


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return EXIT_REJECTED
    try:
        return args.handler(args)
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
