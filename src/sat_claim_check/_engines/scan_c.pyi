# The compiled scanner's public surface: the same functions as its pure twin
# (scan_py), with the same signatures and answers.
from .._core.types import CnfPart, CnfScan, DrupPart, DrupScan

def parse_cnf(
    data: bytes, max_vars: int = -1, max_clauses: int = -1, max_lits: int = -1
) -> CnfScan:
    """DIMACS CNF bytes -> (code, line, token, value, num_vars, num_clauses,
    offsets, lits)."""

def parse_drup(data: bytes, max_steps: int = -1, max_lits: int = -1) -> DrupScan:
    """DRUP bytes -> (code, line, token, value, kinds, offsets, lits)."""

class DrupTextStream:
    """DRUP text scanned in parts, as it arrives."""
    def __init__(self) -> None: ...
    @property
    def status_lines(self) -> tuple[int, int, int]:
        """(count, first line, offset in the last part or -1) of status lines skipped."""
    @property
    def open_literals(self) -> int:
        """The literals of the step still open after the last call."""
    def scan(self, data: bytes | bytearray | memoryview, final: bool) -> DrupPart: ...

class CnfTextStream:
    """DIMACS CNF text scanned in parts, as it is read."""
    def __init__(self, max_vars: int = -1, max_clauses: int = -1, max_lits: int = -1) -> None: ...
    @property
    def header(self) -> tuple[int, int]:
        """(num_vars, num_clauses) of the header; -1 each before it."""
    def scan(self, data: bytes | bytearray | memoryview, final: bool) -> CnfPart: ...

class BinaryDrupStream:
    """Binary DRUP bytes, in chunks cut anywhere, into the arrays of parse_drup."""

    def __init__(self) -> None: ...
    @property
    def open_literals(self) -> int:
        """The literals of the step still open after the last call."""
    @property
    def status_lines(self) -> tuple[int, int, int]:
        """(count, first byte, offset in the last call's data or -1) of status lines."""
    @property
    def comment_lines(self) -> tuple[int, int, int]:
        """(count, first byte, offset in the last call's data or -1) of comment lines."""
    def scan(self, data: bytes | bytearray | memoryview, final: bool) -> DrupPart:
        """The next bytes -> (code, where, token, value, kinds, offsets, lits, starts)."""
