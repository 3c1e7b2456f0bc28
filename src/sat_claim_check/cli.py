"""The command line: arguments, exit codes, JSON writing (SPEC §8)."""

import argparse
import json
import sys
from importlib import resources

from . import __version__
from ._check import run
from ._engine import ENGINES, default_engine
from ._jsontext import dumps, loads
from .errors import CheckError, InvalidInput
from .limits import CEILINGS, Limits

EXIT_VALID = 0
EXIT_NOT_VALID = 1
EXIT_REJECTED = 2

DESCRIPTION = """\
Check a SAT solver certificate given as one JSON request:
  {"cnf": {"num_vars": N, "clauses": [[1, -2], ...]}, "claim": "sat", "assignment": [1, 2, ...]}
  {"cnf": {...}, "claim": "unsat", "proof": [{"add": [1]}, {"delete": [1, -2]}, ..., {"add": []}]}
A sat claim is valid when the assignment makes every clause true. An unsat
claim is valid when every added lemma is RUP (reverse unit propagation) in the
clause multiset at that point, every delete finds its clause, and the empty
clause is derived. The result is one JSON line naming the first discrepancy.
Schemas: `sat-claim-check schema input|output`."""

EPILOG = """\
exit status: 0 the claim is valid, 1 it is not, 2 the request was rejected
(the error object is written on stdout, a human line on stderr)."""


def version_line():
    return (f"sat-claim-check {__version__} (engine: {default_engine()}; "
            f"Python {sys.version.split()[0]})")


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


def add_engine_options(parser):
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


def limits_from(args):
    values = dict(CEILINGS) if args.unlimited else Limits().as_dict()
    values.update(args.limit)
    return Limits(**values)


def build_parser():
    parser = argparse.ArgumentParser(
        prog="sat-claim-check", description=DESCRIPTION, epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=version_line(),
                        help="print the version and the engine in use, then exit")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    check = commands.add_parser(
        "check", help="check one JSON request", description=DESCRIPTION, epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    check.add_argument("file", nargs="?", default="-", metavar="FILE",
                       help="the request as JSON text; - or nothing reads standard input")
    check.add_argument("--pretty", action="store_true",
                       help="indent the JSON output (the default is one compact line)")
    add_engine_options(check)
    check.set_defaults(handler=command_check)

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

def read_input(name):
    """The bytes of FILE, or of standard input for '-'; InvalidInput if unreadable."""
    try:
        if name == "-":
            return sys.stdin.buffer.read()
        with open(name, "rb") as f:
            return f.read()
    except (OSError, ValueError) as exc:
        source = "standard input" if name == "-" else repr(name)
        raise InvalidInput(None, "", f"cannot read {source}: {exc}") from None


def command_check(args):
    try:
        request = loads(read_input(args.file))
        report = run(request, engine=args.engine, limits=limits_from(args))
    except CheckError as err:
        write_line(dumps(err.to_dict(), args.pretty))
        say(describe_error(err))
        return EXIT_REJECTED
    write_line(dumps(report.result, args.pretty))
    return exit_code(report.result)


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
        return 130
    except BrokenPipeError:
        return EXIT_REJECTED


if __name__ == "__main__":
    sys.exit(main())
