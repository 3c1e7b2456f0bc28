"""The parser: the commands, their options and their --help."""

from __future__ import annotations

import argparse
import sys

from .. import __version__
from .._engines import implementations
from .._io import bounds
from ..dimacs import PROOF_FORMATS
from .batch import command_batch
from .check import command_check
from .options import (
    add_deletions_option,
    add_engine_options,
    add_progress_options,
    add_reading_option,
    at_least,
    jobs_count,
    scheduler_address,
    seconds,
    worker_memory,
)
from .request import command_request
from .schema import command_schema
from .serve import command_serve
from .texts import (
    BATCH_DESCRIPTION,
    BATCH_EPILOG,
    DESCRIPTION,
    EPILOG,
    REQUEST_DESCRIPTION,
    REQUEST_EPILOG,
    SERVE_DESCRIPTION,
    SERVE_EPILOG,
    VERIFY_DESCRIPTION,
    VERIFY_EPILOG,
)
from .verify import command_verify


def version_line() -> str:
    parts = ", ".join(f"{part}: {name}" for part, name in implementations().items())
    return f"sat-claim-check {__version__} ({parts}; Python {sys.version.split()[0]})"


# The verify subparser of each parser: its arguments are parsed intermixed
# (``verify CNF --quiet PROOF``), which argparse cannot do below subparsers.
VERIFY_PARSERS: dict[argparse.ArgumentParser, argparse.ArgumentParser] = {}


def parse_arguments(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    """``parser.parse_args(argv)``, with the options of ``verify`` allowed
    anywhere among its files."""
    if argv[:1] == ["verify"] and parser in VERIFY_PARSERS:
        args = VERIFY_PARSERS[parser].parse_intermixed_args(argv[1:])
        args.command = "verify"
        return args
    return parser.parse_args(argv)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sat-claim-check",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--version",
        action="version",
        version=version_line(),
        help="print the version and which implementation (compiled or "
        "reference) of the kernel, the converter, the scanner and "
        "the JSON reader is in use, then exit",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    for name, summary, description, epilog, add_options in (
        (
            "verify",
            "check a CNF file with its DRUP proof or model, as drat-trim does",
            VERIFY_DESCRIPTION,
            VERIFY_EPILOG,
            verify_options,
        ),
        ("check", "check one JSON request", DESCRIPTION, EPILOG, check_options),
        (
            "request",
            "build the JSON request from DIMACS and DRUP or model files",
            REQUEST_DESCRIPTION,
            REQUEST_EPILOG,
            request_options,
        ),
        (
            "batch",
            "check JSON Lines: one request per line, one output line per line",
            BATCH_DESCRIPTION,
            BATCH_EPILOG,
            batch_options,
        ),
        (
            "serve",
            "answer requests over HTTP (the service extra)",
            SERVE_DESCRIPTION,
            SERVE_EPILOG,
            serve_options,
        ),
    ):
        sub = commands.add_parser(
            name,
            help=summary,
            description=description,
            epilog=epilog,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        add_options(sub)
        if name == "verify":
            VERIFY_PARSERS[parser] = sub

    schema_options(commands.add_parser("schema", help="print the input or output JSON Schema"))
    return parser


def check_options(check: argparse.ArgumentParser) -> None:
    """check FILE: one JSON request."""
    check.add_argument(
        "file",
        nargs="?",
        default="-",
        metavar="FILE",
        help="the request as JSON text; - or nothing reads standard input",
    )
    check.add_argument(
        "--pretty",
        action="store_true",
        help="indent the JSON output (the default is one compact line)",
    )
    check.add_argument(
        "--explain",
        action="store_true",
        help="when the claim is not valid, say on stderr why (the failing "
        "step, and deletions of reason clauses before it, and whether "
        "the proof checks with them ignored, as drat-trim does)",
    )
    add_engine_options(check)
    add_progress_options(check)
    add_deletions_option(check)
    add_reading_option(check)
    check.set_defaults(handler=command_check)


def verify_options(verify: argparse.ArgumentParser) -> None:
    """verify CNF PROOF | verify CNF --model FILE."""
    verify.add_argument(
        "cnf",
        metavar="CNF",
        help="the formula, DIMACS CNF (gzip, xz or bz2 read transparently; - is standard input)",
    )
    verify.add_argument(
        "proof",
        nargs="?",
        metavar="PROOF",
        help="the DRUP proof of an unsat claim: text or binary, plain or "
        "compressed, told by its content; FRAT and PicoSAT's RUP files "
        "too; - reads standard input (a solver writing into a pipe), "
        "checked as it is read",
    )
    verify.add_argument(
        "--model",
        metavar="FILE",
        help="instead of a proof, a model: the claim is sat (solver output: "
        "'s SATISFIABLE' and 'v ... 0' lines, MiniSat's result file, or a "
        "list of literals)",
    )
    verify.add_argument(
        "--timeout",
        type=seconds,
        default=None,
        metavar="SECONDS",
        help="stop after SECONDS with an error object naming the step reached (exit 2)",
    )
    verify.add_argument(
        "--jobs",
        "-j",
        type=jobs_count,
        default=1,
        metavar="N",
        help="check the proof on N worker processes (0: one per CPU; default 1, "
        "this process): the proof is cut into segments of steps, each checked "
        "by one worker after replaying the steps before it unchecked, as it is "
        "read; the result is the same, byte for byte, but no work cap applies "
        "(the work counter is a check on one core's). The lenient reading, "
        "--lrat and --explain check on one core",
    )
    verify.add_argument(
        "--scheduler",
        type=scheduler_address,
        metavar="ADDRESS",
        help="check the proof as --jobs does, on a Dask cluster: the address of "
        "its scheduler (e.g. tcp://10.0.0.5:8786), or local:N to start N worker "
        "processes here; a task per worker thread reads the proof file at its "
        "path (a shared file system), a task whose worker dies is run again "
        "(needs the dask extra; excludes --jobs, and a proof on standard input "
        "or in a named pipe)",
    )
    verify.add_argument(
        "--contract-limits",
        action="store_true",
        help="apply the JSON contract's size limits (the default is none: "
        "the largest the engines represent); --limit sets one",
    )
    add_file_check_options(verify, "when the claim is not valid, say on stderr why, step by step")
    add_reading_option(verify, default="drat-trim")
    # Unset unless given: verify reads as drat-trim -f unless told otherwise.
    verify.set_defaults(handler=command_verify, deletions=None)


def request_options(request: argparse.ArgumentParser) -> None:
    """request --cnf ... --proof|--model ...: the request from DIMACS files."""
    request.add_argument(
        "--cnf",
        required=True,
        metavar="FILE.cnf",
        help="the formula, DIMACS CNF; files compressed with gzip, xz or "
        "bz2 are read transparently, and - is standard input (for "
        "one of --cnf, --proof, --model)",
    )
    which = request.add_mutually_exclusive_group(required=True)
    which.add_argument(
        "--proof",
        metavar="FILE.drup",
        help="a DRUP proof, text or binary: the claim is unsat (also a "
        "named pipe; with --check it is checked as it is read)",
    )
    which.add_argument(
        "--model",
        metavar="FILE",
        help="solver output ('s SATISFIABLE', 'v ... 0' lines) or a literal list: the claim is sat",
    )
    request.add_argument(
        "--check",
        action="store_true",
        help="check the request at once and write the result instead (exit codes as for check)",
    )
    add_file_check_options(request, "with --check: when the claim is not valid, say on stderr why")
    add_reading_option(request)
    request.set_defaults(handler=command_request)


def batch_options(batch: argparse.ArgumentParser) -> None:
    """batch FILE: JSON Lines, or a manifest."""
    batch.add_argument(
        "file",
        nargs="?",
        default="-",
        metavar="FILE",
        help="JSON Lines; - or nothing reads standard input",
    )
    batch.add_argument(
        "--jobs",
        "-j",
        type=jobs_count,
        default=None,
        metavar="N",
        help="worker processes (default 1: check in this process; 0 means "
        "one per CPU; more than the CPUs this process may use is "
        "lowered to that number, with a note on stderr); from an input "
        "file they read its long lines themselves",
    )
    batch.add_argument(
        "--worker-memory",
        type=worker_memory,
        default=None,
        metavar="MiB",
        help="the address space each worker process may use (Linux; "
        "default: the physical memory divided by N + 1; 0: no limit). "
        "A line whose check needs more gets a check_failed error "
        "object instead of exhausting the machine's memory; --jobs 1 "
        "runs without it",
    )
    batch.add_argument(
        "--manifest",
        action="store_true",
        help="FILE is a manifest: each line names a CNF and a proof or a model "
        'file to check, {"id": ..., "cnf": "f.cnf", "proof": '
        '"f.drup"}; relative paths are resolved against FILE\'s '
        "directory (the current one for standard input). Only regular "
        "files are read",
    )
    batch.add_argument(
        "--manifest-root",
        metavar="DIR",
        help="with --manifest: refuse (as that line's error) every path that "
        "resolves outside DIR, through '..' or a symbolic link; for a "
        "batch run for others",
    )
    batch.add_argument(
        "--scheduler",
        type=scheduler_address,
        metavar="ADDRESS",
        help="check on a Dask cluster: the address of its scheduler (e.g. "
        "tcp://127.0.0.1:8786), or local:N to start a local cluster of N "
        "worker processes; the output is that of --jobs 1 (needs the "
        "dask extra; excludes --jobs and --worker-memory)",
    )
    add_engine_options(batch)
    add_deletions_option(batch)
    batch.set_defaults(handler=command_batch)


def serve_options(serve: argparse.ArgumentParser) -> None:
    """serve: the HTTP service."""
    serve.add_argument(
        "--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1)"
    )
    serve.add_argument(
        "--port",
        type=at_least(0),
        default=8000,
        help="the port (default 8000; 0 picks a free one, logged at start)",
    )
    serve.add_argument(
        "--workers",
        type=at_least(1),
        default=None,
        metavar="N",
        help="threads that check (default: one per CPU)",
    )
    serve.add_argument(
        "--queue",
        type=at_least(0),
        default=None,
        metavar="N",
        help="requests admitted beyond the workers' (default 4 per worker)",
    )
    serve.add_argument(
        "--max-body-bytes",
        type=at_least(1),
        default=None,
        metavar="N",
        help="the largest request body (default: the cap of check, 32 "
        "bytes per literal, clause and step the limits allow plus 1 MiB, "
        "at most 256 MiB; 4792576 for the contract's limits)",
    )
    serve.add_argument(
        "--body-timeout",
        type=seconds,
        default=30.0,
        metavar="S",
        help="seconds to receive a body before 408 (default 30)",
    )
    serve.add_argument(
        "--header-timeout",
        type=seconds,
        default=bounds.HEADER_TIMEOUT,
        metavar="S",
        help="seconds a connection has to send a request's headers, from "
        "its start or the end of the previous answer (and an answer "
        "may wait unread), before it is dropped (default "
        f"{bounds.HEADER_TIMEOUT:g})",
    )
    serve.add_argument(
        "--max-connections",
        type=at_least(1),
        default=512,
        metavar="N",
        help="open connections at most (default 512); past it, the one "
        "that has waited longest on its client is dropped to make room",
    )
    serve.add_argument("--no-access-log", action="store_true", help="do not log a line per request")
    add_engine_options(serve, input_bytes=False)
    serve.set_defaults(handler=command_serve)


def add_file_check_options(parser: argparse.ArgumentParser, explain: str) -> None:
    """The options of the commands that check files (verify, request):
    --proof-format, --explain (``explain``: its help), -o, the engine's, the
    progress line's and --deletions."""
    parser.add_argument(
        "--proof-format",
        choices=PROOF_FORMATS,
        default="auto",
        help="text or binary DRUP; auto (the default) tells them apart by "
        "the first bytes, as drat-trim does",
    )
    parser.add_argument("--explain", action="store_true", help=explain)
    parser.add_argument(
        "-o", "--output", default="-", metavar="OUT", help="write to OUT instead of standard output"
    )
    parser.add_argument(
        "--lrat",
        metavar="FILE",
        help="write the proof as LRAT to FILE (- for standard output, the result "
        "line then going to stderr), for a formally verified checker such as "
        "cake_lpr; FILE is put in place only when the proof is valid, and "
        "removed otherwise",
    )
    parser.add_argument(
        "--lrat-binary", action="store_true", help="with --lrat: binary LRAT instead of text"
    )
    add_engine_options(parser)
    add_progress_options(parser)
    add_deletions_option(parser)


def schema_options(schema: argparse.ArgumentParser) -> None:
    """schema input|output."""
    schema.add_argument("which", choices=("input", "output"))
    schema.set_defaults(handler=command_schema)
