"""Lenient deletions through every front door that takes them, and the ones that do not.

The command line (``check``, ``request --check``, ``batch`` here and in
worker processes, manifests), the DIMACS doors (``run_dimacs``,
``run_files``), the Dask bag; the service and ``check_json`` stay strict.
The example is ``examples/tseitin-reason-deleted``: a Glucose proof that
deletes the reason clause of a unit-implied literal at step 27 and needs it
at step 46 (strict: lemma_not_rup at 46; lenient: valid, step 27 ignored).
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from _helpers import REPO, cli_text

import sat_claim_check as scc
from sat_claim_check import dimacs
from sat_claim_check._batch import local as _batch
from sat_claim_check._batch.console import BatchProgress

EXAMPLES = REPO / "examples"
REQUEST = EXAMPLES / "tseitin-reason-deleted.json"
CNF, DRUP = EXAMPLES / "tseitin.cnf", EXAMPLES / "tseitin-reason-deleted.drup"

pytestmark = pytest.mark.skipif(not REQUEST.is_file(), reason="examples/ is not beside the tests")


def _request() -> dict[str, object]:
    return json.loads(REQUEST.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def test_the_example_differs_between_the_readings() -> None:
    strict = scc.run(_request())
    lenient = scc.run(_request(), deletions="lenient")
    assert (strict.result["reason"], strict.reason_deletions) == ("lemma_not_rup", (27,))
    assert (lenient.result["valid"], lenient.ignored_deletions) == (True, (27,))


@pytest.mark.parametrize("reading", ["strict", "lenient"])
def test_command_line_check_and_request(reading: str) -> None:
    want = scc.run(_request(), deletions=reading)  # type: ignore[arg-type]
    expected = (0 if want.result["valid"] else 1, json.dumps(want.result, separators=(",", ":")))
    code, out, _ = cli_text("check", "--deletions", reading, str(REQUEST))
    assert (code, out.strip()) == expected
    code, out, _ = cli_text(
        "request", "--cnf", str(CNF), "--proof", str(DRUP), "--check", "--deletions", reading
    )
    assert (code, out.strip()) == expected


def test_strict_is_the_default_and_other_values_are_refused() -> None:
    assert cli_text("check", str(REQUEST))[0] == 1
    assert cli_text("check", "--deletions", "strict", str(REQUEST))[0] == 1
    code, out, err = cli_text("check", "--deletions", "drat", str(REQUEST))
    assert (code, out) == (2, "")
    assert "invalid choice: 'drat'" in err
    code, out, _ = cli_text("check", "--help")
    assert "--deletions {strict,lenient}" in out and "drat-trim" in out


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_batch_lines_and_manifests(tmp_path: Path, jobs: str) -> None:
    line = REQUEST.read_text(encoding="utf-8").strip().replace("\n", " ")
    lines = tmp_path / "lines.jsonl"
    lines.write_text(f"{line}\n{line}\n", encoding="utf-8")
    manifest = tmp_path / "manifest.jsonl"
    manifest.write_text(
        json.dumps({"id": "t", "cnf": str(CNF), "proof": str(DRUP)}) + "\n", encoding="utf-8"
    )
    code, out, _ = cli_text("batch", "-j", jobs, "--deletions", "lenient", str(lines))
    assert code == 0
    assert [json.loads(o)["valid"] for o in out.splitlines()] == [True, True]
    assert cli_text("batch", "-j", jobs, str(lines))[0] == 1
    code, out, _ = cli_text(
        "batch", "-j", jobs, "--manifest", "--deletions", "lenient", str(manifest)
    )
    assert code == 0 and json.loads(out)["id"] == "t" and json.loads(out)["valid"]


def test_run_batch_refuses_other_values_before_reading() -> None:
    stream = io.BytesIO(b"{}\n")
    with pytest.raises(ValueError, match="'strict' or 'lenient'"):
        _batch.run_batch(
            stream,
            io.StringIO(),
            engine="reference",
            limits=None,
            jobs=1,
            progress=BatchProgress(stream, 0),
            deletions="loose",
        )  # type: ignore[arg-type]
    assert stream.tell() == 0


def test_dimacs_doors(engine: str) -> None:
    want = scc.run(_request(), engine=engine, deletions="lenient")  # type: ignore[arg-type]
    files = dimacs.run_files(CNF, DRUP, engine=engine, deletions="lenient")  # type: ignore[arg-type]
    texts = dimacs.run_dimacs(
        CNF.read_bytes(),
        DRUP.read_bytes(),
        engine=engine,  # type: ignore[arg-type]
        deletions="lenient",
    )
    assert files == texts == want
    assert dimacs.run_files(CNF, DRUP, engine=engine) == scc.run(_request(), engine=engine)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="'strict' or 'lenient'"):
        dimacs.run_files(CNF, DRUP, deletions="Lenient")  # type: ignore[arg-type]


def test_the_dask_bag_takes_the_reading() -> None:
    db = pytest.importorskip("dask.bag")
    from sat_claim_check import dask as scc_dask

    bag = db.from_sequence([_request(), _request()], npartitions=2)
    lenient = scc_dask.check_bag(bag, deletions="lenient").compute(scheduler="sync")
    strict = scc_dask.check_bag(bag).compute(scheduler="sync")
    assert [json.loads(t)["valid"] for t in lenient] == [True, True]
    assert [json.loads(t)["valid"] for t in strict] == [False, False]
    with pytest.raises(ValueError, match="'strict' or 'lenient'"):
        scc_dask.check_bag(bag, deletions="x")  # type: ignore[arg-type]


def test_check_json_is_strict_unless_asked_and_the_service_stays_strict() -> None:
    outcome = scc.check_json(REQUEST.read_bytes())
    assert outcome.report is not None and outcome.report.result["reason"] == "lemma_not_rup"
    lenient = scc.check_json(REQUEST.read_bytes(), deletions="lenient")
    assert lenient.report == scc.run(json.loads(REQUEST.read_bytes()), deletions="lenient")
    assert lenient.report.result["valid"]
    with pytest.raises(ValueError, match="deletions"):
        scc.check_json(REQUEST.read_bytes(), deletions="sloppy")
    import inspect

    service = pytest.importorskip("sat_claim_check.service")
    assert "deletions" not in inspect.signature(service.create_app).parameters
