"""`verify --scheduler ADDRESS` and ``check_files(cluster=client)``: a proof
checked in segments by the tasks of a Dask cluster gives the bytes a check on
one core gives, a worker killed mid-check included (docs/semantics.md, "One
proof on every core").  One LocalCluster of two worker processes on
127.0.0.1 serves the module; skips without the dask extra.
"""

from __future__ import annotations

import io
import os
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import proofgen
import pytest
from _helpers import CLI, cli_text, dask_client
from test_segments import (
    LONG,
    READINGS,
    UNLIMITED,
    ctrl_c,
    files,
    long_proof,
    running,
    wait_for_workers,
)

import sat_claim_check as scc
from sat_claim_check._segments import local
from sat_claim_check._segments.front import WorkerFailed

distributed = pytest.importorskip("distributed", reason="the dask extra is not installed")
dask = pytest.importorskip("dask")


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    with dask_client() as client:
        yield client


@pytest.fixture
def short_segments(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(local, "SEGMENT_STEPS", 3)  # the tasks are told the length


def same(client: Any, cnf: str, proof: str, **kw: Any) -> scc.Outcome:
    one = scc.check_files(cnf, proof, **kw)
    many = scc.check_files(cnf, proof, cluster=client, **kw)
    assert (many.body, many.exit_code) == (one.body, one.exit_code), kw
    if one.report is not None:
        assert many.report is not None and many.report.hint == one.report.hint
    return one


@pytest.mark.usefixtures("short_segments")
def test_generated_proofs_give_the_bytes_of_one_core(client: Any, tmp_path: Path) -> None:
    verdicts = set()
    for request in proofgen.cases("segments-cluster", 12):
        cnf, proof = files(tmp_path, request)
        for reading in READINGS:
            outcome = same(client, cnf, proof, reading=reading)
            verdicts.add(outcome.report.result["reason"] if outcome.report else "rejected")
    assert len(verdicts) >= 3, verdicts


@pytest.mark.usefixtures("short_segments")
def test_limits_and_malformed_lines_come_in_stream_order(client: Any, tmp_path: Path) -> None:
    for request in proofgen.cases("segments-cluster-problems", 6):
        cnf, proof = files(tmp_path, request)
        steps = len(request["proof"])
        limits = scc.Limits(**{**UNLIMITED, "max_proof_steps": steps // 2})
        same(client, cnf, proof, reading="strict", limits=limits)
        lines = Path(proof).read_text().splitlines(keepends=True)
        lines.insert(len(lines) // 2, "1 x 0\n")
        Path(proof).write_text("".join(lines))
        same(client, cnf, proof, reading="drat-trim")


def test_a_killed_worker_costs_nothing(client: Any, tmp_path: Path) -> None:
    # Its task is run again on a worker the nanny starts: the same answer.
    cnf, proof = long_proof(tmp_path, **LONG)
    one = scc.check_files(cnf, proof, reading="strict")
    outcome: list[scc.Outcome] = []
    check = threading.Thread(
        target=lambda: outcome.append(scc.check_files(cnf, proof, reading="strict", cluster=client))
    )
    check.start()
    deadline = time.monotonic() + 30
    while not any(client.processing().values()) and time.monotonic() < deadline:
        time.sleep(0.02)
    busy = [address for address, tasks in client.processing().items() if tasks]
    assert busy, "no task started"
    os.kill(client.run(os.getpid)[busy[0]], signal.SIGKILL)
    check.join(120)
    assert not check.is_alive()
    assert (outcome[0].body, outcome[0].exit_code) == (one.body, one.exit_code)
    assert rerun(client) >= 1  # the kill met a task: it was run again
    client.wait_for_workers(2, timeout=60)


def test_a_proof_file_written_during_the_check_gives_no_verdict(
    client: Any, tmp_path: Path
) -> None:
    # Every task and this process read the file, each at its own time: a solver
    # still writing it could give them different proofs (an empty clause one
    # task saw and this process did not: a valid verdict for what this process
    # read).  Appended once the tasks run, it is an error, not a verdict.
    cnf, proof = long_proof(tmp_path, **LONG)
    failed: list[BaseException] = []

    def check() -> None:
        try:
            scc.check_files(cnf, proof, reading="strict", cluster=client)
        except WorkerFailed as err:
            failed.append(err)

    thread = threading.Thread(target=check)
    thread.start()
    deadline = time.monotonic() + 30
    while not any(client.processing().values()) and time.monotonic() < deadline:
        time.sleep(0.02)
    with open(proof, "a") as f:
        f.write("0\n")
    thread.join(120)
    assert not thread.is_alive()
    assert len(failed) == 1 and "proof file changed while it was checked" in str(failed[0])


def rerun(client: Any) -> int:
    """How many times the scheduler saw a segments task on a worker that died."""

    def count(dask_scheduler: Any) -> int:
        prefix = dask_scheduler.task_prefixes.get("sat-claim-check-segments")
        return 0 if prefix is None else int(prefix.suspicious)

    result: int = client.run_on_scheduler(count)
    return result


def test_the_cluster_reads_a_file_not_a_stream(client: Any, tmp_path: Path) -> None:
    cnf, _ = long_proof(tmp_path, repeats=3)
    with pytest.raises(ValueError, match="read by its workers"):
        scc.check_files(cnf, "-", cluster=client)


def test_a_proof_not_a_file_is_refused_before_the_cnf_is_read(client: Any, tmp_path: Path) -> None:
    absent = tmp_path / "absent.cnf"  # opened, it would be a rejected Outcome
    for proof in ("-", io.BytesIO(b"")):
        with pytest.raises(ValueError, match="read by its workers"):
            scc.check_files(absent, proof, cluster=client)
    # The lenient reading checks on one core, where a stream is a proof: the CNF is read.
    outcome = scc.check_files(absent, io.BytesIO(b""), cluster=client, reading="lenient")
    assert outcome.status == "rejected" and str(absent) in str(outcome.error)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_named_pipe_is_refused_before_anything_is_read(client: Any, tmp_path: Path) -> None:
    # Every worker reads the proof from its start, and a pipe gives its bytes
    # once: the check waited forever.  No writer here: nothing may open it.
    cnf, _ = long_proof(tmp_path, repeats=3)
    pipe = tmp_path / "proof.fifo"
    os.mkfifo(pipe)
    args = [*CLI, "verify", cnf, str(pipe), "--scheduler", "local:1"]
    out = subprocess.run(args, capture_output=True, timeout=60, check=False)
    assert (out.returncode, out.stdout) == (2, b"")
    assert b"not a regular file (a named pipe is read once)" in out.stderr
    with pytest.raises(ValueError, match="not a regular file"):
        scc.check_files(cnf, pipe, cluster=client)


def test_a_proof_the_workers_cannot_open_is_the_error_of_one_core(
    client: Any, tmp_path: Path
) -> None:
    # Its tasks failed, and the check said a worker was lost, with no error object.
    cnf, _ = long_proof(tmp_path, repeats=3)
    for proof in (tmp_path / "absent.drup", tmp_path):
        outcome = same(client, cnf, str(proof), reading="strict")
        assert outcome.status == "rejected" and str(proof) in outcome.error.message
    code, out, err = cli_text("verify", cnf, str(tmp_path), "--scheduler", "local:1")
    assert code == 2 and "cannot read" in out and err.startswith("sat-claim-check: cannot read")


def test_verify_scheduler_writes_one_cores_line(tmp_path: Path) -> None:
    cnf, proof = long_proof(tmp_path, repeats=3000)
    one = cli_text("verify", cnf, proof, "--reading", "strict")
    assert (
        cli_text("verify", cnf, proof, "--reading", "strict", "--scheduler", "local:2")[:2]
        == one[:2]
    )


def sigint_ignored(pid: int) -> bool:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("SigIgn:"):
            return bool(int(line.split()[1], 16) & (1 << (signal.SIGINT - 1)))
    raise AssertionError("no SigIgn line")


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs /proc")
def test_ctrl_c_on_a_local_cluster_is_one_line(tmp_path: Path) -> None:
    # Ctrl-C reaches the process group: each Dask worker printed a traceback.
    cnf, proof = long_proof(tmp_path, **LONG)
    with running(["verify", cnf, proof, "--scheduler", "local:2"]) as process:
        wait_for_workers(process, 2)  # the cluster is starting, SIGINT ignored
        deadline = time.monotonic() + 60
        while sigint_ignored(process.pid) and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(0.3)
        err = ctrl_c(process)
    assert process.returncode == 130, err
    assert err.decode().startswith("sat-claim-check: interrupted") and b"Traceback" not in err


def test_verify_scheduler_refuses_what_it_cannot_do(tmp_path: Path) -> None:
    cnf, proof = long_proof(tmp_path, repeats=3)
    code, out, err = cli_text("verify", cnf, "-", "--scheduler", "local:1", stdin=b"")
    assert (code, out) == (2, "") and "not - (standard input)" in err
    code, out, err = cli_text("verify", cnf, proof, "--scheduler", "local:1", "-j", "2")
    assert (code, out) == (2, "") and "--scheduler excludes --jobs" in err
    env = {**os.environ, "DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "1s"}
    code, out, err = cli_text("verify", cnf, proof, "--scheduler", "tcp://127.0.0.1:9", env=env)
    assert (code, out) == (2, "") and "cannot reach the scheduler" in err
