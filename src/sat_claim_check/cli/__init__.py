"""The command line: arguments, exit codes, JSON writing.

What is read and written is described in docs/semantics.md ("JSON text",
"Output bytes"); the exit codes are in ``_codes``.

The commands ``check``, ``request`` and ``schema`` live here; ``batch`` runs
in ``_batch``, ``serve`` in ``service``, and ``--explain`` words its lines in
``_explain``.
"""

from __future__ import annotations

import argparse
import errno
import json
import logging
import os
import signal
import sys
import textwrap
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import closing, suppress
from importlib import resources
from typing import IO, TYPE_CHECKING, Any, cast

from .. import __version__
from .._batch.console import ProgressLine
from .._batch.local import FAILED, Progress, available_cpus, default_worker_memory, run_batch
from .._batch.local import Outcome as BatchOutcome
from .._batch.manifest import Manifest, manifest_root
from .._core.check import DELETIONS
from .._core.codes import (
    EXIT_BROKEN_PIPE,
    EXIT_INTERRUPTED,
    EXIT_NOT_VALID,
    EXIT_REJECTED,
    EXIT_TERMINATED,
    EXIT_VALID,
)
from .._core.explain import (
    explain_lines,
    explanation_of,
    rerun_of,
    with_empty_clause,
    worth_lenient,
    worth_rerun,
)
from .._core.hints import json_misread_lines, limit_lines, misread_lines
from .._core.jsontext import dumps
from .._core.outcome import Outcome, check_validated
from .._core.validate import request_step, validated_from_text
from .._engines import ENGINES, implementations, resolve
from .._io import bounds as _bounds
from ..dimacs import (
    PROOF_FORMATS,
    DimacsError,
    StepMemo,
    check_files,
    clause_line,
    file_chunks,
    parse_files,
    request_from_files,
    run_parsed,
)
from ..errors import CheckError, InvalidInput, LimitExceeded
from ..limits import CEILINGS, Limits

if TYPE_CHECKING:
    from .._core.check import Report
    from .._core.types import Deletions, EngineName, ProofArrays, Result

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

OUTPUT_FAULTS = """\
Standard output closed or unwritable (a full disk): a line on stderr, exit 2.
Standard output a pipe nobody reads any more (`... | head -1`): exit 141,
silently, as for a program that SIGPIPE killed. Ctrl-C: exit 130."""


def _paragraph(text: str) -> str:
    """Text (with numbers filled in) as one paragraph of lines for --help."""
    return textwrap.fill(" ".join(text.split()), 79)


_CONTRACT = Limits()

EPILOG = f"""\
exit status: 0 the claim is valid, 1 it is not, 2 the request was rejected (the
error object is written on stdout, a human line on stderr) or the command could
not run (a usage error, or --engine compiled where it is not built: a line on
stderr only), 130 interrupted (Ctrl-C: a line on stderr naming the proof step
reached, nothing on stdout).
{OUTPUT_FAULTS}

""" + _paragraph(f"""
input size: a request longer than --max-input-bytes is rejected (invalid_input,
field null) without reading past the cap. The default cap is
{_bounds.BYTES_PER_ITEM} bytes for every literal, clause and step the limits
allow, plus 1 MiB: {_bounds.request_bytes(_CONTRACT):,} bytes at the contract's
limits.""")

REQUEST_EPILOG = f"""\
exit status: without --check, 0 when the request was written; with --check, as
for `check` (0 valid, 1 not valid, 2 rejected: the error object is written to
OUT). Malformed DIMACS, DRUP or model text, or an unreadable file: a line on
stderr, nothing written, exit 2. Interrupted (Ctrl-C): a line on stderr,
nothing written, exit 130.
{OUTPUT_FAULTS}

""" + _paragraph("""
checking as the proof is read: with --check the proof is checked while it is
read, a part at a time (a thread reads and scans ahead of the check), so its
memory follows the clauses alive, not its length, and it may be a named pipe
or - for standard input that a solver is still writing. The steps are taken
in the order of the file: the first step that fails is the verdict even when
a later line is malformed or a later step passes a limit, and reading stops
there. On a terminal, a check longer than a second shows its progress on
stderr (steps checked, steps/s, bytes read): --progress shows it anywhere,
--quiet never.""") + "\n\n" + _paragraph(f"""
reading: files are read in chunks (decompressed as they are read) and reading
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
--check, check it at once and write the result instead. A proof may be DRUP
text or binary DRUP (what CaDiCaL writes by default), told by its first
bytes; files may be compressed with gzip, xz or bz2 (told by their magic
bytes), and one of them may be - (standard input). Malformed DIMACS/DRUP/model
text: a message naming the file and line (a byte offset in a binary proof) on
stderr, nothing on stdout, exit 2; a limit passed: the error object, and on
stderr how to lift it."""

BATCH_DESCRIPTION = """\
Check JSON Lines: every input line is one request (as for `check`) and gives
exactly one output line, in input order: the result, or the error object with
one more key, "line" (the 1-based input line). A line that is blank or not a
request is rejected like any other malformed request; no line is ever
dropped, and a bad line never stops the batch. A line whose check cannot
finish gets {"error": "check_failed", "field": null, "path": "", "message":
..., "line": N}: its check ran out of memory (see --worker-memory), or the
worker process checking it died twice (killed, or out of memory). A summary
goes to stderr.

A line may be an envelope {"id": ID, "request": {...}} (ID a string or an
integer): its output line is the request's, with "id" as the first key. With
--manifest every line names files instead: {"id": ID, "cnf": "f.cnf", "proof":
"f.drup.gz"} or with "model"; relative paths are resolved against the
manifest's directory. --scheduler checks on a Dask cluster, with the same
output byte for byte (pip install "sat-claim-check[dask]")."""

BATCH_EPILOG = """\
exit status: 0 every claim was valid, 1 some claim was not valid (and no line
was rejected or failed), 2 some line was rejected or failed, the input could
not be read to its end (every line read before has its output line), or
standard output could not be written (a line on stderr); with --scheduler
also when the cluster cannot run the batch or the scheduler is lost (every
line before it is written). 130 on SIGINT (Ctrl-C) and 143 on SIGTERM: the
lines already checked are written, in order, then the batch stops; a second
signal does not wait for a blocked write. 141,
silently, when standard output is a pipe nobody reads any more. No worker
process outlives the batch.

""" + _paragraph("""
line size: a line longer than --max-input-bytes (default: the cap of `check`,
which follows the limits) is rejected as that line's error object without being
held in memory, and the batch goes on with the next line; a line with no end
within 16 times the cap (at least 64 MiB) ends the input there.""")

SERVE_DESCRIPTION = """\
Answer requests over HTTP (needs uvicorn: pip install "sat-claim-check[service]").
  POST /v1/tools/sat-claim-check/versions/1.0.0/execute  a request, as for `check`:
       200 the result (valid or not), 400 invalid_input, 413 a size limit or a
       body over --max-body-bytes, 422 the work limit, 503 overloaded (Retry-After)
  GET  /v1/tools/sat-claim-check/versions/1.0.0          the tool description
  GET  /healthz                                          status and counters
The limits (--limit, --unlimited) hold for every request; a request cannot
change them. Checks run in --workers threads; beyond them --queue requests
wait, and the next one gets 503 before its body is read."""

SERVE_EPILOG = """\
exit status: on SIGTERM or Ctrl-C (SIGINT) the server stops accepting, answers
the requests in flight, and ends by that signal (SIGTERM, as uvicorn does) or
with 130 (Ctrl-C); 2 when it cannot start (uvicorn missing, the port taken...)."""


def jobs_count(text: str) -> int:
    """--jobs N: N >= 0 (0, one per CPU, is worked out by batch_jobs)."""
    try:
        number = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if number < 0:
        raise argparse.ArgumentTypeError("--jobs must be >= 0")
    return number


MIN_WORKER_MEMORY = 64      # MiB: below that a worker cannot even take its lines


def worker_memory(text: str) -> int:
    """--worker-memory MiB: 0 (no limit) or at least MIN_WORKER_MEMORY."""
    try:
        number = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if number != 0 and not MIN_WORKER_MEMORY <= number <= 2**40:
        raise argparse.ArgumentTypeError(
            f"--worker-memory must be 0 (no limit) or at least {MIN_WORKER_MEMORY} (MiB)")
    return number


def at_least(least: int) -> Callable[[str], int]:
    """An argparse type: an integer >= least."""
    def number(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if value < least:
            raise argparse.ArgumentTypeError(f"must be >= {least}")
        return value
    return number


def seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError("must be a positive number of seconds")
    return value


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


def add_progress_options(parser: argparse.ArgumentParser) -> None:
    shown = parser.add_mutually_exclusive_group()
    shown.add_argument("--progress", action="store_const", const=True, dest="progress",
                       default=None, help="show the progress of the check on stderr even "
                                          "when stderr is not a terminal")
    shown.add_argument("--quiet", action="store_const", const=False, dest="progress",
                       help="never show progress (the default shows it on a terminal "
                            "for checks longer than a second)")


def add_deletions_option(parser: argparse.ArgumentParser) -> None:
    """--deletions strict|lenient: for the commands that check unsat proofs."""
    parser.add_argument("--deletions", choices=DELETIONS, default="strict",
                        help="how delete steps are read: strict (the default, the "
                             "contract's) removes every deleted clause and fails on one "
                             "that is not there; lenient ignores, as drat-trim does, a "
                             "delete that finds no clause or would remove a unit clause "
                             "or the reason of a unit-implied literal")


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
        return cast(int, args.max_input_bytes)
    return _bounds.request_bytes(limits)


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
                            "step, and deletions of reason clauses before it, and whether "
                            "the proof checks with them ignored, as drat-trim does)")
    add_engine_options(check)
    add_progress_options(check)
    add_deletions_option(check)
    check.set_defaults(handler=command_check)

    request = commands.add_parser(
        "request", help="build the JSON request from DIMACS and DRUP or model files",
        description=REQUEST_DESCRIPTION, epilog=REQUEST_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    request.add_argument("--cnf", required=True, metavar="FILE.cnf",
                         help="the formula, DIMACS CNF; files compressed with gzip, xz or "
                              "bz2 are read transparently, and - is standard input (for "
                              "one of --cnf, --proof, --model)")
    which = request.add_mutually_exclusive_group(required=True)
    which.add_argument("--proof", metavar="FILE.drup",
                       help="a DRUP proof, text or binary: the claim is unsat (also a "
                            "named pipe; with --check it is checked as it is read)")
    which.add_argument("--model", metavar="FILE",
                       help="solver output ('s SATISFIABLE', 'v ... 0' lines) or a literal "
                            "list: the claim is sat")
    request.add_argument("--proof-format", choices=PROOF_FORMATS, default="auto",
                         help="text or binary DRUP; auto (the default) tells them apart by "
                              "the first bytes, as drat-trim does")
    request.add_argument("--check", action="store_true",
                         help="check the request at once and write the result instead "
                              "(exit codes as for check)")
    request.add_argument("--explain", action="store_true",
                         help="with --check: when the claim is not valid, say on stderr why")
    request.add_argument("-o", "--output", default="-", metavar="OUT",
                         help="write to OUT instead of standard output")
    add_engine_options(request)
    add_progress_options(request)
    add_deletions_option(request)
    request.set_defaults(handler=command_request)

    batch = commands.add_parser(
        "batch", help="check JSON Lines: one request per line, one output line per line",
        description=BATCH_DESCRIPTION, epilog=BATCH_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    batch.add_argument("file", nargs="?", default="-", metavar="FILE",
                       help="JSON Lines; - or nothing reads standard input")
    batch.add_argument("--jobs", "-j", type=jobs_count, default=None, metavar="N",
                       help="worker processes (default 1: check in this process; 0 means "
                            "one per CPU; more than the CPUs this process may use is "
                            "lowered to that number, with a note on stderr); from an input "
                            "file they read its long lines themselves")
    batch.add_argument("--worker-memory", type=worker_memory, default=None, metavar="MiB",
                       help="the address space each worker process may use (Linux; "
                            "default: the physical memory divided by N + 1; 0: no limit). "
                            "A line whose check needs more gets a check_failed error "
                            "object instead of exhausting the machine's memory; --jobs 1 "
                            "runs without it")
    batch.add_argument("--manifest", action="store_true",
                       help="FILE is a manifest: each line names a CNF and a proof or a model "
                            "file to check, {\"id\": ..., \"cnf\": \"f.cnf\", \"proof\": "
                            "\"f.drup\"}; relative paths are resolved against FILE's "
                            "directory (the current one for standard input). Only regular "
                            "files are read")
    batch.add_argument("--manifest-root", metavar="DIR",
                       help="with --manifest: refuse (as that line's error) every path that "
                            "resolves outside DIR, through '..' or a symbolic link; for a "
                            "batch run for others")
    batch.add_argument("--scheduler", type=scheduler_address, metavar="ADDRESS",
                       help="check on a Dask cluster: the address of its scheduler (e.g. "
                            "tcp://127.0.0.1:8786), or local:N to start a local cluster of N "
                            "worker processes; the output is that of --jobs 1 (needs the "
                            "dask extra; excludes --jobs and --worker-memory)")
    add_engine_options(batch)
    add_deletions_option(batch)
    batch.set_defaults(handler=command_batch)

    serve = commands.add_parser(
        "serve", help="answer requests over HTTP (the service extra)",
        description=SERVE_DESCRIPTION, epilog=SERVE_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    serve.add_argument("--host", default="127.0.0.1",
                       help="the address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=at_least(0), default=8000,
                       help="the port (default 8000; 0 picks a free one, logged at start)")
    serve.add_argument("--workers", type=at_least(1), default=None, metavar="N",
                       help="threads that check (default: one per CPU)")
    serve.add_argument("--queue", type=at_least(0), default=None, metavar="N",
                       help="requests admitted beyond the workers' (default 4 per worker)")
    serve.add_argument("--max-body-bytes", type=at_least(1), default=None, metavar="N",
                       help="the largest request body (default: the cap of check, 32 "
                            "bytes per literal, clause and step the limits allow plus 1 MiB, "
                            "at most 256 MiB; 4792576 for the contract's limits)")
    serve.add_argument("--body-timeout", type=seconds, default=30.0, metavar="S",
                       help="seconds to receive a body before 408 (default 30)")
    serve.add_argument("--header-timeout", type=seconds, default=_bounds.HEADER_TIMEOUT,
                       metavar="S",
                       help="seconds a connection has to send a request's headers, from "
                            "its start or the end of the previous answer (and an answer "
                            "may wait unread), before it is dropped (default "
                            f"{_bounds.HEADER_TIMEOUT:g})")
    serve.add_argument("--max-connections", type=at_least(1), default=512, metavar="N",
                       help="open connections at most (default 512); past it, the one "
                            "that has waited longest on its client is dropped to make room")
    serve.add_argument("--no-access-log", action="store_true",
                       help="do not log a line per request")
    add_engine_options(serve)
    serve.set_defaults(handler=command_serve)

    schema = commands.add_parser("schema", help="print the input or output JSON Schema")
    schema.add_argument("which", choices=("input", "output"))
    schema.set_defaults(handler=command_schema)
    return parser


# -- writing -------------------------------------------------------------------

class WriteError(Exception):
    """Standard output could not be written: a write error, never a read error."""

    def __init__(self, error: OSError) -> None:
        super().__init__(error)
        self.error = error


def stdout_closed() -> OSError:
    return OSError(errno.EBADF, "it is closed")


def write_line(text: str) -> None:
    """One line on standard output, flushed; WriteError when that fails."""
    if sys.stdout is None:      # the process was started with it closed
        raise WriteError(stdout_closed())
    try:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
    except OSError as exc:
        raise WriteError(exc) from None


def write_failed(error: OSError) -> int:
    """Report a failed write on standard output; the exit status."""
    # Python flushes stdout again at exit: that must not fail (and print) too.
    to_devnull(sys.stdout)
    if isinstance(error, BrokenPipeError):
        return EXIT_BROKEN_PIPE     # the reader went away: it needs no message
    say(f"cannot write standard output: {error.strerror or error}")
    return EXIT_REJECTED


def to_devnull(stream: Any) -> None:
    """Point a standard stream's descriptor at the null device (what Python's
    documentation advises after a broken pipe)."""
    if stream is None:
        return
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
        os.close(devnull)
    except (OSError, ValueError):   # no descriptor (an in-memory stream)
        pass


def say(text: str) -> None:
    """One human line on stderr; never fails (an odd character, stderr closed or full)."""
    stream = sys.stderr
    if stream is None:
        return
    data = f"sat-claim-check: {text}\n"
    try:
        if hasattr(stream, "buffer"):
            stream.buffer.write(data.encode("utf-8", "backslashreplace"))
        else:
            stream.write(data)
        stream.flush()
    except (OSError, ValueError):
        to_devnull(stream)


def describe_error(err: CheckError) -> str:
    where = f" at {err.path}" if err.path else ""
    if isinstance(err, LimitExceeded) and err.file_line is not None:
        where += f" ({err.file_line[0]}:{err.file_line[1]})"
    return f"{err.error}{where}: {err.message}"


def say_error(err: CheckError, data: bytes | None = None, one_line: bool = False) -> None:
    """The error's line on stderr, then what to do about it (``one_line``: in the
    same line, as `check` writes one line).  ``data``: the input, when a `check`
    input that is not JSON text may be DIMACS."""
    if err.error == "invalid_input" and err.path == "" and err.message.startswith(
            "cannot read "):
        say(err.message)        # the words of every command for an unreadable file
        return
    if isinstance(err, LimitExceeded):
        hints = limit_lines(err)
    elif data is not None and err.path == "" and err.message.startswith("malformed JSON"):
        hints = json_misread_lines(data[:4096])
    else:
        hints = []
    if one_line:
        say("; ".join([describe_error(err), *hints]))
        return
    for line in [describe_error(err), *hints]:
        say(line)


def exit_code(result: Result) -> int:
    return EXIT_VALID if result["valid"] else EXIT_NOT_VALID


# -- commands ------------------------------------------------------------------

def standard_input() -> IO[bytes]:
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
    except OSError as exc:
        raise InvalidInput(None, "", f"cannot read {source}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise InvalidInput(None, "", f"cannot read {source}: {exc}") from None
    if len(data) > max_bytes:
        raise InvalidInput(None, "", f"the request in {source} is longer than {max_bytes} "
                           "bytes, the most read at these limits (raise the limits, or "
                           "--max-input-bytes)")
    return data


class Position:
    """The progress callback of one check: the last (steps_checked, work) the
    engine reported, for the line on stderr when Ctrl-C stops the check, and
    for the progress line (``--progress``, ``--quiet``)."""

    def __init__(self, show: bool | None = False) -> None:
        self.steps_checked: int | None = None
        self.work: int | None = None
        self.line = ProgressLine(sys.stderr, show)

    def __call__(self, steps_checked: int, work: int) -> None:
        self.steps_checked = steps_checked
        self.work = work
        self.line.steps(steps_checked, work)

    def interrupted(self, step_count: Callable[[], int] | None) -> int:
        """Say where the check was stopped; the exit code of an interrupted run.

        ``step_count()`` gives the number of proof steps (None: not known, a
        proof checked as it is read); it is called only when the engine has
        reported, so the proof has passed validation.
        """
        self.line.close()
        if self.steps_checked is None:
            say("interrupted")
        else:
            of = "" if step_count is None else f" of {step_count()}"
            say(f"interrupted at proof step {self.steps_checked}{of} (work {self.work})")
        return EXIT_INTERRUPTED


def command_check(args: argparse.Namespace) -> int:
    position = Position(args.progress)
    limits = limits_from(args)
    name, module = resolve(args.engine)     # an unavailable engine fails before reading
    # check_json's two halves: v is kept for --explain and the Ctrl-C line.
    data: bytes | None = None
    try:
        data = read_input(args.file, request_cap(args, limits))
        v = validated_from_text(data, limits)
        outcome = check_validated(v, name, module, limits, position,
                                  args.deletions == "lenient")
    except KeyboardInterrupt:
        # Reported only after validation: v holds the proof arrays by then.
        return position.interrupted(lambda: len(v.step_kinds or ()))
    except CheckError as err:       # unreadable, not JSON text, or not a valid request
        outcome = Outcome.rejected(err)
    position.line.close()
    write_line(dumps(outcome.data, True) if args.pretty else outcome.body.decode())
    if outcome.error is not None:
        say_error(outcome.error, data, one_line=True)
    elif args.explain and outcome.report is not None:
        # None for sat: step_of is never called.
        proof = cast("ProofArrays", (v.step_kinds, v.step_offsets, v.step_lits))
        explanation = explanation_of(outcome.report, lambda s: request_step(*proof, s),
                                     rerun_of(v, name, module, limits),
                                     (v.clause_offsets, v.clause_lits), None,
                                     args.deletions == "lenient")
        for line in explanation.lines:
            say(line)
    return outcome.exit_code


def command_request(args: argparse.Namespace) -> int:
    if [args.cnf, args.proof, args.model].count("-") > 1:
        say("only one of --cnf, --proof and --model can be - (standard input)")
        return EXIT_REJECTED
    if args.explain and not args.check:
        say("--explain needs --check: without --check, request only writes the request "
            "(add --check to check it and explain the verdict)")
        return EXIT_REJECTED
    if args.check and args.proof is not None:
        return check_proof_files(args)
    position = Position(args.progress if args.check else False)
    limits = limits_from(args)
    try:
        if args.check:
            parsed = parse_files(args.cnf, args.proof, args.model, limits, args.max_input_bytes)
            report = run_parsed(parsed, args.engine, limits, position, args.deletions)
        else:
            text = dumps(request_from_files(args.cnf, args.proof, args.model, limits=limits,
                                            max_bytes=args.max_input_bytes,
                                            proof_format=args.proof_format))
    except (DimacsError, OSError) as err:
        return reading_failed(args, err)
    except CheckError as err:
        if not args.check:      # reading stopped at a limit: no request to write
            say_error(err)
            return EXIT_REJECTED
        return checked(args, position, err, None)
    if not args.check:
        return write_output(args.output, text, EXIT_VALID)
    return checked(args, position, report, None)


def check_proof_files(args: argparse.Namespace) -> int:
    """request --check with a proof: checked as it is read (dimacs.check_files)."""
    position = Position(args.progress)
    limits = limits_from(args)
    memo = StepMemo(args.proof) if args.explain else None
    try:
        report: Report | CheckError = check_files(
            args.cnf, args.proof, engine=args.engine, limits=limits, progress=position,
            max_bytes=args.max_input_bytes, reading=position.line.bytes, memo=memo,
            deletions=args.deletions, proof_format=args.proof_format)
    except KeyboardInterrupt:
        return position.interrupted(None)
    except (DimacsError, OSError) as err:
        position.line.close()
        return reading_failed(args, err)
    except CheckError as err:
        report = err
    return checked(args, position, report, memo)


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


def checked(args: argparse.Namespace, position: Position, report: Report | CheckError,
            memo: StepMemo | None) -> int:
    """Write the result (or the error object) of request --check; its exit code."""
    position.line.close()
    if isinstance(report, CheckError):
        code = write_output(args.output, dumps(report.to_dict()), EXIT_REJECTED)
        say_error(report)       # after the error object, as `check` writes them
        return code
    code = write_output(args.output, dumps(report.result), exit_code(report.result))
    if args.explain and code != EXIT_REJECTED:
        for line in explain_files(args, report, memo):
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


def explain_files(args: argparse.Namespace, report: Report,
                  memo: StepMemo | None) -> list[str]:
    """The --explain lines of request --check.  A proof was checked as it was
    read (``memo`` holds the steps to name); to say whether it checks with
    lenient deletions the proof is read again whole, when it is a file."""
    if memo is None:        # a sat claim: a falsified clause is named by its CNF line

        def clause_place(index: int) -> str | None:
            line = clause_line(args.cnf, index)
            return None if line is None else f"{args.cnf}:{line}"

        return explain_lines(report, no_steps, clause_place)
    lenient = args.deletions == "lenient"
    if not worth_rerun(report, lenient):
        return explain_lines(report, memo.step_of, memo.where)
    again = ("whether it checks with lenient deletions, as drat-trim reads them, run the "
             "check again with --deletions lenient" if worth_lenient(report) and not lenient
             else "whether its clauses propagate to a conflict at the end, add a final "
             "line '0' and run the check again")
    if not os.path.isfile(args.proof):
        return [*explain_lines(report, memo.step_of, memo.where),
                f"explain: the proof came from a pipe and cannot be read again: to see {again}"]
    limits = limits_from(args)
    try:
        parsed = parse_files(args.cnf, args.proof, None, limits, args.max_input_bytes,
                             args.proof_format)
    except (CheckError, DimacsError, OSError):
        # Past the failing step the proof passes a limit or is malformed.
        return [*explain_lines(report, memo.step_of, memo.where),
                f"explain: the proof cannot be read whole within the limits: to see {again}"]
    cnf, proof = parsed[0], cast("ProofArrays", parsed[1])

    def rerun(lenient: bool, close: bool) -> Report:
        steps = with_empty_clause(*proof) if close else proof
        return run_parsed((cnf, steps, None), args.engine, limits, None,
                          "lenient" if lenient else "strict")

    explanation = explanation_of(report, lambda s: request_step(*proof, s), rerun, cnf[1:],
                                 memo.where, lenient)
    return list(explanation.lines)


def no_steps(step: int) -> Mapping[str, Sequence[float]]:     # a sat claim has no steps
    raise AssertionError(f"a sat claim has no proof step {step}")


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

def batch_jobs(requested: int) -> int:
    """--jobs: 0 is one per CPU; more than the CPUs available is lowered, with a note."""
    cpus = available_cpus()
    if requested == 0:
        return cpus
    if requested > cpus:
        say(f"--jobs {requested} lowered to {cpus}, the number of CPUs this process may use")
        return cpus
    return requested


def scheduler_address(text: str) -> str:
    """--scheduler ADDRESS: a scheduler's address, or local / local:N with N >= 1."""
    if text == "local" or text.startswith("local:"):
        count = text.partition(":")[2]
        if count and not (count.isdigit() and int(count) >= 1):
            raise argparse.ArgumentTypeError(
                f"local:N needs a number of workers N >= 1, got {count!r}")
    elif not text:
        raise argparse.ArgumentTypeError("an empty scheduler address")
    return text


def command_batch(args: argparse.Namespace) -> int:
    limits = limits_from(args)
    if args.scheduler is not None:
        if args.jobs is not None or args.worker_memory is not None:
            say("--scheduler excludes --jobs and --worker-memory (the cluster's workers "
                "check the lines, under their own memory limit)")
            return EXIT_REJECTED
    else:
        resolve(args.engine)    # an unavailable engine fails before any line
    if sys.stdout is None:      # nothing could be written: check nothing
        raise WriteError(stdout_closed())
    jobs = batch_jobs(1 if args.jobs is None else args.jobs)
    if args.worker_memory is None:
        memory = default_worker_memory(jobs)
    else:
        memory = args.worker_memory << 20 or None
    manifest = None
    if args.manifest:
        base = os.getcwd() if args.file == "-" else os.path.dirname(os.path.abspath(args.file))
        try:
            root = None if args.manifest_root is None else manifest_root(args.manifest_root)
        except ValueError as exc:
            say(str(exc))
            return EXIT_REJECTED
        manifest = Manifest(base, root)
    elif args.manifest_root is not None:
        say("--manifest-root needs --manifest")
        return EXIT_REJECTED
    source = "standard input" if args.file == "-" else repr(args.file)
    try:
        stream = standard_input() if args.file == "-" else open(args.file, "rb")  # noqa: SIM115
    except OSError as exc:
        say(f"cannot read {source}: {exc.strerror or exc}")
        return EXIT_REJECTED
    try:
        size = 0 if args.file == "-" else os.fstat(stream.fileno()).st_size
    except (OSError, ValueError):
        size = 0
    progress = Progress(stream, size)
    start = time.perf_counter()
    lost = None
    try:
        if args.scheduler is not None:
            outcome, lost = batch_on_cluster(args.scheduler, stream, progress, args.engine,
                                             limits, manifest, args.deletions)
            if outcome is None:
                return EXIT_REJECTED
        else:
            outcome = run_batch(stream, sys.stdout, engine=args.engine, limits=limits,
                                jobs=jobs, progress=progress, worker_memory=memory,
                                max_line_bytes=request_cap(args, limits),
                                manifest=manifest, deletions=args.deletions)
    finally:
        progress.close()
        if args.file != "-":
            stream.close()
    if outcome.write_error is not None:
        return write_failed(outcome.write_error)
    counts = outcome.counts
    summary = (f"{sum(counts)} lines: {counts[0]} valid, {counts[1]} not valid, "
               f"{counts[2]} rejected")
    if counts[FAILED]:
        summary += f", {counts[FAILED]} failed"
    summary += f" ({time.perf_counter() - start:.2f} s)"
    if outcome.read_error is not None:
        error = outcome.read_error
        say(f"cannot read {source}: {error.strerror or error}")
    if lost is not None:
        say(f"batch: {lost}; stopped after {summary}")
        return EXIT_REJECTED
    if outcome.signal is not None:
        say(f"batch: stopped by {signal.Signals(outcome.signal).name} after {summary}")
        return EXIT_INTERRUPTED if outcome.signal == signal.SIGINT else EXIT_TERMINATED
    say(f"batch: {summary}")
    if outcome.read_error is not None or counts[EXIT_REJECTED] or counts[FAILED]:
        return EXIT_REJECTED
    return EXIT_NOT_VALID if counts[EXIT_NOT_VALID] else EXIT_VALID


def batch_on_cluster(scheduler: str, stream: IO[bytes], progress: Progress,
                     engine: EngineName, limits: Limits, manifest: Manifest | None,
                     deletions: Deletions = "strict",
                     ) -> tuple[BatchOutcome | None, str | None]:
    """``batch --scheduler``: (the outcome, or None when the cluster could not run
    the batch, said on stderr; the words for a scheduler lost mid-batch)."""
    from ..dask import ClusterError, connect
    from ..dask import run_batch as run_on_cluster

    # Dask logs what it retries (dead workers, a lost scheduler) with tracebacks;
    # the batch says what matters on its own lines.
    logging.disable(logging.CRITICAL)
    try:
        client, cluster = connect(scheduler)
    except ClusterError as err:
        say(str(err))
        return None, None
    try:
        outcome = run_on_cluster(stream, sys.stdout, client=client, engine=engine,
                                 limits=limits, manifest=manifest and manifest.base,
                                 manifest_root=manifest and manifest.root, progress=progress,
                                 deletions=deletions)
    except ClusterError as err:
        say(str(err))
        return None, None
    finally:
        with suppress(Exception):   # closing a cluster that is gone: nothing to do
            client.close()
            if cluster is not None:
                cluster.close()
        logging.disable(logging.NOTSET)
    return outcome, outcome.lost


def command_serve(args: argparse.Namespace) -> int:
    from ..service import create_app, serve

    application = create_app(
        limits=limits_from(args), engine=args.engine, workers=args.workers,
        queue=args.queue, max_body_bytes=args.max_body_bytes, body_timeout=args.body_timeout)
    try:
        serve(application, host=args.host, port=args.port,
              max_connections=args.max_connections, header_timeout=args.header_timeout,
              access_log=not args.no_access_log)
    except SystemExit as exc:       # uvicorn exits when it cannot bind (logged)
        return EXIT_REJECTED if exc.code else EXIT_VALID
    return EXIT_VALID               # (a signal, re-raised by uvicorn, usually ends it first)


def command_schema(args: argparse.Namespace) -> int:
    text = resources.files("sat_claim_check").joinpath(
        f"schemas/{args.which}.schema.json").read_text(encoding="utf-8")
    write_line(json.dumps(json.loads(text), indent=2))
    return EXIT_VALID


def reserve_standard_descriptors() -> None:
    """Open the null device on descriptor 0, 1 or 2 when the process was started
    with it closed, so that no file or pipe opened later takes that number and
    gets what is meant for standard input, output or error.  sys.stdin, stdout
    or stderr stays None: the commands see it is closed."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            with suppress(OSError):
                os.open(os.devnull, os.O_RDWR)     # the lowest free number: fd


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line on ``argv`` (default: sys.argv[1:]); return the exit code."""
    reserve_standard_descriptors()
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit:
        # --help and --version have written on stdout; a failed write is an error.
        try:
            if sys.stdout is not None:
                sys.stdout.flush()
        except OSError as exc:
            return write_failed(exc)
        raise
    if args.command is None:
        parser.print_help(sys.stderr)
        return EXIT_REJECTED
    handler: Callable[[argparse.Namespace], int] = args.handler
    try:
        return handler(args)
    except WriteError as err:
        return write_failed(err.error)
    except ImportError as exc:      # --engine compiled where it is not built
        say(str(exc))
        return EXIT_REJECTED
    except KeyboardInterrupt:
        say("interrupted")
        return EXIT_INTERRUPTED
    except MemoryError:
        say("out of memory")
        return EXIT_REJECTED


if __name__ == "__main__":
    sys.exit(main())
