"""`check`: one JSON request, from a file or standard input."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, cast

from .._core.codes import EXIT_REJECTED
from .._core.explain import explanation_of, rerun_with
from .._core.jsontext import dumps
from .._core.options import Options
from .._core.outcome import Outcome, outcome_of
from .._core.validate import validated_from_text
from .._core.validated import request_step
from .._io import bounds
from ..errors import CheckError, InvalidInput
from .options import limits_from, request_cap
from .output import say, say_error, standard_input, write_line
from .position import Position

if TYPE_CHECKING:
    from .._core.types import ProofArrays


def command_check(args: argparse.Namespace) -> int:
    position = Position(args.progress)
    # An unavailable engine fails here, before reading.
    try:
        options = Options.of(
            args.engine, limits_from(args), args.deletions, position, reading=args.reading
        )
    except ValueError as err:  # --reading and --deletions that contradict each other
        say(str(err))
        return EXIT_REJECTED
    limits = options.limits
    # check_json's two halves: v is kept for --explain and the Ctrl-C line.
    data: bytes | None = None
    try:
        data = read_input(args.file, request_cap(args, limits))
        v = validated_from_text(data, limits)
        outcome = outcome_of(v, options)
    except KeyboardInterrupt:
        # Reported only after validation: v holds the proof arrays by then.
        return position.interrupted(lambda: len(v.step_kinds or ()))
    except CheckError as err:  # unreadable, not JSON text, or not a valid request
        outcome = Outcome.rejected(err)
    position.line.close()
    write_line(dumps(outcome.data, True) if args.pretty else outcome.body.decode())
    if outcome.error is not None:
        say_error(outcome.error, data, one_line=True)
    elif args.explain and outcome.report is not None:
        # None for sat: step_of is never called.
        proof = cast("ProofArrays", (v.step_kinds, v.step_offsets, v.step_lits))
        explanation = explanation_of(
            outcome.report,
            lambda s: request_step(*proof, s),
            rerun_with(v, options),
            (v.clause_offsets, v.clause_lits),
            None,
            options.lenient,
        )
        for line in explanation.lines:
            say(line)
    return outcome.exit_code


def read_input(name: str, max_bytes: int) -> bytes:
    """The bytes of FILE, or of standard input for '-', read no further than
    max_bytes + 1; InvalidInput if unreadable or longer than max_bytes."""
    source = "standard input" if name == "-" else repr(name)
    try:
        if name == "-":
            data = bounds.read_at_most(standard_input(), max_bytes)
        else:
            with open(name, "rb") as f:
                data = bounds.read_at_most(f, max_bytes)
    except OSError as exc:
        raise InvalidInput(None, "", f"cannot read {source}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise InvalidInput(None, "", f"cannot read {source}: {exc}") from None
    if len(data) > max_bytes:
        raise InvalidInput(
            None,
            "",
            f"the request in {source} is longer than {max_bytes} "
            "bytes, the most read at these limits (raise the limits, or "
            "--max-input-bytes)",
        )
    return data
