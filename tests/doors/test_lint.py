"""The linters of the development loop, so that CI enforces them.

ruff checks every Python file of the checkout, cython-lint the .pyx and .pxd
files, both with the settings in pyproject.toml. They need a checkout (the
wheel tests run from a copy of tests/ alone) and the linters of the test
extra; without either these tests skip.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from _helpers import REPO


def _checkout() -> Path:
    if not (REPO / "pyproject.toml").is_file() or not (REPO / "src").is_dir():
        pytest.skip("not run from a checkout (no pyproject.toml and src/ beside tests/)")
    return REPO


def _lint(module: str, *args: str) -> subprocess.CompletedProcess[str]:
    package = module.split(".")[0]
    if importlib.util.find_spec(package) is None:
        pytest.skip(f"{package} is not installed (pip install -e '.[test]')")
    # cython-lint runs the pycodestyle command: find it beside this interpreter's
    # scripts even when the environment is not activated.
    path = os.pathsep.join([sysconfig.get_path("scripts"), os.environ.get("PATH", "")])
    return subprocess.run([sys.executable, "-m", module, *args], cwd=_checkout(),
                          env={**os.environ, "PATH": path}, capture_output=True, text=True,
                          timeout=120, check=False)


def test_ruff_is_clean() -> None:
    out = _lint("ruff", "check", "--no-cache", "--output-format", "concise", ".")
    assert out.returncode == 0, out.stdout + out.stderr


def test_cython_lint_is_clean() -> None:
    files = sorted(str(p.relative_to(REPO)) for pattern in ("*.pyx", "*.pxd")
                   for p in (REPO / "src").rglob(pattern))
    if not files:
        pytest.skip("no Cython sources beside the tests")
    # The package has no __main__; its command is this module's.
    out = _lint("cython_lint.cython_lint", *files)
    assert out.returncode == 0, out.stdout + out.stderr
    assert len(files) >= 4      # the three .pyx and the kernel's .pxd, at least
