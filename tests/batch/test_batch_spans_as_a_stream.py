"""`batch --jobs N` on an input file, where it could differ from a stream.

Each test here pins a way the Spans read from a file gave other output lines
than the same input read as a stream (``--jobs 1``, or a pipe).
"""

from __future__ import annotations

import io
import json
import multiprocessing
import os
from pathlib import Path
from typing import Any

import pytest
from _helpers import spy_on_tasks
from hypothesis import given, settings
from hypothesis import strategies as st

from sat_claim_check._batch import lines as _lines
from sat_claim_check._batch import local as _batch
from sat_claim_check._batch.console import BatchProgress
from sat_claim_check._batch.lines import Span, numbered_lines, numbered_spans, read_span
from sat_claim_check._batch.sizing import available_cpus

needs_workers = pytest.mark.skipif(available_cpus() < 2, reason="--jobs 2 needs two CPUs")

SAT = {"cnf": {"num_vars": 2, "clauses": [[1, 2], [-1]]}, "claim": "sat", "assignment": [-1, 2]}


def small_skips(patch: pytest.MonkeyPatch, skip_chunk: int, block: int) -> None:
    """A line with no end is given up after 4 * max_bytes, read in small steps."""
    patch.setattr(_lines, "skip_bytes", lambda max_bytes: 4 * max_bytes)
    patch.setattr(_lines, "_SKIP_CHUNK", skip_chunk)
    patch.setattr(_lines, "_SPAN_READ_BYTES", block)


def batch(stream: Any, jobs: int, **options: Any) -> str:
    out = io.StringIO()
    _batch.run_batch(
        stream,
        out,
        engine="auto",
        limits=None,
        jobs=jobs,
        progress=BatchProgress(stream, 0),
        **options,
    )
    assert multiprocessing.active_children() == []
    return out.getvalue()


@settings(max_examples=300, deadline=None)
@given(
    runs=st.lists(st.tuples(st.integers(0, 70), st.booleans()), max_size=6),
    start=st.integers(0, 5),
    max_bytes=st.integers(1, 12),
    skip_chunk=st.integers(1, 20),
    block=st.integers(1, 20),
)
def test_a_line_with_no_end_stops_the_spans_where_it_stops_the_lines(
    tmp_path_factory: Any,
    runs: list[tuple[int, bool]],
    start: int,
    max_bytes: int,
    skip_chunk: int,
    block: int,
) -> None:
    # Lines around the skip limit (4 * max_bytes), with and without a newline.
    data = b"".join(b"x" * length + (b"\n" if ended else b"") for length, ended in runs)
    start = min(start, len(data))
    path = tmp_path_factory.mktemp("spans") / "input"
    path.write_bytes(data)
    fd = os.open(path, os.O_RDONLY)
    try:
        with pytest.MonkeyPatch.context() as patch:
            small_skips(patch, skip_chunk, block)
            want = list(numbered_lines(io.BytesIO(data[start:]), max_bytes))
            got = [
                (number, read_span(fd, line) if isinstance(line, Span) else line)
                for number, line in numbered_spans(fd, start, max_bytes)
            ]
    finally:
        os.close(fd)
    assert got == want


@needs_workers
def test_a_line_just_past_the_skip_limit_gives_the_same_lines_from_a_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The command line's case, scaled down: a line of 64 MiB + 200 bytes under
    # --max-input-bytes 100 stopped `batch FILE -j 1` but not `-j 2`.
    small_skips(monkeypatch, 16, 16)
    data = b"y" * 45 + b"\n" + json.dumps(SAT).encode() + b"\n"
    path = tmp_path / "requests.jsonl"
    path.write_bytes(data)
    want = batch(io.BytesIO(data), 1, max_line_bytes=10)
    with open(path, "rb") as stream:
        got = batch(stream, 2, max_line_bytes=10)
    assert got == want
    assert len(got.splitlines()) == 1 and "the input stops here" in got


@needs_workers
@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="no /proc")
def test_a_proc_file_is_read_as_a_stream(monkeypatch: pytest.MonkeyPatch) -> None:
    # A /proc file makes its bytes as it is read: a worker reading a Span of it
    # later found other bytes ("the input file changed" for /proc/self/maps).
    given_lines = spy_on_tasks(monkeypatch)
    with open("/proc/self/status", "rb") as stream:
        got = batch(stream, 2)
    assert given_lines and all(isinstance(line, bytes) for line in given_lines)
    assert len(got.splitlines()) == len(given_lines)


@needs_workers
def test_a_batch_leaves_a_shared_input_where_jobs_1_leaves_it(tmp_path: Path) -> None:
    # `(sat-claim-check batch - -j 2; cat) < FILE`: cat printed FILE again,
    # where after `-j 1` it prints nothing (the batch read standard input to
    # its end, as any reader of a shared descriptor does).
    data = b"".join(json.dumps(SAT).encode() + b"\n" for _ in range(3))
    path = tmp_path / "requests.jsonl"
    path.write_bytes(data)
    ends = []
    for jobs in (1, 2):
        with open(path, "rb") as stream:
            batch(stream, jobs)
            ends.append(os.lseek(stream.fileno(), 0, os.SEEK_CUR))
    assert ends == [len(data), len(data)]
