"""Manifest lines for ``batch --manifest``: files to check instead of JSON requests.

A manifest line is a JSON object naming the files of one certificate::

    {"id": "php5", "cnf": "php5.cnf", "proof": "php5.drup.gz"}
    {"id": "uf20", "cnf": "uf20.cnf", "model": "uf20.model"}

``cnf`` and exactly one of ``proof`` (an unsat claim) and ``model`` (a sat
claim) are paths, read with the DIMACS front door (``dimacs.files_report``: gzip,
xz and bz2 read transparently); a relative path is resolved against the manifest's
directory (the current directory for standard input).  ``id`` is optional, a
string or an integer, and goes first on the output line as for an envelope.

Only regular files are read: a FIFO, a device or a directory is refused at
once (a FIFO with no writer would hold the batch for ever), without waiting
for anything.  With a ``root`` (``--manifest-root DIR``) a path that resolves
outside that directory, through ``..`` or a symbolic link, is refused before
it is opened, and the file opened is checked again to be inside it: a batch
run for others reads their files only.  A hard link or a mount point inside
the root is the root's: the system decides who may make one (Linux's
``fs.protected_hardlinks`` stops a user linking a file they cannot read).

Every fault is an error object for its line, never a traceback: a malformed
manifest line is invalid_input with the manifest key at fault as ``field``; a
file that cannot be read, or holds malformed DIMACS, DRUP or model text, is
invalid_input with ``field`` and ``path`` naming the manifest key of that file
(``"proof"``, ``"/proof"``) and a message that starts with the file's name as
the manifest writes it; a request the files make that the contract rejects
gets the error ``request --check`` gives for the same files.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import IO, TYPE_CHECKING, Any, NamedTuple

from .._core.values import type_name
from ..dimacs import DimacsError, files_report
from ..errors import InvalidInput
from .envelope import Ident, check_id

if TYPE_CHECKING:
    from .._core.options import Options
    from .._core.types import Result

__all__ = ["MANIFEST_KEYS", "Manifest", "check_entry", "entry_id", "manifest_root"]

MANIFEST_KEYS = ("id", "cnf", "proof", "model")


class Manifest(NamedTuple):
    """Where a manifest's paths lead: ``base``, the directory relative paths are
    resolved against; ``root``, the directory they must stay in (a real path,
    see ``manifest_root``), or None for anywhere."""

    base: str
    root: str | None = None


def manifest_root(directory: str | os.PathLike[str]) -> str:
    """The real path of a ``--manifest-root`` directory; ValueError when it is
    not a directory."""
    real = os.path.realpath(directory)
    if not os.path.isdir(real):
        raise ValueError(f"the manifest root {os.fspath(directory)!r} is not a directory")
    return real


class _Refused(OSError):
    """A manifest path that is not read: not a regular file, or outside the root."""


def entry_id(entry: Any) -> Ident | None:
    """The id of a manifest entry (None without one); InvalidInput when the entry
    is not an object or its id is not a string or an integer."""
    if not isinstance(entry, dict):
        raise InvalidInput(None, "", f"a manifest line must be an object, got {type_name(entry)}")
    return check_id(entry["id"]) if "id" in entry else None


def check_entry(entry: dict[str, Any], manifest: Manifest, options: Options) -> Result:
    """The result of the files a manifest entry (an object) names; InvalidInput
    for an entry at fault, a file that cannot be read or holds malformed text;
    the contract's error for a request the files make that it rejects."""
    for key in entry:
        if key not in MANIFEST_KEYS:
            raise InvalidInput(
                key, f"/{key}", f"unknown key {key!r}; allowed: {', '.join(MANIFEST_KEYS)}"
            )
    if "cnf" not in entry:
        raise InvalidInput("cnf", "/cnf", "missing required key 'cnf' (the DIMACS CNF file)")
    if ("proof" in entry) == ("model" in entry):
        raise InvalidInput(
            None,
            "",
            "give exactly one of 'proof' (a DRUP proof: an unsat claim) and 'model' (a sat claim)",
        )
    role = "proof" if "proof" in entry else "model"
    written = {key: entry[key] for key in ("cnf", role)}
    for key, path in written.items():
        if not isinstance(path, str) or not path:
            raise InvalidInput(
                key,
                f"/{key}",
                f"{key} must be a non-empty string (a path), got "
                f"{'an empty string' if path == '' else type_name(path)}",
            )
        if "\0" in path:
            raise InvalidInput(key, f"/{key}", f"{key}: a path cannot hold a NUL character")
    files = {key: os.path.join(manifest.base, path) for key, path in written.items()}
    try:
        with _opened(files, manifest.root) as opened:
            report = files_report(options, opened["cnf"], opened.get("proof"), opened.get("model"))
    except DimacsError as err:
        at = _key_of(err.file, files, err.message.startswith("CNF"))
        name = written[at] if at is not None else err.file
        raise InvalidInput(
            at, f"/{at}" if at else "", str(DimacsError(err.message, name, err.line, err.offset))
        ) from None
    except OSError as exc:
        at = _key_of(exc.filename, files, True)
        if at is None:  # a read error (not an open error) carries no file name
            what = " or ".join(repr(path) for path in written.values())
        else:
            what = repr(written[at])
        if isinstance(exc, _Refused):
            raise InvalidInput(at, f"/{at}" if at else "", f"{what} {exc.strerror}") from None
        raise InvalidInput(
            at, f"/{at}" if at else "", f"cannot read {what}: {exc.strerror or exc}"
        ) from None
    return report.result


@contextmanager
def _opened(files: dict[str, str], root: str | None) -> Iterator[dict[str, IO[bytes]]]:
    """The files of an entry, open for reading (closed after the block): regular
    files only, and within ``root`` when it is given (``_Refused`` otherwise)."""
    with ExitStack() as stack:
        yield {key: stack.enter_context(_open_regular(path, root)) for key, path in files.items()}


def _open_regular(path: str, root: str | None) -> IO[bytes]:
    """A regular file opened for reading, named ``path`` in messages; _Refused
    (an OSError) for anything else, or for a file outside ``root``.

    What the path leads to is looked at before it is opened (opening some
    devices does something: a tape rewinds), and again on the descriptor
    opened, in case the path changed in between."""
    if root is not None and not _inside(os.path.realpath(path), root):
        raise _Refused(0, "is outside the manifest root", path)
    if not stat.S_ISREG(os.stat(path).st_mode):
        raise _Refused(0, _NOT_REGULAR, path)

    def opener(name: str, flags: int) -> int:
        # O_NONBLOCK: a FIFO put in the file's place opens at once, writer or
        # not (and is refused below).
        fd = os.open(name, flags | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise _Refused(0, _NOT_REGULAR, path)
            if root is not None and not _inside(_path_of(fd, name), root):
                raise _Refused(0, "is outside the manifest root", path)
            os.set_blocking(fd, True)
        except BaseException:
            os.close(fd)
            raise
        return fd

    return open(path, "rb", opener=opener)


_NOT_REGULAR = (
    "is not a regular file: a batch reads only regular files (not a FIFO, a device or a directory)"
)


def _path_of(fd: int, name: str) -> str:
    """The real path of the file open on ``fd`` (``name``: the path it was opened
    by): what the kernel says where it can (Linux), else ``name`` resolved
    again, as long as it still names the same file."""
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        real = os.path.realpath(name)
        try:
            same = os.path.samestat(os.fstat(fd), os.stat(real))
        except OSError:
            same = False
        return real if same else ""


def _inside(path: str, root: str) -> bool:
    return path != "" and os.path.commonpath([path, root]) == root


def _key_of(file: object, files: dict[str, str], cnf_first: bool) -> str | None:
    """The manifest key whose resolved path is ``file`` (the CNF first, when both
    keys name the same file and ``cnf_first``); None when no key does."""
    keys = [key for key, path in files.items() if path == file]
    if not keys:
        return None
    return keys[0] if cnf_first or len(keys) == 1 else keys[-1]
