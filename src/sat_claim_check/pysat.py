"""Requests from PySAT: solve a formula and certify the answer.

Needs the optional extra ``pip install "sat-claim-check[pysat]"`` (the
``python-sat`` package).

    >>> from sat_claim_check.pysat import request_from_pysat
    >>> import sat_claim_check as scc
    >>> request = request_from_pysat([[1, 2], [-1, 2], [1, -2], [-1, -2]])
    >>> request["claim"], scc.check(request)["valid"]
    ('unsat', True)

The proof is the solver's DRUP log (``with_proof=True``, ``get_proof()``);
solvers that cannot log one (e.g. minisat22, minicard) are refused by PySAT
itself, with its NotImplementedError (and nothing else on stderr).

The formula is checked before anything reaches a solver, because PySAT's
solvers take C ints without checking them (a variable of 2**31 - 1 crashes
the interpreter in glucose3).  A formula is a ``pysat.formula.CNF``-like
object (``.clauses`` and an optional ``.nv``) or a sequence of clauses; a
clause is a sequence (list, tuple, ...; not a str, bytes or dict) of
literals; a literal is an ``int`` (not a ``bool``, and not a float even when
integral: PySAT takes ints) with ``1 <= abs(lit) <= MAX_VAR``, the largest
variable the engines represent; ``nv`` is an int in ``0..MAX_VAR``.  A wrong
type raises TypeError, a value out of range ValueError; the message names
the clause and the literal by their 0-based positions, e.g.
``clause 0, literal 0: 1.7 is not an int``.

The request format is in docs/semantics.md ("Requests, results and errors").
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from ._core.validated import proof_steps
from .dimacs import drup_arrays
from .limits import CEILINGS

if TYPE_CHECKING:
    from pysat.formula import CNF
    from pysat.solvers import Solver

__all__ = ["MAX_VAR", "request_from_pysat", "request_from_solver"]

MAX_VAR = CEILINGS["max_vars"]  # 2**30 - 1


def _kind(value: object) -> str:
    return type(value).__name__


def _checked_num_vars(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {value!r}")
    if not 0 <= value <= MAX_VAR:
        raise ValueError(f"{name} {value} is out of range 0..{MAX_VAR}")
    return int(value)


def _checked_clauses(clauses: object) -> list[list[int]]:
    """The clauses as lists of plain ints, or raise naming the first bad item."""
    if isinstance(clauses, (str, bytes, bytearray)) or not isinstance(clauses, Sequence):
        raise TypeError(
            "the formula must be a pysat.formula.CNF or a sequence of clauses, "
            f"not {_kind(clauses)}"
        )
    out: list[list[int]] = []
    for i, clause in enumerate(clauses):
        if isinstance(clause, (str, bytes, bytearray)) or not isinstance(clause, Sequence):
            raise TypeError(f"clause {i} must be a sequence of literals, not {_kind(clause)}")
        lits = []
        for j, lit in enumerate(clause):
            if isinstance(lit, bool) or not isinstance(lit, int):
                raise TypeError(f"clause {i}, literal {j}: {lit!r} is not an int")
            if not 0 < abs(lit) <= MAX_VAR:
                raise ValueError(
                    f"clause {i}, literal {j}: {lit} is out of range "
                    f"(a literal is nonzero with abs(lit) <= {MAX_VAR})"
                )
            lits.append(int(lit))
        out.append(lits)
    return out


def _top(clauses: list[list[int]]) -> int:
    return max((abs(lit) for clause in clauses for lit in clause), default=0)


def _clauses_of(formula: Any) -> tuple[int, list[list[int]]]:
    """(num_vars, clauses) of a PySAT CNF or a sequence of clauses, checked."""
    if hasattr(formula, "clauses"):
        nv = _checked_num_vars(getattr(formula, "nv", 0), "nv")
        clauses = _checked_clauses(formula.clauses)
    else:
        nv, clauses = 0, _checked_clauses(formula)
    return max(nv, _top(clauses)), clauses


def _renaming(clauses: list[list[int]]) -> list[int] | None:
    """The formula's variables in order when they are not 1..k, else None.

    Solvers allocate memory for every variable up to the largest one, and
    CaDiCaL and Lingeling end the process when that fails (cadical195 aborts
    on ``[[2**26]]`` within 4 GB), so a sparse formula is solved with its
    variables renumbered 1..k (the order kept) and the answer mapped back.
    """
    used = sorted({abs(lit) for clause in clauses for lit in clause})
    return None if not used or used[-1] == len(used) else used


def _unrename(lits: list[int], used: list[int] | None) -> list[int]:
    """Solver literals back to the formula's; fresh solver variables stay above it."""
    if used is None:
        return lits
    k, shift = len(used), used[-1] - len(used)
    return [
        (used[abs(lit) - 1] if abs(lit) <= k else abs(lit) + shift) * (1 if lit > 0 else -1)
        for lit in lits
    ]


def request_from_pysat(
    formula: CNF | Iterable[Iterable[int]],
    solver_name: str = "glucose3",
    *,
    add_empty_clause: bool = True,
    **solver_options: Any,
) -> dict[str, Any]:
    """Solve ``formula`` with PySAT and return the request certifying the answer (a dict).

    ``formula`` is a ``pysat.formula.CNF`` (its ``nv`` gives num_vars when
    larger than the highest variable used) or a sequence of clauses, checked
    as the module's docstring says (TypeError, ValueError) before the solver
    sees it.  Returns the sat request with the solver's model, or the unsat
    request with its DRUP proof, both in the formula's own variables (a
    formula whose variables are not 1..k is solved renumbered 1..k, so the
    solver's memory follows the variables used, not the largest).  Raises
    RuntimeError when the solver gives no answer (e.g. an interrupted or
    budgeted run).  ``solver_options`` go to ``pysat.solvers.Solver``.  Pass the request to
    ``sat_claim_check.check``.

    Some solvers log no final ``0`` when the formula is refuted while it is
    loaded (glucose on ``[[1], [-1]]`` logs an empty proof); with
    ``add_empty_clause`` (the default) such a proof gets ``{"add": []}``
    appended.  The step is checked like any other, so this never makes a
    wrong answer pass; pass False to get the solver's log exactly.

    The default solver is Glucose 3 (``"glucose3"``): it logs DRUP, ships in
    every ``python-sat`` wheel and needs no licence beyond PySAT's.  Glucose
    (3 and 4), like the other solvers of the MiniSat family, deletes unit
    clauses and the reasons of unit-implied literals, and drat-trim ignores
    such deletions: a correct Glucose proof may fail the default strict check
    (``lemma_not_rup`` or ``deleted_clause_not_found``, with the Report's
    ``hint`` saying so) and pass with ``deletions="lenient"``; a proof that
    stops once its clauses propagate to a conflict, without the empty clause
    (MapleCM's do), passes with ``reading="drat-trim"``.  CaDiCaL's
    (``"cadical153"``) proofs pass strict.
    """
    from pysat.solvers import Solver

    num_vars, clauses = _clauses_of(formula)
    used = _renaming(clauses)
    if used is not None:
        index = {var: k for k, var in enumerate(used, 1)}
        solver_clauses = [
            [index[lit] if lit > 0 else -index[-lit] for lit in clause] for clause in clauses
        ]
    else:
        solver_clauses = clauses
    solver = _new_solver(
        Solver, name=solver_name, bootstrap_with=solver_clauses, with_proof=True, **solver_options
    )
    with solver:
        solver.solve()
        return _request(solver, num_vars, clauses, used, add_empty_clause)


def _new_solver(make: type[Solver], **arguments: Any) -> Solver:
    """``make(**arguments)``, keeping PySAT's own noise off stderr.

    A solver class that refuses its arguments (minisat22 with ``with_proof``:
    NotImplementedError) raises from its ``__init__`` before setting the field
    its ``__del__`` reads, and collecting the half-built object prints an
    AttributeError traceback.  The traceback's frames hold that object: it is
    dropped here, under a hook that keeps that one message quiet, and the
    refusal itself is raised."""
    hook = sys.unraisablehook

    def quiet(unraisable: Any) -> None:
        where = unraisable.object
        if not (
            isinstance(unraisable.exc_value, AttributeError)
            and getattr(where, "__qualname__", "").endswith(".__del__")
            and getattr(where, "__module__", "").startswith("pysat")
        ):
            hook(unraisable)

    sys.unraisablehook = quiet
    try:
        try:
            return make(**arguments)
        except Exception as exc:
            refusal = exc
        refusal.__traceback__ = None  # its frames, and the half-built solver, go now
        raise refusal
    finally:
        sys.unraisablehook = hook


def request_from_solver(
    solver: Solver,
    formula: CNF | Iterable[Iterable[int]] | tuple[int, Iterable[Iterable[int]]],
    *,
    add_empty_clause: bool = True,
) -> dict[str, Any]:
    """Return the request (a dict) for a PySAT solver that has run ``solve()`` on ``formula``.

    The solver must have been created with ``with_proof=True`` for an unsat
    answer.  ``formula`` is everything the solver was given (a CNF, a clause
    list, or a ``(num_vars, clauses)`` pair), checked as for
    ``request_from_pysat``.  ``add_empty_clause``: as for
    ``request_from_pysat``.

    A sat answer always gives the request with the solver's model (a model
    under assumptions or of more clauses still satisfies the formula).  An
    unsat answer is refused with RuntimeError when it is no refutation of
    ``formula``, as far as PySAT lets that be seen:

    - the last ``solve()`` had assumptions that took part in the answer
      (``get_core()`` is not empty); solve again without them;
    - the solver has variables above ``num_vars``, or fewer than the formula
      uses (``nof_vars()``): it was given other clauses (or assumptions on
      other variables) than ``formula``; pass all it was given, with a
      ``num_vars`` (or ``nv``) covering any variable used only in assumptions.

    Clauses added over the formula's own variables cannot be seen
    (``nof_clauses()`` is no measure of them: CaDiCaL counts learnt clauses,
    the MiniSat family drops units and satisfied clauses).  Such a request
    is built, and its check fails unless the proof refutes the formula
    itself: the checker accepts nothing else.
    """
    if isinstance(formula, tuple) and len(formula) == 2 and isinstance(formula[0], int):
        num_vars = _checked_num_vars(formula[0], "num_vars")
        clauses = _checked_clauses(formula[1])
        num_vars = max(num_vars, _top(clauses))
    else:
        num_vars, clauses = _clauses_of(formula)
    if solver.get_status() is False:
        core = solver.get_core()
        if core:
            raise RuntimeError(
                f"the solver answered unsat under the assumptions {core}, which "
                "does not refute the formula: solve() again without them"
            )
        solver_vars, top = solver.nof_vars(), _top(clauses)
        if solver_vars is not None and not top <= solver_vars <= num_vars:
            raise RuntimeError(
                f"the solver has {solver_vars} variables but the formula uses "
                f"{top} of {num_vars}: it was given other clauses than the "
                "formula; pass all the clauses the solver has"
            )
    return _request(solver, num_vars, clauses, None, add_empty_clause)


def _request(
    solver: Solver,
    num_vars: int,
    clauses: list[list[int]],
    used: list[int] | None,
    add_empty_clause: bool,
) -> dict[str, Any]:
    """The request for the solver's answer; ``used`` maps its variables back."""
    status = solver.get_status()
    request: dict[str, Any] = {"cnf": {"num_vars": num_vars, "clauses": clauses}}
    if status is True:
        model = _unrename(solver.get_model(), used)
        request["claim"] = "sat"
        request["assignment"] = [lit for lit in model if abs(lit) <= num_vars]
        return request
    if status is False:
        proof = solver.get_proof()
        if proof is None:
            raise RuntimeError("the solver kept no proof: create it with with_proof=True")
        steps = drup_arrays(("\n".join(proof) + "\n").encode("ascii"), "<pysat proof>")
        request["claim"] = "unsat"
        request["proof"] = [
            {key: _unrename(lits, used)}
            for step in proof_steps(*steps)
            for key, lits in step.items()
        ]
        if add_empty_clause and {"add": []} not in request["proof"]:
            request["proof"].append({"add": []})
        return request
    raise RuntimeError("the solver gave no answer (solve() was interrupted or not run)")
