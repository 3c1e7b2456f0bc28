"""Requests from PySAT: solve a formula and certify the answer.

Needs the optional extra ``pip install "sat-claim-check[pysat]"`` (the
``python-sat`` package).

    >>> from sat_claim_check.pysat import request_from_pysat
    >>> import sat_claim_check as scc
    >>> request = request_from_pysat([[1, 2], [-1, 2], [1, -2], [-1, -2]])
    >>> request["claim"], scc.check(request)["valid"]
    ('unsat', True)

The proof is the solver's DRUP log (``with_proof=True``, ``get_proof()``);
solvers that cannot log one (e.g. minisat22) are refused by PySAT itself.
The request format is in docs/semantics.md ("Requests, results and errors").
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, cast

from ._validate import proof_steps
from .dimacs import drup_arrays

if TYPE_CHECKING:
    from pysat.formula import CNF
    from pysat.solvers import Solver

__all__ = ["request_from_pysat", "request_from_solver"]


def _clauses_of(formula: Any) -> tuple[int, list[list[int]]]:
    """(num_vars, clauses) of a PySAT CNF or a sequence of clauses."""
    clauses = getattr(formula, "clauses", formula)
    clauses = [[int(lit) for lit in clause] for clause in clauses]
    num_vars = max((abs(lit) for clause in clauses for lit in clause), default=0)
    num_vars = max(num_vars, int(getattr(formula, "nv", 0) or 0))
    return num_vars, clauses


def request_from_pysat(formula: CNF | Iterable[Iterable[int]], solver_name: str = "glucose3", *,
                       add_empty_clause: bool = True, **solver_options: Any) -> dict[str, Any]:
    """Solve ``formula`` with PySAT and return the request certifying the answer (a dict).

    ``formula`` is a ``pysat.formula.CNF`` (its ``nv`` gives num_vars when
    larger than the highest variable used) or a sequence of clauses.  Returns
    the sat request with the solver's model, or the unsat request with its
    DRUP proof.  Raises RuntimeError when the solver gives no answer (e.g. an
    interrupted or budgeted run).  ``solver_options`` go to
    ``pysat.solvers.Solver``.  Pass the request to ``sat_claim_check.check``.

    Some solvers log no final ``0`` when the formula is refuted while it is
    loaded (glucose on ``[[1], [-1]]`` logs an empty proof); with
    ``add_empty_clause`` (the default) such a proof gets ``{"add": []}``
    appended.  The step is checked like any other, so this never makes a
    wrong answer pass; pass False to get the solver's log exactly.
    """
    from pysat.solvers import Solver

    num_vars, clauses = _clauses_of(formula)
    with Solver(name=solver_name, bootstrap_with=clauses, with_proof=True,
                **solver_options) as solver:
        solver.solve()
        return request_from_solver(solver, (num_vars, clauses),
                                   add_empty_clause=add_empty_clause)


def request_from_solver(
        solver: Solver,
        formula: CNF | Iterable[Iterable[int]] | tuple[int, Iterable[Iterable[int]]], *,
        add_empty_clause: bool = True) -> dict[str, Any]:
    """Return the request (a dict) for a PySAT solver that has run ``solve()`` on ``formula``.

    The solver must have been created with ``with_proof=True`` for an unsat
    answer.  ``formula`` is what the solver was given (a CNF, a clause list,
    or a ``(num_vars, clauses)`` pair).  ``add_empty_clause``: as for
    ``request_from_pysat``.  Raises RuntimeError when the solver has no
    answer, or no proof for an unsat answer.
    """
    if isinstance(formula, tuple) and len(formula) == 2 and isinstance(formula[0], int):
        num_vars, clauses = cast("tuple[int, Iterable[Iterable[int]]]", formula)
    else:
        num_vars, clauses = _clauses_of(formula)
    status = solver.get_status()
    request: dict[str, Any] = {
        "cnf": {"num_vars": num_vars, "clauses": [list(c) for c in clauses]}}
    if status is True:
        request["claim"] = "sat"
        request["assignment"] = [lit for lit in solver.get_model() if abs(lit) <= num_vars]
        return request
    if status is False:
        proof = solver.get_proof()
        if proof is None:
            raise RuntimeError("the solver kept no proof: create it with with_proof=True")
        steps = drup_arrays(("\n".join(proof) + "\n").encode("ascii"), "<pysat proof>")
        request["claim"] = "unsat"
        request["proof"] = proof_steps(*steps)
        if add_empty_clause and {"add": []} not in request["proof"]:
            request["proof"].append({"add": []})
        return request
    raise RuntimeError("the solver gave no answer (solve() was interrupted or not run)")
