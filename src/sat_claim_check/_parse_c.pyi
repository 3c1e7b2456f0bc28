# The compiled scanner's public surface: the same functions as its pure twin
# (_parse_py), with the same signatures and answers.
from ._types import CnfScan, DrupScan

def parse_cnf(data: bytes) -> CnfScan:
    """DIMACS CNF bytes -> (code, line, token, value, num_vars, num_clauses,
    offsets, lits)."""

def parse_drup(data: bytes) -> DrupScan:
    """DRUP bytes -> (code, line, token, value, kinds, offsets, lits)."""
