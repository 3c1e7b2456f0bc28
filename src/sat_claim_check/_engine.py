"""Chooses the engine: the only module that knows there are two."""

import importlib
import os
import platform

from . import _engine_py

ENGINES = ("auto", "compiled", "reference")
NO_EXTENSIONS_VARIABLE = "SAT_CLAIM_CHECK_NO_EXTENSIONS"

_compiled = None
_compiled_error = None

if os.environ.get(NO_EXTENSIONS_VARIABLE):
    _compiled_error = ImportError(
        f"the compiled engine is disabled: {NO_EXTENSIONS_VARIABLE} is set")
elif platform.python_implementation() != "CPython":
    _compiled_error = ImportError(
        f"the compiled engine needs CPython, not {platform.python_implementation()}")
else:
    try:
        _compiled = importlib.import_module(__package__ + "._engine_c")
    except ImportError as exc:  # a pure build, or a broken install
        _compiled_error = ImportError(f"the compiled engine is not built here ({exc})")
        _compiled_error.__cause__ = exc


def compiled_module(name):
    """A compiled helper module of the package, or None where extensions are off."""
    if _compiled is None:
        return None
    try:
        return importlib.import_module(f"{__package__}.{name}")
    except ImportError:
        return None


def compiled_available():
    return _compiled is not None


def default_engine():
    """The name "auto" resolves to."""
    return "compiled" if _compiled is not None else "reference"


def resolve(engine):
    """Return (name, module) for "auto", "compiled" or "reference"."""
    if engine == "auto":
        engine = default_engine()
    if engine == "reference":
        return "reference", _engine_py
    if engine == "compiled":
        if _compiled is None:
            raise ImportError(
                "engine='compiled' is not available: "
                f"{_compiled_error}. Install a wheel, build from source with a C "
                "compiler, or use engine='reference'.") from _compiled_error
        return "compiled", _compiled
    raise ValueError(f"engine must be one of {', '.join(map(repr, ENGINES))}, got {engine!r}")
