"""`serve`: the HTTP service (``sat_claim_check.service``, on uvicorn)."""

from __future__ import annotations

import argparse

from .._core.codes import EXIT_REJECTED, EXIT_VALID
from .options import limits_from


def command_serve(args: argparse.Namespace) -> int:
    from ..service import create_app, serve

    application = create_app(
        limits=limits_from(args),
        engine=args.engine,
        workers=args.workers,
        queue=args.queue,
        max_body_bytes=args.max_body_bytes,
        body_timeout=args.body_timeout,
    )
    try:
        serve(
            application,
            host=args.host,
            port=args.port,
            max_connections=args.max_connections,
            header_timeout=args.header_timeout,
            access_log=not args.no_access_log,
        )
    except SystemExit as exc:  # uvicorn exits when it cannot bind (logged)
        return EXIT_REJECTED if exc.code else EXIT_VALID
    return EXIT_VALID  # (a signal, re-raised by uvicorn, usually ends it first)
