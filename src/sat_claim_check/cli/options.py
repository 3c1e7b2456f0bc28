"""Options: the argparse types that check their values, the options every
command that reads a request shares, and the limits and byte cap they set."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import cast

from .._batch.sizing import available_cpus
from .._core.options import DELETIONS
from .._engines import ENGINES
from .._io import bounds
from ..limits import CEILINGS, Limits
from .output import say


def jobs_count(text: str) -> int:
    """--jobs N: N >= 0 (0, one per CPU, is worked out by jobs_for)."""
    try:
        number = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if number < 0:
        raise argparse.ArgumentTypeError("--jobs must be >= 0")
    return number


def jobs_for(requested: int) -> int:
    """--jobs: 0 is one per CPU; more than the CPUs available is lowered, with a note."""
    cpus = available_cpus()
    if requested == 0:
        return cpus
    if requested > cpus:
        say(f"--jobs {requested} lowered to {cpus}, the number of CPUs this process may use")
        return cpus
    return requested


MIN_WORKER_MEMORY = 64  # MiB: below that a worker cannot even take its lines


def worker_memory(text: str) -> int:
    """--worker-memory MiB: 0 (no limit) or at least MIN_WORKER_MEMORY."""
    try:
        number = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if number != 0 and not MIN_WORKER_MEMORY <= number <= 2**40:
        raise argparse.ArgumentTypeError(
            f"--worker-memory must be 0 (no limit) or at least {MIN_WORKER_MEMORY} (MiB)"
        )
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


def limit_assignment(text: str) -> tuple[str, int]:
    """--limit NAME=VALUE"""
    name, sep, value = text.partition("=")
    if not sep or name not in CEILINGS:
        raise argparse.ArgumentTypeError(
            f"expected NAME=VALUE with NAME one of {', '.join(CEILINGS)}; got {text!r}"
        )
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{name}: {value!r} is not an integer") from None
    if not 0 <= number <= CEILINGS[name]:
        raise argparse.ArgumentTypeError(f"{name} must be in 0..{CEILINGS[name]}")
    return name, number


def byte_count(text: str) -> int:
    """--max-input-bytes N"""
    try:
        number = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if number < 0:
        raise argparse.ArgumentTypeError("--max-input-bytes must be >= 0")
    return number


def scheduler_address(text: str) -> str:
    """--scheduler ADDRESS: a scheduler's address, or local / local:N with N >= 1."""
    if text == "local" or text.startswith("local:"):
        count = text.partition(":")[2]
        if count and not (count.isdigit() and int(count) >= 1):
            raise argparse.ArgumentTypeError(
                f"local:N needs a number of workers N >= 1, got {count!r}"
            )
    elif not text:
        raise argparse.ArgumentTypeError("an empty scheduler address")
    return text


def add_engine_options(parser: argparse.ArgumentParser, input_bytes: bool = True) -> None:
    """--engine, --limit, --unlimited, and --max-input-bytes unless input_bytes
    is False (serve: --max-body-bytes is its cap): shared by every command that
    reads a request."""
    parser.add_argument(
        "--engine",
        choices=ENGINES,
        default="auto",
        help="which engine checks unsat proofs (default: auto, the "
        "compiled one when it is installed)",
    )
    parser.add_argument(
        "--limit",
        type=limit_assignment,
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="raise or lower one limit, e.g. --limit max_proof_steps=300000 "
        f"(names: {', '.join(CEILINGS)})",
    )
    parser.add_argument(
        "--unlimited",
        action="store_true",
        help="set every limit to the largest value the engines support",
    )
    if not input_bytes:
        return
    parser.add_argument(
        "--max-input-bytes",
        type=byte_count,
        default=None,
        metavar="N",
        help="read no input past N bytes (a request, a batch line, or each "
        "file after decompression); the default follows the limits "
        "(the end of this help says how)",
    )


def add_progress_options(parser: argparse.ArgumentParser) -> None:
    shown = parser.add_mutually_exclusive_group()
    shown.add_argument(
        "--progress",
        action="store_const",
        const=True,
        dest="progress",
        default=None,
        help="show the progress of the check on stderr even when stderr is not a terminal",
    )
    shown.add_argument(
        "--quiet",
        action="store_const",
        const=False,
        dest="progress",
        help="never show progress (the default shows it on a terminal "
        "for checks longer than a second)",
    )


def add_deletions_option(parser: argparse.ArgumentParser) -> None:
    """--deletions strict|lenient: for the commands that check unsat proofs."""
    parser.add_argument(
        "--deletions",
        choices=DELETIONS,
        default="strict",
        help="how delete steps are read: strict (the default, the "
        "contract's) removes every deleted clause and fails on one "
        "that is not there; lenient ignores, as drat-trim does, a "
        "delete that finds no clause or would remove a unit clause "
        "or the reason of a unit-implied literal",
    )


READINGS = ("strict", "lenient", "drat-trim")


def add_reading_option(parser: argparse.ArgumentParser, default: str = "strict") -> None:
    """--reading strict|lenient|drat-trim: how a proof is read (``default``: the
    reading when neither it nor --deletions is given)."""
    says = {"strict": " (the default)", "drat-trim": ""}
    parser.add_argument(
        "--reading",
        choices=READINGS,
        default=None,
        help=f"how the proof is read: strict{says['strict'] if default == 'strict' else ''} "
        "(every deletion honoured, the empty clause needed); lenient (deletions as "
        "--deletions lenient reads them); drat-trim"
        f"{' (the default)' if default == 'drat-trim' else ''} (deletions read "
        "leniently, and the check ends valid at the first step where the "
        "clauses propagate to a conflict, as drat-trim's forward mode "
        "does: a proof need not end with the empty clause)",
    )


def limits_from(args: argparse.Namespace) -> Limits:
    """The contract's limits (verify: none, unless --contract-limits), all
    lifted by --unlimited, then each --limit."""
    unlimited = args.unlimited or not getattr(args, "contract_limits", True)
    values = dict(CEILINGS) if unlimited else Limits().as_dict()
    values.update(args.limit)
    return Limits(**values)


def request_cap(args: argparse.Namespace, limits: Limits) -> int:
    """The most bytes one JSON request may take: --max-input-bytes, or what the limits allow."""
    if args.max_input_bytes is not None:
        return cast(int, args.max_input_bytes)
    return bounds.request_bytes(limits)
