"""Batches on a real Dask cluster: `batch --scheduler` and sat_claim_check.dask.

One LocalCluster (a scheduler and two worker processes on 127.0.0.1) serves
the module. Every batch is compared byte for byte with `batch --jobs 1`,
including one whose worker is SIGKILLed halfway and one with a line that
kills every worker that checks it. Skips without the dask extra.
"""

from __future__ import annotations

import io
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _helpers import CLI, REPO, cli, dask_client

distributed = pytest.importorskip("distributed", reason="the dask extra is not installed")
dask = pytest.importorskip("dask")
db = pytest.importorskip("dask.bag")

from distributed.diagnostics.plugin import WorkerPlugin  # noqa: E402

from sat_claim_check import dask as scc_dask  # noqa: E402
from sat_claim_check._batch import cluster as _cluster  # noqa: E402
from sat_claim_check._batch import local as _batch  # noqa: E402
from sat_claim_check._batch import protocol as _protocol  # noqa: E402
from sat_claim_check._batch.console import BatchProgress  # noqa: E402
from sat_claim_check._batch.manifest import Manifest  # noqa: E402
from sat_claim_check._batch.protocol import FAILED  # noqa: E402

EXAMPLES = REPO / "examples"
MARK = 77777  # a request with this many variables kills its worker (KillOnMark)


def sat(n: int) -> dict[str, Any]:
    """A sat request whose result names n (clauses_checked or the failing clause)."""
    clauses = [[1]] * n + ([[-1]] if n % 5 == 0 else [])
    return {"cnf": {"num_vars": 1, "clauses": clauses}, "claim": "sat", "assignment": [1]}


def slow(pairs: int) -> dict[str, Any]:
    """An unsat request whose every second step propagates a 4000-literal chain
    (about 5 ms a pair with the reference engine)."""
    n = 4000
    clauses = [[-i, i + 1] for i in range(1, n)] + [[-n, -1]]
    return {
        "cnf": {"num_vars": n, "clauses": clauses},
        "claim": "unsat",
        "proof": [{"add": [-1]}, {"delete": [-1]}] * pairs,
    }


def mixed(count: int) -> list[bytes]:
    """Valid, not valid, malformed and over-limit lines, envelopes, and slow lines."""
    lines: list[bytes] = []
    for n in range(1, count + 1):
        kind = n % 10
        if kind == 0:
            value: Any = slow(30)
        elif kind == 1:
            value = {"id": f"r{n}", "request": sat(n)}
        elif kind == 2:
            lines.append(b"not json" if n % 20 else b"")
            continue
        elif kind == 3:
            value = {"cnf": {"num_vars": 10**9, "clauses": []}, "claim": "sat", "assignment": []}
        elif kind == 4:
            value = {
                "id": n,
                "request": {
                    "cnf": {"num_vars": 2, "clauses": [[1, 2]]},
                    "claim": "unsat",
                    "proof": [{"add": [1]}],
                },
            }
        elif kind == 5:
            value = {"id": 1.5, "request": sat(n)}
        elif kind == 6:
            value = {"id": n, "request": sat(n), "more": 1}
        else:
            value = sat(n)
        lines.append(json.dumps(value).encode())
    return lines


def data(lines: list[bytes]) -> bytes:
    return b"".join(line + b"\n" for line in lines)


def jobs_1(lines: list[bytes], manifest: str | None = None) -> str:
    """What `batch --jobs 1` writes for the lines."""
    return jobs_1_outcome(lines, manifest)[0]


def jobs_1_outcome(lines: list[bytes], manifest: str | None = None) -> tuple[str, list[int]]:
    """What `batch --jobs 1` writes for the lines, and its counts."""
    stream = io.BytesIO(data(lines))
    out = io.StringIO()
    outcome = _batch.run_batch(
        stream,
        out,
        engine="reference",
        limits=None,
        jobs=1,
        progress=BatchProgress(stream, 0),
        manifest=None if manifest is None else Manifest(manifest),
    )
    return out.getvalue(), outcome.counts


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    """A client of a LocalCluster of two single-threaded worker processes; a task
    whose worker dies twice is given up (KilledWorker), as with `local:N`."""
    with dask_client(**{"distributed.scheduler.allowed-failures": 1}) as client:
        yield client


def worker_pids(client: Any) -> dict[str, int]:
    pids: dict[str, int] = client.run(os.getpid)
    return pids


def suspicious(client: Any) -> int:
    """How many times the scheduler saw a check_lines task on a worker that died."""

    def count(dask_scheduler: Any) -> int:
        prefix = dask_scheduler.task_prefixes.get("check_lines")
        return 0 if prefix is None else int(prefix.suspicious)

    result: int = client.run_on_scheduler(count)
    return result


class Killing:
    """The lines as a stream that, when line ``at`` is read, SIGKILLs a worker
    that is checking a chunk."""

    def __init__(self, lines: list[bytes], at: int, client: Any) -> None:
        self.lines = lines
        self.at = at
        self.client = client
        self.killed: int | None = None

    def __iter__(self) -> Iterator[bytes]:
        for number, line in enumerate(self.lines, 1):
            if number == self.at:
                self.kill()
            yield line + b"\n"

    def kill(self) -> None:
        """Kill a worker that has held the same task for 20 ms: it is checking it."""
        pids = worker_pids(self.client)
        deadline = time.monotonic() + 10
        before: dict[str, set[Any]] = {}
        while time.monotonic() < deadline:
            now = {address: set(keys) for address, keys in self.client.processing().items()}
            busy = [address for address, keys in now.items() if keys & before.get(address, set())]
            if busy:
                self.killed = pids[busy[0]]
                os.kill(self.killed, signal.SIGKILL)
                return
            before = now
            time.sleep(0.02)


def test_a_batch_answers_as_jobs_1_with_a_worker_killed_halfway(client: Any) -> None:
    lines = mixed(120)
    lines[36:66] = [json.dumps(slow(10)).encode()] * 30  # in flight when line 60 is read
    before, deaths = worker_pids(client), suspicious(client)
    stream = Killing(lines, 60, client)
    out = io.StringIO()
    outcome = scc_dask.run_batch(
        stream,
        out,
        client=client,  # type: ignore[arg-type]
        engine="reference",
        chunk_lines=6,
    )
    text, counts = jobs_1_outcome(lines)
    assert out.getvalue() == text and outcome.counts == counts
    assert stream.killed in before.values()
    assert suspicious(client) > deaths  # its task was run again elsewhere
    assert (outcome.signal, outcome.lost, outcome.read_error) == (None, None, None)


class KillOnMark(WorkerPlugin):  # type: ignore[misc]
    """Workers SIGKILL themselves when they check a request of MARK variables."""

    name = "kill-on-mark"

    def setup(self, worker: Any) -> None:
        self.saved = _protocol.validate

        def validate(request: Any, *args: Any) -> Any:
            cnf = request.get("cnf") if isinstance(request, dict) else None
            if isinstance(cnf, dict) and cnf.get("num_vars") == MARK:
                os.kill(os.getpid(), signal.SIGKILL)
            return self.saved(request, *args)

        _protocol.validate = validate

    def teardown(self, worker: Any) -> None:
        _protocol.validate = self.saved


def test_a_line_that_kills_every_worker_gets_check_failed(client: Any) -> None:
    lines = mixed(40)
    killer = {
        "id": "killer",
        "request": {"cnf": {"num_vars": MARK, "clauses": [[1]]}, "claim": "sat", "assignment": [1]},
    }
    lines[17] = json.dumps(killer).encode()
    client.register_plugin(KillOnMark())
    try:
        out = io.StringIO()
        outcome = scc_dask.run_batch(
            io.BytesIO(data(lines)), out, client=client, engine="reference", chunk_lines=8
        )
    finally:
        client.unregister_worker_plugin(KillOnMark.name)
    assert outcome.lost is None
    got = out.getvalue().splitlines()
    want = jobs_1(lines).splitlines()
    assert got[:17] + got[18:] == want[:17] + want[18:]
    failed = json.loads(got[17])
    assert list(failed) == ["id", "error", "field", "path", "message", "line"]
    assert (failed["id"], failed["error"], failed["line"]) == ("killer", "check_failed", 18)
    assert "died 2 times" in failed["message"] and "KilledWorker" in failed["message"]
    assert outcome.counts[FAILED] == 1


def test_the_command_line_on_a_scheduler_gives_the_bytes_of_jobs_1(
    client: Any, tmp_path: Path
) -> None:
    path = tmp_path / "in.jsonl"
    path.write_bytes(data(mixed(60)))
    address = client.scheduler.address
    here = cli("batch", str(path), "--jobs", "1")
    there = cli("batch", str(path), "--scheduler", address)
    assert here.returncode == there.returncode == 2
    assert there.stdout == here.stdout
    summary = here.stderr.decode().split(" (")[0]
    assert there.stderr.decode().split(" (")[0] == summary, there.stderr


def test_a_line_over_max_input_bytes_is_rejected_unread_as_with_jobs_1(
    client: Any, tmp_path: Path
) -> None:
    # The cluster's reader had no cap: it read the line whole, sent it to a
    # worker and answered with another error (a 96 MB line: 1.5 GB, 10 s).
    lines = mixed(12)
    long = json.dumps(sat(30_000)).encode()
    lines.insert(5, long)
    assert sorted(map(len, lines))[-2] < len(long)
    path = tmp_path / "in.jsonl"
    path.write_bytes(data(lines))
    cap = ["--max-input-bytes", str(len(long) - 1)]
    here = cli("batch", str(path), "--jobs", "1", *cap)
    there = cli("batch", str(path), "--scheduler", client.scheduler.address, *cap)
    assert b'"line":6' in here.stdout and b"longer than" in here.stdout
    assert (there.returncode, there.stdout) == (here.returncode, here.stdout)
    assert there.stderr.decode().split(" (")[0] == here.stderr.decode().split(" (")[0]


def test_a_manifest_on_a_local_cluster_gives_the_bytes_of_jobs_1(tmp_path: Path) -> None:
    (tmp_path / "php5.cnf").write_bytes((EXAMPLES / "php5.cnf").read_bytes())
    (tmp_path / "php5.drup").write_bytes((EXAMPLES / "php5.drup").read_bytes())
    (tmp_path / "tiny.cnf").write_text("p cnf 2 2\n1 0\n-2 0\n")
    (tmp_path / "tiny.model").write_text("v 1 2 0\n")
    entries: list[Any] = [
        {"id": "php5", "cnf": "php5.cnf", "proof": "php5.drup"},
        {"id": 2, "cnf": "tiny.cnf", "model": "tiny.model"},
        {"id": "gone", "cnf": "tiny.cnf", "proof": "missing.drup"},
        {"id": "bad", "cnf": "php5.drup", "proof": "php5.drup"},
        {"cnf": "tiny.cnf"},
    ] * 5
    manifest = tmp_path / "list.jsonl"
    manifest.write_bytes(data([json.dumps(e).encode() for e in entries]))
    here = cli("batch", "--manifest", str(manifest))
    there = cli("batch", "--manifest", str(manifest), "--scheduler", "local:2", cwd=tmp_path.parent)
    assert here.returncode == there.returncode == 2
    assert there.stdout == here.stdout and b'"php5","valid":true' in there.stdout
    assert b"Traceback" not in there.stderr


def test_the_python_api_checks_a_manifest_on_the_cluster(client: Any, tmp_path: Path) -> None:
    (tmp_path / "tiny.cnf").write_text("p cnf 2 2\n1 0\n-2 0\n")
    (tmp_path / "tiny.model").write_text("v 1 -2 0\n")
    lines = [
        b'{"id": "t", "cnf": "tiny.cnf", "model": "tiny.model"}',
        b'{"id": "u", "cnf": "tiny.cnf", "proof": "nope"}',
    ]
    out = io.StringIO()
    outcome = scc_dask.run_batch(
        io.BytesIO(data(lines)), out, client=client, manifest=str(tmp_path)
    )
    assert out.getvalue() == jobs_1(lines, str(tmp_path))
    assert outcome.counts == [1, 0, 1, 0]


def test_a_bag_of_lines_and_requests_gives_the_lines_of_jobs_1(client: Any) -> None:
    lines = mixed(45)
    want = jobs_1(lines).splitlines()
    elements: list[Any] = [line.decode() + "\n" for line in lines]
    elements[3] = json.loads(lines[3])  # a dict: checked as its JSON text
    elements[10] = lines[10]  # bytes
    bag = db.from_sequence(elements, npartitions=4)
    assert scc_dask.check_bag(bag, engine="reference").compute() == want
    pairs = scc_dask.check_bag(bag, kinds=True).compute()
    assert [text for _, text in pairs] == want
    kinds = {"valid": 0, "not_valid": 0, "rejected": 0, "failed": 0}
    for kind, _ in pairs:
        kinds[kind] += 1
    assert kinds["failed"] == 0 and kinds["rejected"] == sum('"error"' in t for t in want)


def test_a_bag_element_that_is_not_json_is_rejected(client: Any) -> None:
    bag = db.from_sequence([{"cnf": {1, 2}}, "{}"], npartitions=1)
    first, second = scc_dask.check_bag(bag).compute()
    error = json.loads(first)
    assert (error["error"], error["field"], error["line"]) == ("invalid_input", None, 1)
    assert json.loads(second)["line"] == 2


def test_workers_of_another_version_are_refused(
    client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # This process's version, as the check of the workers reads it.
    monkeypatch.setattr(_cluster, "__version__", "0.0.0")
    out = io.StringIO()
    with pytest.raises(scc_dask.ClusterError, match=r"runs sat-claim-check .* this batch 0\.0\.0"):
        scc_dask.run_batch(io.BytesIO(data(mixed(3))), out, client=client)
    assert out.getvalue() == ""


def test_sigint_writes_the_lines_checked_then_exits_130(client: Any, tmp_path: Path) -> None:
    chunk = scc_dask.CHUNK_LINES
    lines = [json.dumps(sat(n)).encode() for n in range(1, chunk + 1)]
    lines += [json.dumps(slow(40)).encode()] * 10  # a second of work: still running
    path = tmp_path / "in.jsonl"
    path.write_bytes(data(lines))
    env = {k: v for k, v in os.environ.items() if k != "SAT_CLAIM_CHECK_NO_EXTENSIONS"}
    with subprocess.Popen(
        [
            *CLI,
            "batch",
            str(path),
            "--engine",
            "reference",
            "--scheduler",
            client.scheduler.address,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    ) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        first = proc.stdout.readline()  # the first chunk is written
        proc.send_signal(signal.SIGINT)
        got = (first + proc.stdout.read()).decode().splitlines()
        err = proc.stderr.read().decode()
        assert proc.wait(timeout=60) == 130, err
    assert got == jobs_1(lines[:chunk]).splitlines()
    assert f"stopped by SIGINT after {chunk} lines" in err and "Traceback" not in err


@pytest.mark.parametrize(
    "args, words",
    [
        (["--scheduler", "local:0"], "local:N needs a number of workers"),
        (["--scheduler", "local:2", "--jobs", "2"], "--scheduler excludes --jobs"),
        (["--scheduler", "local:2", "--worker-memory", "100"], "--scheduler excludes"),
        (["--scheduler", "tcp://127.0.0.1:9"], "cannot reach the scheduler at tcp://127.0.0.1:9"),
    ],
)
def test_a_scheduler_that_cannot_be_used_is_a_line_on_stderr(args: list[str], words: str) -> None:
    out = cli(
        "batch", *args, stdin=b"{}\n", env={"DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "1s"}
    )
    assert out.returncode == 2 and out.stdout == b""
    assert words in out.stderr.decode() and b"Traceback" not in out.stderr


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def test_a_scheduler_lost_mid_batch_keeps_the_lines_written(tmp_path: Path) -> None:
    """`dask scheduler` and `dask worker` as their own processes; the scheduler is
    SIGKILLed once the batch is under way."""
    address = f"tcp://127.0.0.1:{free_port()}"
    dask_cli = [sys.executable, "-m", "dask"]
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    lines = [json.dumps(sat(n)).encode() for n in range(1, scc_dask.CHUNK_LINES + 1)]
    lines += [json.dumps(slow(20)).encode()] * 60
    path = tmp_path / "in.jsonl"
    path.write_bytes(data(lines))
    with (
        subprocess.Popen(
            [
                *dask_cli,
                "scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                address.rsplit(":", 1)[1],
                "--no-dashboard",
            ],
            **quiet,
        ) as scheduler,
        subprocess.Popen(
            [*dask_cli, "worker", address, "--nthreads", "1", "--no-nanny", "--no-dashboard"],
            **quiet,
        ) as worker,
    ):
        try:
            with subprocess.Popen(
                [*CLI, "batch", str(path), "--engine", "reference", "--scheduler", address],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            ) as batch:
                assert batch.stdout is not None and batch.stderr is not None
                first = batch.stdout.readline()  # the first chunk is written
                os.kill(scheduler.pid, signal.SIGKILL)
                got = (first + batch.stdout.read()).decode().splitlines()
                err = batch.stderr.read().decode()
                assert batch.wait(timeout=60) == 2, err
        finally:
            worker.kill()  # no nanny: one process, with no child
            scheduler.kill()
    assert scc_dask.CHUNK_LINES <= len(got) < len(lines)
    assert got == jobs_1(lines[: len(got)]).splitlines()
    assert "the scheduler lost the task" in err and f"stopped after {len(got)} lines" in err
    assert "Traceback" not in err


# -- arguments are the caller's to get right ---------------------------------------

BAD_ARGUMENTS = [
    ({"engine": "nope"}, ValueError, "engine must be one of"),
    ({"limits": 5}, TypeError, "limits must be"),
    ({"limits": {"max_vars": 1}}, TypeError, "limits must be"),
    ({"deletions": "loose"}, ValueError, "'strict' or 'lenient'"),
    ({"manifest": 5}, TypeError, "manifest must be a directory"),
    ({"manifest_root": "."}, ValueError, "manifest_root needs manifest"),
    ({"manifest": ".", "manifest_root": "/nonexistent"}, ValueError, "is not a directory"),
]


@pytest.mark.parametrize("kwargs, error, words", BAD_ARGUMENTS)
def test_check_bag_refuses_bad_arguments_up_front(kwargs: Any, error: Any, words: str) -> None:
    # Before, engine="nope" or limits=5 turned every line into check_failed,
    # "a bug in sat-claim-check".
    bag = db.from_sequence([json.dumps(sat(1))])
    with pytest.raises(error, match=words):
        scc_dask.check_bag(bag, **kwargs)


def test_check_bag_takes_a_bag() -> None:
    with pytest.raises(TypeError, match=r"takes a dask\.bag\.Bag, got list"):
        scc_dask.check_bag([json.dumps(sat(1))])
    with pytest.raises(TypeError, match="kinds must be True or False"):
        scc_dask.check_bag(db.from_sequence(["{}"]), kinds="yes")


@pytest.mark.parametrize("kwargs, error, words", BAD_ARGUMENTS)
def test_run_batch_refuses_bad_arguments_before_the_cluster(
    kwargs: Any, error: Any, words: str
) -> None:
    with pytest.raises(error, match=words):  # the client is never used
        scc_dask.run_batch(io.BytesIO(b"{}\n"), io.StringIO(), client=None, **kwargs)
