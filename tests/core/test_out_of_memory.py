"""Running out of memory is one error object, whatever the door.

A request within raised limits that this machine cannot allocate for is
``limit_exceeded`` naming the size that made the checker allocate the most,
with ``actual <= max``: from ``run()``, from a ``Checker``, from the files
(``run_files``, ``request --check``), from JSON text (``check_json``,
``check``); and the command line's hint says that raising the limits cannot
help.  Before, ``Checker()`` raised a bare MemoryError and ``request --check
--unlimited`` printed only "out of memory".  Each door runs in a child
process with its address space capped (Linux), so nothing here needs the
memory it asks for.
"""

import gzip
import json
import os
import subprocess
import sys
from typing import Any

import pytest

import sat_claim_check as scc
from sat_claim_check import _engines as _engine
from sat_claim_check import cli, dimacs
from sat_claim_check._core import options as _options

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="caps the address space with RLIMIT_AS"
)

# About 2**30 variables: gigabytes for either engine, refused by the cap below.
NUM_VARS = scc.Limits.unlimited().max_vars
CAP = 1 << 30

DOORS = r"""
import json, resource, sys
resource.setrlimit(resource.RLIMIT_AS, ({cap}, {cap}))
import sat_claim_check as scc
from sat_claim_check.dimacs import run_files
engine, door, d = sys.argv[1], sys.argv[2], sys.argv[3]
cnf = {{"num_vars": {n}, "clauses": [[1]]}}
U = scc.Limits.unlimited()
try:
    if door == "run":
        scc.run({{"cnf": cnf, "claim": "unsat", "proof": [{{"add": []}}]}}, engine=engine, limits=U)
    elif door == "Checker":
        scc.Checker(cnf, engine=engine, limits=U)
    elif door == "run_files":
        run_files(d + "/f.cnf", d + "/f.drup", engine=engine, limits=U)
    elif door == "check_json":
        out = scc.check_json(open(d + "/f.json", "rb").read(), engine=engine, limits=U)
        print(json.dumps(out.data)); sys.exit(0)
    print("no error")
except scc.CheckError as err:
    print(json.dumps(err.to_dict()))
except MemoryError:
    print("MemoryError")
"""


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("oom")
    (d / "f.cnf").write_text(f"p cnf {NUM_VARS} 1\n1 0\n")
    (d / "f.drup").write_text("0\n")
    (d / "f.json").write_text(
        json.dumps(
            {
                "cnf": {"num_vars": NUM_VARS, "clauses": [[1]]},
                "claim": "unsat",
                "proof": [{"add": []}],
            }
        )
    )
    return d


def capped(*args, code=None):
    """A child process under the address-space cap: ``python -c DOORS args`` or
    ``python -m sat_claim_check args``."""
    prefix = (
        ["-c", DOORS.format(cap=CAP, n=NUM_VARS)]
        if code is None
        else [
            "-c",
            f"import resource; resource.setrlimit(resource.RLIMIT_AS, ({CAP}, {CAP}))\n"
            "import runpy, sys; sys.argv[0] = 'sat-claim-check'\n"
            "runpy.run_module('sat_claim_check', run_name='__main__')",
        ]
    )
    env = {k: v for k, v in os.environ.items() if k != "SAT_CLAIM_CHECK_NO_EXTENSIONS"}
    return subprocess.run(
        [sys.executable, *prefix, *args], capture_output=True, text=True, timeout=120, env=env
    )


EXPECTED = {
    "error": "limit_exceeded",
    "field": "cnf",
    "path": "/cnf/num_vars",
    "limit": "max_vars",
    "max": NUM_VARS,
    "actual": NUM_VARS,
}


@pytest.mark.parametrize("door", ["run", "Checker", "run_files", "check_json"])
def test_every_python_door_gives_the_same_error(engine, door, files):
    out = capped(engine, door, str(files))
    assert out.returncode == 0, out.stderr
    error = json.loads(out.stdout)
    message = error.pop("message")
    assert error == EXPECTED
    assert "more than this machine could allocate memory for" in message
    assert out.stderr == ""


@pytest.mark.parametrize(
    "command",
    [
        ["check", "{d}/f.json"],
        ["request", "--check", "--cnf", "{d}/f.cnf", "--proof", "{d}/f.drup"],
    ],
)
def test_every_command_writes_the_error_object_and_an_honest_hint(engine, command, files):
    args = [a.format(d=files) for a in command] + ["--unlimited", "--engine", engine]
    out = capped(*args, code=True)
    assert out.returncode == 2, out.stderr
    error = json.loads(out.stdout)
    error.pop("message")
    assert error == EXPECTED
    assert "raising the limits cannot help" in out.stderr
    # Neither flag can lift it, and --unlimited was given already.
    assert "--unlimited" not in out.stderr and "--limit" not in out.stderr
    assert "Traceback" not in out.stderr


class _Starved:
    """A kernel module whose Kernel runs out of memory on its first proof step."""

    class Kernel:
        def __init__(self, *args, **kwargs):
            self.work = 0

        def start(self, progress):
            return 0

        def feed(self, *args):
            raise MemoryError

        def feed_step(self, *args):
            raise MemoryError


def test_memory_that_runs_out_in_a_proof_step(monkeypatch):
    # Past the contract's max_proof_steps: the proof's size is the one named.
    monkeypatch.setattr(_options, "resolve", lambda engine: ("reference", _Starved))
    checker = scc.Checker({"num_vars": 1, "clauses": []}, limits=scc.Limits.unlimited())
    steps = [{"add": [1, -1]}] * 3000
    with pytest.raises(scc.LimitExceeded) as info:
        checker.feed(steps)
    assert info.value.to_dict()["limit"] == "max_proof_steps"
    assert info.value.actual == 3000 and info.value.out_of_memory
    with pytest.raises(RuntimeError):
        checker.finish()


def test_memory_that_runs_out_within_the_contract_is_not_the_request(monkeypatch):
    # A request the contract allows cannot be blamed: the MemoryError comes out.
    monkeypatch.setattr(_options, "resolve", lambda engine: ("reference", _Starved))
    checker = scc.Checker({"num_vars": 1, "clauses": []})
    with pytest.raises(MemoryError):
        checker.add([1, -1])
    with pytest.raises(RuntimeError):
        checker.finish()


class _StarvedScanner:
    """The scanner in use, but running out of memory from its second whole-text
    scan on (the first, of the first mebibyte, has seen the header)."""

    def __init__(self, real: Any) -> None:
        self._real = real
        self.calls = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def parse_cnf(self, *args: Any) -> Any:
        self.calls += 1
        if self.calls > 1:
            raise MemoryError
        return self._real.parse_cnf(*args)


@pytest.mark.parametrize("door", ["run_files", "request_from_files", "command"])
def test_memory_that_runs_out_reading_a_cnf(tmp_path, monkeypatch, capsys, door):
    # A CNF whose scan runs out of memory: the header's counts explain it (before,
    # run_files and request --check let the MemoryError out: "out of memory").
    clauses = 400_000
    cnf = tmp_path / "big.cnf"
    cnf.write_text(f"p cnf 3 {clauses}\n" + "1 -2 3 0\n" * clauses)
    (tmp_path / "f.drup").write_text("0\n")
    scanner = _StarvedScanner(_engine.scanner())
    monkeypatch.setitem(_engine._chosen, "scanner", scanner)
    unlimited = scc.Limits.unlimited()
    if door == "command":
        code = cli.main(
            [
                "request",
                "--check",
                "--unlimited",
                "--cnf",
                str(cnf),
                "--proof",
                str(tmp_path / "f.drup"),
            ]
        )
        out, err = capsys.readouterr()
        assert code == 2
        error = json.loads(out)
        assert "raising the limits cannot help" in err
    else:
        with pytest.raises(scc.LimitExceeded) as info:
            if door == "run_files":
                dimacs.run_files(cnf, tmp_path / "f.drup", limits=unlimited)
            else:
                dimacs.request_from_files(cnf, tmp_path / "f.drup", limits=unlimited)
        error = info.value.to_dict()
        assert info.value.out_of_memory
    assert scanner.calls == 2
    assert (error["limit"], error["actual"], error["max"]) == (
        "max_clauses",
        clauses,
        unlimited.max_clauses,
    )


class _StarvedProofStream:
    """The text stream of a scanner twin that runs out of memory at its third
    part, a step still open: what it had read of that step is noted."""

    def __init__(self, twin: Any, noted: list[int]) -> None:
        self._real = twin.DrupTextStream()
        self._noted = noted
        self.calls = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def scan(self, data: Any, final: bool) -> Any:
        self.calls += 1
        if self.calls == 3:
            self._noted.append(self._real.open_literals)
            raise MemoryError
        return self._real.scan(data, final)


def _starve_proof_scans(monkeypatch: Any, twin_name: str) -> list[int]:
    twin = __import__(f"sat_claim_check._engines.{twin_name}", fromlist=["x"])
    noted: list[int] = []

    class Scanner:
        def __getattr__(self, name: str) -> Any:
            return getattr(twin, name)

        def DrupTextStream(self) -> _StarvedProofStream:  # the twin's name
            return _StarvedProofStream(twin, noted)

    monkeypatch.setitem(_engine._chosen, "scanner", Scanner())
    return noted


@pytest.mark.parametrize("twin", [pytest.param("scan_c", marks=pytest.mark.compiled), "scan_py"])
@pytest.mark.parametrize("door", ["one core", "--jobs 2", "command"])
def test_memory_that_runs_out_reading_a_proof_step(tmp_path, monkeypatch, capsys, twin, door):
    # A step of 600,000 literals still open when the scanner cannot hold it: the
    # proof's literals so far explain it (before: a bare "out of memory", nothing
    # on stdout).  Two steps of 3 literals came first.
    (tmp_path / "f.cnf").write_text("p cnf 3 2\n1 2 0\n-1 2 0\n")
    (tmp_path / "f.drup").write_text("2 1 2 0\n2 -1 2 0\n" + "1 " * 600_000 + "0\n")
    noted = _starve_proof_scans(monkeypatch, twin)
    unlimited = scc.Limits.unlimited()
    paths = str(tmp_path / "f.cnf"), str(tmp_path / "f.drup")
    if door == "command":
        code = cli.main(["verify", "--unlimited", *paths])
        out, err = capsys.readouterr()
        assert code == 2 and "raising the limits cannot help" in err, err
        error = json.loads(out)
    else:
        outcome = scc.check_files(*paths, limits=unlimited, jobs=1 if door == "one core" else 2)
        assert isinstance(outcome.error, scc.LimitExceeded) and outcome.error.out_of_memory
        error = outcome.error.to_dict()
    (open_literals,) = noted
    assert open_literals > 100_000  # two parts of the step were read
    assert (error["limit"], error["actual"], error["max"]) == (
        "max_proof_literals",
        6 + open_literals,
        unlimited.max_proof_literals,
    )


@pytest.mark.parametrize("door", ["one core", "--jobs 2"])
def test_a_failing_step_read_before_memory_ran_out_is_the_verdict(tmp_path, monkeypatch, door):
    (tmp_path / "f.cnf").write_text("p cnf 3 2\n1 2 0\n-1 2 0\n")
    (tmp_path / "f.drup").write_text("3 0\n" + "1 " * 600_000 + "0\n")  # step 0 is not RUP
    _starve_proof_scans(monkeypatch, "scan_py")
    outcome = scc.check_files(
        str(tmp_path / "f.cnf"),
        str(tmp_path / "f.drup"),
        limits=scc.Limits.unlimited(),
        jobs=1 if door == "one core" else 2,
    )
    assert outcome.report is not None
    assert outcome.report.result["reason"] == "lemma_not_rup"
    assert outcome.report.result["first_discrepancy"]["step_index"] == 0


def test_memory_that_runs_out_on_a_short_step_is_not_the_request(tmp_path, monkeypatch):
    # Within the contract's sizes, the request cannot be blamed: the MemoryError.
    (tmp_path / "f.cnf").write_text("p cnf 3 2\n1 2 0\n-1 2 0\n")
    (tmp_path / "f.drup").write_text("2" + " " * 600_000 + "0\n")  # one step, one literal
    _starve_proof_scans(monkeypatch, "scan_py")
    with pytest.raises(MemoryError):
        scc.check_files(
            str(tmp_path / "f.cnf"), str(tmp_path / "f.drup"), limits=scc.Limits.unlimited()
        )


@pytest.mark.compiled
def test_a_compressed_proof_of_one_endless_step_ends_in_the_error_object(tmp_path):
    # 1 MB of gzip members, 1 GiB of "1 " with no 0: the scanner runs out of the
    # capped address space within the first step (before: "out of memory" and
    # nothing on stdout, after minutes of copying the step part after part).
    member = gzip.compress(b"1 " * (1 << 20), 9)
    (tmp_path / "bomb.drup.gz").write_bytes(member * 512)
    (tmp_path / "f.cnf").write_text("p cnf 2 2\n1 2 0\n-1 0\n")
    out = capped(
        "verify", "--unlimited", str(tmp_path / "f.cnf"), str(tmp_path / "bomb.drup.gz"), code=True
    )
    assert out.returncode == 2, out.stderr
    error = json.loads(out.stdout)
    assert (error["limit"], error["max"]) == (
        "max_proof_literals",
        scc.Limits.unlimited().max_proof_literals,
    )
    assert 1_000_000 < error["actual"] < 1 << 29
    assert "raising the limits cannot help" in out.stderr and "Traceback" not in out.stderr
