"""Chooses the implementations: the only module that knows there are twins.

Four parts of the package come as a compiled module and a pure-Python twin
with the same names and the same answers:

* the kernel (``kernel_c`` / ``kernel_py``), chosen per call by ``engine=``;
* the request converter (``convert_c`` / ``convert_py``), the fast path of
  validation and the JSON object hook;
* the DIMACS/DRUP scanner (``scan_c`` / ``scan_py``);
* the request reader (``request_c`` / ``request_py``), the fast way from
  JSON text to the flat arrays (the pure twin always declines, which leaves
  the text to ``json.loads`` and validation: the same answers).

The compiled modules are one build: either all four import, or none is
used.  ``SAT_CLAIM_CHECK_NO_EXTENSIONS=1`` (or an interpreter other than
CPython) turns them all off.  A module is imported only when it is used: a
pure build imports no compiled module, and a compiled one imports the pure
twins only for ``engine="reference"`` (the reference kernel).
"""

from __future__ import annotations

import importlib
import os
import platform
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from .._core.types import (
        Compiled,
        ConverterModule,
        KernelModule,
        KernelName,
        RequestReaderModule,
        ScannerModule,
    )

__all__ = [
    "ENGINES",
    "compiled_available",
    "converter",
    "default_engine",
    "implementations",
    "request_reader",
    "resolve",
    "scanner",
]

ENGINES = ("auto", "compiled", "reference")
NO_EXTENSIONS_VARIABLE = "SAT_CLAIM_CHECK_NO_EXTENSIONS"


def _load_compiled() -> tuple[Compiled | None, ImportError | None]:
    """(kernel, converter, scanner, request reader) compiled modules, or (None,
    the ImportError)."""
    if os.environ.get(NO_EXTENSIONS_VARIABLE):
        return None, ImportError(
            f"the compiled engine is disabled: {NO_EXTENSIONS_VARIABLE} is set"
        )
    if platform.python_implementation() != "CPython":
        return None, ImportError(
            f"the compiled engine needs CPython, not {platform.python_implementation()}"
        )
    try:
        modules = tuple(
            importlib.import_module(f"{__package__}.{name}")
            for name in ("kernel_c", "convert_c", "scan_c", "request_c")
        )
    except ImportError as exc:  # a pure build, or a broken install
        error = ImportError(f"the compiled engine is not built here ({exc})")
        error.__cause__ = exc
        return None, error
    return cast("Compiled", modules), None  # the .pyi stubs type them


_compiled, _compiled_error = _load_compiled()


# The twins in use, chosen once, here: every module asks for them at call time
# (scanner(), converter(), request_reader()), never keeps its own copy, so the
# choice holds at every door.  (The tests swap one here to reach every door
# with the other twin.)
def _pure(name: str) -> Any:
    return importlib.import_module(f"{__package__}.{name}")


_chosen: dict[str, Any] = (
    {
        "converter": _pure("convert_py"),
        "scanner": _pure("scan_py"),
        "request_reader": _pure("request_py"),
    }
    if _compiled is None
    else {"converter": _compiled[1], "scanner": _compiled[2], "request_reader": _compiled[3]}
)


def compiled_available() -> bool:
    """Whether the compiled modules are built and in use."""
    return _compiled is not None


def default_engine() -> KernelName:
    """The name "auto" resolves to."""
    return "compiled" if _compiled is not None else "reference"


def resolve(engine: str) -> tuple[KernelName, KernelModule]:
    """Return (name, kernel module) for "auto", "compiled" or "reference"."""
    if engine == "auto":
        engine = default_engine()
    if engine == "reference":
        return "reference", cast("KernelModule", _pure("kernel_py"))
    if engine == "compiled":
        if _compiled is None:
            raise ImportError(
                "engine='compiled' is not available: "
                f"{_compiled_error}. Install a wheel, build from source with a C "
                "compiler, or use engine='reference'."
            ) from _compiled_error
        return "compiled", _compiled[0]
    raise ValueError(f"engine must be one of {', '.join(map(repr, ENGINES))}, got {engine!r}")


def converter() -> ConverterModule:
    """The request converter module: compiled when built, else the pure twin."""
    return cast("ConverterModule", _chosen["converter"])


def scanner() -> ScannerModule:
    """The DIMACS/DRUP scanner module: compiled when built, else the pure twin."""
    return cast("ScannerModule", _chosen["scanner"])


def request_reader() -> RequestReaderModule:
    """The request reader module: compiled when built, else the pure twin."""
    return cast("RequestReaderModule", _chosen["request_reader"])


def implementations() -> dict[str, KernelName]:
    """{part: "compiled" or "reference"} for the kernel "auto" picks, the
    converter, the scanner and the JSON reader (what ``--version`` reports)."""
    name = default_engine()
    return {"kernel": name, "converter": name, "scanner": name, "json reader": name}
