"""The command line of a build, timed as a child process.

``timed(args, pythonpath)`` runs ``python -m sat_claim_check ARGS`` with this
interpreter, ``PYTHONPATH`` set to ``pythonpath`` when given (the src of
another build), and returns its wall time in seconds; another exit status
than ``expect`` ends the benchmark with the end of the child's stderr.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path


def timed(
    args: Sequence[str],
    pythonpath: str | None,
    *,
    expect: int = 0,
    cwd: Path | None = None,
    timeout: float | None = None,
) -> float:
    """Wall seconds of ``python -m sat_claim_check ARGS`` (see the module)."""
    env = dict(os.environ)
    if pythonpath is not None:
        env["PYTHONPATH"] = pythonpath
    command = [sys.executable, "-m", "sat_claim_check", *args]
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, timeout=timeout)
    elapsed = time.perf_counter() - start
    if done.returncode != expect:
        raise SystemExit(f"exit {done.returncode}: {done.stderr.decode()[-300:]}")
    return elapsed
