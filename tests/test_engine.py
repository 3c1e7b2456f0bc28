"""Choosing the engine: auto, compiled, reference, and the pure build."""

import inspect
import os
import subprocess
import sys

import pytest

import sat_claim_check as scc
from sat_claim_check import _engine_py

REQUEST = {"cnf": {"num_vars": 1, "clauses": [[1], [-1]]}, "claim": "unsat",
           "proof": [{"add": []}]}


def python(code, **env):
    """Run code in a fresh isolated interpreter that turns warnings into errors."""
    environment = {k: v for k, v in os.environ.items()
                   if k != "SAT_CLAIM_CHECK_NO_EXTENSIONS"}
    environment.update(env)
    return subprocess.run(check=False, args=[sys.executable, "-I", "-W", "error", "-c", code],
                          capture_output=True, text=True, env=environment, timeout=60)


@pytest.mark.compiled
def test_auto_picks_compiled():
    out = python("import sat_claim_check as s; "
                 f"print(s.run({REQUEST!r}).engine)")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "compiled"


def test_variable_gives_reference_and_compiled_raises():
    code = (
        "import sat_claim_check as s\n"
        f"print(s.run({REQUEST!r}).engine)\n"
        "try:\n"
        f"    s.run({REQUEST!r}, engine='compiled')\n"
        "except ImportError as e:\n"
        "    print('ImportError:', e)\n")
    out = python(code, SAT_CLAIM_CHECK_NO_EXTENSIONS="1")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "reference"
    assert lines[1].startswith("ImportError:")
    assert "SAT_CLAIM_CHECK_NO_EXTENSIONS" in lines[1]


def test_version_names_the_engine():
    out = subprocess.run(check=False, args=[sys.executable, "-m", "sat_claim_check", "--version"],
                         capture_output=True, text=True, timeout=60,
                         env={**os.environ, "SAT_CLAIM_CHECK_NO_EXTENSIONS": "1"})
    assert out.returncode == 0
    assert out.stdout.startswith(f"sat-claim-check {scc.__version__} (engine: reference;")


def test_unknown_engine_is_a_value_error():
    with pytest.raises(ValueError, match="engine must be one of"):
        scc.run(REQUEST, engine="fast")


def test_limits_must_be_limits():
    with pytest.raises(TypeError):
        scc.run(REQUEST, limits={"max_vars": 3})
    with pytest.raises(ValueError):
        scc.Limits(max_vars=-1)
    with pytest.raises(ValueError):
        scc.Limits(max_vars=True)


def test_report_names_the_engine(engine):
    assert scc.run(REQUEST, engine=engine).engine == engine


@pytest.mark.compiled
def test_both_modules_have_the_same_surface():
    from sat_claim_check import _engine_c

    def public(module):
        return {name for name in dir(module)
                if name.startswith(("STATUS_", "STEP_")) or name == "Kernel"}

    assert public(_engine_py) <= public(_engine_c)
    for name in public(_engine_py):
        if name != "Kernel":
            assert getattr(_engine_c, name) == getattr(_engine_py, name), name
    assert (list(inspect.signature(_engine_c.Kernel).parameters)
            == list(inspect.signature(_engine_py.Kernel).parameters))
