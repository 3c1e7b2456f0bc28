"""Review probes that pin down SPEC behaviour at the edges.

Each test compares the compiled engine, the reference engine and the plain
Python validation walk (the compiled conversion fast path switched off), so
that the fast path and the walk cannot drift apart on odd Python inputs.
"""

import collections
import json
import subprocess
import sys
from types import SimpleNamespace

import pytest

import sat_claim_check as scc
import sat_claim_check._validate as validate_module
from sat_claim_check import _convert_py

CNF2 = {"num_vars": 2, "clauses": [[1, 2]]}


def outcome(request, engine, limits=None):
    try:
        report = scc.run(request, engine=engine, limits=limits)
    except scc.CheckError as err:
        return ("error", err.to_dict())
    return ("result", report.result, report.work)


def outcome_walk(request, limits=None, monkeypatch=None):
    monkeypatch.setattr(validate_module, "_convert", SimpleNamespace(
        flatten=lambda *args: None, flatten_steps=lambda *args: None,
        mark_out_of_range=_convert_py.mark_out_of_range))
    try:
        return outcome(request, "reference", limits)
    finally:
        monkeypatch.undo()


def agree(request, engine, monkeypatch, limits=None):
    """The outcome, after checking the engine and the Python walk agree with it."""
    reference = outcome(request, "reference", limits)
    assert outcome(request, engine, limits) == reference
    assert outcome_walk(request, limits, monkeypatch) == reference
    return reference


def error_of(request, engine, monkeypatch, limits=None):
    kind, *rest = agree(request, engine, monkeypatch, limits)
    assert kind == "error", rest
    return rest[0]


def result_of(request, engine, monkeypatch, limits=None):
    kind, *rest = agree(request, engine, monkeypatch, limits)
    assert kind == "result", rest
    return rest[0]


class DictSub(dict):
    pass


class ListSub(list):
    pass


# -- Python types in odd places (SPEC §2, last paragraph) ----------------------

@pytest.mark.parametrize("request_", [
    DictSub(cnf=CNF2, claim="sat", assignment=[1]),
    {"cnf": {"num_vars": 2, "clauses": ListSub([[1, 2]])}, "claim": "sat", "assignment": [1]},
    {"cnf": {"num_vars": 2, "clauses": [ListSub([1, 2])]}, "claim": "sat", "assignment": [1]},
    {"cnf": {"num_vars": 2, "clauses": ((1, 2),)}, "claim": "sat", "assignment": (1,)},
    {"cnf": CNF2, "claim": "sat", "assignment": ListSub([1])},
])
def test_subclasses_and_tuples_are_arrays_and_objects(engine, monkeypatch, request_):
    result = result_of(request_, engine, monkeypatch)
    assert result["valid"] is True and result["clauses_checked"] == 1


@pytest.mark.parametrize("proof", [
    ListSub([{"add": [1]}]),
    [DictSub(add=[1])],
    [collections.OrderedDict(add=[1])],
    [{"add": ListSub([1])}],
    [{"add": (1,)}],
    ({"add": (1,)},),
])
def test_proof_containers(engine, monkeypatch, proof):
    result = result_of({"cnf": CNF2, "claim": "unsat", "proof": proof}, engine, monkeypatch)
    assert result["reason"] == "lemma_not_rup"
    assert result["first_discrepancy"] == {"kind": "step", "step_index": 0, "clause": [1]}


def test_a_tuple_proof_step_is_not_an_object(engine, monkeypatch):
    err = error_of({"cnf": CNF2, "claim": "unsat", "proof": [("add", [1])]},
                   engine, monkeypatch)
    assert (err["error"], err["field"], err["path"]) == ("invalid_input", "proof", "/proof/0")


@pytest.mark.parametrize("request_, field, path", [
    ({1: 2, "cnf": CNF2}, None, ""),
    ({"cnf": {1: 2, "num_vars": 2, "clauses": []}, "claim": "sat", "assignment": []},
     "cnf", "/cnf"),
    ({"cnf": CNF2, "claim": "unsat", "proof": [{1: [1]}]}, "proof", "/proof/0"),
    ({"cnf": CNF2, "claim": "unsat", "proof": [{"add": [1]}, {("add",): [1]}]},
     "proof", "/proof/1"),
])
def test_keys_that_are_not_strings(engine, monkeypatch, request_, field, path):
    err = error_of(request_, engine, monkeypatch)
    assert (err["error"], err["field"], err["path"]) == ("invalid_input", field, path)


# -- integers -------------------------------------------------------------------

def test_negative_zero_and_integral_floats(engine, monkeypatch):
    request = {"cnf": {"num_vars": 2.0, "clauses": [[2.0]]}, "claim": "sat",
               "assignment": [2.0, -0.0]}
    result = result_of(request, engine, monkeypatch)
    assert result["reason"] == "assignment_variable_out_of_range"
    assert result["first_discrepancy"] == {"kind": "assignment", "assignment_index": 1,
                                           "literal": 0}
    assert type(result["first_discrepancy"]["literal"]) is int


@pytest.mark.parametrize("request_, field, path", [
    ({"cnf": {"num_vars": 2, "clauses": [[1e16]]}, "claim": "sat", "assignment": []},
     "cnf", "/cnf/clauses/0/0"),
    ({"cnf": {"num_vars": 2, "clauses": [[-10**5000]]}, "claim": "sat", "assignment": []},
     "cnf", "/cnf/clauses/0/0"),
    ({"cnf": CNF2, "claim": "sat", "assignment": [2**63]}, "assignment", "/assignment/0"),
    ({"cnf": CNF2, "claim": "sat", "assignment": [-10**30]}, "assignment", "/assignment/0"),
    ({"cnf": CNF2, "claim": "unsat", "proof": [{"add": [2**63]}]}, "proof", "/proof/0/add/0"),
    ({"cnf": CNF2, "claim": "unsat", "proof": [{"delete": [1e300]}]},
     "proof", "/proof/0/delete/0"),
    ({"cnf": {"num_vars": -10**5000, "clauses": []}, "claim": "sat", "assignment": []},
     "cnf", "/cnf/num_vars"),
])
def test_huge_integers_are_out_of_range_without_overflow(engine, monkeypatch, request_,
                                                         field, path):
    err = error_of(request_, engine, monkeypatch)
    assert (err["error"], err["field"], err["path"]) == ("invalid_input", field, path)


@pytest.mark.parametrize("num_vars", [10**5000, 1e16, 10001.0],
                         ids=["10**5000", "1e16", "10001.0"])
def test_huge_num_vars_is_a_limit_with_an_exact_actual(engine, monkeypatch, num_vars):
    err = error_of({"cnf": {"num_vars": num_vars, "clauses": []}, "claim": "sat",
                    "assignment": []}, engine, monkeypatch)
    assert err["limit"] == "max_vars" and err["path"] == "/cnf/num_vars"
    assert type(err["actual"]) is int and err["actual"] == int(num_vars)


def test_num_vars_zero_with_empty_clauses(engine, monkeypatch):
    unsat = result_of({"cnf": {"num_vars": 0, "clauses": [[]]}, "claim": "unsat",
                       "proof": []}, engine, monkeypatch)
    assert unsat["valid"] is True and unsat["steps_checked"] == 0
    sat = result_of({"cnf": {"num_vars": 0, "clauses": [[]]}, "claim": "sat",
                     "assignment": []}, engine, monkeypatch)
    assert sat["reason"] == "clause_falsified"
    assert sat["first_discrepancy"] == {"kind": "clause", "clause_index": 0, "clause": []}


# -- validation order ------------------------------------------------------------

def test_cnf_literal_error_comes_before_claim_error(engine, monkeypatch):
    err = error_of({"cnf": {"num_vars": 1, "clauses": [[5]]}, "claim": "x"},
                   engine, monkeypatch)
    assert (err["field"], err["path"]) == ("cnf", "/cnf/clauses/0/0")


@pytest.mark.parametrize("extra", [{"assignment": [1], "proof": []}, {"assignment": None},
                                   {"assignment": []}])
def test_unsat_with_an_assignment(engine, monkeypatch, extra):
    err = error_of({"cnf": CNF2, "claim": "unsat", **extra}, engine, monkeypatch)
    assert (err["error"], err["field"], err["path"]) == ("invalid_input", "assignment",
                                                         "/assignment")


def test_literal_error_before_a_later_shape_error(engine, monkeypatch):
    err = error_of({"cnf": CNF2, "claim": "unsat", "proof": [{"add": ["x"]}, {}]},
                   engine, monkeypatch)
    assert err["path"] == "/proof/0/add/0"
    err = error_of({"cnf": CNF2, "claim": "unsat", "proof": [{}, {"add": ["x"]}]},
                   engine, monkeypatch)
    assert err["path"] == "/proof/0"


# -- the work cap at the initial build ---------------------------------------------

def test_work_cap_exactly_at_the_initial_build(engine, monkeypatch):
    request = {"cnf": {"num_vars": 3, "clauses": [[1], [-1, 2], [-2, 3]]},
               "claim": "unsat", "proof": []}
    build = scc.run(request, engine="reference").work
    assert build == 5
    at = result_of(request, engine, monkeypatch, scc.Limits(max_propagation_work=build))
    assert at["reason"] == "empty_clause_not_derived"
    err = error_of(request, engine, monkeypatch, scc.Limits(max_propagation_work=build - 1))
    assert err == {"error": "limit_exceeded", "field": "cnf", "path": "/cnf",
                   "limit": "max_propagation_work", "max": build - 1, "step_index": None,
                   "message": err["message"]}
    assert list(err) == ["error", "field", "path", "limit", "max", "step_index", "message"]


# -- JSON text (SPEC §8) -------------------------------------------------------------

VALID = b'{"cnf":{"num_vars":1,"clauses":[[1],[-1]]},"claim":"unsat","proof":[{"add":[]}]}'


def cli(*args, stdin=b""):
    return subprocess.run(check=False, args=[sys.executable, "-m", "sat_claim_check", *args],
                          input=stdin, capture_output=True, timeout=120)


def test_bom_is_ignored():
    run = cli("check", stdin=b"\xef\xbb\xbf" + VALID)
    assert run.returncode == 0 and json.loads(run.stdout)["valid"] is True


@pytest.mark.parametrize("text", [
    VALID + b" garbage",
    VALID.replace(b'{"add":[]}', b'{"add":[],"add":[1]}'),
    VALID.replace(b'"claim"', b'"claim":"\xed\xa0\x80","x"'),
])
def test_unusable_text(text):
    run = cli("check", stdin=text)
    assert run.returncode == 2
    error = json.loads(run.stdout)
    assert (error["error"], error["field"], error["path"]) == ("invalid_input", None, "")
    assert run.stdout.count(b"\n") == 1 and run.stderr.count(b"\n") == 1
    assert b"Traceback" not in run.stderr


def test_a_directory_as_file(tmp_path):
    run = cli("check", str(tmp_path))
    assert run.returncode == 2
    error = json.loads(run.stdout)
    assert (error["field"], error["path"]) == (None, "")
    assert b"Traceback" not in run.stderr
