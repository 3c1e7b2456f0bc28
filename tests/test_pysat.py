"""Requests from a real PySAT solver run, checked by the contract."""

import pytest

import sat_claim_check as scc

pysat_solvers = pytest.importorskip("pysat.solvers")
pysat_formula = pytest.importorskip("pysat.formula")

from sat_claim_check.pysat import request_from_pysat, request_from_solver


def pigeons(n):
    """n + 1 pigeons in n holes: unsat, with a proof of some length."""
    var = {(p, h): p * n + h + 1 for p in range(n + 1) for h in range(n)}
    clauses = [[var[p, h] for h in range(n)] for p in range(n + 1)]
    clauses += [[-var[p, h], -var[q, h]] for h in range(n)
                for p in range(n + 1) for q in range(p + 1, n + 1)]
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
    assert request["proof"] == [{"add": []}]    # glucose logs nothing here
    assert scc.check(request)["valid"] is True
    exact = request_from_pysat(formula, add_empty_clause=False)
    assert exact["proof"] == []
    assert scc.check(exact)["reason"] == "empty_clause_not_derived"


def test_request_from_a_solver_run_by_the_caller():
    clauses = pigeons(3)
    with pysat_solvers.Solver(name="glucose4", bootstrap_with=clauses,
                              with_proof=True) as solver:
        assert solver.solve() is False
        request = request_from_solver(solver, clauses)
    assert scc.check(request)["valid"] is True


def test_a_solver_without_an_answer_is_refused():
    with pysat_solvers.Solver(name="glucose3", bootstrap_with=[[1]],
                              with_proof=True) as solver, \
            pytest.raises(RuntimeError, match="no answer"):
        request_from_solver(solver, [[1]])


# PySAT's Minisat22 object fails in __del__ after refusing with_proof.
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_a_solver_without_proof_logging_is_refused():
    with pytest.raises(NotImplementedError):
        request_from_pysat(pigeons(2), solver_name="minisat22")
