"""Check SAT solver certificates: a sat claim with a model, or an unsat claim
with a DRUP proof given as JSON steps.

    >>> import sat_claim_check as scc
    >>> scc.check({"cnf": {"num_vars": 1, "clauses": [[1], [-1]]},
    ...            "claim": "unsat", "proof": [{"add": []}]})["valid"]
    True
"""

from ._check import Report, check, run
from .dimacs import request_from_dimacs
from .errors import CheckError, InvalidInput, LimitExceeded
from .limits import Limits

__version__ = "1.0.0"

__all__ = ["CheckError", "InvalidInput", "LimitExceeded", "Limits", "Report",
           "__version__", "check", "request_from_dimacs", "run"]
