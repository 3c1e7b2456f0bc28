"""The command line of a build, timed as a child process.

``timed(args, pythonpath)`` runs ``python -m sat_claim_check ARGS`` with this
interpreter, ``PYTHONPATH`` set to ``pythonpath`` when given (the src of
another build), and returns its wall time in seconds; another exit status
than ``expect`` ends the benchmark with the end of the child's stderr.
With ``stdin`` (a file) it writes that file into the child's standard input
through a pipe, a piece at a time (no timeout then).  ``serve(args,
pythonpath)`` starts ``serve --port 0 ARGS`` the same way and returns the
process and its port; ``cpu_seconds(pid)`` is a process's CPU.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import threading
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
    stdin: Path | None = None,
    piece: int = 65536,
) -> float:
    """Wall seconds of ``python -m sat_claim_check ARGS`` (see the module);
    with ``stdin``, that file is written into the child's standard input
    through a pipe, ``piece`` bytes a write, as a solver would."""
    env = dict(os.environ)
    if pythonpath is not None:
        env["PYTHONPATH"] = pythonpath
    command = [sys.executable, "-m", "sat_claim_check", *args]
    start = time.perf_counter()
    child = subprocess.Popen(
        command,
        cwd=cwd,
        env=env,
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    if stdin is None:
        _, err = child.communicate(timeout=timeout)
    else:
        threading.Thread(target=_write, args=(child, stdin, piece), daemon=True).start()
        err = _drained(child)
    elapsed = time.perf_counter() - start
    if child.returncode != expect:
        raise SystemExit(f"exit {child.returncode}: {err.decode()[-300:]}")
    return elapsed


def _write(child: subprocess.Popen[bytes], path: Path, piece: int) -> None:
    """Write ``path`` into the child's stdin, ``piece`` bytes at a time, then close it."""
    assert child.stdin is not None
    try:
        with open(path, "rb") as fh:
            while data := fh.read(piece):
                child.stdin.write(data)
                child.stdin.flush()
        child.stdin.close()
    except BrokenPipeError:
        pass  # the child has ended (its exit status says how)


def _drained(child: subprocess.Popen[bytes]) -> bytes:
    """Read the child's stdout and stderr to their ends (stdin is another
    thread's); wait for it; its stderr."""
    assert child.stdout is not None and child.stderr is not None
    out = threading.Thread(target=child.stdout.read, daemon=True)
    out.start()
    err = child.stderr.read()
    out.join()
    child.wait()
    return err


def serve(args: Sequence[str], pythonpath: str | None) -> tuple[subprocess.Popen[bytes], int]:
    """``python -m sat_claim_check serve --port 0 ARGS`` started: (process, port)."""
    env = dict(os.environ)
    if pythonpath is not None:
        env["PYTHONPATH"] = pythonpath
    command = [sys.executable, "-m", "sat_claim_check", "serve", "--port", "0", *args]
    proc = subprocess.Popen(command, env=env, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL)
    assert proc.stderr is not None
    for line in proc.stderr:
        m = re.search(rb"running on http://127\.0\.0\.1:(\d+)", line)
        if m:
            threading.Thread(target=proc.stderr.read, daemon=True).start()
            return proc, int(m.group(1))
    raise RuntimeError("the server did not start")


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process so far (Linux /proc)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def builds(baseline: str | None) -> list[tuple[str, str | None]]:
    """(name, src) of this build and, when given, the baseline's src."""
    return [("this build", None)] + ([("baseline", baseline)] if baseline else [])


def row(label: str, times: Sequence[float]) -> str:
    """A table row: the label, then each build's seconds."""
    return label + " " + " ".join(f"{t:>10.2f} s" for t in times)


def header(label: str, names: Sequence[tuple[str, str | None]]) -> str:
    """The table's header over ``builds``' names."""
    return label + " " + " ".join(f"{name:>12}" for name, _ in names)


def parsed(
    ap: argparse.ArgumentParser, folder: str, cnf_text: bytes
) -> tuple[argparse.Namespace, Path, list[tuple[str, str | None]]]:
    """Add ``--dir`` (default ``folder``) and ``--baseline`` to ``ap``, parse
    the command line, write ``cnf_text`` to DIR/f.cnf: (args, that CNF, builds)."""
    ap.add_argument("--dir", type=Path, default=Path(folder))
    ap.add_argument("--baseline", help="the src directory of another build")
    args = ap.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    cnf = args.dir / "f.cnf"
    cnf.write_bytes(cnf_text)
    return args, cnf, builds(args.baseline)
