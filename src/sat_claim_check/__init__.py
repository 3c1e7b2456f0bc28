"""Check SAT solver certificates: a sat claim with a model, or an unsat claim
with a DRUP proof given as JSON steps.

    >>> import sat_claim_check as scc
    >>> scc.check({"cnf": {"num_vars": 1, "clauses": [[1], [-1]]},
    ...            "claim": "unsat", "proof": [{"add": []}]})["valid"]
    True

``check(request)`` takes the request as a dict (parse JSON text first) and
returns the result dict; ``run(request)`` returns a ``Report`` with the
result, the work and the engine; ``Checker(cnf)`` checks an unsat proof step
by step, as it arrives; ``deletions="lenient"`` on each reads delete steps as
drat-trim does (``Deletions`` is its type), and ``explain(request)`` says why
a claim is not valid, as ``--explain`` does.  A rejected request raises
``InvalidInput`` or ``LimitExceeded``.  ``check_json(text)`` reads JSON text (bytes or str)
as the command line does and returns an ``Outcome``: the status, the exact
bytes written for it, and the Report or the error.  ``Limits`` adjusts the
limits, ``EngineName`` is the type of ``engine=`` and ``Result`` the type of
the result.  ``sat_claim_check.service`` is the HTTP service.
``check_files(cnf, proof)`` (or ``model=``) checks solver output files as
``sat-claim-check verify`` does, without size limits, and returns the
Outcome; every error it reports is a ``CheckError`` (``TimedOut`` past its
``timeout``), and a verdict that is not valid, or an error, has a ``hint``.
``check_files(..., lrat=PATH)`` and ``Checker(..., lrat=stream)`` write a
valid unsat verdict's proof as LRAT, for a formally verified checker
(``LratWriteError`` when it cannot be written).
``sat_claim_check.dimacs`` reads DIMACS and DRUP text, ``sat_claim_check.pysat``
certifies PySAT's answers.  docs/semantics.md describes what is checked.
"""

from ._core.check import check, run
from ._core.checker import Checker
from ._core.explain import Explanation, explain
from ._core.outcome import Outcome, check_json
from ._core.report import Report
from ._core.types import Deletions, EngineName, Result
from .dimacs import request_from_dimacs
from .errors import CheckError, InvalidInput, LimitExceeded, TimedOut
from .files import LratWriteError, check_files
from .limits import Limits

__version__ = "1.0.0"

__all__ = [
    "CheckError",
    "Checker",
    "Deletions",
    "EngineName",
    "Explanation",
    "InvalidInput",
    "LimitExceeded",
    "Limits",
    "LratWriteError",
    "Outcome",
    "Report",
    "Result",
    "TimedOut",
    "__version__",
    "check",
    "check_files",
    "check_json",
    "explain",
    "request_from_dimacs",
    "run",
]
