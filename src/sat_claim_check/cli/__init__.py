"""The command line: ``sat-claim-check COMMAND``, run by ``main``.

What is read and written is described in docs/semantics.md ("JSON text",
"Output bytes"); the exit codes are in ``_core.codes``.  The parser and its
--help are in ``parser`` and ``texts``, the commands in ``check``,
``request``, ``batch``, ``serve`` and ``schema``, the standard streams in
``output``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from .._batch.console import WriteError
from .._core.codes import EXIT_INTERRUPTED, EXIT_REJECTED
from .output import reserve_standard_descriptors, say, write_failed
from .parser import build_parser, parse_arguments
from .texts import EPILOG, REQUEST_EPILOG

__all__ = ["EPILOG", "REQUEST_EPILOG", "main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line on ``argv`` (default: sys.argv[1:]); return the exit code."""
    reserve_standard_descriptors()
    parser = build_parser()
    try:
        args = parse_arguments(parser, list(sys.argv[1:] if argv is None else argv))
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
    except ImportError as exc:  # --engine compiled where it is not built
        say(str(exc))
        return EXIT_REJECTED
    except KeyboardInterrupt:
        say("interrupted")
        return EXIT_INTERRUPTED
    except MemoryError:
        say("out of memory")
        return EXIT_REJECTED
