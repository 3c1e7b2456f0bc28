# The compiled request reader's public surface: the same function as its pure
# twin (request_py), with the same signature.
from .._core.types import RequestArrays
from ..limits import Limits

def read_request(data: bytes | bytearray, limits: Limits) -> RequestArrays | None:
    """(claim, num_vars, clause_offsets, clause_lits, assignment, step_kinds,
    step_offsets, step_lits) for JSON text in bytes, or None to decline."""
