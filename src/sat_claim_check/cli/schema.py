"""`schema`: the input or output JSON Schema."""

from __future__ import annotations

import argparse
import json

from .._core.codes import EXIT_VALID
from .output import write_line


def command_schema(args: argparse.Namespace) -> int:
    from importlib import resources  # here: every other command starts without it

    text = (
        resources.files("sat_claim_check")
        .joinpath(f"schemas/{args.which}.schema.json")
        .read_text(encoding="utf-8")
    )
    write_line(json.dumps(json.loads(text), indent=2))
    return EXIT_VALID
