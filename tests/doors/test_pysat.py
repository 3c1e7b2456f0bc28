"""Requests from a real PySAT solver run, checked by the contract."""

import gc

import pytest

import sat_claim_check as scc

pysat_solvers = pytest.importorskip("pysat.solvers")
pysat_formula = pytest.importorskip("pysat.formula")

from sat_claim_check.pysat import request_from_pysat, request_from_solver


def pigeons(n):
    """n + 1 pigeons in n holes: unsat, with a proof of some length."""
    var = {(p, h): p * n + h + 1 for p in range(n + 1) for h in range(n)}
    clauses = [[var[p, h] for h in range(n)] for p in range(n + 1)]
    clauses += [
        [-var[p, h], -var[q, h]]
        for h in range(n)
        for p in range(n + 1)
        for q in range(p + 1, n + 1)
    ]
    return clauses


@pytest.mark.parametrize("solver", ["cadical195", "lingeling", "maplecm"])
def test_unsat_proofs_check(engine, solver):
    request = request_from_pysat(pigeons(5), solver_name=solver)
    assert request["claim"] == "unsat"
    assert list(request) == ["cnf", "claim", "proof"]
    assert len(request["proof"]) > 1
    assert request["proof"][-1] == {"add": []}
    result = scc.check(request, engine=engine)
    assert result["valid"] is True, result


def test_glucose3_deletes_reason_clauses(engine):
    # glucose3 deletes clauses that are reasons of level-0 literals (as in the
    # corpus's c011); the contract honours those deletions, so its proof of
    # php(6, 5) fails at a lemma that only the ignored deletions would allow.
    request = request_from_pysat(pigeons(5), solver_name="glucose3")
    report = scc.run(request, engine=engine)
    assert report.result["reason"] == "lemma_not_rup"
    failing = report.result["first_discrepancy"]["step_index"]
    earlier = [s for s in report.reason_deletions if s < failing]
    assert earlier
    assert all("delete" in request["proof"][s] for s in earlier)


def test_sat_model_checks(engine):
    formula = pysat_formula.CNF(from_clauses=[[1, 2], [-1, 3], [-3, -2]])
    request = request_from_pysat(formula)
    assert request["claim"] == "sat"
    assert request["cnf"] == {"num_vars": 3, "clauses": [[1, 2], [-1, 3], [-3, -2]]}
    assert scc.check(request, engine=engine)["valid"] is True


def test_num_vars_from_the_cnf_object_and_the_empty_clause_completed():
    formula = pysat_formula.CNF(from_clauses=[[1], [-1]])
    formula.nv = 5
    request = request_from_pysat(formula)
    assert request["cnf"]["num_vars"] == 5
    assert request["proof"] == [{"add": []}]  # glucose logs nothing here
    assert scc.check(request)["valid"] is True
    exact = request_from_pysat(formula, add_empty_clause=False)
    assert exact["proof"] == []
    assert scc.check(exact)["reason"] == "empty_clause_not_derived"


def test_request_from_a_solver_run_by_the_caller():
    clauses = pigeons(3)
    with pysat_solvers.Solver(name="glucose4", bootstrap_with=clauses, with_proof=True) as solver:
        assert solver.solve() is False
        request = request_from_solver(solver, clauses)
    assert scc.check(request)["valid"] is True


def test_a_solver_without_an_answer_is_refused():
    with (
        pysat_solvers.Solver(name="glucose3", bootstrap_with=[[1]], with_proof=True) as solver,
        pytest.raises(RuntimeError, match="no answer"),
    ):
        request_from_solver(solver, [[1]])


@pytest.mark.parametrize("solver", ["minisat22", "minicard"])
def test_a_solver_without_proof_logging_is_refused_quietly(solver):
    # PySAT's own refusal, and nothing on stderr: its half-built solver object
    # used to print an AttributeError traceback from __del__ when collected
    # (here the suite turns that into an error: filterwarnings = error).
    with pytest.raises(NotImplementedError, match="Proof logging is not supported"):
        request_from_pysat(pigeons(2), solver_name=solver)
    gc.collect()
    out = run_python(
        "import gc\n"
        "from sat_claim_check.pysat import request_from_pysat\n"
        "try:\n"
        f"    request_from_pysat([[1, 2], [-1]], solver_name={solver!r})\n"
        "except NotImplementedError as exc:\n"
        "    print('refused:', exc)\n"
        "gc.collect()\n"
    )
    assert out.returncode == 0
    assert out.stdout.startswith("refused: Proof logging is not supported")
    assert out.stderr == ""


# --- What is checked before anything reaches a solver ------------------------


def run_python(code, memory=None):
    """Run ``code`` in a fresh interpreter (optionally under an address-space limit)."""
    import subprocess
    import sys

    prelude = ""
    if memory:
        prelude = f"import resource\nresource.setrlimit(resource.RLIMIT_AS, ({memory}, {memory}))\n"
    return subprocess.run(
        [sys.executable, "-c", prelude + code],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_a_variable_of_2_31_minus_1_is_refused_not_a_crash():
    # It used to reach glucose3 and kill the interpreter with SIGSEGV.
    proc = run_python(
        "from sat_claim_check.pysat import request_from_pysat\nrequest_from_pysat([[2**31 - 1]])\n"
    )
    assert proc.returncode == 1, proc
    assert proc.stderr.splitlines()[-1] == (
        "ValueError: clause 0, literal 0: 2147483647 is out of range "
        "(a literal is nonzero with abs(lit) <= 1073741823)"
    )


@pytest.fixture
def no_solver(monkeypatch):
    """Make any solver creation fail the test: nothing may reach PySAT."""

    def refuse(*args, **kwargs):
        raise AssertionError("the formula reached the solver")

    monkeypatch.setattr(pysat_solvers, "Solver", refuse)


@pytest.mark.parametrize(
    ("formula", "message"),
    [
        ([[1.7]], "clause 0, literal 0: 1.7 is not an int"),
        ([[1, 2], [3, 1.0]], "clause 1, literal 1: 1.0 is not an int"),
        ([[1], ["1"]], "clause 1, literal 0: '1' is not an int"),
        ([[True]], "clause 0, literal 0: True is not an int"),
        ([[2, False]], "clause 0, literal 1: False is not an int"),
        ([[None]], "clause 0, literal 0: None is not an int"),
        ([[1, [2]]], r"clause 0, literal 1: \[2\] is not an int"),
        ([[1], {1: 2}], "clause 1 must be a sequence of literals, not dict"),
        ([[1], "12"], "clause 1 must be a sequence of literals, not str"),
        ([b"\x01"], "clause 0 must be a sequence of literals, not bytes"),
        ([{1, 2}], "clause 0 must be a sequence of literals, not set"),
        ([1, 2], "clause 0 must be a sequence of literals, not int"),
        ("1 2 0", "the formula must be .* not str"),
        (5, "the formula must be .* not int"),
        ({1: [1]}, "the formula must be .* not dict"),
    ],
)
def test_wrong_types_are_refused_with_their_position(no_solver, formula, message):
    with pytest.raises(TypeError, match=f"^{message}$"):
        request_from_pysat(formula)


@pytest.mark.parametrize(
    ("lit", "position"),
    [
        (0, "clause 1, literal 0"),
        (2**30, "clause 1, literal 0"),
        (-(2**30), "clause 1, literal 0"),
        (-(2**31), "clause 1, literal 0"),
        (2**31 - 1, "clause 1, literal 0"),
        (2**64, "clause 1, literal 0"),
    ],
)
def test_literals_out_of_range_are_refused(no_solver, lit, position):
    with pytest.raises(ValueError, match=f"^{position}: {lit} is out of range"):
        request_from_pysat([[1, 2], [lit, 1]])


class CNFLike:
    def __init__(self, clauses, **nv):
        self.clauses = clauses
        self.__dict__.update(nv)


@pytest.mark.parametrize(
    ("nv", "error"),
    [
        (1.5, TypeError),
        ("3", TypeError),
        (None, TypeError),
        (True, TypeError),
        (-1, ValueError),
        (2**30, ValueError),
    ],
)
def test_nv_must_be_an_int_in_range(no_solver, nv, error):
    with pytest.raises(error, match=r"^nv "):
        request_from_pysat(CNFLike([[1]], nv=nv))


def test_a_cnf_like_object_without_nv_and_tuples_as_clauses():
    request = request_from_pysat(CNFLike(((1, 2), (-1,), range(-2, -1))))
    assert request["cnf"] == {"num_vars": 2, "clauses": [[1, 2], [-1], [-2]]}
    assert scc.check(request)["valid"] is True


def test_the_pair_form_checks_num_vars():
    with pysat_solvers.Solver(name="glucose3", bootstrap_with=[[1]]) as solver:
        solver.solve()
        with pytest.raises(TypeError, match=r"^num_vars must be an int"):
            request_from_solver(solver, (True, [[1]]))
        with pytest.raises(ValueError, match=r"^num_vars -1 is out of range"):
            request_from_solver(solver, (-1, [[1]]))
        with pytest.raises(TypeError, match=r"^clause 0, literal 0: 1.5 is not an int"):
            request_from_solver(solver, (1, [[1.5]]))
        assert request_from_solver(solver, (3, [[1]]))["cnf"]["num_vars"] == 3


# --- Sparse formulas are solved renumbered ------------------------------------


def test_the_largest_variable_costs_the_solver_no_memory():
    # Without the renumbering cadical195 and lingeling end the process (and
    # glucose3 raises MemoryError) here: they allocate for every variable.
    # In a subprocess, so that a failure cannot take the test run with it.
    proc = run_python(
        "from sat_claim_check.pysat import request_from_pysat\n"
        "big = 2**30 - 1\n"
        "for name in ('cadical195', 'lingeling', 'glucose3'):\n"
        "    r = request_from_pysat([[big], [-big, 7]], solver_name=name)\n"
        "    print(name, r['cnf']['num_vars'], r['claim'], sorted(r['assignment']))\n"
        "    r = request_from_pysat([[big], [-big]], solver_name=name)\n"
        "    print(name, r['claim'], {'add': []} in r['proof'],\n"
        "          {abs(lit) for step in r['proof'] for lit in [*step.values()][0]} <= {big})\n",
        memory=2**31,
    )
    assert proc.returncode == 0, proc
    assert proc.stdout.splitlines() == [
        line
        for name in ("cadical195", "lingeling", "glucose3")
        for line in (f"{name} 1073741823 sat [7, 1073741823]", f"{name} unsat True True")
    ]


@pytest.mark.parametrize("solver", ["cadical195", "glucose4", "lingeling", "maplecm"])
def test_sparse_formulas_give_certificates_in_their_own_variables(solver):
    def spread(clauses):
        return [[lit * 97 + (3 if lit > 0 else -3) for lit in clause] for clause in clauses]

    unsat = request_from_pysat(spread(pigeons(4)), solver_name=solver)
    assert unsat["claim"] == "unsat"
    used = {abs(lit) for clause in unsat["cnf"]["clauses"] for lit in clause}
    assert {abs(lit) for step in unsat["proof"] for lit in next(iter(step.values()))} <= used
    assert scc.check(unsat)["valid"] is True
    sat = request_from_pysat(spread([[1, 2], [-1, 3], [-3, -2], [4]]), solver_name=solver)
    assert sat["claim"] == "sat"
    assert {abs(lit) for lit in sat["assignment"]} == {100, 197, 294, 391}
    assert scc.check(sat)["valid"] is True


# --- request_from_solver: answers that refute something else -------------------

PROOF_SOLVERS = ["glucose3", "glucose4", "cadical153", "cadical195", "lingeling", "maplecm"]
SAT = [[1, 2], [-1, 3], [-3, -2]]


@pytest.mark.parametrize("name", PROOF_SOLVERS)
def test_unsat_under_assumptions_is_refused(name):
    with pysat_solvers.Solver(name=name, bootstrap_with=SAT, with_proof=True) as solver:
        assert solver.solve(assumptions=[-1, -2]) is False
        with pytest.raises(RuntimeError, match="under the assumptions"):
            request_from_solver(solver, SAT)
        assert solver.solve() is True  # the core is gone with the next answer
        request = request_from_solver(solver, SAT)
    assert scc.check(request)["valid"] is True


@pytest.mark.parametrize("name", PROOF_SOLVERS)
def test_answers_under_assumptions_that_still_certify(name):
    with pysat_solvers.Solver(name=name, bootstrap_with=SAT, with_proof=True) as solver:
        assert solver.solve(assumptions=[1]) is True
        assert scc.check(request_from_solver(solver, SAT))["valid"] is True
    # The formula itself is refuted: the core is empty, the proof refutes it.
    unsat = [[1, 2], [-1, 2], [1, -2], [-1, -2]]
    with pysat_solvers.Solver(name=name, bootstrap_with=unsat, with_proof=True) as solver:
        assert solver.solve(assumptions=[1]) is False
        assert scc.check(request_from_solver(solver, unsat))["valid"] is True
    # An assumption on a fresh variable makes the solver's variables more
    # than the formula's: num_vars must then cover it.
    with pysat_solvers.Solver(name=name, bootstrap_with=unsat, with_proof=True) as solver:
        assert solver.solve(assumptions=[3]) is False
        with pytest.raises(RuntimeError, match="has 3 variables but the formula uses 2 of 2"):
            request_from_solver(solver, unsat)
        assert scc.check(request_from_solver(solver, (3, unsat)))["valid"] is True


@pytest.mark.parametrize("name", PROOF_SOLVERS)
def test_clauses_added_on_new_variables_are_refused(name):
    added = [[4], [-4, -1], [-4, -2]]
    with pysat_solvers.Solver(name=name, bootstrap_with=SAT, with_proof=True) as solver:
        solver.append_formula(added)
        assert solver.solve() is False
        with pytest.raises(RuntimeError, match="has 4 variables but the formula uses 3 of 3"):
            request_from_solver(solver, SAT)
        request = request_from_solver(solver, SAT + added)  # what the solver has
    assert scc.check(request)["valid"] is True


@pytest.mark.parametrize("name", PROOF_SOLVERS)
def test_a_formula_the_solver_was_not_given_is_refused(name):
    with pysat_solvers.Solver(name=name, bootstrap_with=pigeons(2), with_proof=True) as solver:
        assert solver.solve() is False
        with pytest.raises(RuntimeError, match="has 6 variables but the formula uses 9 of 9"):
            request_from_solver(solver, [*pigeons(2), [9]])


@pytest.mark.parametrize("name", PROOF_SOLVERS)
def test_clauses_added_on_the_formulas_variables_are_not_seen_but_fail(name):
    # The documented blind spot: the request is built, and its check fails.
    with pysat_solvers.Solver(name=name, bootstrap_with=SAT, with_proof=True) as solver:
        solver.append_formula([[-1], [-2]])
        assert solver.solve() is False
        request = request_from_solver(solver, SAT)
    assert scc.check(request)["valid"] is False
