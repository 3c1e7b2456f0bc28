"""A proof that comes a few bytes at a time (a pipe written in small pieces, a
file of many small compressed members): what is read is the same as from
whole chunks, and the bytes already read are not scanned again chunk after
chunk (which made the time grow with the square of the bytes waiting).
"""

from __future__ import annotations

import gzip
import io
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sat_claim_check._io import proof_head
from sat_claim_check._io.dimacs_text import DimacsError
from sat_claim_check._io.proofstream import proof_parts


class Trickle(io.RawIOBase):
    """An open file that gives at most ``size`` bytes a read (as a pipe may)."""

    def __init__(self, data: bytes, size: int) -> None:
        self._data = data
        self._at = 0
        self._size = size

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray) -> int:  # type: ignore[override]
        piece = self._data[self._at : self._at + min(len(buffer), self._size)]
        buffer[: len(piece)] = piece
        self._at += len(piece)
        return len(piece)


def steps(source: object) -> tuple[list[tuple[int, list[int]]], str | None]:
    """The proof's steps (kind, literals) as proof_parts reads them, and the
    error that ended the reading, if any."""
    found = []
    try:
        for part in proof_parts(source, 1 << 30, "auto"):  # type: ignore[arg-type]
            for i, kind in enumerate(part.kinds):
                found.append((kind, part.lits[part.offsets[i] : part.offsets[i + 1]].tolist()))
            part.raise_problem("p", 1 << 30)
    except DimacsError as exc:
        return found, str(exc)
    return found, None


HEADS = [
    b"c banner\nc more\n\n1 2 0\n",
    b"s UNSATISFIABLE\nc x\n" + b"c" * 300 + b"\n-1 0\n",
    b"\n\n\nc\n" * 50 + b"d 1 2 0\n",
    b"c only comments\n" * 5000,
    b"c " + b"x" * 70000,
    b"c\na\x02\x04\x00a\x00",
    b"1 2",
    b"",
]


@pytest.mark.parametrize("text", HEADS)
def test_the_head_gathered_in_chunks_is_enough_when_head_enough_says(text: bytes) -> None:
    rng = random.Random(len(text))
    for _ in range(5):
        head, gathered, at = b"", proof_head.Head(), 0
        while at < len(text):
            chunk = text[at : at + rng.randint(1, 40)]
            at += len(chunk)
            head += chunk
            assert gathered.add(chunk) == proof_head.head_enough(head), (text[:20], at)
            assert gathered.data == head


@pytest.mark.parametrize(
    "text",
    [
        *HEADS,
        b"1 0\n" + b"1" * 5000 + b" 2 0\n0\n",
        b"c x\n" + b"2" * 3000 + b"\n0\n",
        b"1 -2 0\nd 1 -2 0\n" * 300 + b"0",
        b"1 2 0\n" + b"7" * 20 + b"x 0\n",
    ],
)
def test_a_proof_read_a_few_bytes_at_a_time_reads_as_whole_chunks(text: bytes) -> None:
    whole = steps(io.BytesIO(text))
    for size in (1, 2, 7, 64):
        assert steps(Trickle(text, size)) == whole, size


def _seconds(text: bytes, size: int, read: Callable[[Any], Any] | None = None) -> float:
    """Wall seconds of ``read`` (default: the proof's steps) on ``text`` read
    ``size`` bytes at a time."""
    start = time.perf_counter()
    (read or steps)(Trickle(text, size))
    return time.perf_counter() - start


@pytest.mark.timing
def test_leading_comments_in_small_chunks_cost_what_they_cost_later() -> None:
    """16 kB of comment lines before the first step, 2 bytes a read: the
    comment lines already passed are not walked again at every read (they
    were: 109 times the time of the same bytes after the first step, on a
    loaded machine)."""
    comments = b"c\n" * 8_000
    before = min(_seconds(comments + b"0\n", 2) for _ in range(3))
    after = min(_seconds(b"0\n" + comments, 2) for _ in range(3))
    assert before < 3 * after + 0.05


@pytest.mark.timing
def test_a_long_token_in_small_chunks_costs_what_short_ones_do() -> None:
    """A 512 kB token read 16 bytes a read: its bytes so far are not joined
    and searched again at every read (they were: 11 times the time of the
    same bytes as short tokens, on a loaded machine)."""
    long_token = b"1 0\n" + b"1" * 524_288 + b" 0\n"
    short_tokens = b"1 0\n" + b"1 " * 262_144 + b"0\n"
    one = min(_seconds(long_token, 16) for _ in range(3))
    many = min(_seconds(short_tokens, 16) for _ in range(3))
    assert one < 3 * many + 0.05


def _frat_seconds(text: bytes, size: int) -> float:
    from sat_claim_check._engines import scanner
    from sat_claim_check._io.frat import FratText

    stream = FratText(scanner().DrupTextStream(), "p.frat")
    start = time.perf_counter()
    for at in range(0, len(text), size):
        stream.scan(text[at : at + size], at + size >= len(text))
    return time.perf_counter() - start


def test_a_frat_line_in_many_parts_reads_as_in_one() -> None:
    text = b"o 1 1 2 0\na 5 " + b"1 -2 " * 3000 + b"0 l 1 0\nd 5 1 0\n"
    whole = steps(io.BytesIO(text))
    assert whole[1] is None and len(whole[0]) == 2
    for size in (1, 5, 64):
        assert steps(Trickle(text, size)) == whole, size


@pytest.mark.timing
def test_a_long_frat_line_in_small_parts_costs_what_it_costs_in_one() -> None:
    """A FRAT line of 4 MB fed in 1 kB parts: the parts of the line not yet
    whole are not joined and searched again part after part (they were: 6
    times the time of the line in one part, on a loaded machine)."""
    text = b"o 1 1 2 0\na 5 " + b"1 -2 " * 800_000 + b"0\n"
    at_once = min(_frat_seconds(text, len(text)) for _ in range(3))
    assert _frat_seconds(text, 1024) < 3 * at_once + 0.05


def _clauses(source: object) -> tuple[Any, ...]:
    """(num_vars, clauses, literals, the clauses) of a CNF read by stream_cnf,
    or the error it raised."""
    from sat_claim_check import Limits
    from sat_claim_check._io.sat_stream import stream_cnf

    told: list[list[int]] = []

    def on_clauses(num_vars: int, base: int, offsets: Any, lits: Any) -> None:
        told.extend(lits[offsets[i] : offsets[i + 1]].tolist() for i in range(len(offsets) - 1))

    try:
        counts = stream_cnf(source, Limits.unlimited(), 1 << 30, on_clauses)  # type: ignore[arg-type]
    except (DimacsError, ValueError) as exc:
        return (type(exc).__name__, str(exc))
    return (*counts, told)


@pytest.mark.parametrize(
    "text",
    [
        b"c x\np cnf 3 2" + b" " * 3000 + b"\n1 -2 0\n2 3 0\n",
        b"p cnf 3 2\n1 " + b"\n" * 500 + b"-2 0 3 0\n",
        b"p cnf 3 2\n1 2 0\n" + b"3" * 4000 + b" 0\n",
        b"p cnf 3 1\n  \t p cnf 3 1\n1 0\n",
        b"p cnf 3 1\ns SATISFIABLE" + b" " * 500 + b"\n1 0\n",
        b"p cnf 3 1\n1 0\n%\n0\n",
    ],
)
def test_a_cnf_read_a_few_bytes_at_a_time_reads_as_whole_chunks(text: bytes) -> None:
    whole = _clauses(io.BytesIO(text))
    for size in (1, 3, 64):
        assert _clauses(Trickle(text, size)) == whole, size


@pytest.mark.timing
def test_a_long_header_line_in_small_chunks_costs_what_a_comment_does() -> None:
    """A "p cnf" line of 2 MB (it waits whole) read 2 kB at a time: the bytes
    of it already read are not searched again at every read (they were: 22
    times the time of the same bytes in a comment line, on a loaded machine)."""
    padding = b" " * 2_000_000
    header = b"p cnf 2 1" + padding + b"\n1 2 0\n"
    comment = b"c" + padding[:-2] + b"\np cnf 2 1\n1 2 0\n"
    assert len(header) == len(comment)
    waits = min(_seconds(header, 2048, _clauses) for _ in range(3))
    goes = min(_seconds(comment, 2048, _clauses) for _ in range(3))
    assert waits < 3 * goes + 0.05


def _gzip_members(path: Path, text: bytes, size: int) -> Path:
    """``text`` written as gzip members of ``size`` bytes each (each is read
    as a chunk of its own)."""
    path.write_bytes(
        b"".join(gzip.compress(text[at : at + size], mtime=0) for at in range(0, len(text), size))
    )
    return path


def test_clause_line_reads_long_lines_in_small_chunks(tmp_path: Path) -> None:
    from sat_claim_check._io.whole_files import clause_line

    text = b"c " + b"x" * 70_000 + b"\np cnf 3 3\n1 2 " + b"3 -1 " * 20_000 + b"0 2\n\n3 0\n-1 0\n"
    text += b"1 " + b"2" * 70_000 + b" 0 3 " * 20_000 + b"\n"
    plain = tmp_path / "plain.cnf"
    plain.write_bytes(text)
    members = _gzip_members(tmp_path / "members.cnf.gz", text, 100)
    for index, line in ((0, 3), (1, 3), (2, 6), (3, 7), (4, 7), (20_002, 7), (20_003, None)):
        assert clause_line(plain, index) == clause_line(members, index) == line


@pytest.mark.timing
def test_clause_line_reads_a_long_line_in_small_chunks_in_its_bytes_time(tmp_path: Path) -> None:
    """A 4 MB comment line read 4 kB at a time (gzip members) by clause_line
    (verify --explain): the line's chunks are not joined again at every chunk
    (they were: 98 times the time of the same bytes as 4 kB lines, on a
    loaded machine)."""
    from sat_claim_check._io.whole_files import clause_line

    line = b"c" + b"x" * 4_194_302 + b"\n"
    lines = b"".join(b"c" + b"x" * 4094 + b"\n" for _ in range(1024))
    tail = b"p cnf 1 1\n1 0\n"
    one = _gzip_members(tmp_path / "one.cnf.gz", line + tail, 4096)
    many = _gzip_members(tmp_path / "many.cnf.gz", lines + tail, 4096)

    def seconds(path: Path) -> float:
        start = time.perf_counter()
        assert clause_line(path, 0) is not None
        return time.perf_counter() - start

    long_line = min(seconds(one) for _ in range(3))
    short_lines = min(seconds(many) for _ in range(3))
    assert long_line < 3 * short_lines + 0.05
