"""Where a check's LRAT goes (docs/semantics.md, "LRAT out"): a file, put
in place only when the verdict is valid, or a stream (standard output, a
pipe) written as the check goes.

The kernel holds back the LRAT's last line (the empty clause) until the
verdict is known to be valid, so what a stream receives from a check that is
not valid is never a proof a checker accepts.  A regular file is written
under a temporary name beside it and renamed when the verdict is valid;
otherwise the temporary file is removed, and so is an older file of that
name (it would be taken for this proof's LRAT).
"""

from __future__ import annotations

import errno
import io
import os
import stat
import sys
from typing import IO, Any

__all__ = ["LratOut", "LratWriteError"]


class LratWriteError(OSError):
    """The LRAT could not be written; the message names where.
    ``broken_pipe``: its reader went away (docs/semantics.md, "LRAT out")."""

    broken_pipe = False


class _Sink:
    """What the kernel writes to: every byte written (a short write goes on
    with the rest), an OSError becomes a LratWriteError."""

    def __init__(self, stream: IO[bytes], name: str) -> None:
        self.stream = stream
        self.name = name
        self.raw = isinstance(stream, io.RawIOBase)  # None from write(): would block

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        try:
            while view:
                n = self.stream.write(view)
                if n is None and self.raw:
                    raise BlockingIOError(errno.EAGAIN, "the stream would block")
                if type(n) is not int or n >= len(view):
                    return  # None, or the whole: a buffered stream or a duck
                if n <= 0:
                    raise OSError(errno.EIO, f"write() wrote {n} bytes")
                view = view[n:]
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
            if self.path != "-" and _is_standard_output(self.path):
                self.path = "-"  # /dev/stdout, /proc/self/fd/1: standard output's rules
            self.name = "standard output" if self.path == "-" else repr(self.path)
        elif isinstance(target, io.TextIOBase):
            raise TypeError("lrat must be a binary stream (open the file with 'wb'), not text")
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

    def check_inputs(self, **inputs: Any) -> None:
        """ValueError when the LRAT's file is one of the inputs (``cnf=...``,
        ``proof=...``, ``output=...``, there or not yet): a valid verdict would
        replace it."""
        if self.path is None or self.path == "-":
            return
        for role, given in inputs.items():
            named = isinstance(given, (str, os.PathLike)) and os.fsdecode(given) != "-"
            if named and _same_file(self.path, os.fsdecode(given)):
                raise ValueError(f"the LRAT file {self.name} is the {role}: give another name")

    def open(self) -> tuple[_Sink, bool]:
        """Make the file (or take the stream); the kernel's sink and format."""
        if self.path is None:
            stream = self.target
        elif self.path == "-":
            if sys.stdout is None:  # closed before the command started
                raise LratWriteError(f"cannot write the LRAT to {self.name}: it is closed")
            sys.stdout.flush()
            stream = sys.stdout.buffer
        elif _written_in_place(self.path):  # a device, a named pipe, a symbolic link
            stream = self._opened(lambda: open(self.path or "", "wb"))  # noqa: SIM115
        else:
            if not os.path.basename(self.path) or os.path.isdir(self.path):
                raise LratWriteError(f"cannot write the LRAT to {self.name}: not a file name")
            folder = os.path.dirname(os.path.abspath(self.path))
            base = os.path.basename(self.path)

            def temporary() -> IO[bytes]:
                # Made as open() makes a file (the umask decides its mode), unique.
                import secrets  # here: a check without an LRAT file starts without it

                name = os.path.join(folder, f".{base}.{secrets.token_hex(6)}.part")
                fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
                self._temp = name
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
            try:
                os.replace(self._temp, self.path or "")
            except OSError as exc:
                self._discard(why)
                raise _write_error(exc, self.name) from None
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
    error = LratWriteError(f"cannot write the LRAT to {name}: {exc.strerror or exc}")
    error.broken_pipe = isinstance(exc, BrokenPipeError)
    return error


def _written_in_place(path: str) -> bool:
    """Not a regular file (nor nothing yet), or a symbolic link: written into
    as it is, never replaced by a rename."""
    try:
        return os.path.islink(path) or not stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False  # not there yet: a file to make


def _is_standard_output(path: str) -> bool:
    try:
        return os.path.samestat(os.stat(path), os.fstat(sys.stdout.fileno()))
    except (OSError, ValueError, AttributeError):
        return False


def _same_file(a: str, b: str) -> bool:
    """The same file, or (one not there yet) the same name once resolved."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def _remove(path: str) -> bool:
    try:
        os.unlink(path)
    except OSError:
        return False
    return True
