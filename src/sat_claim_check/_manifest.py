"""Manifest lines for ``batch --manifest``: files to check instead of JSON requests.

A manifest line is a JSON object naming the files of one certificate::

    {"id": "php5", "cnf": "php5.cnf", "proof": "php5.drup.gz"}
    {"id": "uf20", "cnf": "uf20.cnf", "model": "uf20.model"}

``cnf`` and exactly one of ``proof`` (an unsat claim) and ``model`` (a sat
claim) are paths, read with the DIMACS front door (``dimacs.run_files``: gzip,
xz and bz2 read transparently); a relative path is resolved against the manifest's
directory (the current directory for standard input).  ``id`` is optional, a
string or an integer, and goes first on the output line as for an envelope.

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
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ._batch import answer_line
from ._envelope import Ident, check_id
from ._jsontext import loads
from ._validate import type_name
from .dimacs import DimacsError, run_files
from .errors import InvalidInput

if TYPE_CHECKING:
    from ._types import Deletions, EngineName, Result
    from .limits import Limits

__all__ = ["MANIFEST_KEYS", "check_manifest_line"]

MANIFEST_KEYS = ("id", "cnf", "proof", "model")


def check_manifest_line(engine: EngineName, limits: Limits | None, number: int,
                        line: bytes | str,
                        base: str, memory: int | None = None,
                        deletions: Deletions = "strict") -> tuple[int, str]:
    """Check the files one numbered manifest line names: its kind and its output
    line, as ``_batch.check_line`` gives for a request.  ``base`` is the
    directory relative paths are resolved against; ``deletions`` as for ``run``."""
    def check(text: bytes, note_id: Callable[[Ident], None]) -> Result:
        entry = loads(text)
        ident = entry_id(entry)
        if ident is not None:
            note_id(ident)
        return _check_entry(entry, base, engine, limits, deletions)

    return answer_line(number, line, memory, "manifest entry", check)


def entry_id(entry: Any) -> Ident | None:
    """The id of a manifest entry (None without one); InvalidInput when the entry
    is not an object or its id is not a string or an integer."""
    if not isinstance(entry, dict):
        raise InvalidInput(None, "", f"a manifest line must be an object, got {type_name(entry)}")
    return check_id(entry["id"]) if "id" in entry else None


def _check_entry(entry: dict[str, Any], base: str, engine: EngineName,
                 limits: Limits | None, deletions: Deletions = "strict") -> Result:
    for key in entry:
        if key not in MANIFEST_KEYS:
            raise InvalidInput(key, f"/{key}",
                               f"unknown key {key!r}; allowed: {', '.join(MANIFEST_KEYS)}")
    if "cnf" not in entry:
        raise InvalidInput("cnf", "/cnf", "missing required key 'cnf' (the DIMACS CNF file)")
    if ("proof" in entry) == ("model" in entry):
        raise InvalidInput(None, "", "give exactly one of 'proof' (a DRUP proof: an unsat "
                                     "claim) and 'model' (a sat claim)")
    role = "proof" if "proof" in entry else "model"
    written = {key: entry[key] for key in ("cnf", role)}
    for key, path in written.items():
        if not isinstance(path, str) or not path:
            raise InvalidInput(key, f"/{key}",
                               f"{key} must be a non-empty string (a path), got "
                               f"{'an empty string' if path == '' else type_name(path)}")
        if "\0" in path:
            raise InvalidInput(key, f"/{key}", f"{key}: a path cannot hold a NUL character")
    files = {key: os.path.join(base, path) for key, path in written.items()}
    try:
        report = run_files(files["cnf"], files.get("proof"), files.get("model"),
                           engine=engine, limits=limits, deletions=deletions)
    except DimacsError as err:
        at = _key_of(err.file, files, err.message.startswith("CNF"))
        name = written[at] if at is not None else err.file
        raise InvalidInput(at, f"/{at}" if at else "",
                           str(DimacsError(err.message, name, err.line, err.offset))) from None
    except OSError as exc:
        at = _key_of(exc.filename, files, True)
        if at is None:      # a read error (not an open error) carries no file name
            what = " or ".join(repr(path) for path in written.values())
        else:
            what = repr(written[at])
        raise InvalidInput(at, f"/{at}" if at else "",
                           f"cannot read {what}: {exc.strerror or exc}") from None
    return report.result


def _key_of(file: object, files: dict[str, str], cnf_first: bool) -> str | None:
    """The manifest key whose resolved path is ``file`` (the CNF first, when both
    keys name the same file and ``cnf_first``); None when no key does."""
    keys = [key for key, path in files.items() if path == file]
    if not keys:
        return None
    return keys[0] if cnf_first or len(keys) == 1 else keys[-1]
