"""Shared fixtures: the engines, the corpus, and the output schema."""

import importlib
import json
import os
import signal
from pathlib import Path

import pytest
from _helpers import CORPUS_ABSENT, corpus_dir, find_cadical


def pytest_addoption(parser):
    parser.addoption(
        "--no-compiled",
        action="store_true",
        help="deselect tests of the compiled engine (the pure build only)",
    )


def pytest_configure(config):
    # Registered here too, so the markers hold wherever the tests run (wheels).
    config.addinivalue_line("markers", "compiled: needs the compiled engine")
    config.addinivalue_line("markers", "fuzz: long fuzzing campaign, run with -m fuzz")
    config.addinivalue_line(
        "markers", "timing: a latency bound for a quiet machine, run with -m timing"
    )
    if config.getoption("--no-compiled") and os.environ.get("SAT_CLAIM_CHECK_REQUIRE_COMPILED"):
        raise pytest.UsageError("--no-compiled contradicts SAT_CLAIM_CHECK_REQUIRE_COMPILED")
    # A suite started in the background (`pytest &`, nohup) inherits SIGINT
    # ignored, and so would every process it starts: the tests of Ctrl-C need
    # the disposition a terminal gives.  A Python handler here is reset to the
    # default in each child at exec.
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_collection_modifyitems(config, items):
    if not config.getoption("--no-compiled"):
        return
    kept = [item for item in items if "compiled" not in item.keywords]
    config.hook.pytest_deselected(items=[i for i in items if i not in kept])
    items[:] = kept


@pytest.fixture(
    scope="session",
    params=[
        pytest.param("compiled", marks=pytest.mark.compiled),
        "reference",
    ],
)
def engine(request):
    """An engine name for run(..., engine=...).

    The compiled module is imported here directly, so a missing extension is
    an error, never a silent skip; only --no-compiled deselects it.
    """
    if request.param == "compiled":
        importlib.import_module("sat_claim_check._engines.kernel_c")
    return request.param


# The parts that come as twins besides the kernel, and their modules.
TWINS = {
    "converter": ("convert_c", "convert_py"),
    "scanner": ("scan_c", "scan_py"),
    "request_reader": ("request_c", "request_py"),
}


@pytest.fixture(params=[pytest.param("compiled", marks=pytest.mark.compiled), "pure"])
def twins(request, monkeypatch):
    """The converter, scanner and request reader of one build, "compiled" or
    "pure", put in place where the package chooses them (``_engine``): every
    door in this process then uses them.  The kernel is ``engine``'s to pick.
    (A missing compiled module is an error, never a skip.)"""
    from sat_claim_check import _engines as _engine

    assert set(TWINS) == set(_engine._chosen), "a twin the fixture does not swap"
    for part, names in TWINS.items():
        name = names[0] if request.param == "compiled" else names[1]
        monkeypatch.setitem(
            _engine._chosen, part, importlib.import_module(f"sat_claim_check._engines.{name}")
        )
    return request.param


@pytest.fixture(
    params=[8.0, pytest.param(1.0, marks=pytest.mark.timing)], ids=["any-machine", "quiet-machine"]
)
def slack(request) -> float:
    """What a test's wall-clock bounds are multiplied by: 8 in the default run,
    which must pass on a loaded machine (a core busy), and 1 under ``-m timing``,
    which ``.ci/run`` runs on its own: the latency the docs state.  The bounds
    guard against regressions of orders of magnitude (a signal ignored for 100
    s), which 8 times still catches."""
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

    return json.loads(
        resources.files("sat_claim_check")
        .joinpath("schemas/output.schema.json")
        .read_text(encoding="utf-8")
    )


@pytest.fixture(scope="session")
def cadical() -> str:
    """A CaDiCaL binary (Debian's ``cadical``, installed by this setup step where
    the machine allows it); the test skips cleanly without one."""
    path = find_cadical()
    if path is None:
        pytest.skip(
            "no cadical: not on the PATH, and the Debian package could not be installed here"
        )
    return path
