"""`batch` with ids: envelopes {"id": ..., "request": ...} and `--manifest` files.

An envelope's output line is the bare request's with "id" put first; anything
that is not exactly an envelope is a request like any other. A manifest line
names files; every fault in it or in its files is an error object for that
line. Both hold with --jobs 1 and with workers.
"""

from __future__ import annotations

import gzip
import io
import json
import multiprocessing
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from _helpers import REPO, cli, kill_workers_on

from sat_claim_check._batch import local as _batch
from sat_claim_check._batch.console import BatchProgress
from sat_claim_check._batch.envelope import line_id
from sat_claim_check._batch.sizing import available_cpus
from sat_claim_check._core.jsontext import dumps

EXAMPLES = REPO / "examples"
SAT = {"cnf": {"num_vars": 2, "clauses": [[1], [-2]]}, "claim": "sat", "assignment": [1, -2]}
NOT_RUP = {"cnf": {"num_vars": 2, "clauses": [[1, 2]]}, "claim": "unsat", "proof": [{"add": [1]}]}
OVER = {"cnf": {"num_vars": 10**9, "clauses": []}, "claim": "sat", "assignment": []}
BAD = {"cnf": {"num_vars": 1, "clauses": [[2]]}, "claim": "sat", "assignment": [1]}


def batch(data: bytes, *args: str, cwd: Path | None = None) -> tuple[int, list[str]]:
    out = cli("batch", *args, stdin=data, cwd=cwd)
    assert b"Traceback" not in out.stderr, out.stderr
    return out.returncode, out.stdout.decode().splitlines()


def jsonl(values: list[Any]) -> bytes:
    """JSON Lines of the values; bytes go in as they are (raw lines)."""
    return b"".join((v if isinstance(v, bytes) else json.dumps(v).encode()) + b"\n" for v in values)


# -- envelopes -------------------------------------------------------------------

IDS: list[Any] = ["a", 7, -3, "", 'ü "quoted"', 10**30]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_an_envelope_answers_as_its_request_with_the_id_first(jobs: str) -> None:
    requests: list[Any] = [SAT, NOT_RUP, OVER, BAD, {"cnf": 1}, "not an object"]
    bare_code, bare = batch(jsonl(requests), "--jobs", jobs)
    wrapped = [{"id": IDS[i], "request": r} for i, r in enumerate(requests)]
    code, out = batch(jsonl(wrapped), "--jobs", jobs)
    assert code == bare_code == 2
    assert len(out) == len(bare) == len(requests)
    for ident, got, want in zip(IDS, out, bare):
        assert got == '{"id":' + dumps(ident) + "," + want[1:]
        assert next(iter(json.loads(got))) == "id"


@pytest.mark.parametrize(
    "value",
    [
        {"id": 1},  # no request: a request with key id
        {"id": 1, "request": SAT, "extra": 2},  # one key more: likewise
        {"request": SAT},
    ],
)
def test_an_object_that_is_not_exactly_an_envelope_is_a_request(value: Any) -> None:
    code, out = batch(jsonl([value]))
    error = json.loads(out[0])
    assert code == 2 and "id" not in list(error)[:1]
    assert error["error"] == "invalid_input"
    assert error["message"].startswith("unknown key ")


@pytest.mark.parametrize("ident", [1.5, True, None, [1], {"a": 1}, 1e3])
def test_an_envelope_id_must_be_a_string_or_an_integer(ident: Any) -> None:
    code, out = batch(jsonl([{"id": ident, "request": SAT}]))
    error = json.loads(out[0])
    assert code == 2 and list(error) == ["error", "field", "path", "message", "line"]
    assert (error["error"], error["field"], error["path"]) == ("invalid_input", "id", "/id")
    assert "string or an integer" in error["message"]


@pytest.mark.parametrize(
    "text, manifest, want",
    [
        (b'{"id": "x", "request": {"id": "inner", "cnf": {}}}', False, "x"),
        (b'{"request": {"cnf": {"id": 5}}, "id": 12}', False, 12),
        (b'{"id": "a\\"b\\\\", "request": ["id", {"}": "{"}]}', False, 'a"b\\'),
        (b'{"id": "\\u00fc", "request": 1}', False, "\u00fc"),
        (b'{"id": 1.5, "request": 1}', False, None),
        (b'{"id": true, "request": 1}', False, None),
        (b'{"id": "x", "request": 1, "more": 2}', False, None),  # not an envelope
        (b'{"id": "x"}', False, None),
        (b'{"id": "x", "id": "y", "request": 1}', False, None),  # a repeated key
        (b'{"id": "x", "request": {"cnf": ', False, None),  # cut short
        (b'["id", "request"]', False, None),
        (b'{"id": "m", "cnf": "a.cnf", "proof": "a.drup"}', True, "m"),
        (b'{"id": "m", "cnf": "a.cnf", "proof": "a.drup"}', False, None),
        (b'{"cnf": "a.cnf", "proof": "a.drup"}', True, None),
    ],
)
def test_the_id_of_a_line_is_read_without_parsing_it(
    text: bytes, manifest: bool, want: Any
) -> None:
    assert line_id(text, manifest) == want


@pytest.mark.parametrize(
    "text",
    [
        b'{"id": 7, "request": "' + b'\\"' * 50,
        b'{"id": 7, "request": "}',
        b'{"id": 7, "request": "\\',
        b'{"id": "x\\", "request": 1}',
        b'{"id": "',
    ],
)
def test_a_line_with_a_string_never_closed_has_no_id(text: bytes) -> None:
    assert line_id(text) is None


def _line_id_seconds(text: bytes) -> float:
    start = time.perf_counter()
    line_id(text)
    return time.perf_counter() - start


@pytest.mark.timing
def test_a_string_never_closed_costs_what_a_closed_one_does() -> None:
    """A line of 16 kB whose last string is never closed, made of escaped
    quotes: walked once, not again from each quote in it (it was: the time
    grew with the square of the line, 0.7 s at 16 kB and 2.8 s at 32 kB on a
    loaded machine, where the same line closed took under a millisecond)."""
    body = b'{"id": 7, "request": "' + b'\\"' * 8_000
    open_string = min(_line_id_seconds(body) for _ in range(3))
    closed = min(_line_id_seconds(body + b'"}') for _ in range(3))
    assert open_string < 3 * closed + 0.05


@pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods(),
    reason="the fault injection reaches workers by fork",
)
@pytest.mark.skipif(available_cpus() < 2, reason="--jobs 2 needs two CPUs")
def test_a_line_that_kills_its_workers_keeps_its_id(monkeypatch: pytest.MonkeyPatch) -> None:
    kill_workers_on(monkeypatch, b"kill-me")
    killer = {
        "id": "kill-me",
        "request": {"cnf": {"num_vars": 1, "clauses": [[1]]}, "claim": "sat", "assignment": [1]},
    }
    lines = [json.dumps({"id": n, "request": SAT}).encode() for n in range(5)]
    lines.insert(2, json.dumps(killer).encode())
    stream = io.BytesIO(b"".join(text + b"\n" for text in lines))
    out = io.StringIO()
    outcome = _batch.run_batch(
        stream, out, engine="reference", limits=None, jobs=2, progress=BatchProgress(stream, 0)
    )
    got = out.getvalue().splitlines()
    failed = json.loads(got[2])
    assert list(failed) == ["id", "error", "field", "path", "message", "line"]
    assert (failed["id"], failed["error"], failed["line"]) == ("kill-me", "check_failed", 3)
    assert [json.loads(text)["id"] for text in got] == [0, 1, "kill-me", 2, 3, 4]
    assert outcome.counts == [5, 0, 0, 1]


# -- manifests -------------------------------------------------------------------


@pytest.fixture()
def files(tmp_path: Path) -> Path:
    """A directory with the examples' CNF files and proofs (one gzip-compressed),
    a model, and malformed files."""
    if not EXAMPLES.is_dir():  # the tests of an installed wheel, copied without examples/
        pytest.skip("examples/ is not beside the tests")
    shutil.copy(EXAMPLES / "php5.cnf", tmp_path / "php5.cnf")
    shutil.copy(EXAMPLES / "tseitin.cnf", tmp_path / "tseitin.cnf")
    shutil.copy(EXAMPLES / "tseitin-reason-deleted.drup", tmp_path / "tseitin.drup")
    (tmp_path / "php5.drup.gz").write_bytes(gzip.compress((EXAMPLES / "php5.drup").read_bytes()))
    (tmp_path / "tiny.cnf").write_text("p cnf 2 2\n1 0\n-2 0\n")
    (tmp_path / "tiny.model").write_text("s SATISFIABLE\nv 1 -2 0\n")
    (tmp_path / "wrong.model").write_text("v -1 -2 0\n")
    (tmp_path / "broken.drup").write_text("1 x 0\n")
    (tmp_path / "broken.gz").write_bytes(b"\x1f\x8b not gzip")
    (tmp_path / "range.drup").write_text("7 0\n0\n")
    (tmp_path / "huge.cnf").write_text("p cnf 200000000 0\n")  # over max_vars
    return tmp_path


def request_check(directory: Path, cnf: str, which: str, other: str) -> str:
    """`request --check`'s output line for the same files."""
    out = cli("request", "--cnf", cnf, f"--{which}", other, "--check", cwd=directory)
    return out.stdout.decode().rstrip("\n")


def manifest_lines(files: Path) -> list[Any]:
    return [
        {"id": "php5", "cnf": "php5.cnf", "proof": "php5.drup.gz"},
        {"id": 2, "cnf": "tseitin.cnf", "proof": "tseitin.drup"},
        {"cnf": str(files / "tiny.cnf"), "model": "tiny.model"},  # absolute, no id
        {"id": "wrong", "cnf": "tiny.cnf", "model": "wrong.model"},
        {"id": "huge", "cnf": "huge.cnf", "model": "tiny.model"},
        {"id": "gone", "cnf": "tiny.cnf", "proof": "missing.drup"},
        {"id": "broken", "cnf": "tiny.cnf", "proof": "broken.drup"},
        {"id": "gz", "cnf": "broken.gz", "proof": "range.drup"},
        {"id": "cnf?", "cnf": "tiny.model", "model": "tiny.model"},
        {"id": "both", "cnf": "tiny.cnf", "proof": "range.drup", "model": "tiny.model"},
        {"id": "none", "cnf": "tiny.cnf"},
        {"id": "nocnf", "proof": "range.drup"},
        {"id": "key", "cnf": "tiny.cnf", "proof": "range.drup", "size": 3},
        {"id": "type", "cnf": 5, "proof": "range.drup"},
        {"id": "empty", "cnf": "", "proof": "range.drup"},
        {"id": [1], "cnf": "tiny.cnf", "proof": "range.drup"},
        b"",
        b"[1, 2]",
        b"{bad json",
    ]


def test_a_manifest_checks_each_lines_files(files: Path, tmp_path_factory: Any) -> None:
    manifest = files / "list.jsonl"
    manifest.write_bytes(jsonl(manifest_lines(files)))
    elsewhere = tmp_path_factory.mktemp("elsewhere")  # paths are the manifest's, not cwd's
    code, out = batch(b"", "--manifest", str(manifest), cwd=elsewhere)
    assert code == 2 and len(out) == len(manifest_lines(files))
    got = [json.loads(text) for text in out]

    # Results and contract errors: request --check's line for the same files, id first.
    same = [
        (0, "php5.cnf", "proof", "php5.drup.gz"),
        (1, "tseitin.cnf", "proof", "tseitin.drup"),
        (2, "tiny.cnf", "model", "tiny.model"),
        (3, "tiny.cnf", "model", "wrong.model"),
        (4, "huge.cnf", "model", "tiny.model"),
    ]
    for index, cnf, which, other in same:
        want = json.loads(request_check(files, cnf, which, other))
        if "error" in want:
            want["line"] = index + 1
        entry = manifest_lines(files)[index]
        if "id" in entry:
            want = {"id": entry["id"], **want}
        assert out[index] == dumps(want)
    assert [got[i].get("valid") for i in range(4)] == [True, False, True, False]
    assert (got[4]["error"], got[4]["limit"]) == ("limit_exceeded", "max_vars")

    def error(index: int) -> tuple[Any, ...]:
        obj = got[index]
        return (obj.get("id"), obj["error"], obj["field"], obj["path"], obj["line"])

    assert error(5) == ("gone", "invalid_input", "proof", "/proof", 6)
    assert got[5]["message"].startswith("cannot read 'missing.drup': ")
    assert error(6) == ("broken", "invalid_input", "proof", "/proof", 7)
    assert got[6]["message"] == "broken.drup:1: proof: 'x' is not an integer"
    assert error(7) == ("gz", "invalid_input", "cnf", "/cnf", 8)
    assert got[7]["message"].startswith("broken.gz: cannot decompress gzip data")
    assert error(8) == ("cnf?", "invalid_input", "cnf", "/cnf", 9)
    assert got[8]["message"].startswith("tiny.model:")
    assert error(9) == ("both", "invalid_input", None, "", 10)
    assert error(10) == ("none", "invalid_input", None, "", 11)
    assert got[9]["message"] == got[10]["message"]
    assert "exactly one of 'proof'" in got[9]["message"]
    assert error(11) == ("nocnf", "invalid_input", "cnf", "/cnf", 12)
    assert error(12) == ("key", "invalid_input", "size", "/size", 13)
    assert error(13) == ("type", "invalid_input", "cnf", "/cnf", 14)
    assert error(14) == ("empty", "invalid_input", "cnf", "/cnf", 15)
    assert error(15) == (None, "invalid_input", "id", "/id", 16)
    for index in (16, 17, 18):  # blank, not an object, not JSON
        assert error(index) == (None, "invalid_input", None, "", index + 1)
    # Every error object is the contract's keys, "line", and the id first when given.
    for obj in got[5:]:
        keys = [k for k in obj if k != "id"]
        assert keys == ["error", "field", "path", "message", "line"]
        assert "id" not in obj or next(iter(obj)) == "id"


def test_a_manifest_gives_the_same_bytes_with_workers(files: Path) -> None:
    manifest = files / "list.jsonl"
    manifest.write_bytes(jsonl(manifest_lines(files) * 3))
    one = cli("batch", "--manifest", str(manifest))
    two = cli("batch", "--manifest", str(manifest), "--jobs", "2")
    assert one.returncode == two.returncode == 2
    assert one.stdout == two.stdout and one.stdout.count(b"\n") == 3 * len(manifest_lines(files))


def test_a_manifest_on_standard_input_is_relative_to_the_current_directory(files: Path) -> None:
    line = jsonl([{"id": "t", "cnf": "tiny.cnf", "model": "tiny.model"}])
    code, out = batch(line, "--manifest", cwd=files)
    assert code == 0 and json.loads(out[0])["valid"] is True
    code, out = batch(line, "--manifest", cwd=files.parent)
    assert code == 2 and json.loads(out[0])["field"] == "cnf"


def test_without_the_dask_extra_the_scheduler_option_says_how_to_get_it() -> None:
    code = (
        "import sys; sys.modules['distributed'] = None; "
        "from sat_claim_check.cli import main; sys.exit(main(sys.argv[1:]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, "batch", "--scheduler", "local:1"],
        input=b"{}\n",
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert out.returncode == 2 and out.stdout == b""
    assert b"pip install 'sat-claim-check[dask]'" in out.stderr
    assert b"Traceback" not in out.stderr
