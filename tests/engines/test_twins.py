"""Every twin is exercised through every door that uses it.

The converter, the scanner and the request reader each come compiled and in
pure Python; the package chooses them in one place (``_engine``) and every
door asks there when it runs.  A fixture that put the pure scanner in place
used to miss the streaming path (run_files and parse_files made no call to the
pure ``DrupTextStream.scan``): here, with the pure twins in place, each door
is run and the calls into the pure modules are counted.  The command line,
batch workers and the service run in child processes: ``.ci/run`` runs the
whole suite once more with SAT_CLAIM_CHECK_NO_EXTENSIONS=1 for those.
"""

from __future__ import annotations

import gzip
import io
import json
from collections import Counter
from pathlib import Path
from typing import Any, Callable

import pytest

import sat_claim_check as scc
from sat_claim_check import _engines as _engine
from sat_claim_check import cli, dimacs
from sat_claim_check._batch.manifest import Manifest
from sat_claim_check._batch.protocol import check_one
from sat_claim_check._core.options import Options
from sat_claim_check._engines import convert_py, request_py, scan_py

CNF = "p cnf 2 4\n1 2 0\n-1 2 0\n1 -2 0\n-1 -2 0\n"
PROOF = "2 0\n0\n"
BINARY = b"a\x04\x00a\x00"  # the same steps, binary: 2 0, then 0
REQUEST = {
    "cnf": {"num_vars": 2, "clauses": [[1, 2], [-1, 2], [1, -2], [-1, -2]]},
    "claim": "unsat",
    "proof": [{"add": [2]}, {"add": []}],
}


@pytest.fixture()
def calls(monkeypatch):
    """Counts of the calls into the pure twins, with the pure twins in place."""
    counts: Counter[str] = Counter()

    def spy(owner: Any, name: str, label: str) -> None:
        original = getattr(owner, name)

        def counted(*args: Any, **kwargs: Any) -> Any:
            counts[label] += 1
            return original(*args, **kwargs)

        monkeypatch.setattr(owner, name, counted)

    for name in ("flatten", "flatten_steps", "first_step_over", "mark_out_of_range", "unique_keys"):
        spy(convert_py, name, f"converter.{name}")
    for name in ("parse_cnf", "parse_drup"):
        spy(scan_py, name, f"scanner.{name}")
    spy(scan_py.DrupTextStream, "scan", "scanner.text stream")
    spy(scan_py.BinaryDrupStream, "scan", "scanner.binary stream")
    spy(scan_py.CnfTextStream, "scan", "scanner.cnf stream")
    spy(request_py, "read_request", "request reader")
    for part, module in (
        ("converter", convert_py),
        ("scanner", scan_py),
        ("request_reader", request_py),
    ):
        monkeypatch.setitem(_engine._chosen, part, module)
    return counts


@pytest.fixture()
def files(tmp_path: Path) -> Path:
    (tmp_path / "f.cnf").write_text(CNF)
    (tmp_path / "f.drup").write_text(PROOF)
    (tmp_path / "f.bin").write_bytes(BINARY)
    # Larger than a part: the proof is read ahead by a thread.
    (tmp_path / "big.drup.gz").write_bytes(
        gzip.compress((("1 -1 0\nd 1 -1 0\n" * 40_000) + PROOF).encode())
    )
    (tmp_path / "f.model").write_text("v 1 -2 0\n")
    (tmp_path / "sat.cnf").write_text("p cnf 2 2\n1 0\n-2 0\n")
    (tmp_path / "f.json").write_text(json.dumps(REQUEST))
    return tmp_path


def main(*args: str, stdin: bytes = b"") -> None:
    """The command line, in this process (its stdout is captured by pytest)."""
    import sys

    old = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin))
    try:
        assert cli.main(list(args)) in (0, 1)
    finally:
        sys.stdin = old


def unlimited(door: Callable[..., Any]) -> Callable[..., Any]:
    return lambda *args, **kwargs: door(*args, limits=scc.Limits.unlimited(), **kwargs)


DOORS: dict[str, tuple[Callable[[Path], Any], set[str]]] = {
    "run_files text": (
        lambda d: dimacs.run_files(d / "f.cnf", d / "f.drup"),
        {"scanner.parse_cnf", "scanner.text stream", "converter.first_step_over"},
    ),
    "run_files binary": (
        lambda d: dimacs.run_files(d / "f.cnf", d / "f.bin"),
        {"scanner.parse_cnf", "scanner.binary stream"},
    ),
    "run_files read ahead": (
        lambda d: unlimited(dimacs.run_files)(d / "f.cnf", d / "big.drup.gz"),
        {"scanner.parse_cnf", "scanner.text stream"},
    ),
    "run_files model": (
        lambda d: dimacs.run_files(d / "sat.cnf", model_path=d / "f.model"),
        {"scanner.cnf stream", "converter.flatten"},
    ),
    "parse_files": (
        lambda d: dimacs.parse_files(d / "f.cnf", d / "f.drup", None),
        {"scanner.parse_cnf", "scanner.text stream"},
    ),
    "request_from_files": (
        lambda d: dimacs.request_from_files(d / "f.cnf", d / "f.drup"),
        {"scanner.parse_cnf", "scanner.text stream"},
    ),
    "run_dimacs": (
        lambda d: dimacs.run_dimacs(CNF, PROOF),
        {"scanner.parse_cnf", "scanner.parse_drup"},
    ),
    "request_from_dimacs": (
        lambda d: scc.request_from_dimacs(CNF, proof=PROOF),
        {"scanner.parse_cnf", "scanner.parse_drup"},
    ),
    "run": (lambda d: scc.run(REQUEST), {"converter.flatten", "converter.flatten_steps"}),
    "Checker": (
        lambda d: scc.Checker(REQUEST["cnf"]).feed(REQUEST["proof"]),
        {"converter.flatten", "converter.flatten_steps"},
    ),
    "explain": (lambda d: scc.explain(REQUEST), {"converter.flatten"}),
    "check_json": (
        lambda d: scc.check_json(json.dumps(REQUEST)),
        {"request reader", "converter.unique_keys", "converter.flatten"},
    ),
    "batch line": (
        lambda d: check_one(Options.of(), 1, json.dumps(REQUEST).encode()),
        {"request reader", "converter.unique_keys"},
    ),
    "manifest line": (
        lambda d: check_one(
            Options.of(), 1, b'{"cnf": "f.cnf", "proof": "f.drup"}', Manifest(str(d))
        ),
        {"converter.unique_keys", "scanner.parse_cnf", "scanner.text stream"},
    ),
    "command check": (
        lambda d: main("check", str(d / "f.json")),
        {"request reader", "converter.unique_keys"},
    ),
    "command request --check": (
        lambda d: main(
            "request", "--check", "--cnf", str(d / "f.cnf"), "--proof", str(d / "f.drup")
        ),
        {"scanner.parse_cnf", "scanner.text stream"},
    ),
    "command request": (
        lambda d: main("request", "--cnf", str(d / "f.cnf"), "--proof", str(d / "f.drup")),
        {"scanner.parse_cnf", "scanner.text stream"},
    ),
}


@pytest.mark.parametrize("door", DOORS)
def test_the_pure_twins_are_used_through_every_door(
    door: str, calls: Counter[str], files: Path
) -> None:
    run, parts = DOORS[door]
    run(files)
    missing = {part for part in parts if calls[part] == 0}
    assert not missing, (door, dict(calls))


def test_the_choice_is_made_once_and_asked_for_at_call_time() -> None:
    # No module keeps its own copy of a twin: the old module-level captures
    # (dimacs._scanner, _validate._convert, ...) are gone.
    from sat_claim_check._core import jsontext as _jsontext
    from sat_claim_check._core import validate as _validate
    from sat_claim_check._io import dimacs_text as _dimacs_text
    from sat_claim_check._io import proofstream as _proofstream
    from sat_claim_check._io import whole_files as _whole_files

    for module in (dimacs, _dimacs_text, _whole_files, _proofstream, _validate, _jsontext):
        kept = [
            name
            for name, value in vars(module).items()
            if value
            in (
                _engine._chosen["converter"],
                _engine._chosen["scanner"],
                _engine._chosen["request_reader"],
            )
            or getattr(value, "__self__", None) in _engine._chosen.values()
        ]
        assert kept == [], (module.__name__, kept)


# -- a build imports only the twins it uses ------------------------------------------

IMPORTED = """
import sys
import sat_claim_check as scc
scc.check_json(b'{"cnf": {"num_vars": 1, "clauses": [[1], [-1]]}, "claim": "unsat",'
               b' "proof": [{"add": []}]}')
scc.dimacs.run_dimacs("p cnf 1 2\\n1 0\\n-1 0\\n", "0\\n")
print(" ".join(sorted(name.rsplit(".", 1)[1] for name in sys.modules
                      if name.startswith("sat_claim_check._engines."))))
"""


def _twins_imported(no_extensions: bool) -> set[str]:
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "SAT_CLAIM_CHECK_NO_EXTENSIONS"}
    if no_extensions:
        env["SAT_CLAIM_CHECK_NO_EXTENSIONS"] = "1"
    out = subprocess.run(
        [sys.executable, "-c", IMPORTED],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return set(out.stdout.split()) - {"tokens"}


def test_a_pure_build_imports_no_compiled_module() -> None:
    assert _twins_imported(no_extensions=True) == {
        "kernel_py",
        "convert_py",
        "scan_py",
        "scan_binary_py",  # scan_py's binary half, a module of its own
        "lrat_py",  # kernel_py's LRAT lines
        "request_py",
    }


@pytest.mark.compiled
def test_a_compiled_build_imports_no_pure_twin_it_does_not_use() -> None:
    assert _twins_imported(no_extensions=False) == {"kernel_c", "convert_c", "scan_c", "request_c"}
