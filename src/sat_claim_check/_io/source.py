"""A file's bytes as a stream of chunks: plain, gzip, xz or bz2, from a path,
a named pipe or standard input.

``chunks(path, chunk_size)`` returns a ``Source``: an iterator of non-empty
``bytes`` chunks of at most ``chunk_size`` bytes each, read as they come
(a pipe's chunk is whatever its writer has written so far; a regular
file's small pieces, such as short compressed members, are joined up to
``chunk_size``; nothing is seeked, nothing relies on ``peek``).  ``path``
is a filesystem path, the string ``"-"`` for standard input (read as
bytes, never closed here; a file named "-" is ``"./-"``), or a binary file
already open (read from where it stands, never closed here: its owner
closes it).

The format is told by the first bytes (after reading up to 6 of them, or to
the end of a shorter file): gzip ``1f 8b``, xz ``fd 37 7a 58 5a 00``, bz2
``"BZh"``; anything else is read as it is.  Compressed data is decompressed
incrementally, never more than ``chunk_size`` bytes at a time, so a
decompression bomb costs no more memory than a plain chunk.  As with the
gzip, xz and bzip2 tools, concatenated members (streams) are read as one,
and NUL bytes after a member (gzip's zero padding, xz's stream padding) are
skipped; any other byte after the end of a member that does not start a new
member, a corrupt member or data that ends inside a member raises
``SourceError`` (a ValueError).  Errors of the file itself (not found, a
directory, a read error) are the ``OSError`` of ``open`` and ``read``.
"""

from __future__ import annotations

import bz2
import lzma
import os
import stat
import sys
import zlib
from collections.abc import Generator, Iterator
from typing import IO, Any, Callable, Union, cast

from .bounds import CHUNK

__all__ = [
    "MAGIC",
    "MAGIC_BYTES",
    "Input",
    "Source",
    "SourceError",
    "chunks",
    "compression",
    "is_open_file",
    "path_text",
]

_Path = Union[str, "os.PathLike[str]"]
# What can be read: a path, "-" (standard input), or an open binary file.
Input = Union[str, "os.PathLike[str]", IO[bytes]]

# Format name and magic bytes of each compression read.
MAGIC = (("gzip", b"\x1f\x8b"), ("xz", b"\xfd7zXZ\x00"), ("bz2", b"BZh"))
# How many first bytes compression() needs to tell them all.
MAGIC_BYTES = max(len(magic) for _, magic in MAGIC)

_ERRORS = (zlib.error, lzma.LZMAError, OSError, EOFError, ValueError)


class SourceError(ValueError):
    """Compressed data that cannot be read: corrupt, truncated, or followed by
    other bytes.  The message names the format: "cannot decompress xz data:
    ...", "truncated gzip data: ..."."""


def compression(head: bytes) -> str | None:
    """The compression that data starting with ``head`` is in ("gzip", "xz",
    "bz2"), or None for plain data.  ``head`` is the first ``MAGIC_BYTES``
    bytes, or the whole data when it is shorter."""
    for name, magic in MAGIC:
        if head.startswith(magic):
            return name
    return None


def _unbuffered(stdin: IO[bytes]) -> tuple[IO[bytes], bool]:
    """Standard input as a file of its own descriptor (a duplicate), and whether
    it is ours to close: a reader thread blocked on a pipe then holds no lock
    that the interpreter takes at exit (it would abort).  Without a descriptor
    (a stream in memory), the stream itself."""
    try:
        return open(os.dup(stdin.fileno()), "rb", buffering=0), True
    except (OSError, ValueError, AttributeError):
        return stdin, False


def is_open_file(path: Input) -> bool:
    """Whether ``path`` is an open file (anything with ``read``), not a path."""
    return hasattr(path, "read")


def path_text(path: Input) -> str:
    """A path as text, or an open file's name ("<file>" when it has none)."""
    if is_open_file(path):
        name = getattr(path, "name", None)
        return name if isinstance(name, str) else "<file>"
    return os.fspath(cast("_Path", path))


def chunks(path: Input, chunk_size: int = CHUNK) -> Source:
    """The bytes of the file at ``path`` ("-": standard input), decompressed,
    as an iterator of chunks of at most ``chunk_size`` bytes: returns a
    ``Source`` (close it to stop early: that closes the file)."""
    return Source(path, chunk_size)


class Source:
    """The decompressed bytes of a file, a named pipe or standard input, in
    chunks (see the module's docstring).

    Attributes: ``name`` (the path as given, "<stdin>" for "-"), ``size`` (the
    file's size in bytes for a regular file, as stored, compressed or not;
    None for a pipe or a terminal), ``bytes_read`` (how many of those bytes
    were read so far: with ``size``, the progress), ``compression`` ("gzip",
    "xz", "bz2" or None; set when the first chunk is read).  The file is
    opened at once; it is closed at the end of the data, on an error, or by
    ``close()`` (also by ``with``).  Standard input is never closed.
    """

    name: str
    size: int | None
    bytes_read: int
    compression: str | None

    def __init__(self, path: Input, chunk_size: int = CHUNK) -> None:
        if chunk_size < 1:
            raise ValueError("chunk_size must be at least 1")
        self._chunk_size = chunk_size
        self.bytes_read = 0
        self.compression = None
        self._owned = False  # standard input and open files are their owners' to close
        if is_open_file(path):
            self.name = path_text(path)
            self._file: IO[bytes] = cast("IO[bytes]", path)
        elif not (isinstance(path, str) and path == "-"):
            self.name = path_text(path)
            self._file = open(cast("_Path", path), "rb")  # noqa: SIM115 (closed by close())
            self._owned = True
        else:
            self.name = "<stdin>"
            stdin = getattr(sys.stdin, "buffer", None)
            if stdin is None:
                raise OSError("standard input is not open for reading bytes")
            self._file, self._owned = _unbuffered(stdin)
        self.size = _regular_size(self._file)
        self._read: Callable[[int], bytes] = getattr(self._file, "read1", self._file.read)
        self._gen = self._generate()

    def __iter__(self) -> Source:
        return self

    def __next__(self) -> bytes:
        return next(self._gen)

    def close(self) -> None:
        """Stop reading and close the file (not standard input); returns None."""
        self._gen.close()
        self._close_file()

    def __enter__(self) -> Source:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _close_file(self) -> None:
        if self._owned:
            self._file.close()

    def _raw(self) -> Iterator[bytes]:
        while True:
            data = self._read(self._chunk_size)
            if not data:
                return
            self.bytes_read += len(data)
            yield data

    def _generate(self) -> Generator[bytes, None, None]:
        # A regular file's read never waits: its small pieces (many short
        # compressed members) are joined up to a chunk, each of which costs its
        # reader a scan and a hand-over; a pipe's are given as they come.
        pieces = self._pieces()
        return pieces if self.size is None else _joined(pieces, self._chunk_size)

    def _pieces(self) -> Generator[bytes, None, None]:
        try:
            raw = self._raw()
            head = b""
            for data in raw:  # a pipe may give fewer bytes than asked
                head += data
                if len(head) >= MAGIC_BYTES:
                    break
            self.compression = compression(head)
            if self.compression is None:
                for i in range(0, len(head), self._chunk_size):
                    yield head[i : i + self._chunk_size]
                yield from raw
            else:
                yield from _inflate(self.compression, head, raw, self._chunk_size)
        finally:
            self._close_file()


def _joined(pieces: Iterator[bytes], size: int) -> Generator[bytes, None, None]:
    """``pieces`` (each of at most ``size`` bytes) joined into chunks of at most
    ``size`` bytes; the bytes read before an error come before it."""
    held: list[bytes] = []
    count = 0
    try:
        for piece in pieces:
            if count + len(piece) > size:
                yield b"".join(held)
                held, count = [], 0
            held.append(piece)
            count += len(piece)
    except (SourceError, OSError) as exc:
        if held:
            yield b"".join(held)
        raise exc from None
    if held:
        yield b"".join(held)


def _regular_size(f: IO[bytes]) -> int | None:
    try:
        st = os.fstat(f.fileno())
    except (OSError, ValueError):  # no file descriptor (io.UnsupportedOperation)
        return None
    return st.st_size if stat.S_ISREG(st.st_mode) else None


def _decompressor(fmt: str) -> Any:
    if fmt == "gzip":
        return zlib.decompressobj(16 + zlib.MAX_WBITS)  # the gzip wrapper only
    if fmt == "xz":
        return lzma.LZMADecompressor(lzma.FORMAT_XZ)
    return bz2.BZ2Decompressor()


def _inflate(
    fmt: str, head: bytes, raw: Iterator[bytes], chunk_size: int
) -> Generator[bytes, None, None]:
    """The decompressed data of head + raw, in chunks of at most chunk_size."""
    magic = dict(MAGIC)[fmt]
    is_zlib = fmt == "gzip"
    d: Any = None  # the open member's decompressor; None between members
    rest = head  # input not yet given to a decompressor
    ended = False
    while True:
        if d is None:
            # Between members: NUL padding, then another member or the end.
            rest = rest.lstrip(b"\x00")
            if rest and (len(rest) >= len(magic) or ended):
                if not rest.startswith(magic):
                    raise SourceError(
                        f"cannot decompress {fmt} data: other bytes "
                        f"follow the end of the compressed data"
                    )
                d = _decompressor(fmt)
        if d is not None:
            more = True
            while more:
                try:
                    out = d.decompress(rest, chunk_size)
                except _ERRORS as exc:
                    raise SourceError(f"cannot decompress {fmt} data: {exc}") from None
                rest = d.unconsumed_tail if is_zlib else b""
                if out:
                    yield out
                if d.eof:
                    # All input after the member (zlib may also leave a copy
                    # of it in unconsumed_tail: not used).
                    rest = d.unused_data
                    d = None
                    break
                # Output left inside the decompressor, or input left to it.
                more = bool(rest) or (len(out) == chunk_size if is_zlib else not d.needs_input)
            if d is None:
                continue
        if ended:
            if d is not None:
                raise SourceError(f"truncated {fmt} data: the data ends inside a compressed member")
            return
        data = next(raw, None)
        if data is None:
            ended = True
        else:
            rest += data
