"""`batch --jobs N` on an input file: the workers read their lines from the file.

The batch process scans the file for line ends and sends each worker the
Spans of its lines (offset, length); the worker reads them itself.  The output
is byte for byte that of the lines read and sent (a stream, ``--jobs 1``).
"""

from __future__ import annotations

import io
import json
import multiprocessing
import os
from pathlib import Path
from typing import Any

import pytest
from _helpers import kill_workers_on, spy_on_tasks
from hypothesis import given, settings
from hypothesis import strategies as st

from sat_claim_check._batch import lines as _lines
from sat_claim_check._batch import local as _batch
from sat_claim_check._batch import protocol as _protocol
from sat_claim_check._batch.console import BatchProgress
from sat_claim_check._batch.lines import Span, numbered_lines, numbered_spans, read_span
from sat_claim_check._batch.output import BatchTotals
from sat_claim_check._batch.protocol import FAILED
from sat_claim_check._batch.sizing import available_cpus
from sat_claim_check._core.options import Options

needs_workers = pytest.mark.skipif(available_cpus() < 2, reason="--jobs 2 needs two CPUs")
needs_fork = pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods(),
    reason="the fault injection reaches workers by fork",
)

SAT = {"cnf": {"num_vars": 2, "clauses": [[1, 2], [-1]]}, "claim": "sat", "assignment": [-1, 2]}
NOT_SAT = {"cnf": {"num_vars": 1, "clauses": [[1]]}, "claim": "sat", "assignment": [-1]}
UNSAT = {"cnf": {"num_vars": 1, "clauses": [[1], [-1]]}, "claim": "unsat", "proof": [{"add": []}]}


CAP = 8192  # max_line_bytes in these tests


def mixed_lines() -> list[bytes]:
    """Requests valid and not, envelopes, malformed and blank lines, a CR;
    every third line padded past _SPAN_MIN_BYTES (sent as a Span)."""
    lines = []
    for n in range(70):
        request = (SAT, NOT_SAT, UNSAT)[n % 3]
        text = json.dumps({"id": n, "request": request} if n % 4 == 0 else request).encode()
        if n % 11 == 5:
            text = b"{not json"
        elif n % 13 == 7:
            text = b""
        elif n % 17 == 3:
            text += b"\r"
        if n % 3 == 1:
            text += b" " * _lines._SPAN_MIN_BYTES
        lines.append(text)
    lines.append(b"x" * (CAP + 1))  # over the cap
    lines.append(json.dumps(SAT).encode())
    return lines


def batch(stream: Any, jobs: int, **options: Any) -> tuple[BatchTotals, str]:
    out = io.StringIO()
    outcome = _batch.run_batch(
        stream,
        out,
        engine="auto",
        limits=None,
        jobs=jobs,
        progress=BatchProgress(stream, 0),
        **options,
    )
    assert multiprocessing.active_children() == []
    return outcome, out.getvalue()


# -- the scan ------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(
    data=st.lists(st.sampled_from([b"a", b"\n", b"\r", b" ", b"{}"]), max_size=80).map(b"".join),
    start=st.integers(0, 10),
    max_bytes=st.one_of(st.none(), st.integers(0, 12)),
    block=st.integers(1, 9),
    short=st.integers(0, 6),
)
def test_the_spans_of_a_file_are_its_lines(
    tmp_path_factory: Any, data: bytes, start: int, max_bytes: int | None, block: int, short: int
) -> None:
    start = min(start, len(data))
    path = tmp_path_factory.mktemp("spans") / "input"
    path.write_bytes(data)
    want = list(numbered_lines(io.BytesIO(data[start:]), max_bytes))
    fd = os.open(path, os.O_RDONLY)
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(_lines, "_SPAN_READ_BYTES", block)  # line ends across blocks
            patch.setattr(_lines, "_SPAN_MIN_BYTES", short)  # bytes below, Spans above
            scan = numbered_spans(fd, start, max_bytes)
            got = [
                (number, read_span(fd, line) if isinstance(line, Span) else line)
                for number, line in scan
            ]
    finally:
        os.close(fd)
    assert got == want
    assert scan.position == len(data)  # read to its end


def test_a_line_with_no_end_within_the_skip_stops_the_spans(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_lines, "skip_bytes", lambda max_bytes: 4 * max_bytes)
    monkeypatch.setattr(_lines, "_SPAN_READ_BYTES", 16)
    path = tmp_path / "input"
    path.write_bytes(b"ok\n" + b"y" * 100 + b"\nnever read\n")
    fd = os.open(path, os.O_RDONLY)
    try:
        got = list(numbered_spans(fd, 0, 10))
    finally:
        os.close(fd)
    assert got[0] == (1, b"ok")
    assert len(got) == 2 and got[1][0] == 2
    assert isinstance(got[1][1], str) and got[1][1].endswith(
        "it has no end within 40 bytes: the input stops here"
    )


def test_a_span_the_file_no_longer_holds_is_rejected_with_a_reason(tmp_path: Path) -> None:
    path = tmp_path / "input"
    path.write_bytes(json.dumps(SAT).encode() + b"\n")
    fd = os.open(path, os.O_RDONLY)
    try:
        kind, text = _protocol.check_one(
            Options.of(), 1, Span(0, path.stat().st_size - 1), input_fd=fd
        )
        assert kind == 0 and json.loads(text)["valid"] is True
        kind, text = _protocol.check_one(Options.of(), 2, Span(10_000, 5), input_fd=fd)
    finally:
        os.close(fd)
    error = json.loads(text)
    assert kind == 2 and error["error"] == "invalid_input" and error["line"] == 2
    assert "the input file changed while the batch read it" in error["message"]


def test_a_span_too_big_to_read_is_a_check_failed_line(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_memory(fd: Any, span: Span) -> bytes:
        raise MemoryError

    monkeypatch.setattr(_protocol, "read_span", no_memory)
    kind, text = _protocol.check_lines(
        Options.of(), [(4, Span(0, 1 << 40))], memory=1 << 30, input_fd=0
    )[0]
    error = json.loads(text)
    assert kind == FAILED and error["error"] == "check_failed" and error["line"] == 4
    assert "ran out of memory (the limit is 1024 MiB per worker" in error["message"]


# -- the batch -----------------------------------------------------------------


@needs_workers
def test_workers_read_their_lines_from_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = mixed_lines()
    data = b"\n".join(lines)  # the last line has no newline
    path = tmp_path / "requests.jsonl"
    path.write_bytes(data)
    _, want = batch(io.BytesIO(data), 1, max_line_bytes=CAP)
    given_lines = spy_on_tasks(monkeypatch)
    with open(path, "rb") as stream:
        outcome, got = batch(stream, 2, max_line_bytes=CAP)
    assert got == want
    assert len(got.splitlines()) == len(lines)
    # The long lines went as Spans, the short ones as bytes, the one over the cap
    # as its reason.
    offsets = [0]
    for x in lines:
        offsets.append(offsets[-1] + len(x) + 1)
    assert [x for x in given_lines if isinstance(x, Span)] == [
        Span(offset, len(x))
        for offset, x in zip(offsets, lines)
        if _lines._SPAN_MIN_BYTES <= len(x) <= CAP
    ]
    assert [x for x in given_lines if isinstance(x, bytes)] == [
        x for x in lines if len(x) < _lines._SPAN_MIN_BYTES
    ]
    assert sum(isinstance(x, str) for x in given_lines) == 1
    assert sum(outcome.counts) == len(lines)


@needs_workers
def test_lines_from_a_stream_still_go_to_the_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    data = b"\n".join(mixed_lines()) + b"\n"
    _, want = batch(io.BytesIO(data), 1)
    given_lines = spy_on_tasks(monkeypatch)
    _, got = batch(io.BytesIO(data), 2)
    assert got == want
    assert given_lines and all(isinstance(line, bytes) for line in given_lines)


@needs_workers
def test_a_file_read_in_part_is_checked_from_where_it_stands(tmp_path: Path) -> None:
    lines = mixed_lines()[:20]
    data = b"\n".join(lines) + b"\n"
    path = tmp_path / "requests.jsonl"
    path.write_bytes(b"a header line\n" + data)
    _, want = batch(io.BytesIO(data), 1)
    with open(path, "rb") as stream:
        assert stream.readline() == b"a header line\n"
        _, got = batch(stream, 2)
    assert got == want


@needs_workers
def test_the_progress_line_follows_the_scan(tmp_path: Path) -> None:
    data = b"".join(json.dumps(SAT).encode() + b"\n" for _ in range(100))
    path = tmp_path / "requests.jsonl"
    path.write_bytes(data)
    with open(path, "rb") as stream:
        progress = BatchProgress(stream, len(data))
        _batch.run_batch(
            stream, io.StringIO(), engine="auto", limits=None, jobs=2, progress=progress
        )
        assert progress.tell() == len(data)  # the end of the last line
        assert stream.tell() == len(data)  # where reading it would leave it


@needs_workers
@pytest.mark.parametrize("method", ["spawn", "forkserver"])
def test_workers_started_without_fork_get_the_file(
    tmp_path: Path, method: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if method not in multiprocessing.get_all_start_methods():
        pytest.skip(f"no {method} start method here")
    monkeypatch.setattr(_batch, "_context", lambda: multiprocessing.get_context(method))
    lines = mixed_lines()[:40]
    data = b"\n".join(lines) + b"\n"
    path = tmp_path / "requests.jsonl"
    path.write_bytes(data)
    _, want = batch(io.BytesIO(data), 1)
    with open(path, "rb") as stream:
        _, got = batch(stream, 2)
    assert got == want


@needs_fork
@needs_workers
def test_a_line_that_kills_its_workers_keeps_its_id_read_from_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kill_workers_on(monkeypatch, b"kill-me")
    lines = [json.dumps({"id": n, "request": SAT}).encode() for n in range(80)]
    lines[50] = json.dumps({"id": "kill-me", "request": SAT}).encode()
    path = tmp_path / "requests.jsonl"
    path.write_bytes(b"".join(text + b"\n" for text in lines))
    with open(path, "rb") as stream:
        outcome, got = batch(stream, 2)
    answers = [json.loads(text) for text in got.splitlines()]
    assert [answer["id"] for answer in answers] == [*range(50), "kill-me", *range(51, 80)]
    failed = answers[50]
    assert (failed["error"], failed["line"]) == ("check_failed", 51)
    assert "died 2 times" in failed["message"]
    assert outcome.counts == [79, 0, 0, 1]


@needs_workers
def test_a_small_input_file_starts_one_worker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[int] = []
    real = _batch._Worker.__init__

    def init(self: Any, *args: Any) -> None:
        started.append(1)
        real(self, *args)

    monkeypatch.setattr(_batch._Worker, "__init__", init)
    path = tmp_path / "one.jsonl"
    path.write_bytes(json.dumps(SAT).encode() + b"\n")
    with open(path, "rb") as stream:
        _, got = batch(stream, 2)
    assert json.loads(got)["valid"] is True and len(started) == 1
    path.write_bytes(b"".join(json.dumps(SAT).encode() + b"\n" for _ in range(400)))
    started.clear()
    with open(path, "rb") as stream:
        batch(stream, 2)
    assert len(started) == 2


@needs_fork
@needs_workers
def test_workers_read_the_file_when_it_is_their_own_stdin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A worker closes sys.stdin as it starts; when sys.stdin owns the input's
    # descriptor, the workers must read from a descriptor of their own.
    monkeypatch.setattr(_batch, "_context", lambda: multiprocessing.get_context("fork"))
    data = b"".join(json.dumps(SAT).encode() + b" " * 5000 + b"\n" for _ in range(40))
    path = tmp_path / "requests.jsonl"
    path.write_bytes(data)
    _, want = batch(io.BytesIO(data), 1)
    fd = os.open(path, os.O_RDONLY)
    with open(fd, closefd=True) as owner, open(fd, "rb", closefd=False) as stream:
        monkeypatch.setattr("sys.stdin", owner)
        _, got = batch(stream, 2)
    assert got == want
