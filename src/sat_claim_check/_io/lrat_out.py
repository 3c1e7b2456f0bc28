"""Where a check's LRAT goes (SPEC §10): a file, put in place only when the
verdict is valid, or a stream (standard output, a pipe) written as the check
goes.

The kernel holds back the LRAT's last line (the empty clause) until the
verdict is known to be valid, so what a stream receives from a check that is
not valid is never a proof a checker accepts.  A regular file is written
under a temporary name beside it and renamed when the verdict is valid;
otherwise the temporary file is removed, and so is an older file of that
name (it would be taken for this proof's LRAT).
"""

from __future__ import annotations

import os
import stat
import sys
import tempfile
from typing import IO, Any

__all__ = ["LratOut", "LratWriteError"]


class LratWriteError(OSError):
    """The LRAT could not be written; the message names where."""


class _Sink:
    """What the kernel writes to: an OSError becomes a LratWriteError."""

    def __init__(self, stream: IO[bytes], name: str) -> None:
        self.stream = stream
        self.name = name

    def write(self, data: bytes) -> None:
        try:
            self.stream.write(data)
        except OSError as exc:
            raise _write_error(exc, self.name) from None


class LratOut:
    """The LRAT of one check: ``target`` a path (``"-"`` is standard output) or
    a binary stream with ``write``; ``binary`` for binary LRAT.

    ``open()`` before the check (LratWriteError when the file cannot be
    made), ``sink`` for the kernel, then ``close(valid)`` once the verdict is
    known, or ``close(False)`` when the check did not end (an error, Ctrl-C).
    ``message`` says what became of it."""

    def __init__(self, target: Any, binary: bool = False) -> None:
        if type(binary) is not bool:
            raise TypeError(f"lrat_binary must be a bool, not {type(binary).__name__}")
        if isinstance(target, (str, os.PathLike)):
            self.path: str | None = os.fsdecode(target)
            self.name = "standard output" if self.path == "-" else repr(self.path)
        elif callable(getattr(target, "write", None)):
            self.path = None
            self.name = "the stream given"
        else:
            raise TypeError(
                f"lrat must be a path or a binary stream with write(), not {type(target).__name__}"
            )
        self.target = target
        self.binary = binary
        self._file: IO[bytes] | None = None  # a file of ours, to close
        self._temp: str | None = None  # its temporary name, to rename or remove
        self.sink: _Sink | None = None
        self.message = ""

    def open(self) -> tuple[_Sink, bool]:
        """Make the file (or take the stream); the kernel's sink and format."""
        if self.path is None:
            stream = self.target
        elif self.path == "-":
            sys.stdout.flush()
            stream = sys.stdout.buffer
        elif _is_stream(self.path):  # /dev/stdout, a named pipe: written as it goes
            stream = self._opened(lambda: open(self.path or "", "wb"))  # noqa: SIM115
        else:
            folder = os.path.dirname(os.path.abspath(self.path))
            base = os.path.basename(self.path)

            def temporary() -> IO[bytes]:
                fd, self._temp = tempfile.mkstemp(prefix=f".{base}.", suffix=".part", dir=folder)
                return os.fdopen(fd, "wb")

            stream = self._opened(temporary)
        self.sink = _Sink(stream, self.name)
        return self.sink, self.binary

    def _opened(self, how: Any) -> IO[bytes]:
        try:
            self._file = how()
        except OSError as exc:
            raise _write_error(exc, self.name) from None
        assert self._file is not None
        return self._file

    def close(self, valid: bool, why: str = "the proof is not valid") -> None:
        """Put the LRAT in place (``valid``), or take it away (``why`` not);
        set ``message``."""
        if self.sink is None:
            return
        stream = self.sink.stream
        self.sink = None
        try:
            if valid and callable(getattr(stream, "flush", None)):
                stream.flush()
            if self._file is not None:
                self._file.close()
        except OSError as exc:
            self._discard(why)
            raise _write_error(exc, self.name) from None
        if not valid:
            self._discard(why)
            return
        if self._temp is not None:
            os.replace(self._temp, self.path or "")
        self.message = f"LRAT written to {self.name}"

    def _discard(self, why: str) -> None:
        """No accepted LRAT stays under the name."""
        if self._temp is None:
            self.message = f"the LRAT on {self.name} is incomplete (no empty clause): {why}"
            return
        _remove(self._temp)
        removed = self.path is not None and os.path.isfile(self.path) and _remove(self.path)
        self.message = (
            f"LRAT not written ({self.name} {'removed' if removed else 'not made'}): {why}"
        )


def _write_error(exc: OSError, name: str) -> LratWriteError:
    return LratWriteError(f"cannot write the LRAT to {name}: {exc.strerror or exc}")


def _is_stream(path: str) -> bool:
    try:
        return not stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False  # not there yet: a file to make


def _remove(path: str) -> bool:
    try:
        os.unlink(path)
    except OSError:
        return False
    return True
