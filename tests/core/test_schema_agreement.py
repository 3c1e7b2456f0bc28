"""The shipped schemas, and §2 against jsonschema's reading of input_schema.

SPEC §2: at the contract's limits a request passes §2 only if it validates
against ``input_schema``, and every request the schema rejects, §2 rejects.
§2 is stricter than the schema in exactly these ways (read off SPEC §2 and
the schema side by side):

* claim ``sat`` needs ``assignment`` and forbids ``proof``; claim ``unsat``
  needs ``proof`` and forbids ``assignment`` (the schema has neither rule);
* a CNF literal must satisfy ``1 <= |l| <= num_vars`` (the schema: |l| <= 10000);
* at most 50000 literals over all clauses, and over all proof steps (limits
  the schema does not state).

So for a request the schema accepts, §2 accepts it iff those rules hold.
"""

import math
from importlib import resources

import jsonschema
import pytest
from _contract import INPUT_SCHEMA, INPUT_VALIDATOR, OUTPUT_SCHEMA, TOOL, sat, unsat
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sat_claim_check as scc

# -- the shipped files ------------------------------------------------------------


def _without_annotations(schema):
    return {k: v for k, v in schema.items() if k not in ("$schema", "title")}


def test_shipped_schemas_are_the_tool_descriptions():
    assert _without_annotations(INPUT_SCHEMA) == TOOL["input_schema"]
    assert _without_annotations(OUTPUT_SCHEMA) == TOOL["output_schema"]
    for schema in (INPUT_SCHEMA, OUTPUT_SCHEMA):
        assert (
            schema.get("$schema", "https://json-schema.org/draft/2020-12/schema")
            == "https://json-schema.org/draft/2020-12/schema"
        )
        jsonschema.Draft202012Validator.check_schema(schema)


def test_schema_limits_are_the_contract_limits():
    props = INPUT_SCHEMA["properties"]
    assert props["cnf"]["properties"]["num_vars"]["maximum"] == 10000
    assert props["cnf"]["properties"]["clauses"]["maxItems"] == 5000
    assert props["assignment"]["maxItems"] == 10000
    assert props["proof"]["maxItems"] == 2000


def test_examples_validate_against_the_schemas():
    for example in TOOL["examples"]:
        INPUT_VALIDATOR.validate(example["input"])
        jsonschema.Draft202012Validator(OUTPUT_SCHEMA).validate(example["output"])


def test_shipped_files_are_package_data():
    names = {p.name for p in resources.files("sat_claim_check").joinpath("schemas").iterdir()}
    assert {"input.schema.json", "output.schema.json", "tool.json"} <= names


# -- the differential test --------------------------------------------------------------


def ours_accepts(request):
    try:
        scc.run(request, engine="reference")
    except scc.CheckError:
        return False
    return True


def extra_rules_hold(request):
    """The §2 rules beyond input_schema, for a request the schema accepts."""
    claim = request["claim"]
    if claim == "sat" and ("assignment" not in request or "proof" in request):
        return False
    if claim == "unsat" and ("proof" not in request or "assignment" in request):
        return False
    num_vars = request["cnf"]["num_vars"]
    clauses = request["cnf"]["clauses"]
    if any(not 1 <= abs(lit) <= num_vars for clause in clauses for lit in clause):
        return False
    if sum(len(c) for c in clauses) > 50000:
        return False
    steps = request.get("proof", [])
    return sum(len(v) for step in steps for v in step.values()) <= 50000


def agree(request):
    schema_ok = INPUT_VALIDATOR.is_valid(request)
    ok = ours_accepts(request)
    if not schema_ok:
        assert not ok, "input_schema rejects it, §2 accepted it"
    else:
        assert ok == extra_rules_hold(request)


JUNK = st.sampled_from(
    [
        None,
        True,
        False,
        "x",
        "",
        "1",
        1.5,
        -0.5,
        2.0,
        0,
        -1,
        1,
        3,
        10000,
        10001,
        -10000,
        -10001,
        10**20,
        -(10**20),
        1e300,
        math.inf,
        math.nan,
        [],
        {},
        [1],
        [[1]],
        {"add": []},
        {"num_vars": 1},
    ]
)


@st.composite
def sometimes(draw, good, rate=12, junk=JUNK):
    """Mostly ``good``, one draw in ``rate`` from ``junk``."""
    return draw(junk if draw(st.integers(0, rate - 1)) == 0 else good)


INT_LIKE = sometimes(
    st.sampled_from([1, -1, 2, -2, 3, -3, 4, -4]),
    15,
    st.sampled_from([0, 10000, -10000, 10001, -10001, 3.0, -2.0, 9999]),
)
LITERAL = sometimes(INT_LIKE, 60)
LITERALS = sometimes(st.lists(LITERAL, max_size=4), 30)
NUM_VARS = sometimes(
    sometimes(st.integers(3, 6), 6, st.sampled_from([0, 1, 2, 10000, 10001, -1, 4.0])), 20
)


@st.composite
def obj(draw, fields, extra_keys):
    """A dict of ``fields``; sometimes a key is dropped or an unknown one added."""
    d = {}
    for key, strategy in fields:
        d[key] = draw(strategy)
    if d and draw(st.integers(0, 24)) == 0:
        del d[draw(st.sampled_from(sorted(d)))]
    if draw(st.integers(0, 24)) == 0:
        d[draw(st.sampled_from(extra_keys))] = draw(JUNK)
    if draw(st.booleans()):
        d = dict(reversed(list(d.items())))
    return d


STEP = sometimes(
    st.one_of(
        obj([("add", LITERALS)], ["delete", "Add", "x"]),
        obj([("delete", LITERALS)], ["add", "Delete"]),
    ),
    30,
)

CNF = sometimes(
    obj(
        [("num_vars", NUM_VARS), ("clauses", sometimes(st.lists(LITERALS, max_size=5), 25))],
        ["vars", "Clauses"],
    ),
    25,
)


@st.composite
def requests(draw):
    claim = draw(sometimes(st.sampled_from(["sat", "unsat"]), 25))
    fields = [("cnf", CNF), ("claim", st.just(claim))]
    matching = {"sat": "assignment", "unsat": "proof"}.get(
        claim if isinstance(claim, str) else "", "neither"
    )
    which = draw(st.sampled_from([matching] * 5 + ["assignment", "proof", "both", "neither"]))
    if which in ("assignment", "both"):
        fields.append(("assignment", sometimes(st.lists(LITERAL, max_size=6), 25)))
    if which in ("proof", "both"):
        fields.append(("proof", sometimes(st.lists(STEP, max_size=4), 25)))
    return draw(obj(fields, ["zzz", "Claim", "proofs"]))


def test_section_2_agrees_with_input_schema():
    seen = {"schema-accepts": 0, "schema-rejects": 0, "ours-accepts": 0}

    @settings(
        max_examples=400,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(requests())
    def property_(request):
        schema_ok = INPUT_VALIDATOR.is_valid(request)
        seen["schema-accepts" if schema_ok else "schema-rejects"] += 1
        seen["ours-accepts"] += ours_accepts(request)
        agree(request)

    property_()
    # The property is only meaningful if each outcome occurs often.
    assert seen["schema-accepts"] >= 30, seen
    assert seen["schema-rejects"] >= 30, seen
    assert seen["ours-accepts"] >= 15, seen


# -- at the limits, where a generator rarely goes -------------------------------------

AT_THE_LIMITS = [
    (sat(10000, [], []), True),
    (sat(10001, [], []), False),
    (sat(1, [[1]] * 5000, [1]), True),
    (sat(1, [[1]] * 5001, [1]), False),
    (sat(1, [], [1] * 10000), True),  # duplicates are a verdict, not an error
    (sat(1, [], [1] * 10001), False),
    (sat(2, [], [10000, -10000]), True),
    (sat(2, [], [10001]), False),
    (sat(2, [], [-10001]), False),
    (sat(10000, [[10000, -10000]], []), True),
    (sat(10000, [[10001]], []), False),
    (unsat(0, [[]], [{"add": []}] * 2000), True),
    (unsat(0, [[]], [{"add": []}] * 2001), False),
    (unsat(0, [[]], [{"add": [10000]}, {"delete": [-10000]}]), True),
    (unsat(0, [[]], [{"add": [10001]}]), False),
    (unsat(0, [[]], [{"delete": [-10001]}]), False),
]


@pytest.mark.parametrize(
    "request_, accepted", AT_THE_LIMITS, ids=[str(i) for i in range(len(AT_THE_LIMITS))]
)
def test_agreement_at_the_limits(request_, accepted):
    assert INPUT_VALIDATOR.is_valid(request_) is accepted
    assert ours_accepts(request_) is accepted
    agree(request_)


def test_stricter_than_the_schema_only_where_the_spec_says():
    # schema accepts; §2 rejects: the extra rules, one by one
    extra = [
        sat(2, [[1, 0]], [1]),  # 0 in the CNF
        sat(2, [[3]], [1]),  # above num_vars
        {"cnf": {"num_vars": 1, "clauses": []}, "claim": "sat"},  # no assignment
        {"cnf": {"num_vars": 1, "clauses": []}, "claim": "unsat"},  # no proof
        {"cnf": {"num_vars": 1, "clauses": []}, "claim": "sat", "assignment": [], "proof": []},
        {"cnf": {"num_vars": 1, "clauses": []}, "claim": "unsat", "assignment": [], "proof": []},
        sat(2, [[1, 2] * 5000] * 5 + [[1]], [1]),  # 50001 CNF literals
        unsat(1, [[]], [{"add": [1] * 25}] * 1999 + [{"add": [1] * 26}]),  # 50001
    ]
    for request in extra:
        assert INPUT_VALIDATOR.is_valid(request)
        assert not ours_accepts(request)
        assert not extra_rules_hold(request)
