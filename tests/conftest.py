"""Shared fixtures: the engines, the corpus, and the output schema."""

import importlib
import json
import os
from pathlib import Path

import pytest
from _helpers import CORPUS_ABSENT, corpus_dir, find_cadical


def pytest_addoption(parser):
    parser.addoption("--no-compiled", action="store_true",
                     help="deselect tests of the compiled engine (the pure build only)")


def pytest_configure(config):
    # Registered here too, so the markers hold wherever the tests run (wheels).
    config.addinivalue_line("markers", "compiled: needs the compiled engine")
    config.addinivalue_line("markers", "fuzz: long fuzzing campaign, run with -m fuzz")
    if config.getoption("--no-compiled") and os.environ.get("SAT_CLAIM_CHECK_REQUIRE_COMPILED"):
        raise pytest.UsageError("--no-compiled contradicts SAT_CLAIM_CHECK_REQUIRE_COMPILED")


def pytest_collection_modifyitems(config, items):
    if not config.getoption("--no-compiled"):
        return
    kept = [item for item in items if "compiled" not in item.keywords]
    config.hook.pytest_deselected(items=[i for i in items if i not in kept])
    items[:] = kept


@pytest.fixture(scope="session", params=[
    pytest.param("compiled", marks=pytest.mark.compiled),
    "reference",
])
def engine(request):
    """An engine name for run(..., engine=...).

    The compiled module is imported here directly, so a missing extension is
    an error, never a silent skip; only --no-compiled deselects it.
    """
    if request.param == "compiled":
        importlib.import_module("sat_claim_check._engine_c")
    return request.param


@pytest.fixture(scope="session")
def corpus() -> Path:
    """The shared corpus directory; the test skips when it is absent."""
    path = corpus_dir()
    if path is None:
        pytest.skip(CORPUS_ABSENT)
    return path


@pytest.fixture(scope="session")
def output_schema():
    from importlib import resources
    return json.loads(resources.files("sat_claim_check").joinpath(
        "schemas/output.schema.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def cadical() -> str:
    """A CaDiCaL binary (Debian's ``cadical``, installed by this setup step where
    the machine allows it); the test skips cleanly without one."""
    path = find_cadical()
    if path is None:
        pytest.skip("no cadical: not on the PATH, and the Debian package could not be "
                    "installed here")
    return path
