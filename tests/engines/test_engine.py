"""Choosing the engine: auto, compiled, reference, and the pure build."""

import importlib
import os
import subprocess
import sys

import pytest
from _helpers import parameter_names

import sat_claim_check as scc

REQUEST = {"cnf": {"num_vars": 1, "clauses": [[1], [-1]]}, "claim": "unsat", "proof": [{"add": []}]}


def python(code, **env):
    """Run code in a fresh isolated interpreter that turns warnings into errors."""
    environment = {k: v for k, v in os.environ.items() if k != "SAT_CLAIM_CHECK_NO_EXTENSIONS"}
    environment.update(env)
    return subprocess.run(
        check=False,
        args=[sys.executable, "-I", "-W", "error", "-c", code],
        capture_output=True,
        text=True,
        env=environment,
        timeout=60,
    )


@pytest.mark.compiled
def test_auto_picks_compiled():
    out = python(f"import sat_claim_check as s; print(s.run({REQUEST!r}).engine)")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "compiled"


def test_variable_gives_reference_and_compiled_raises():
    code = (
        "import sat_claim_check as s\n"
        f"print(s.run({REQUEST!r}).engine)\n"
        "try:\n"
        f"    s.run({REQUEST!r}, engine='compiled')\n"
        "except ImportError as e:\n"
        "    print('ImportError:', e)\n"
    )
    out = python(code, SAT_CLAIM_CHECK_NO_EXTENSIONS="1")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "reference"
    assert lines[1].startswith("ImportError:")
    assert "SAT_CLAIM_CHECK_NO_EXTENSIONS" in lines[1]


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


TWINS = [
    ("kernel_c", "kernel_py", ["Kernel"]),
    ("convert_c", "convert_py", ["flatten", "flatten_steps", "mark_out_of_range", "unique_keys"]),
    ("scan_c", "scan_py", ["parse_cnf", "parse_drup", "DrupTextStream", "BinaryDrupStream"]),
    ("request_c", "request_py", ["read_request"]),
]


@pytest.mark.compiled
@pytest.mark.parametrize(("compiled", "pure", "names"), TWINS)
def test_every_compiled_module_has_a_pure_twin_with_the_same_names(compiled, pure, names):
    compiled = importlib.import_module(f"sat_claim_check._engines.{compiled}")
    pure = importlib.import_module(f"sat_claim_check._engines.{pure}")
    for name in names:
        c, p = getattr(compiled, name), getattr(pure, name)
        assert parameter_names(c) == parameter_names(p), name


@pytest.mark.compiled
def test_the_selector_hands_out_the_compiled_twins_together():
    from sat_claim_check import _engines as _engine

    assert _engine.resolve("compiled")[1].__name__ == "sat_claim_check._engines.kernel_c"
    assert _engine.converter().__name__ == "sat_claim_check._engines.convert_c"
    assert _engine.scanner().__name__ == "sat_claim_check._engines.scan_c"
    assert _engine.request_reader().__name__ == "sat_claim_check._engines.request_c"
    assert _engine.implementations() == {
        "kernel": "compiled",
        "converter": "compiled",
        "scanner": "compiled",
        "json reader": "compiled",
    }


def test_codes_are_distinct_small_ints():
    from sat_claim_check._core import codes as _codes

    for prefix in ("STEP_", "STATUS_", "SCAN_", "EXIT_"):
        values = [
            getattr(_codes, n) for n in dir(_codes) if n.startswith(prefix) and n != "STEP_KEYS"
        ]
        assert len(values) >= 4, prefix
        assert all(type(v) is int for v in values), prefix
        assert len(set(values)) == len(values), prefix
