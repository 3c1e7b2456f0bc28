"""Helpers the test files share: the command line as a subprocess, what a caller
observes of a run, and the shared corpus.

Expected values never come from here: these only run things and look things up.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import sat_claim_check as scc
from sat_claim_check import _engines as _engine
from sat_claim_check._engines import convert_py

REPO = Path(__file__).resolve().parents[1]

# -- the command line ------------------------------------------------------------------

CLI = [sys.executable, "-m", "sat_claim_check"]


def cli(
    *args: str,
    stdin: bytes = b"",
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    merge_stderr: bool = False,
) -> subprocess.CompletedProcess[bytes]:
    """``python -m sat_claim_check ARGS`` with ``stdin`` as its input, output captured.

    The command runs with this process's environment, SAT_CLAIM_CHECK_NO_EXTENSIONS
    included: in a suite run with it set (``.ci/run`` runs one), every command
    uses the pure twins, and the tests that ask for ``--engine compiled`` are
    marked ``compiled`` (deselected there by ``--no-compiled``).  ``env`` adds
    to it.  With ``merge_stderr`` both streams go to ``stdout`` in the order
    written, as a terminal shows them (the command flushes every line).
    """
    environment = dict(os.environ)
    environment.update(env or {})
    return subprocess.run(
        [*CLI, *args],
        input=stdin,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT if merge_stderr else subprocess.PIPE,
        env=environment,
        cwd=cwd,
        timeout=120,
        check=False,
    )


def cli_text(
    *args: str, stdin: bytes = b"", env: Mapping[str, str] | None = None, cwd: Path | None = None
) -> tuple[int, str, str]:
    """``cli()`` as (exit code, standard output, standard error), decoded from UTF-8."""
    out = cli(*args, stdin=stdin, env=env, cwd=cwd)
    return out.returncode, out.stdout.decode(), out.stderr.decode()


# -- what a caller observes ----------------------------------------------------------------

Outcome = tuple[Any, ...]


def observe(run: Callable[[], scc.Report]) -> Outcome:
    """Everything a caller can observe of ``run()``: the report's fields, or the error."""
    try:
        report = run()
    except scc.CheckError as err:
        return ("error", type(err).__name__, err.to_dict())
    return ("report", report.result, report.work, report.reason_deletions)


def outcome(request: Any, engine: str, limits: scc.Limits | None = None) -> Outcome:
    """``observe()`` of ``run(request, engine=engine, limits=limits)``."""
    return observe(lambda: scc.run(request, engine=engine, limits=limits))


# The request converter with no fast path at all: validation is the plain Python walk.
WALK_ONLY = SimpleNamespace(
    flatten=lambda *args: None,
    flatten_steps=lambda *args: None,
    mark_out_of_range=convert_py.mark_out_of_range,
)


def outcome_walk(
    request: Any, monkeypatch: pytest.MonkeyPatch, limits: scc.Limits | None = None
) -> Outcome:
    """The reference engine's outcome with validation forced onto the Python walk."""
    with monkeypatch.context() as patch:
        patch.setitem(_engine._chosen, "converter", WALK_ONLY)
        return outcome(request, "reference", limits)


def agree(
    request: Any, engine: str, monkeypatch: pytest.MonkeyPatch, limits: scc.Limits | None = None
) -> Outcome:
    """The outcome, once ``engine`` and the Python walk are shown to give the reference's."""
    reference = outcome(request, "reference", limits)
    assert outcome(request, engine, limits) == reference
    assert outcome_walk(request, monkeypatch, limits) == reference
    return reference


# -- the shared corpus ---------------------------------------------------------------------

CORPUS_ABSENT = "the shared corpus is absent (set SAT_CLAIM_CHECK_CORPUS)"


def corpus_dir() -> Path | None:
    """The shared corpus of real solver outputs, or None when it is absent.

    SAT_CLAIM_CHECK_CORPUS names it; by default it is ``shared/corpus`` beside
    the checkout.
    """
    path = Path(os.environ.get("SAT_CLAIM_CHECK_CORPUS", REPO.parent / "shared" / "corpus"))
    return path if (path / "index.json").is_file() else None


def corpus_instances(corpus: Path) -> list[dict[str, Any]]:
    """The instances of ``index.json``, in its order."""
    index = json.loads((corpus / "index.json").read_text(encoding="utf-8"))
    instances: list[dict[str, Any]] = index["instances"]
    return instances


def corpus_expected(corpus: Path) -> dict[str, dict[str, Any]]:
    """The rows of ``expected.jsonl`` by instance name, in file order."""
    with open(corpus / "expected.jsonl", encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    return {row["name"]: row for row in rows}


# -- signatures --------------------------------------------------------------------


def parameter_names(obj: Any) -> list[str]:
    """The parameter names of a function or class; for a compiled class, whose
    signature inspect cannot read, from the one Cython writes at the head of its
    docstring ("Kernel(num_vars, ..., lenient=False)")."""
    import inspect

    try:
        return list(inspect.signature(obj).parameters)
    except ValueError:
        head = (obj.__doc__ or "").split("\n", 1)[0]
        assert isinstance(obj, type) and head.startswith(obj.__name__ + "("), head
        inside = head[len(obj.__name__) + 1 : head.rindex(")")]
        return [p.split("=")[0].strip() for p in inside.split(",") if p.strip()]


# -- a real solver ---------------------------------------------------------------------


def find_cadical() -> str | None:
    """The path of a CaDiCaL binary: on the PATH, or else installed from Debian's
    ``cadical`` package where this machine allows it (root, apt-get, a package
    index it can reach; SAT_CLAIM_CHECK_NO_INSTALL=1 forbids it); None otherwise."""
    import shutil

    found = shutil.which("cadical")
    if found or os.environ.get("SAT_CLAIM_CHECK_NO_INSTALL") == "1":
        return found
    if shutil.which("apt-get") is None or not hasattr(os, "geteuid") or os.geteuid() != 0:
        return None
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "check": False}
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    try:
        for command in (
            ["apt-get", "install", "-y", "-q", "cadical"],
            ["apt-get", "update", "-q"],
            ["apt-get", "install", "-y", "-q", "cadical"],
        ):
            subprocess.run(command, timeout=300, env=env, **quiet)  # type: ignore[call-overload]
            if shutil.which("cadical"):
                break
    except (OSError, subprocess.SubprocessError):
        return None
    return shutil.which("cadical")


# -- batch workers ---------------------------------------------------------------------


def kill_workers_on(monkeypatch: pytest.MonkeyPatch, marker: bytes) -> None:
    """A batch worker that checks a line holding ``marker`` kills itself (the
    workers are forked, so that they see the patch)."""
    import multiprocessing
    import signal

    from sat_claim_check._batch import local as _batch
    from sat_claim_check._batch import protocol as _protocol

    real = _protocol.check_line

    def check_line(options: Any, number: int, text: bytes, memory: Any = None) -> Any:
        if marker in text:
            os.kill(os.getpid(), signal.SIGKILL)
        return real(options, number, text, memory)

    monkeypatch.setattr(_protocol, "check_line", check_line)
    monkeypatch.setattr(_batch, "_context", lambda: multiprocessing.get_context("fork"))


def spy_on_tasks(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The lines (bytes, a refusal's str, or a Span) of every task the batch
    gives a worker, as it gives them."""
    from sat_claim_check._batch import local as _batch

    given_lines: list[Any] = []
    real = _batch._Worker.give

    def give(self: Any, task: Any) -> bool:
        given_lines.extend(line for _, line in task.lines)
        return real(self, task)

    monkeypatch.setattr(_batch._Worker, "give", give)
    return given_lines


# -- a Dask cluster --------------------------------------------------------------------


@contextlib.contextmanager
def dask_client(**config: Any) -> Iterator[Any]:
    """A client of a LocalCluster of two single-threaded worker processes on
    127.0.0.1, made under the Dask ``config`` given (dotted keys); closed after.
    Needs the dask extra (callers skip without it)."""
    import dask
    import distributed

    with dask.config.set(config):
        cluster = distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=":0",
            silence_logs=logging.CRITICAL,
        )
    client = distributed.Client(cluster)
    try:
        client.wait_for_workers(2)
        yield client
    finally:
        client.close()
        cluster.close()
