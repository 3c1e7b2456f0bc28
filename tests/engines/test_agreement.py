"""Both engines, through the public API, on the same requests.

The heart of the compiled engine's tests: results, error dicts and
``Report.work`` must be equal on every request, valid or not, including
requests that validation rejects and caps on both sides of the boundary.
The compiled validation fast path is held to the pure one the same way.
"""

import collections
import copy
import random
from array import array

import proofgen
import pytest
from _helpers import WALK_ONLY, outcome
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sat_claim_check as scc
from sat_claim_check import _engines as _engine
from sat_claim_check._core import validate as _validate
from sat_claim_check._core.validated import Validated
from sat_claim_check._engines import convert_py

pytestmark = pytest.mark.compiled


def assert_agree(request, limits=None):
    compiled = outcome(request, "compiled", limits)
    reference = outcome(request, "reference", limits)
    assert compiled == reference, request
    return reference


# -- request-level breakage on top of proofgen's proof-level mutations ----------------

JUNK = [None, True, False, 1.5, float("nan"), float("inf"), 2.0, "1", [], {}, 10**30, -0.0]


def break_request(request, rng):
    """A deep copy of request with one field-level defect, often one §2 rejects."""
    out = copy.deepcopy(request)
    cnf, proof = out["cnf"], out.get("proof", [])
    choice = rng.randrange(12)
    if choice == 0 and cnf["clauses"]:
        clause = rng.choice(cnf["clauses"])
        clause.insert(rng.randint(0, len(clause)), rng.choice(JUNK))
    elif choice == 1 and proof:
        ((_, lits),) = rng.choice(proof).items()
        lits.insert(rng.randint(0, len(lits)), rng.choice(JUNK))
    elif choice == 2 and proof:
        proof[rng.randrange(len(proof))] = rng.choice(
            [{}, {"add": [1], "delete": [1]}, {"Add": [1]}, [1], None, {"add": 1}]
        )
    elif choice == 3:
        out[rng.choice(["zzz", "assignment", "Claim"])] = []
    elif choice == 4:
        cnf["num_vars"] = rng.choice([-1, 0, 1.0 * cnf["num_vars"], True, "3", 10**6])
    elif choice == 5 and cnf["clauses"]:
        cnf["clauses"][rng.randrange(len(cnf["clauses"]))] = rng.choice([5, None, {}])
    elif choice == 6:
        out["claim"] = rng.choice(["SAT", None, "sat"])
    elif choice == 7 and proof:
        # Integral floats are integers: the same request, spelled differently.
        ((_, lits),) = rng.choice(proof).items()
        lits[:] = [float(x) for x in lits]
    elif choice == 8:
        cnf["clauses"] = tuple(tuple(c) for c in cnf["clauses"])
        out["proof"] = tuple(proof)
    elif choice == 9 and cnf["clauses"]:
        clause = rng.choice(cnf["clauses"])
        clause.append(rng.choice([0, cnf["num_vars"] + 1, -(cnf["num_vars"] + 2)]))
    elif choice == 10 and proof:
        ((_, lits),) = rng.choice(proof).items()
        lits.append(rng.choice([10001, -10001, 2**31, -(2**40)]))
    else:
        del out[rng.choice(["cnf", "claim", "proof"])]
    return out


def requests(seed, count):
    rng = random.Random(seed)
    for request in proofgen.cases(seed, count):
        yield request if rng.random() < 0.8 else break_request(request, rng)


@pytest.mark.parametrize("chunk", range(6))
def test_engines_agree_on_generated_requests(chunk: int) -> None:
    kinds = collections.Counter(
        assert_agree(request)[0] for request in requests(f"agreement-{chunk}", 200)
    )
    # Most requests reach an engine; enough are rejected to test the errors too.
    assert kinds["report"] >= 120 and kinds["error"] >= 15, kinds


@pytest.mark.parametrize("chunk", range(3))
def test_engines_agree_at_the_cap_boundary(chunk):
    """Work W: the cap W passes on both, W - 1 fails on both at the same step."""
    checked = 0
    for request in proofgen.cases(f"cap-{chunk}", 120):
        first = assert_agree(request)
        if first[0] != "report" or first[2] == 0:
            continue
        work = first[2]
        for cap in {work - 1, work, work + 1, work // 2, 1, 0}:
            assert_agree(request, scc.Limits(max_propagation_work=cap))
        checked += 1
    assert checked >= 60


@pytest.mark.parametrize("chunk", range(2))
def test_engines_agree_under_small_size_limits(chunk: int) -> None:
    rng = random.Random(f"limits-{chunk}")
    reached = collections.Counter()
    for request in proofgen.cases(f"limits-{chunk}", 100):
        cnf = request["cnf"]
        proof = request["proof"]
        literals = sum(len(next(iter(s.values()))) for s in proof)
        limits = scc.Limits(
            max_vars=max(0, cnf["num_vars"] - rng.randint(0, 1)),
            max_clauses=max(0, len(cnf["clauses"]) - rng.randint(0, 1)),
            max_total_literals=max(0, sum(map(len, cnf["clauses"])) - rng.randint(0, 1)),
            max_proof_steps=max(0, len(proof) - rng.randint(0, 1)),
            max_proof_literals=max(0, literals - rng.randint(0, 1)),
        )
        kind, *rest = assert_agree(request, limits)
        reached[rest[1].get("limit", "other") if kind == "error" else kind] += 1
    # Each limit is the first one exceeded somewhere, and some requests fit them all.
    assert reached.keys() >= {
        "max_vars",
        "max_clauses",
        "max_total_literals",
        "max_proof_steps",
        "max_proof_literals",
    }, reached
    assert reached["report"] >= 3, reached


def test_engines_agree_on_sat_claims() -> None:
    rng = random.Random("sat")
    reasons = collections.Counter()
    for _ in range(200):
        n = rng.randint(0, 6)
        clauses = (
            [
                [rng.choice((1, -1)) * rng.randint(1, n) for _ in range(rng.randint(0, 3))]
                for _ in range(rng.randint(0, 6))
            ]
            if n
            else [[]]
        )
        assignment = [
            rng.choice((1, -1)) * rng.randint(0, n + 1) for _ in range(rng.randint(0, n + 2))
        ]
        kind, *rest = assert_agree(
            {"cnf": {"num_vars": n, "clauses": clauses}, "claim": "sat", "assignment": assignment}
        )
        reasons[rest[0]["reason"] if kind == "report" else "error"] += 1
    # Every sat reason, and valid claims, among the generated ones.
    assert reasons.keys() >= {
        None,
        "assignment_variable_out_of_range",
        "duplicate_assignment_literal",
        "conflicting_assignment",
        "clause_falsified",
        "clause_undetermined",
    }, reasons


# -- hypothesis: small arbitrary requests ---------------------------------------------

LIT = st.one_of(st.integers(-5, 5), st.sampled_from(JUNK))
STEPS = st.lists(
    st.one_of(
        st.fixed_dictionaries({"add": st.lists(LIT, max_size=4)}),
        st.fixed_dictionaries({"delete": st.lists(LIT, max_size=4)}),
        st.dictionaries(
            st.sampled_from(["add", "delete", "x"]), st.lists(LIT, max_size=2), max_size=2
        ),
    ),
    max_size=8,
)


@settings(
    max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(
    num_vars=st.one_of(st.integers(0, 5), st.sampled_from(JUNK)),
    clauses=st.lists(st.lists(st.integers(-5, 5).filter(bool), max_size=4), max_size=6),
    proof=STEPS,
    cap=st.integers(0, 40),
)
def test_engines_agree_on_arbitrary_small_requests(num_vars, clauses, proof, cap):
    request = {"cnf": {"num_vars": num_vars, "clauses": clauses}, "claim": "unsat", "proof": proof}
    assert_agree(request, scc.Limits(max_propagation_work=cap))
    assert_agree(request)


# -- the compiled validation fast path against the pure one ---------------------------


def validated_or_error(request):
    try:
        v = _validate.validate(request, scc.Limits())
    except scc.CheckError as err:
        return err.to_dict()
    return {name: getattr(v, name) for name in Validated.__slots__}


@pytest.mark.compiled
@pytest.mark.parametrize("converter", [convert_py, WALK_ONLY], ids=["pure", "walk"])
def test_fast_validation_equals_the_python_walk(monkeypatch, converter):
    assert _engine.converter().__name__ == "sat_claim_check._engines.convert_c"
    samples = list(requests("validation", 300))
    compiled = [validated_or_error(r) for r in samples]
    monkeypatch.setitem(_engine._chosen, "converter", converter)
    other = [validated_or_error(r) for r in samples]
    assert compiled == other
    assert sum(isinstance(x, dict) and "error" in x for x in other) >= 20
    assert sum("error" not in x for x in other) >= 20


@pytest.mark.parametrize(
    "pairs",
    [
        [],
        [("a", 1)],
        [("a", 1), ("b", "x")],
        [("a", 1), ("a", 2)],
        [("\ud800", 1)],
        [("a", "\udfff")],
        [("a", ["\ud800"])],
        [("é", "ü")],
    ],
)
def test_compiled_json_object_hook_equals_the_python_one(pairs):
    from sat_claim_check._engines import convert_c

    def called(hook):
        try:
            return hook(list(pairs))
        except ValueError as exc:
            return ("ValueError", str(exc))

    assert called(convert_c.unique_keys) == called(convert_py.unique_keys)


# -- the first step with a literal over the bound: the converter twins --------------------

steps = st.lists(st.lists(st.integers(-40, 40), max_size=5), max_size=8)


@settings(max_examples=400, deadline=None)
@given(steps=steps, bound=st.one_of(st.integers(0, 45), st.just(1 << 40)), data=st.data())
def test_the_twins_find_the_same_first_step_over_the_bound(
    steps: list[list[int]], bound: int, data: st.DataObject
) -> None:
    from sat_claim_check._engines import convert_c

    offsets = array("i", [0])
    for step in steps:
        offsets.append(offsets[-1] + len(step))
    lits = array("i", [lit for step in steps for lit in step])
    a = data.draw(st.integers(0, len(steps)))
    b = data.draw(st.integers(a, len(steps)))
    want = convert_py.first_step_over(offsets, lits, bound, a, b)
    assert convert_c.first_step_over(offsets, lits, bound, a, b) == want
    over = [s for s in range(a, b) if any(abs(lit) > bound for lit in steps[s])]
    assert want == (over[0] if over else None)


def test_the_compiled_twin_refuses_offsets_that_describe_no_steps() -> None:
    from sat_claim_check._engines import convert_c

    lits = array("i", [1, 2])
    for offsets, a, b in (
        (array("i", [0, 3]), 0, 1),
        (array("i", [0, 2]), 0, 2),
        (array("i", [1, 0]), 0, 1),
        (array("i", [0, 2]), -1, 1),
    ):
        with pytest.raises(ValueError, match="offsets do not describe the steps"):
            convert_c.first_step_over(offsets, lits, 5, a, b)
