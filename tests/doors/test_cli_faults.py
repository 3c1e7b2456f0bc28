"""The command line's own faults: standard output or error closed or full, a
broken pipe, an unreadable input.  Never a traceback; documented exit codes;
write errors named as write errors.  Each case runs in a subprocess.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX descriptors and shells")

EXIT_BROKEN_PIPE = 141

VALID = {"cnf": {"num_vars": 1, "clauses": [[1], [-1]]}, "claim": "unsat", "proof": [{"add": []}]}


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    paths = {
        "request.json": json.dumps(VALID),
        "bad.json": "{",
        "lines.jsonl": "".join(json.dumps(VALID) + "\n" for _ in range(5)),
        "badlines.jsonl": json.dumps(VALID) + "\n{\n",
        "f.cnf": "p cnf 1 1\n1 0\n",
        "bad.cnf": "p cnf 1 1\n2 0\n",
        "model.txt": "v 1 0\n",
    }
    for name, text in paths.items():
        (tmp_path / name).write_text(text)
    return {name: str(tmp_path / name) for name in paths}


def commands(files: dict[str, str]) -> dict[str, list[str]]:
    """A run of each command that writes on standard output and exits 0."""
    return {
        "check": ["check", files["request.json"]],
        "request": ["request", "--cnf", files["f.cnf"], "--model", files["model.txt"]],
        "batch": ["batch", files["lines.jsonl"], "--jobs", "0"],
        "schema": ["schema", "input"],
    }


def rejected(files: dict[str, str]) -> dict[str, list[str]]:
    """A run of each command that has something to say on stderr."""
    return {
        "check": ["check", files["bad.json"]],
        "request": ["request", "--cnf", files["bad.cnf"], "--model", files["model.txt"]],
        "batch": ["batch", files["badlines.jsonl"], "--jobs", "0"],
        "schema": ["schema", "output"],
    }


REJECTED_CODE = {"check": 2, "request": 2, "batch": 2, "schema": 0}
NAMES = ["check", "request", "batch", "schema"]


def run(args: list[str], redirect: str = "", **kw: Any) -> subprocess.CompletedProcess[bytes]:
    """sat-claim-check ARGS, with a shell redirection such as '>&-' applied."""
    command = [sys.executable, "-m", "sat_claim_check", *args]
    if redirect:
        command = ["sh", "-c", f'exec "$@" {redirect}', "sh", *command]
    kw.setdefault("stdout", subprocess.PIPE)
    kw.setdefault("stderr", subprocess.PIPE)
    return subprocess.run(command, timeout=60, check=False, **kw)


def assert_clean(stderr: bytes) -> None:
    assert b"Traceback" not in stderr
    assert b"Exception ignored" not in stderr
    assert b"cannot read" not in stderr  # a write error is not a read error


@pytest.mark.parametrize("name", NAMES)
def test_closed_stdout_is_a_write_error(files, name):
    proc = run(commands(files)[name], ">&-")
    assert proc.returncode == 2, proc.stderr
    assert b"sat-claim-check: cannot write standard output: it is closed\n" in proc.stderr
    assert_clean(proc.stderr)


def test_closed_stdout_does_not_matter_with_an_output_file(files, tmp_path):
    out = tmp_path / "out.json"
    proc = run([*commands(files)["request"], "-o", str(out)], ">&-")
    assert (proc.returncode, proc.stderr) == (0, b"")
    assert json.loads(out.read_text())["claim"] == "sat"


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("name", NAMES)
def test_full_stdout_is_a_write_error(files, name):
    with open("/dev/full", "wb") as full:
        proc = run(commands(files)[name], stdout=full)
    assert proc.returncode == 2, proc.stderr
    assert b"cannot write standard output: No space left on device\n" in proc.stderr
    assert_clean(proc.stderr)


@pytest.mark.parametrize("name", NAMES)
def test_a_pipe_nobody_reads_is_exit_141_and_silent(files, name):
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader has gone before the first write
    try:
        proc = run(commands(files)[name], stdout=write_end)
    finally:
        os.close(write_end)
    assert (proc.returncode, proc.stderr) == (EXIT_BROKEN_PIPE, b"")


def test_batch_into_head_stops_at_once(tmp_path):
    """`batch big.jsonl | head -1`: the batch stops when head has its line."""
    big = tmp_path / "big.jsonl"
    big.write_text((json.dumps(VALID) + "\n") * 20000)
    proc = subprocess.Popen(
        [sys.executable, "-m", "sat_claim_check", "batch", str(big), "--jobs", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    assert json.loads(proc.stdout.readline())["valid"] is True
    proc.stdout.close()
    err = proc.stderr.read()
    proc.stderr.close()
    assert proc.wait(timeout=60) == EXIT_BROKEN_PIPE
    assert err == b""


@pytest.mark.parametrize("redirect", ["2>&-", "2>/dev/full"])
@pytest.mark.parametrize("name", NAMES)
def test_stderr_closed_or_full_changes_no_exit_code(files, name, redirect):
    if "full" in redirect and not os.path.exists("/dev/full"):
        pytest.skip("needs /dev/full")
    good = run(commands(files)[name], redirect)
    assert good.returncode == 0
    assert good.stdout
    bad = run(rejected(files)[name], redirect)
    assert bad.returncode == REJECTED_CODE[name]
    if name in ("check", "batch"):  # the error object is on stdout all the same
        assert b'"error":"invalid_input"' in bad.stdout


@pytest.mark.parametrize("args", [["check"], ["batch"]])
def test_closed_stdin_is_a_read_error(args):
    proc = run(args, "<&-")
    assert proc.returncode == 2
    assert b"standard input" in proc.stdout + proc.stderr
    assert b"Traceback" not in proc.stderr


PROC_MEM = "/proc/self/mem"
needs_proc_mem = pytest.mark.skipif(not os.path.exists(PROC_MEM), reason="needs /proc/self/mem")


@needs_proc_mem
def test_check_of_an_unreadable_file(files):
    proc = run(["check", PROC_MEM])
    assert proc.returncode == 2
    error = json.loads(proc.stdout)
    assert (error["error"], error["field"], error["path"]) == ("invalid_input", None, "")
    assert f"cannot read '{PROC_MEM}'" in error["message"]
    assert b"Traceback" not in proc.stderr


@needs_proc_mem
@pytest.mark.parametrize(
    "args",
    [
        ["batch", PROC_MEM],
        ["batch", PROC_MEM, "--jobs", "0"],
        ["request", "--cnf", PROC_MEM, "--model", "MODEL"],
        ["request", "--cnf", "CNF", "--proof", PROC_MEM, "--check"],
        ["verify", "CNF", PROC_MEM],
    ],
)
def test_an_unreadable_file_is_a_read_error(files, args):
    args = [{"MODEL": files["model.txt"], "CNF": files["f.cnf"]}.get(a, a) for a in args]
    proc = run(args)
    assert proc.returncode == 2
    if "batch" in args or ("--check" not in args and "verify" not in args):
        assert proc.stdout == b""
    else:  # a door that checks files writes the error object, as `check` does
        error = json.loads(proc.stdout)
        assert (error["error"], error["field"], error["path"]) == ("invalid_input", None, "")
    assert proc.stderr.startswith(b"sat-claim-check: cannot read ")
    assert f"'{PROC_MEM}'".encode() in proc.stderr.splitlines()[0]
    assert b"cannot write" not in proc.stderr and b"Traceback" not in proc.stderr
