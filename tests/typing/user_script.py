"""The public API as a user's script uses it.

scripts/lint.sh type-checks this file with ``mypy --strict`` (the
project's configuration); it is never run.  Every value is given the type a
user would write down, so a wrong or missing annotation in the package shows
up here as an error.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

import sat_claim_check as scc
from sat_claim_check import dimacs

REQUEST = {"cnf": {"num_vars": 1, "clauses": [[1], [-1]]}, "claim": "unsat", "proof": [{"add": []}]}


def check_one(request: dict[str, Any], engine: scc.EngineName = "auto") -> bool:
    result: scc.Result = scc.check(request, engine=engine)
    valid: bool = result["valid"]
    reason: str | None = result["reason"]
    discrepancy: dict[str, Any] | None = result["first_discrepancy"]
    counts: int = result["clauses_checked"] + result["steps_checked"]
    version: str = result["reference_version"]
    print(reason, discrepancy, counts, version, json.dumps(result))
    return valid


def run_one(text: str) -> int:
    limits = scc.Limits(max_proof_steps=10, max_propagation_work=10**6)
    report: scc.Report = scc.run(json.loads(text), engine="reference", limits=limits)
    engine: str = report.engine
    deletions: tuple[int, ...] = report.reason_deletions
    same: bool = report == scc.run(REQUEST)
    print(engine, deletions, same, repr(report))
    work: int = report.work
    return work


def limits() -> dict[str, int]:
    unlimited: scc.Limits = scc.Limits.unlimited()
    biggest: int = unlimited.max_vars
    print(biggest, scc.Limits().max_proof_literals)
    return scc.Limits(max_vars=5).as_dict()


def errors(request: dict[str, Any]) -> dict[str, Any] | None:
    try:
        scc.check(request, limits=scc.Limits(max_clauses=1))
    except scc.LimitExceeded as err:
        limit: str = err.limit
        maximum: int = err.max
        actual: int | None = err.actual
        step: int | None = err.step_index
        print(limit, maximum, actual, step)
        return err.to_dict()
    except scc.InvalidInput as err:
        field: str | None = err.field
        path: str = err.path
        print(field, path)
        return err.to_dict()
    except scc.CheckError as err:
        message: str = err.message
        print(message, str(err), isinstance(err, ValueError))
        return err.to_dict()
    return None


def from_dimacs(folder: pathlib.Path) -> bool:
    request: dict[str, Any] = scc.request_from_dimacs("p cnf 1 2\n1 0\n-1 0\n", proof="0\n")
    sat_request = dimacs.request_from_dimacs(b"p cnf 1 1\n1 0\n", model=b"v 1 0\n")
    lines_request = dimacs.request_from_dimacs("p cnf 1 2\n1 0\n-1 0\n", proof=["0"])
    print(check_one(sat_request), check_one(lines_request))
    from_files = dimacs.request_from_files(folder / "f.cnf", proof_path=str(folder / "f.drup"))
    try:
        report: scc.Report = dimacs.run_files(
            folder / "f.cnf.gz", folder / "f.drup", engine="compiled", limits=scc.Limits.unlimited()
        )
    except dimacs.DimacsError as err:
        where: tuple[str | None, int | None] = (err.file, err.line)
        print(where, err.message)
        return False
    except OSError:
        return False
    text_report = dimacs.run_dimacs("p cnf 1 1\n1 0\n", model="1")
    print(request == from_files, text_report.result["claim"])
    return report.result["valid"]


def with_pysat(clauses: list[list[int]]) -> bool | None:
    from sat_claim_check.pysat import request_from_pysat, request_from_solver

    try:
        request = request_from_pysat(clauses, "cadical153", add_empty_clause=False)
    except ImportError:  # python-sat is not installed
        return None
    try:
        from pysat.solvers import Solver
    except ImportError:
        return None
    with Solver(name="glucose3", bootstrap_with=clauses, with_proof=True) as solver:
        solver.solve()
        again = request_from_solver(solver, (2, clauses))
    return check_one(request) and check_one(again)


def lenient_and_explain(request: dict[str, Any]) -> list[str]:
    reading: scc.Deletions = "lenient"
    report: scc.Report = scc.run(request, deletions=reading)
    ignored: tuple[int, ...] = report.ignored_deletions
    result: scc.Result = scc.check(request, deletions="strict")
    checker = scc.Checker(request["cnf"], deletions="lenient")
    files: scc.Report = dimacs.run_files("f.cnf", "f.drup", deletions="lenient")
    explanation: scc.Explanation = scc.explain(request, engine="reference")
    strict: scc.Report = explanation.strict
    lenient: scc.Report | None = explanation.lenient
    print(ignored, result, checker.finish(), files, strict, lenient)
    return list(explanation.lines)
