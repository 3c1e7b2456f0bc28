"""The contract as published: the three examples, every reason, the Python interface."""

import importlib.util
import json
import os
from pathlib import Path

import pytest
from _contract import (
    REFERENCE_VERSION,
    TOOL,
    assert_result,
    check_result,
    result,
    sat,
    unsat,
)

import sat_claim_check as scc

SHARED_TOOL = (
    Path(__file__).resolve().parents[3] / "shared" / "contract" / "sat-claim-check.tool.json"
)


# -- the three examples of the tool description (SPEC §6) ---------------------


@pytest.mark.parametrize("index", [0, 1, 2])
def test_tool_example(engine, index):
    example = TOOL["examples"][index]
    report = scc.run(example["input"], engine=engine)
    assert_result(report.result)
    assert report.result == example["output"]
    assert json.dumps(report.result) == json.dumps(example["output"])  # key order too


def test_examples_restated_by_hand(engine):
    # SPEC §6, written out without reading the tool description.
    check_result(unsat(1, [[1], [-1]], [{"add": []}]), engine, result(claim="unsat", steps=1))
    check_result(
        unsat(2, [[1, 2]], [{"add": [1]}]),
        engine,
        result(
            False, "lemma_not_rup", {"kind": "step", "step_index": 0, "clause": [1]}, claim="unsat"
        ),
    )
    check_result(sat(2, [[1], [-2]], [1, -2]), engine, result(claim="sat", clauses=2))


def test_shipped_tool_json_is_the_published_one():
    if not SHARED_TOOL.is_file():
        pytest.skip("the published tool description is not beside the checkout")
    assert json.loads(SHARED_TOOL.read_text(encoding="utf-8")) == TOOL


def test_tool_limits_are_the_default_limits():
    assert TOOL["limits"] == {
        "max_vars": 10000,
        "max_clauses": 5000,
        "max_total_literals": 50000,
        "max_assignment_literals": 10000,
        "max_proof_steps": 2000,
        "max_proof_literals": 50000,
        "max_propagation_work": 50000000,
    }
    assert scc.Limits().as_dict() == TOOL["limits"]
    assert scc.Limits() == scc.Limits(**TOOL["limits"])


# -- every reason value, with its exact discrepancy (SPEC §3, §4.1) -----------

STEP = "step"

REASONS = [
    # (request, expected result) -- each written from SPEC §3/§4.1 by hand.
    (
        sat(2, [[1, 2]], [1, 3]),
        result(
            False,
            "assignment_variable_out_of_range",
            {"kind": "assignment", "assignment_index": 1, "literal": 3},
            claim="sat",
        ),
    ),
    (
        sat(2, [[1, 2]], [2, -1, 2]),
        result(
            False,
            "duplicate_assignment_literal",
            {"kind": "assignment", "assignment_index": 2, "literal": 2, "previous_index": 0},
            claim="sat",
        ),
    ),
    (
        sat(2, [[1, 2]], [2, 1, -2]),
        result(
            False,
            "conflicting_assignment",
            {"kind": "assignment", "assignment_index": 2, "literal": -2, "previous_index": 0},
            claim="sat",
        ),
    ),
    (
        sat(2, [[1, 2], [-1, -2]], [1, 2]),
        result(
            False,
            "clause_falsified",
            {"kind": "clause", "clause_index": 1, "clause": [-1, -2]},
            claim="sat",
            clauses=1,
        ),
    ),
    (
        sat(3, [[1], [-1, 2, -3, 2]], [1]),
        result(
            False,
            "clause_undetermined",
            {
                "kind": "clause",
                "clause_index": 1,
                "clause": [-1, 2, -3, 2],
                "unassigned_literals": [2, -3, 2],
            },
            claim="sat",
            clauses=1,
        ),
    ),
    (
        unsat(2, [[1, 2]], [{"add": [1, 5, -7]}]),
        result(
            False,
            "literal_out_of_range",
            {"kind": STEP, "step_index": 0, "literal": 5, "clause": [1, 5, -7]},
            claim="unsat",
        ),
    ),
    (
        unsat(2, [[1, 2]], [{"add": [1]}]),
        result(
            False, "lemma_not_rup", {"kind": STEP, "step_index": 0, "clause": [1]}, claim="unsat"
        ),
    ),
    (
        unsat(2, [[1, 2]], [{"delete": [2, 1, 2]}, {"delete": [1, 2]}]),
        result(
            False,
            "deleted_clause_not_found",
            {"kind": STEP, "step_index": 1, "clause": [1, 2]},
            claim="unsat",
            steps=1,
        ),
    ),
    (
        unsat(2, [[1, 2], [-1]], [{"add": [2]}]),
        result(
            False,
            "empty_clause_not_derived",
            {"kind": "conclusion", "step_count": 1},
            claim="unsat",
            steps=1,
        ),
    ),
]


@pytest.mark.parametrize("request_, expected", REASONS, ids=[e["reason"] for _, e in REASONS])
def test_each_reason(engine, request_, expected):
    check_result(request_, engine, expected)


def test_reasons_cover_the_output_enum():
    enum = TOOL["output_schema"]["properties"]["reason"]["enum"]
    assert sorted(e["reason"] for _, e in REASONS) == sorted(r for r in enum if r)
    kinds = TOOL["output_schema"]["properties"]["first_discrepancy"]["properties"]["kind"]
    assert sorted({e["first_discrepancy"]["kind"] for _, e in REASONS}) == sorted(kinds["enum"])


def test_valid_results(engine):
    check_result(sat(3, [[1, 2], [-3, 2]], [2]), engine, result(claim="sat", clauses=2))
    check_result(unsat(0, [[]], []), engine, result(claim="unsat", steps=0), work=0)


# -- the Python interface (SPEC §7) ---------------------------------------------


def test_check_is_run_result(engine):
    request = unsat(2, [[1, 2]], [{"add": [1]}])
    checked = assert_result(scc.check(request, engine=engine))
    assert checked == scc.run(request, engine=engine).result


def test_report_fields(engine):
    report = scc.run(sat(1, [[1]], [1]), engine=engine)
    assert_result(report.result)
    assert (report.work, report.engine, report.reason_deletions) == (0, engine, ())
    report = scc.run(unsat(1, [[1], [-1]], [{"add": []}]), engine=engine)
    assert_result(report.result)
    assert (report.work, report.engine, report.reason_deletions) == (1, engine, ())


def test_auto_engine_names_the_engine_that_ran() -> None:
    # auto is the compiled engine wherever it is built and not switched off.
    built = importlib.util.find_spec("sat_claim_check._engines.kernel_c") is not None
    switched_off = bool(os.environ.get("SAT_CLAIM_CHECK_NO_EXTENSIONS"))
    report = scc.run(unsat(1, [[1], [-1]], [{"add": []}]))
    assert_result(report.result)
    assert report.engine == ("compiled" if built and not switched_off else "reference")
    assert report.result == result(claim="unsat", steps=1)


def test_unknown_engine_is_a_value_error():
    with pytest.raises(ValueError):
        scc.run(sat(1, [[1]], [1]), engine="fast")


def test_error_classes():
    assert issubclass(scc.CheckError, ValueError)
    assert issubclass(scc.InvalidInput, scc.CheckError)
    assert issubclass(scc.LimitExceeded, scc.CheckError)
    assert scc.__version__ == TOOL["version"]


def test_error_is_raised_not_returned(engine):
    with pytest.raises(scc.InvalidInput):
        scc.check([], engine=engine)
    with pytest.raises(scc.LimitExceeded):
        scc.check(sat(10001, [], []), engine=engine)


def test_reference_version_constant(engine):
    r = assert_result(scc.check(sat(0, [], []), engine=engine))
    assert r["reference_version"] == REFERENCE_VERSION
