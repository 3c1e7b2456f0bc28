"""SPEC §1 and §2: which error, in which field, at which path; the size limits."""

from __future__ import annotations

import collections
import math
from decimal import Decimal
from fractions import Fraction
from typing import Any

import pytest
from _contract import assert_error, check_result, invalid, over, result, sat, unsat
from _helpers import agree

import sat_claim_check as scc

OK_CNF = {"num_vars": 2, "clauses": [[1, 2]]}


def req(**fields):
    return dict(fields)


# -- step 0: the envelope -------------------------------------------------------


@pytest.mark.parametrize("request_", [None, [], (), "cnf", 3, 3.0, True, b"{}", [{"cnf": OK_CNF}]])
def test_request_not_an_object(engine, request_):
    assert_error(request_, invalid(None, ""), engine)


def test_unknown_key_first_in_object_order(engine):
    assert_error(
        {"cnf": OK_CNF, "claim": "sat", "zzz": 1, "assignment": [1], "aaa": 2},
        invalid("zzz", "/zzz"),
        engine,
    )
    assert_error({"aaa": 2, "zzz": 1}, invalid("aaa", "/aaa"), engine)
    # unknown keys are step 0: before a missing or broken cnf
    assert_error({"cnf": "broken", "zzz": 1}, invalid("zzz", "/zzz"), engine)
    assert_error({"Cnf": OK_CNF}, invalid("Cnf", "/Cnf"), engine)


def test_unknown_key_pointer_is_escaped(engine):
    # RFC 6901: "~" is "~0" and "/" is "~1".
    assert_error({"a/b~c": 1}, invalid("a/b~c", "/a~1b~0c"), engine)
    assert_error({"": 1}, invalid("", "/"), engine)


def test_missing_fields_each_at_its_own_step(engine):
    assert_error({}, invalid("cnf", "/cnf"), engine)
    assert_error({"claim": "sat", "assignment": []}, invalid("cnf", "/cnf"), engine)
    assert_error({"cnf": OK_CNF}, invalid("claim", "/claim"), engine)
    assert_error({"cnf": OK_CNF, "claim": "sat"}, invalid("assignment", "/assignment"), engine)
    assert_error({"cnf": OK_CNF, "claim": "unsat"}, invalid("proof", "/proof"), engine)


def test_field_order_ignores_document_order(engine):
    # A bad cnf and a bad claim: the cnf error, wherever cnf sits.
    bad_cnf = {"num_vars": -1, "clauses": []}
    assert_error({"claim": "maybe", "cnf": bad_cnf}, invalid("cnf", "/cnf/num_vars"), engine)
    assert_error(
        {"proof": 5, "assignment": 5, "claim": 5, "cnf": bad_cnf},
        invalid("cnf", "/cnf/num_vars"),
        engine,
    )
    # claim before assignment and proof
    assert_error(
        {"proof": 5, "assignment": 5, "claim": "SAT", "cnf": OK_CNF},
        invalid("claim", "/claim"),
        engine,
    )


@pytest.mark.parametrize("claim", [None, "SAT", "", "sat ", 1, ["sat"], True])
def test_bad_claim(engine, claim):
    assert_error(
        {"cnf": OK_CNF, "claim": claim, "assignment": [1]}, invalid("claim", "/claim"), engine
    )


def test_assignment_with_unsat(engine):
    for value in ([], None, [1], "x"):
        assert_error(
            {"cnf": OK_CNF, "claim": "unsat", "assignment": value, "proof": [{"add": []}]},
            invalid("assignment", "/assignment"),
            engine,
        )
    # present assignment is step 3: before a missing or broken proof
    assert_error(
        {"cnf": OK_CNF, "claim": "unsat", "assignment": []},
        invalid("assignment", "/assignment"),
        engine,
    )
    assert_error(
        {"cnf": OK_CNF, "claim": "unsat", "assignment": [], "proof": 7},
        invalid("assignment", "/assignment"),
        engine,
    )


def test_proof_with_sat(engine):
    for value in ([], None, [{"add": []}], "x"):
        assert_error(
            {"cnf": OK_CNF, "claim": "sat", "assignment": [1], "proof": value},
            invalid("proof", "/proof"),
            engine,
        )
    # a broken assignment comes first
    assert_error(
        {"cnf": OK_CNF, "claim": "sat", "assignment": "x", "proof": []},
        invalid("assignment", "/assignment"),
        engine,
    )
    assert_error(
        {"cnf": OK_CNF, "claim": "sat", "assignment": [1.5], "proof": []},
        invalid("assignment", "/assignment/0"),
        engine,
    )


# -- step 1: cnf ---------------------------------------------------------------


@pytest.mark.parametrize("cnf", [None, [], "x", 1, [[1]], ({"num_vars": 1},)])
def test_cnf_not_an_object(engine, cnf):
    assert_error({"cnf": cnf, "claim": "sat", "assignment": []}, invalid("cnf", "/cnf"), engine)


def test_cnf_key_set_first(engine):
    def e(cnf):
        return {"cnf": cnf, "claim": "sat", "assignment": []}

    assert_error(e({"num_vars": 1, "clauses": [], "vars": 3}), invalid("cnf", "/cnf/vars"), engine)
    # unknown keys before missing ones, and before the values
    assert_error(e({"clauses": [], "vars": 3}), invalid("cnf", "/cnf/vars"), engine)
    assert_error(e({"num_vars": -5, "zz": 0, "yy": 0}), invalid("cnf", "/cnf/zz"), engine)
    # missing keys in the listed order, before the values
    assert_error(e({}), invalid("cnf", "/cnf/num_vars"), engine)
    assert_error(e({"clauses": "x"}), invalid("cnf", "/cnf/num_vars"), engine)
    assert_error(e({"num_vars": "x"}), invalid("cnf", "/cnf/clauses"), engine)


def test_num_vars_before_clauses_whatever_the_document_order(engine):
    def e(cnf):
        return {"cnf": cnf, "claim": "sat", "assignment": []}

    assert_error(e({"clauses": [[0]], "num_vars": "3"}), invalid("cnf", "/cnf/num_vars"), engine)
    assert_error(e({"clauses": 5, "num_vars": -1}), invalid("cnf", "/cnf/num_vars"), engine)
    assert_error(
        e({"clauses": 5, "num_vars": 10001}),
        over("cnf", "/cnf/num_vars", "max_vars", 10000, 10001),
        engine,
    )
    assert_error(e({"clauses": 5, "num_vars": 1}), invalid("cnf", "/cnf/clauses"), engine)


@pytest.mark.parametrize(
    "num_vars",
    [-1, 1.5, "1", None, True, False, [1], math.nan, math.inf, -math.inf, -(10**30), -1e30],
)
def test_bad_num_vars(engine, num_vars):
    assert_error(sat(num_vars, [], []), invalid("cnf", "/cnf/num_vars"), engine)


def test_cnf_inside_order(engine):
    small = scc.Limits(max_clauses=3, max_total_literals=3)
    # more clauses than the limit: before the items are looked at
    assert_error(
        sat(2, [5, "x", None, 1.5], []),
        over("cnf", "/cnf/clauses", "max_clauses", 3, 4),
        engine,
        small,
    )
    # every item must be an array before the total literal count...
    assert_error(sat(2, [[0, 0, 0], [1], 7], []), invalid("cnf", "/cnf/clauses/2"), engine, small)
    # ...and the total literal count comes before the literals themselves
    assert_error(
        sat(2, [[0, 0], [1.5, 1]], []),
        over("cnf", "/cnf/clauses", "max_total_literals", 3, 4),
        engine,
        small,
    )
    # then the literals, in document order
    assert_error(sat(2, [[1], [2, 3]], []), invalid("cnf", "/cnf/clauses/1/1"), engine, small)
    assert_error(sat(2, [[1, "a"], [0]], []), invalid("cnf", "/cnf/clauses/0/1"), engine)


@pytest.mark.parametrize(
    "literal",
    [0, 3, -3, 10**30, -(10**30), 1.5, -0.5, True, False, None, "1", [1], math.nan, math.inf, 1e30],
)
def test_bad_cnf_literal(engine, literal):
    # num_vars 2: a 0 or a literal out of 1..num_vars is invalid_input in the CNF
    assert_error(sat(2, [[1, 2], [-1, literal]], [1]), invalid("cnf", "/cnf/clauses/1/1"), engine)


def test_cnf_literal_bound_is_num_vars(engine):
    assert_error(sat(0, [[1]], []), invalid("cnf", "/cnf/clauses/0/0"), engine)
    check_result(sat(0, [], []), engine, result(claim="sat"))
    check_result(sat(10000, [[10000, -10000]], [-10000]), engine, result(claim="sat", clauses=1))


# -- step 3: assignment -------------------------------------------------------------


@pytest.mark.parametrize("assignment", [None, 1, "1", {"1": 1}, {1}])
def test_assignment_not_an_array(engine, assignment):
    assert_error(sat(2, [], assignment), invalid("assignment", "/assignment"), engine)


@pytest.mark.parametrize(
    "literal",
    [10001, -10001, 10**30, -(10**30), 1.5, True, False, None, "2", math.nan, -math.inf, 1e30],
)
def test_bad_assignment_literal(engine, literal):
    assert_error(sat(2, [], [1, literal]), invalid("assignment", "/assignment/1"), engine)


def test_assignment_bound_is_max_vars(engine):
    # 0 and variables above num_vars are verdicts, not errors (SPEC §2.3, §3)
    check_result(
        sat(2, [], [10000]),
        engine,
        result(
            False,
            "assignment_variable_out_of_range",
            {"kind": "assignment", "assignment_index": 0, "literal": 10000},
            claim="sat",
        ),
    )
    check_result(
        sat(2, [], [-10000]),
        engine,
        result(
            False,
            "assignment_variable_out_of_range",
            {"kind": "assignment", "assignment_index": 0, "literal": -10000},
            claim="sat",
        ),
    )
    # with smaller limits the bound follows max_vars
    limits = scc.Limits(max_vars=5)
    assert_error(sat(2, [], [6]), invalid("assignment", "/assignment/0"), engine, limits)
    check_result(
        sat(2, [], [5]),
        engine,
        result(
            False,
            "assignment_variable_out_of_range",
            {"kind": "assignment", "assignment_index": 0, "literal": 5},
            claim="sat",
        ),
        limits=limits,
    )


# -- step 4: proof ---------------------------------------------------------------------


def proof_req(proof, num_vars=2):
    return unsat(num_vars, [[1, 2]], proof)


@pytest.mark.parametrize("proof", [None, 1, "x", {"add": []}])
def test_proof_not_an_array(engine, proof):
    assert_error(proof_req(proof), invalid("proof", "/proof"), engine)


@pytest.mark.parametrize(
    "step, path",
    [
        (5, "/proof/1"),
        (None, "/proof/1"),
        ([1], "/proof/1"),
        ({}, "/proof/1"),
        ({"add": [1], "delete": [1]}, "/proof/1"),
        ({"Add": [1]}, "/proof/1/Add"),
        ({"add": [], "Add": []}, "/proof/1/Add"),  # unknown keys before the count
        ({"add": [], "delete": [], "x": []}, "/proof/1/x"),
        ({"add": 1}, "/proof/1/add"),
        ({"delete": None}, "/proof/1/delete"),
        ({"add": {"0": 1}}, "/proof/1/add"),
        ({"add": [1, 1.5]}, "/proof/1/add/1"),
        ({"delete": [10001]}, "/proof/1/delete/0"),
        ({"delete": [-(10**30)]}, "/proof/1/delete/0"),
        ({"add": [True]}, "/proof/1/add/0"),
        ({"add": [math.nan]}, "/proof/1/add/0"),
    ],
)
def test_bad_step(engine, step, path):
    assert_error(proof_req([{"add": [1]}, step, {"zzz": 0}]), invalid("proof", path), engine)


def test_step_shape_after_literals_of_earlier_steps(engine):
    # items in document order: the literals of step 0 come before the shape of step 1
    assert_error(
        proof_req([{"add": [1.5]}, {"foo": [1]}]), invalid("proof", "/proof/0/add/0"), engine
    )
    assert_error(
        proof_req([{"foo": [1]}, {"add": [1.5]}]), invalid("proof", "/proof/0/foo"), engine
    )
    assert_error(
        proof_req([{"add": [1]}, {"delete": [10001]}, {}]),
        invalid("proof", "/proof/1/delete/0"),
        engine,
    )
    # inside a step: its key set before its literals
    assert_error(proof_req([{"add": [1.5], "x": 1}]), invalid("proof", "/proof/0/x"), engine)


def test_proof_literal_bound_is_max_vars_not_num_vars(engine):
    # |l| <= max_vars passes §2; above num_vars it is a verdict (SPEC §4.1)
    check_result(
        proof_req([{"add": [10000]}]),
        engine,
        result(
            False,
            "literal_out_of_range",
            {"kind": "step", "step_index": 0, "literal": 10000, "clause": [10000]},
            claim="unsat",
        ),
    )
    check_result(
        proof_req([{"delete": [-10000]}]),
        engine,
        result(
            False,
            "deleted_clause_not_found",
            {"kind": "step", "step_index": 0, "clause": [-10000]},
            claim="unsat",
        ),
    )


def test_proof_literal_total_after_every_step_is_well_formed(engine):
    small = scc.Limits(max_proof_literals=2)
    assert_error(
        proof_req([{"add": [1, 2, 1]}, {"bogus": []}]),
        invalid("proof", "/proof/1/bogus"),
        engine,
        small,
    )
    assert_error(
        proof_req([{"add": [1, 2, 1]}, {"add": [10001]}]),
        invalid("proof", "/proof/1/add/0"),
        engine,
        small,
    )
    assert_error(
        proof_req([{"add": [1, 2, 1]}, {"delete": []}, 7]),
        invalid("proof", "/proof/2"),
        engine,
        small,
    )
    assert_error(
        proof_req([{"add": [1, 2]}, {"delete": [3]}]),
        over("proof", "/proof", "max_proof_literals", 2, 3),
        engine,
        small,
    )


def test_proof_steps_limit_before_the_steps(engine):
    small = scc.Limits(max_proof_steps=1)
    assert_error(
        proof_req([5, {"x": 1}]), over("proof", "/proof", "max_proof_steps", 1, 2), engine, small
    )


# -- the size limits: exact error objects, both sides of each bound -------------------


def test_size_limits_small(engine):
    L = scc.Limits
    assert_error(
        sat(6, [], []), over("cnf", "/cnf/num_vars", "max_vars", 5, 6), engine, L(max_vars=5)
    )
    check_result(sat(5, [], []), engine, result(claim="sat"), limits=L(max_vars=5))

    assert_error(
        sat(1, [[1], [1], [1]], [1]),
        over("cnf", "/cnf/clauses", "max_clauses", 2, 3),
        engine,
        L(max_clauses=2),
    )
    check_result(
        sat(1, [[1], [1]], [1]), engine, result(claim="sat", clauses=2), limits=L(max_clauses=2)
    )

    assert_error(
        sat(2, [[1, 2], [-1, -2]], [1]),
        over("cnf", "/cnf/clauses", "max_total_literals", 3, 4),
        engine,
        L(max_total_literals=3),
    )
    check_result(
        sat(2, [[1, 2], [-1]], [2, -1]),
        engine,
        result(claim="sat", clauses=2),
        limits=L(max_total_literals=3),
    )

    assert_error(
        sat(3, [], [1, 2, 3]),
        over("assignment", "/assignment", "max_assignment_literals", 2, 3),
        engine,
        L(max_assignment_literals=2),
    )
    check_result(
        sat(3, [], [1, 2]), engine, result(claim="sat"), limits=L(max_assignment_literals=2)
    )

    assert_error(
        unsat(0, [[]], [{"add": []}, {"add": []}]),
        over("proof", "/proof", "max_proof_steps", 1, 2),
        engine,
        L(max_proof_steps=1),
    )
    check_result(
        unsat(0, [[]], [{"add": []}]),
        engine,
        result(claim="unsat", steps=1),
        limits=L(max_proof_steps=1),
    )

    assert_error(
        unsat(1, [[]], [{"add": [1]}, {"add": [1, -1]}]),
        over("proof", "/proof", "max_proof_literals", 2, 3),
        engine,
        L(max_proof_literals=2),
    )
    check_result(
        unsat(1, [[]], [{"add": [1]}, {"add": [-1]}]),
        engine,
        result(claim="unsat", steps=2),
        limits=L(max_proof_literals=2),
    )


def test_zero_limits(engine):
    L = scc.Limits
    assert_error(
        sat(1, [], []), over("cnf", "/cnf/num_vars", "max_vars", 0, 1), engine, L(max_vars=0)
    )
    assert_error(
        sat(0, [[]], []), over("cnf", "/cnf/clauses", "max_clauses", 0, 1), engine, L(max_clauses=0)
    )
    check_result(
        sat(0, [[]], []),
        engine,
        result(
            False,
            "clause_falsified",
            {"kind": "clause", "clause_index": 0, "clause": []},
            claim="sat",
        ),
        limits=L(max_total_literals=0),
    )


def test_size_limits_at_the_contract_values(engine):
    assert_error(sat(10001, [], []), over("cnf", "/cnf/num_vars", "max_vars", 10000, 10001), engine)
    assert_error(
        sat(1, [[1]] * 5001, []), over("cnf", "/cnf/clauses", "max_clauses", 5000, 5001), engine
    )
    check_result(sat(1, [[1]] * 5000, [1]), engine, result(claim="sat", clauses=5000))
    assert_error(
        sat(2, [[1, 2]] * 25000 + [[1]], []),
        over("cnf", "/cnf/clauses", "max_clauses", 5000, 25001),
        engine,
    )
    assert_error(
        sat(2, [[1, 2] * 5000] * 5 + [[1]], []),
        over("cnf", "/cnf/clauses", "max_total_literals", 50000, 50001),
        engine,
    )
    check_result(sat(2, [[1, 2] * 5000] * 5, [1]), engine, result(claim="sat", clauses=5))
    assert_error(
        sat(1, [], [1] * 10001),
        over("assignment", "/assignment", "max_assignment_literals", 10000, 10001),
        engine,
    )
    assert_error(
        unsat(0, [[]], [{"add": []}] * 2001),
        over("proof", "/proof", "max_proof_steps", 2000, 2001),
        engine,
    )
    # 1999 * 25 + 26 = 50001 proof literals
    assert_error(
        unsat(1, [[]], [{"add": [1] * 25}] * 1999 + [{"add": [1] * 26}]),
        over("proof", "/proof", "max_proof_literals", 50000, 50001),
        engine,
    )
    # 2000 * 25 = 50000: at the limit
    check_result(
        unsat(1, [[]], [{"add": [1] * 25}] * 2000), engine, result(claim="unsat", steps=2000)
    )


def test_limits_do_not_change_semantics(engine):
    request = unsat(2, [[1, 2]], [{"add": [1]}])
    expected = result(
        False, "lemma_not_rup", {"kind": "step", "step_index": 0, "clause": [1]}, claim="unsat"
    )
    check_result(request, engine, expected, work=3, limits=scc.Limits.unlimited())
    check_result(request, engine, expected, work=3)


# -- integers (SPEC §2, last paragraph) -----------------------------------------------


def test_integral_floats_are_integers(engine):
    r = check_result(
        sat(3.0, [[1.0, -2.0], [3, 2.0]], [2.0, 5.0]),
        engine,
        result(
            False,
            "assignment_variable_out_of_range",
            {"kind": "assignment", "assignment_index": 1, "literal": 5},
            claim="sat",
        ),
    )
    assert type(r.result["first_discrepancy"]["literal"]) is int
    r = check_result(
        sat(3.0, [[1.0, -2.0]], [2.0]),
        engine,
        result(
            False,
            "clause_undetermined",
            {"kind": "clause", "clause_index": 0, "clause": [1, -2], "unassigned_literals": [1]},
            claim="sat",
        ),
    )
    assert [type(x) for x in r.result["first_discrepancy"]["clause"]] == [int, int]
    r = check_result(
        unsat(2.0, [[1.0, 2.0]], [{"add": [1.0, 3.0]}]),
        engine,
        result(
            False,
            "literal_out_of_range",
            {"kind": "step", "step_index": 0, "literal": 3, "clause": [1, 3]},
            claim="unsat",
        ),
    )
    assert [type(x) for x in r.result["first_discrepancy"]["clause"]] == [int, int]
    assert type(r.result["first_discrepancy"]["literal"]) is int


def test_integral_float_in_errors_is_reported_as_int(engine):
    d = assert_error(
        sat(20000.0, [], []), over("cnf", "/cnf/num_vars", "max_vars", 10000, 20000), engine
    )
    assert type(d["actual"]) is int


def test_huge_integers_are_range_checked(engine):
    d = assert_error(
        sat(10**30, [], []), over("cnf", "/cnf/num_vars", "max_vars", 10000, 10**30), engine
    )
    assert type(d["actual"]) is int
    # the double nearest 1e30 is exactly 1000000000000000019884624838656
    assert_error(
        sat(1e30, [], []),
        over("cnf", "/cnf/num_vars", "max_vars", 10000, 1000000000000000019884624838656),
        engine,
    )
    assert_error(sat(2**64, [], []), over("cnf", "/cnf/num_vars", "max_vars", 10000, 2**64), engine)
    assert_error(sat(2, [[2**32 + 1]], []), invalid("cnf", "/cnf/clauses/0/0"), engine)
    assert_error(sat(2, [[-(2**63)]], []), invalid("cnf", "/cnf/clauses/0/0"), engine)
    assert_error(sat(2, [], [2**32 + 1]), invalid("assignment", "/assignment/0"), engine)
    assert_error(proof_req([{"add": [2**31]}]), invalid("proof", "/proof/0/add/0"), engine)
    assert_error(proof_req([{"delete": [-(2**31)]}]), invalid("proof", "/proof/0/delete/0"), engine)


def test_integers_of_any_size(engine):
    big = 10**5000
    assert_error(sat(big, [], []), over("cnf", "/cnf/num_vars", "max_vars", 10000, big), engine)
    assert_error(sat(-big, [], []), invalid("cnf", "/cnf/num_vars"), engine)
    assert_error(sat(2, [[big]], []), invalid("cnf", "/cnf/clauses/0/0"), engine)
    assert_error(sat(2, [], [-big]), invalid("assignment", "/assignment/0"), engine)
    assert_error(proof_req([{"add": [big]}]), invalid("proof", "/proof/0/add/0"), engine)


# -- Python types (SPEC §2, last paragraph) ------------------------------------------


def test_tuples_are_arrays(engine):
    check_result(
        {"cnf": {"num_vars": 2, "clauses": ((1, 2), [-1])}, "claim": "sat", "assignment": (-1, 2)},
        engine,
        result(claim="sat", clauses=2),
    )
    check_result(
        {
            "cnf": {"num_vars": 1, "clauses": ((1,), (-1,))},
            "claim": "unsat",
            "proof": ({"add": ()},),
        },
        engine,
        result(claim="unsat", steps=1),
        work=1,
    )


def test_non_string_keys(engine):
    assert_error({1: OK_CNF}, invalid(None, ""), engine)
    assert_error(
        {"cnf": {"num_vars": 2, "clauses": [], 1: 0}, "claim": "sat", "assignment": []},
        invalid("cnf", "/cnf"),
        engine,
    )
    assert_error(proof_req([{0: [1]}]), invalid("proof", "/proof/0"), engine)


@pytest.mark.parametrize(
    "value",
    [
        Decimal(1),
        Fraction(1, 1),
        complex(1, 0),
        b"\x01",
        bytearray(b"\x01"),
        {1},
        frozenset(),
        range(1),
        object(),
    ],
)
def test_other_python_types(engine, value):
    assert_error(sat(value, [], []), invalid("cnf", "/cnf/num_vars"), engine)
    assert_error(sat(2, value, []), invalid("cnf", "/cnf/clauses"), engine)
    assert_error(sat(2, [value], []), invalid("cnf", "/cnf/clauses/0"), engine)
    assert_error(sat(2, [[1, value]], []), invalid("cnf", "/cnf/clauses/0/1"), engine)
    assert_error(
        {"cnf": OK_CNF, "claim": value, "assignment": []}, invalid("claim", "/claim"), engine
    )
    assert_error(sat(2, [], value), invalid("assignment", "/assignment"), engine)
    assert_error(sat(2, [], [value]), invalid("assignment", "/assignment/0"), engine)
    assert_error(proof_req(value), invalid("proof", "/proof"), engine)
    assert_error(proof_req([value]), invalid("proof", "/proof/0"), engine)
    assert_error(proof_req([{"add": value}]), invalid("proof", "/proof/0/add"), engine)
    assert_error(proof_req([{"delete": [value]}]), invalid("proof", "/proof/0/delete/0"), engine)


def test_limits_must_be_limits():
    with pytest.raises(TypeError):
        scc.run(sat(1, [], []), limits={"max_vars": 5})


class LooksLikeAdd:
    """Equal to "add" and hashed like it, but not a string."""

    def __eq__(self, other):
        return other == "add"

    def __hash__(self):
        return hash("add")


def test_a_non_string_key_makes_the_object_not_an_object(engine):
    # Whatever comes first in the object's order: such a dict is not an object.
    assert_error({"zzz": 1, 1: 2}, invalid(None, ""), engine)
    assert_error(
        {"cnf": {"vars": 1, 1: 0}, "claim": "sat", "assignment": []}, invalid("cnf", "/cnf"), engine
    )
    assert_error(proof_req([{LooksLikeAdd(): [1]}]), invalid("proof", "/proof/0"), engine)


# -- both engines and the plain Python walk, on odd inputs ----------------------------
#
# Each test below compares the compiled engine, the reference engine and the
# Python validation walk (the compiled conversion fast path switched off), so
# that the fast path and the walk cannot drift apart on odd Python inputs.

CNF2 = {"num_vars": 2, "clauses": [[1, 2]]}


def agreed_error(
    request: Any, engine: str, monkeypatch: pytest.MonkeyPatch, limits: scc.Limits | None = None
) -> dict[str, Any]:
    """The error object all three give (see _helpers.agree)."""
    kind, *rest = agree(request, engine, monkeypatch, limits)
    assert kind == "error", rest
    return rest[1]


def agreed_result(
    request: Any, engine: str, monkeypatch: pytest.MonkeyPatch, limits: scc.Limits | None = None
) -> dict[str, Any]:
    """The result all three give (see _helpers.agree)."""
    kind, *rest = agree(request, engine, monkeypatch, limits)
    assert kind == "report", rest
    return rest[0]


class DictSub(dict):
    pass


class ListSub(list):
    pass


# Python types in odd places (SPEC §2, last paragraph)


@pytest.mark.parametrize(
    "request_",
    [
        DictSub(cnf=CNF2, claim="sat", assignment=[1]),
        {"cnf": {"num_vars": 2, "clauses": ListSub([[1, 2]])}, "claim": "sat", "assignment": [1]},
        {"cnf": {"num_vars": 2, "clauses": [ListSub([1, 2])]}, "claim": "sat", "assignment": [1]},
        {"cnf": {"num_vars": 2, "clauses": ((1, 2),)}, "claim": "sat", "assignment": (1,)},
        {"cnf": CNF2, "claim": "sat", "assignment": ListSub([1])},
    ],
)
def test_subclasses_and_tuples_are_arrays_and_objects(engine, monkeypatch, request_):
    got = agreed_result(request_, engine, monkeypatch)
    assert got["valid"] is True and got["clauses_checked"] == 1


@pytest.mark.parametrize(
    "proof",
    [
        ListSub([{"add": [1]}]),
        [DictSub(add=[1])],
        [collections.OrderedDict(add=[1])],
        [{"add": ListSub([1])}],
        [{"add": (1,)}],
        ({"add": (1,)},),
    ],
)
def test_proof_containers(engine, monkeypatch, proof):
    got = agreed_result({"cnf": CNF2, "claim": "unsat", "proof": proof}, engine, monkeypatch)
    assert got["reason"] == "lemma_not_rup"
    assert got["first_discrepancy"] == {"kind": "step", "step_index": 0, "clause": [1]}


def test_a_tuple_proof_step_is_not_an_object(engine, monkeypatch):
    err = agreed_error(
        {"cnf": CNF2, "claim": "unsat", "proof": [("add", [1])]}, engine, monkeypatch
    )
    assert (err["error"], err["field"], err["path"]) == ("invalid_input", "proof", "/proof/0")


@pytest.mark.parametrize(
    "request_, field, path",
    [
        ({1: 2, "cnf": CNF2}, None, ""),
        (
            {"cnf": {1: 2, "num_vars": 2, "clauses": []}, "claim": "sat", "assignment": []},
            "cnf",
            "/cnf",
        ),
        ({"cnf": CNF2, "claim": "unsat", "proof": [{1: [1]}]}, "proof", "/proof/0"),
        (
            {"cnf": CNF2, "claim": "unsat", "proof": [{"add": [1]}, {("add",): [1]}]},
            "proof",
            "/proof/1",
        ),
    ],
)
def test_keys_that_are_not_strings(engine, monkeypatch, request_, field, path):
    err = agreed_error(request_, engine, monkeypatch)
    assert (err["error"], err["field"], err["path"]) == ("invalid_input", field, path)


# Integers


def test_negative_zero_and_integral_floats(engine, monkeypatch):
    request = {
        "cnf": {"num_vars": 2.0, "clauses": [[2.0]]},
        "claim": "sat",
        "assignment": [2.0, -0.0],
    }
    got = agreed_result(request, engine, monkeypatch)
    assert got["reason"] == "assignment_variable_out_of_range"
    assert got["first_discrepancy"] == {"kind": "assignment", "assignment_index": 1, "literal": 0}
    assert type(got["first_discrepancy"]["literal"]) is int


@pytest.mark.parametrize(
    "request_, field, path",
    [
        (
            {"cnf": {"num_vars": 2, "clauses": [[1e16]]}, "claim": "sat", "assignment": []},
            "cnf",
            "/cnf/clauses/0/0",
        ),
        (
            {"cnf": {"num_vars": 2, "clauses": [[-(10**5000)]]}, "claim": "sat", "assignment": []},
            "cnf",
            "/cnf/clauses/0/0",
        ),
        ({"cnf": CNF2, "claim": "sat", "assignment": [2**63]}, "assignment", "/assignment/0"),
        ({"cnf": CNF2, "claim": "sat", "assignment": [-(10**30)]}, "assignment", "/assignment/0"),
        ({"cnf": CNF2, "claim": "unsat", "proof": [{"add": [2**63]}]}, "proof", "/proof/0/add/0"),
        (
            {"cnf": CNF2, "claim": "unsat", "proof": [{"delete": [1e300]}]},
            "proof",
            "/proof/0/delete/0",
        ),
        (
            {"cnf": {"num_vars": -(10**5000), "clauses": []}, "claim": "sat", "assignment": []},
            "cnf",
            "/cnf/num_vars",
        ),
    ],
)
def test_huge_integers_are_out_of_range_without_overflow(
    engine, monkeypatch, request_, field, path
):
    err = agreed_error(request_, engine, monkeypatch)
    assert (err["error"], err["field"], err["path"]) == ("invalid_input", field, path)


@pytest.mark.parametrize("num_vars", [10**5000, 1e16, 10001.0], ids=["10**5000", "1e16", "10001.0"])
def test_huge_num_vars_is_a_limit_with_an_exact_actual(engine, monkeypatch, num_vars):
    err = agreed_error(
        {"cnf": {"num_vars": num_vars, "clauses": []}, "claim": "sat", "assignment": []},
        engine,
        monkeypatch,
    )
    assert err["limit"] == "max_vars" and err["path"] == "/cnf/num_vars"
    assert type(err["actual"]) is int and err["actual"] == int(num_vars)


def test_num_vars_zero_with_empty_clauses(engine, monkeypatch):
    unsat_result = agreed_result(
        {"cnf": {"num_vars": 0, "clauses": [[]]}, "claim": "unsat", "proof": []},
        engine,
        monkeypatch,
    )
    assert unsat_result["valid"] is True and unsat_result["steps_checked"] == 0
    sat_result = agreed_result(
        {"cnf": {"num_vars": 0, "clauses": [[]]}, "claim": "sat", "assignment": []},
        engine,
        monkeypatch,
    )
    assert sat_result["reason"] == "clause_falsified"
    assert sat_result["first_discrepancy"] == {"kind": "clause", "clause_index": 0, "clause": []}


# Validation order


def test_cnf_literal_error_comes_before_claim_error(engine, monkeypatch):
    err = agreed_error(
        {"cnf": {"num_vars": 1, "clauses": [[5]]}, "claim": "x"}, engine, monkeypatch
    )
    assert (err["field"], err["path"]) == ("cnf", "/cnf/clauses/0/0")


@pytest.mark.parametrize(
    "extra", [{"assignment": [1], "proof": []}, {"assignment": None}, {"assignment": []}]
)
def test_unsat_with_an_assignment(engine, monkeypatch, extra):
    err = agreed_error({"cnf": CNF2, "claim": "unsat", **extra}, engine, monkeypatch)
    assert (err["error"], err["field"], err["path"]) == (
        "invalid_input",
        "assignment",
        "/assignment",
    )


def test_literal_error_before_a_later_shape_error(engine, monkeypatch):
    err = agreed_error(
        {"cnf": CNF2, "claim": "unsat", "proof": [{"add": ["x"]}, {}]}, engine, monkeypatch
    )
    assert err["path"] == "/proof/0/add/0"
    err = agreed_error(
        {"cnf": CNF2, "claim": "unsat", "proof": [{}, {"add": ["x"]}]}, engine, monkeypatch
    )
    assert err["path"] == "/proof/0"
