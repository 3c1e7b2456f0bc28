"""Mistakes the types must catch.

scripts/lint.sh type-checks this file with ``mypy --strict``, which
includes ``warn_unused_ignores``: each ``# type: ignore[code]`` below passes
only when mypy reports exactly that error on its line, so an annotation that
grows too loose (an ``Any``, a plain ``str`` for ``engine``...) fails the check.
It is never run.
"""

from __future__ import annotations

import sat_claim_check as scc
from sat_claim_check import dimacs

REQUEST = {"cnf": {"num_vars": 1, "clauses": [[1], [-1]]}, "claim": "unsat", "proof": [{"add": []}]}


def misuse() -> None:
    scc.check(REQUEST, engine="fast")  # type: ignore[arg-type]
    scc.check('{"cnf": {}}')  # type: ignore[arg-type]
    scc.run(REQUEST, limits={"max_vars": 5})  # type: ignore[arg-type]
    scc.check(REQUEST)["verdict"]  # type: ignore[typeddict-item]
    scc.check(REQUEST)["valid"].upper()  # type: ignore[attr-defined]
    scc.run(REQUEST).work.upper()  # type: ignore[attr-defined]
    print(scc.run(REQUEST).engine == "fast")  # type: ignore[comparison-overlap]
    print(scc.check(REQUEST)["reason"] == "not_rup")  # type: ignore[comparison-overlap]
    scc.Limits(max_vars="10")  # type: ignore[arg-type]
    scc.Limits().max_vars = 5  # type: ignore[misc]
    scc.InvalidInput("cnf", "/cnf")  # type: ignore[call-arg]
    scc.LimitExceeded("cnf", "/cnf", "over", limit="max_vars")  # type: ignore[call-arg]
    dimacs.run_files(3)  # type: ignore[arg-type]
    dimacs.request_from_dimacs("p cnf 0 0\n", proof=[0])  # type: ignore[list-item]
    dimacs.run_dimacs("p cnf 0 0\n", proof="0\n", engine="c")  # type: ignore[arg-type]
    dimacs.request_from_files("a.cnf").upper()  # type: ignore[attr-defined]
    scc.run(REQUEST, deletions="loose")  # type: ignore[arg-type]
    scc.explain(REQUEST).lines = ()  # type: ignore[misc]
