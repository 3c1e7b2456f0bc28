"""The version is written once: ``__version__`` in ``sat_claim_check/__init__.py``.

pyproject.toml reads it at build time (``dynamic = ["version"]``), so the
installed distribution's metadata, the published tool description and the
changelog say the same.
"""

from __future__ import annotations

import re
from importlib import metadata

import pytest
from _contract import TOOL
from _helpers import REPO

import sat_claim_check as scc


def test_the_installed_metadata_has_the_package_version() -> None:
    # An editable install keeps the metadata of its install: reinstall after a bump.
    assert metadata.version("sat-claim-check") == scc.__version__


def test_the_version_is_a_release_number() -> None:
    assert re.fullmatch(r"\d+\.\d+\.\d+((a|b|rc)\d+)?(\.dev\d+)?", scc.__version__)


def test_the_tool_description_has_the_package_version() -> None:
    assert TOOL["version"] == scc.__version__


def _checkout_file(name: str) -> str:
    path = REPO / name
    if not path.is_file():
        pytest.skip(f"{name} is not beside the tests (not a checkout)")
    return path.read_text(encoding="utf-8")


def test_pyproject_does_not_write_the_version_again() -> None:
    text = _checkout_file("pyproject.toml")
    project = text.split("[project]", 1)[1].split("\n[", 1)[0]
    assert re.search(r"^version\s*=", project, re.M) is None
    assert re.search(r'^dynamic\s*=\s*\[[^]]*"version"', project, re.M)
    assert 'version = { attr = "sat_claim_check.__version__" }' in text


def test_the_changelog_has_a_section_for_the_version() -> None:
    text = _checkout_file("CHANGELOG.md")
    if ".dev" in scc.__version__:  # between releases: the changes so far
        assert re.search(r"^## \[Unreleased\]$", text, re.M)
        return
    heading = rf"^## \[{re.escape(scc.__version__)}\] - \d{{4}}-\d{{2}}-\d{{2}}$"
    assert re.search(heading, text, re.M), (
        f"CHANGELOG.md has no '## [{scc.__version__}] - YYYY-MM-DD' section"
    )
