"""The shared corpus of real solver certificates, contract tier.

Expected values come from the corpus itself (``expected.jsonl``, made by an
independent checker; ``index.json`` for the claim of each instance).  The
corpus lives beside the checkout (``../shared/corpus``) or where
``SAT_CLAIM_CHECK_CORPUS`` points; without it these tests skip.
"""

import json
from typing import Any

import pytest
from _contract import assert_result
from _helpers import CORPUS_ABSENT, corpus_dir, corpus_expected, corpus_instances

import sat_claim_check as scc

CORPUS = corpus_dir()
INSTANCES = (
    [] if CORPUS is None else [i for i in corpus_instances(CORPUS) if i["tier"] == "contract"]
)
EXPECTED = {} if CORPUS is None else corpus_expected(CORPUS)
ABSENT = pytest.mark.skip(reason=CORPUS_ABSENT)


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
def test_sat_instance(engine: str, instance: dict[str, Any]) -> None:
    request = _request(instance)
    report = scc.run(request, engine=engine)
    assert_result(report.result)
    assert report.result["valid"] is True
    assert report.result["claim"] == "sat"
    assert report.result["clauses_checked"] == instance["clauses"]
    assert report.work == 0
    assert report.result == EXPECTED[instance["name"]]["result"]


def test_corpus_is_complete() -> None:
    if CORPUS is None:
        pytest.skip(CORPUS_ABSENT)
    assert INSTANCES, "no contract-tier instance in index.json"
    assert all(i["within_contract_limits"] for i in INSTANCES)
    # Every instance has its expected row, sat claims too.
    assert [i["name"] for i in INSTANCES if i["name"] not in EXPECTED] == []
    assert {i["expected_claim"] for i in INSTANCES} == {"sat", "unsat"}
