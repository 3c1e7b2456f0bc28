"""The shared corpus of real solver certificates, contract tier.

Expected values come from the corpus itself (``expected.jsonl``, made by an
independent checker; ``index.json`` for the claim of each instance).  The
corpus lives beside the checkout (``../shared/corpus``) or where
``SAT_CLAIM_CHECK_CORPUS`` points; without it these tests skip.
"""

import json
import os
from pathlib import Path

import pytest
from _contract import assert_result

import sat_claim_check as scc


def _corpus():
    default = Path(__file__).resolve().parents[2] / "shared" / "corpus"
    path = Path(os.environ.get("SAT_CLAIM_CHECK_CORPUS", default))
    return path if (path / "index.json").is_file() else None


CORPUS = _corpus()


def _instances():
    if CORPUS is None:
        return []
    index = json.loads((CORPUS / "index.json").read_text(encoding="utf-8"))
    return [i for i in index["instances"] if i["tier"] == "contract"]


def _expected():
    if CORPUS is None:
        return {}
    rows = {}
    with open(CORPUS / "expected.jsonl", encoding="utf-8") as f:
        for line in f:
            if line.strip():
                row = json.loads(line)
                rows[row["name"]] = row
    return rows


INSTANCES = _instances()
EXPECTED = _expected()
ABSENT = pytest.mark.skip(reason="the shared corpus is absent (set SAT_CLAIM_CHECK_CORPUS)")


def _params(claim):
    chosen = [i for i in INSTANCES if i["expected_claim"] == claim]
    if not chosen:
        return [pytest.param(None, marks=ABSENT, id="no-corpus")]
    return [pytest.param(i, id=i["name"]) for i in chosen]


def _request(instance):
    with open(CORPUS / instance["files"]["json"], encoding="utf-8") as f:
        return json.load(f)


@pytest.mark.parametrize("instance", _params("unsat"))
def test_unsat_instance(engine, instance):
    row = EXPECTED[instance["name"]]
    report = scc.run(_request(instance), engine=engine)
    assert_result(report.result)
    assert report.result == row["result"]
    assert report.work == row["work"]
    assert report.result["claim"] == "unsat"


@pytest.mark.parametrize("instance", _params("sat"))
def test_sat_instance(engine, instance):
    request = _request(instance)
    report = scc.run(request, engine=engine)
    assert_result(report.result)
    assert report.result["valid"] is True
    assert report.result["claim"] == "sat"
    assert report.result["clauses_checked"] == instance["clauses"]
    assert report.work == 0
    row = EXPECTED.get(instance["name"])
    if row is not None:
        assert report.result == row["result"]


def test_corpus_is_complete():
    if CORPUS is None:
        pytest.skip("the shared corpus is absent (set SAT_CLAIM_CHECK_CORPUS)")
    assert INSTANCES, "no contract-tier instance in index.json"
    assert all(i["within_contract_limits"] for i in INSTANCES)
    missing = [i["name"] for i in INSTANCES
               if i["expected_claim"] == "unsat" and i["name"] not in EXPECTED]
    assert missing == []
