"""The streamed byte source (_source): formats, bombs, pipes, standard input, errors.

* Plain, gzip, xz and bz2 data round-trip in chunks of at most chunk_size,
  concatenated members and NUL padding included.
* A decompression bomb is expanded a chunk at a time, under a memory limit
  far below its size.
* A named pipe is read as it is written; "-" reads standard input.
* Corrupt, truncated or trailing bytes raise SourceError, naming the format.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
import random
import subprocess
import sys
import textwrap
import threading
import zlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sat_claim_check._io.source import MAGIC_BYTES, SourceError, chunks, compression

COMPRESS = {
    None: lambda data: data,
    "gzip": gzip.compress,
    "xz": lzma.compress,
    "bz2": bz2.compress,
}
FORMATS = ["gzip", "xz", "bz2"]


def _read(path, chunk_size: int) -> list[bytes]:
    source = chunks(path, chunk_size)
    out = list(source)
    assert all(0 < len(c) <= chunk_size for c in out)
    return out


# Data with long runs (compressible) and random bytes.
payloads = st.lists(
    st.one_of(
        st.binary(max_size=300),
        st.tuples(st.integers(0, 255), st.integers(1, 5000)).map(lambda t: bytes([t[0]]) * t[1]),
    ),
    max_size=8,
).map(b"".join)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.sampled_from([None, *FORMATS]), payloads, st.integers(1, 5000), st.integers(1, 3))
def test_each_format_round_trips_in_bounded_chunks(tmp_path, fmt, data, chunk_size, members):
    path = tmp_path / "data"
    parts = [data[i::members] for i in range(members)] if fmt else [data]
    path.write_bytes(b"".join(COMPRESS[fmt](p) for p in parts))
    source = chunks(path, chunk_size)
    out = list(source)
    assert all(0 < len(c) <= chunk_size for c in out)
    assert b"".join(out) == b"".join(parts)
    assert source.compression == (fmt if data or fmt else None)
    assert source.size == source.bytes_read == path.stat().st_size


def test_compression_by_magic_bytes():
    assert compression(gzip.compress(b"x")[:MAGIC_BYTES]) == "gzip"
    assert compression(lzma.compress(b"x")[:MAGIC_BYTES]) == "xz"
    assert compression(bz2.compress(b"x")[:MAGIC_BYTES]) == "bz2"
    assert compression(lzma.compress(b"x", format=lzma.FORMAT_ALONE)) is None  # not xz
    for head in (b"", b"\x1f", b"\xfd7zXZ", b"BZ", b"p cnf 1 1\n", b"a\x02\x00"):
        assert compression(head) is None, head


@pytest.mark.parametrize("fmt", FORMATS)
def test_nul_padding_after_a_member_is_skipped(tmp_path, fmt):
    path = tmp_path / "data"
    path.write_bytes(COMPRESS[fmt](b"abc") + b"\x00" * 9 + COMPRESS[fmt](b"def") + b"\x00" * 3)
    assert b"".join(_read(path, 2)) == b"abcdef"


@pytest.mark.parametrize("fmt", FORMATS)
def test_corrupt_truncated_and_trailing_bytes_raise(tmp_path, fmt):
    # Seeded: a flipped byte in random data can also read as a truncated member.
    good = COMPRESS[fmt](random.Random(fmt).randbytes(3000) + b"x" * 3000)
    middle = len(good) // 2
    flipped = good[:middle] + bytes([good[middle] ^ 0x55]) + good[middle + 1 :]
    cases = [
        ("truncated", good[:-4]),
        ("truncated", good[:middle]),
        ("truncated", good[:MAGIC_BYTES]),
        ("cannot decompress", flipped),
        ("other bytes follow", good + b"trailing"),
        ("other bytes follow", good + b"\x00\x00x"),
    ]
    for n, (message, data) in enumerate(cases):
        path = tmp_path / f"bad{n}"
        path.write_bytes(data)
        with pytest.raises(SourceError) as info:
            _read(path, 1000)
        assert f"{message} {fmt} data" in str(info.value) or (
            message in str(info.value) and f"{fmt} data" in str(info.value)
        ), (n, info.value)
        assert isinstance(info.value, ValueError)


def test_plain_data_and_empty_files_pass_as_they_are(tmp_path):
    path = tmp_path / "empty"
    path.write_bytes(b"")
    source = chunks(path, 10)
    assert list(source) == [] and source.compression is None and source.size == 0
    path.write_bytes(b"\x1f")  # half a gzip magic: plain
    assert _read(path, 10) == [b"\x1f"]


def _gzip_bomb(path: Path, gib: int) -> None:
    """A gzip member of `gib` GiB of zeros, written without compressing them
    all: one full-flushed block of 1 MiB of zeros, repeated (no trailer: only
    the first chunks are read)."""
    c = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    header = c.compress(b"")
    block = c.compress(b"\x00" * (1 << 20)) + c.flush(zlib.Z_FULL_FLUSH)
    path.write_bytes(header + block * (1024 * gib))


@pytest.fixture(scope="module")
def bombs(tmp_path_factory):
    base = tmp_path_factory.mktemp("bombs")
    _gzip_bomb(base / "gzip", 1)
    zeros = b"\x00" * (96 << 20)
    (base / "xz").write_bytes(lzma.compress(zeros, preset=0))
    (base / "bz2").write_bytes(bz2.compress(zeros, 9))
    return base


@pytest.mark.parametrize(
    ("fmt", "expanded"), [("gzip", 1 << 30), ("xz", 96 << 20), ("bz2", 96 << 20)]
)
def test_a_bomb_is_expanded_a_chunk_at_a_time_under_a_memory_limit(bombs, fmt, expanded):
    path = bombs / fmt
    assert path.stat().st_size * 1000 < expanded
    # Under an address-space limit of 64 MiB more than at the start, reading
    # the first chunks must work (expanding the whole member would not).
    script = textwrap.dedent(f"""
        import resource, sys
        from sat_claim_check._io.source import chunks
        def vm():
            for line in open("/proc/self/status"):
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
        limit = vm() + (64 << 20)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        source = chunks({str(path)!r}, 1 << 20)
        sizes = [len(next(source)) for _ in range(20)]
        source.close()
        assert sizes == [1 << 20] * 20, sizes
        print("ok", vm() < limit)
    """)
    if not Path("/proc/self/status").exists():
        pytest.skip("no /proc/self/status to measure the address space")
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["ok", "True"]


def _fds() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.mark.skipif(not Path("/proc/self/fd").exists(), reason="no /proc/self/fd")
@pytest.mark.parametrize("fmt", [None, *FORMATS])
def test_closing_early_closes_the_file(tmp_path, fmt):
    path = tmp_path / "data"
    path.write_bytes(COMPRESS[fmt](os.urandom(50000)))
    before = _fds()
    source = chunks(path, 100)
    assert _fds() == before + 1
    next(source)
    source.close()
    assert _fds() == before
    with chunks(path, 100) as source:
        next(source)
    assert _fds() == before
    list(chunks(path, 100000))  # read to the end: closed too
    assert _fds() == before


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
@pytest.mark.parametrize("fmt", [None, "gzip"])
def test_a_named_pipe_is_read_as_it_is_written(tmp_path, fmt):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    first, second = b"p cnf 2 1\n" + b"1 -2 0\n" * 50, b"c the rest\n" * 50
    if fmt == "gzip":  # a sync flush makes the first part readable at once
        c = zlib.compressobj(6, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
        writes = [c.compress(first) + c.flush(zlib.Z_SYNC_FLUSH), c.compress(second) + c.flush()]
    else:
        writes = [first, second]
    got_first = threading.Event()
    wrote_second = []

    def writer():
        with open(fifo, "wb", buffering=0) as f:
            f.write(writes[0])
            got_first.wait(timeout=10)
            wrote_second.append(True)
            f.write(writes[1])

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        source = chunks(fifo, 1 << 20)
        out = next(source)
        seen_before_second = not wrote_second
        got_first.set()
        out += b"".join(source)
    finally:
        got_first.set()
        thread.join(timeout=10)
    assert seen_before_second
    assert out == first + second
    assert source.size is None and source.compression == fmt


STDIN_SCRIPT = textwrap.dedent("""
    import sys
    from sat_claim_check._io.source import chunks
    source = chunks("-", 7)
    data = b"".join(source)
    source.close()
    assert not sys.stdin.buffer.closed
    print(len(data), source.size, source.compression, source.name, data.hex())
""")


@pytest.mark.parametrize("fmt", [None, "xz"])
def test_dash_reads_standard_input(tmp_path, fmt):
    data = b"1 2 0\nd 1 2 0\n" * 20
    stored = COMPRESS[fmt](data)
    piped = subprocess.run(
        [sys.executable, "-c", STDIN_SCRIPT], input=stored, capture_output=True, timeout=60
    )
    assert piped.returncode == 0, piped.stderr
    assert piped.stdout.split() == [
        str(len(data)).encode(),
        b"None",
        str(fmt).encode(),
        b"<stdin>",
        data.hex().encode(),
    ]
    path = tmp_path / "stdin"
    path.write_bytes(stored)
    with open(path, "rb") as f:  # a regular file as standard input: its size is known
        redirected = subprocess.run(
            [sys.executable, "-c", STDIN_SCRIPT], stdin=f, capture_output=True, timeout=60
        )
    assert redirected.returncode == 0, redirected.stderr
    assert redirected.stdout.split()[1] == str(len(stored)).encode()


def test_missing_files_are_os_errors(tmp_path):
    with pytest.raises(FileNotFoundError):
        chunks(tmp_path / "absent")
    with pytest.raises(IsADirectoryError):
        chunks(tmp_path)
    with pytest.raises(ValueError, match="chunk_size"):
        chunks(tmp_path, 0)


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_file_of_many_small_members_comes_in_whole_chunks(tmp_path, fmt):
    # 3,000 members of 7 bytes each: a chunk each before (each cost its reader
    # a scan and a hand-over), now joined up to the chunk size, in order.
    members = [b"%06d\n" % i for i in range(3000)]
    path = tmp_path / "members"
    path.write_bytes(b"".join(COMPRESS[fmt](m) for m in members))
    out = _read(path, 4096)
    assert b"".join(out) == b"".join(members)
    assert len(out) == -(-3000 // (4096 // 7))  # as many whole members as fit


@pytest.mark.parametrize("fmt", FORMATS)
def test_what_was_read_before_a_corrupt_member_comes_first(tmp_path, fmt):
    path = tmp_path / "members"
    path.write_bytes(COMPRESS[fmt](b"good\n") * 50 + b"\x00junk")
    got = []
    with pytest.raises(SourceError):
        for chunk in chunks(path, 4096):
            got.append(chunk)
    assert b"".join(got) == b"good\n" * 50
