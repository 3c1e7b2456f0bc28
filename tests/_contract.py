"""Helpers shared by the contract tests: the shipped schemas, result and error checks.

Every expected value in the tests is written out by hand from SPEC.md; these
helpers only check the shape of what the code produced (the output schema,
the key order of SPEC §1 and §5) and strip the free-text ``message``.
"""

import json
from importlib import resources

import jsonschema
import pytest

import sat_claim_check as scc

REFERENCE_VERSION = "r71-sat-1.0.0+dimacs-cnf-1993+resolution-robinson-1965+drup-2013"

RESULT_KEYS = [
    "valid",
    "reason",
    "first_discrepancy",
    "claim",
    "clauses_checked",
    "steps_checked",
    "reference_version",
]


def _load(name):
    return json.loads(resources.files("sat_claim_check").joinpath(name).read_text(encoding="utf-8"))


TOOL = _load("schemas/tool.json")
INPUT_SCHEMA = _load("schemas/input.schema.json")
OUTPUT_SCHEMA = _load("schemas/output.schema.json")

OUTPUT_VALIDATOR = jsonschema.Draft202012Validator(
    OUTPUT_SCHEMA, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
)
INPUT_VALIDATOR = jsonschema.Draft202012Validator(INPUT_SCHEMA)


def assert_result(r):
    """A result validates against the shipped output schema, keys in schema order."""
    OUTPUT_VALIDATOR.validate(r)
    assert list(r) == RESULT_KEYS
    assert r["reference_version"] == REFERENCE_VERSION
    assert (r["reason"] is None) == r["valid"]
    assert (r["first_discrepancy"] is None) == r["valid"]
    for key in ("clauses_checked", "steps_checked"):
        assert type(r[key]) is int
    return r


def result(valid=True, reason=None, discrepancy=None, *, claim, clauses=0, steps=0):
    """An expected result object, written from SPEC §5."""
    return {
        "valid": valid,
        "reason": reason,
        "first_discrepancy": discrepancy,
        "claim": claim,
        "clauses_checked": clauses,
        "steps_checked": steps,
        "reference_version": REFERENCE_VERSION,
    }


def check_result(request, engine, expected, *, work=None, limits=None):
    """run() gives exactly ``expected`` (and key order), and ``work`` when given."""
    report = scc.run(request, engine=engine, limits=limits)
    assert_result(report.result)
    assert report.result == expected, report.result
    assert list(report.result) == list(expected)
    if expected["first_discrepancy"] is not None:
        assert list(report.result["first_discrepancy"]) == list(expected["first_discrepancy"])
    assert report.engine == engine
    if work is not None:
        assert report.work == work, report.work
    return report


ERROR_KEYS = {
    "invalid_input": ["error", "field", "path", "message"],
    "size": ["error", "field", "path", "limit", "max", "actual", "message"],
    "work": ["error", "field", "path", "limit", "max", "step_index", "message"],
}


def error_keys(d):
    if d["error"] == "invalid_input":
        return ERROR_KEYS["invalid_input"]
    return ERROR_KEYS["work" if d.get("limit") == "max_propagation_work" else "size"]


def error_of(request, engine="reference", limits=None):
    """The error object of a rejected request, without ``message`` (checked for shape)."""
    with pytest.raises(scc.CheckError) as info:
        scc.run(request, engine=engine, limits=limits)
    exc = info.value
    assert isinstance(exc, ValueError)
    d = exc.to_dict()
    assert list(d) == error_keys(d)
    assert isinstance(d["message"], str) and d["message"]
    expected_class = scc.InvalidInput if d["error"] == "invalid_input" else scc.LimitExceeded
    assert type(exc) is expected_class
    del d["message"]
    return d


def invalid(field, path):
    return {"error": "invalid_input", "field": field, "path": path}


def over(field, path, limit, max, actual):
    return {
        "error": "limit_exceeded",
        "field": field,
        "path": path,
        "limit": limit,
        "max": max,
        "actual": actual,
    }


def over_work(max, step_index):
    if step_index is None:
        return {
            "error": "limit_exceeded",
            "field": "cnf",
            "path": "/cnf",
            "limit": "max_propagation_work",
            "max": max,
            "step_index": None,
        }
    return {
        "error": "limit_exceeded",
        "field": "proof",
        "path": f"/proof/{step_index}",
        "limit": "max_propagation_work",
        "max": max,
        "step_index": step_index,
    }


def assert_error(request, expected, engine="reference", limits=None):
    d = error_of(request, engine, limits)
    assert d == expected, d
    assert list(d) == list(expected)
    return d


def unsat(num_vars, clauses, proof):
    return {"cnf": {"num_vars": num_vars, "clauses": clauses}, "claim": "unsat", "proof": proof}


def sat(num_vars, clauses, assignment):
    return {
        "cnf": {"num_vars": num_vars, "clauses": clauses},
        "claim": "sat",
        "assignment": assignment,
    }
