"""The package's types: engine names, the result object, and what the twins share.

``EngineName`` and ``Result`` are public (``sat_claim_check`` exports them).
The rest exists only for the type checker: the interface that each compiled
module and its pure-Python twin have in common (``_engines`` picks one of each
pair; ``tests/typing/twins.py`` holds both to these protocols).

This module has no ``from __future__ import annotations``: ``Result`` stays a
TypedDict that ``typing.get_type_hints`` can read on Python 3.9.
"""

from typing import TYPE_CHECKING, Any, Callable, Literal, Optional, TypedDict

__all__ = [
    "Claim",
    "Deletions",
    "EngineName",
    "KernelName",
    "Progress",
    "ProofReading",
    "Reason",
    "Result",
]

# The ``engine=`` argument: "compiled" (the Cython kernel), "reference" (the
# pure-Python engine) or "auto" (compiled when it is built).
EngineName = Literal["auto", "compiled", "reference"]

# The engine that ran: what "auto" resolved to (``Report.engine``).
KernelName = Literal["compiled", "reference"]

Claim = Literal["sat", "unsat"]

# The ``deletions=`` argument: how delete steps are read (SPEC §4.1 "strict",
# the default; §4.4 "lenient", as drat-trim reads them).
Deletions = Literal["strict", "lenient"]

# The ``reading=`` argument: how an unsat proof is read (SPEC §4.1 "strict",
# §4.4 "lenient" deletions, §4.5 "drat-trim": as drat-trim's forward mode).
ProofReading = Literal["strict", "lenient", "drat-trim"]

# The ``progress=`` callback: progress(steps_checked, work); what it returns is
# ignored, and an exception it raises stops the check.
Progress = Callable[[int, int], object]

# How a proof file is read: told by its first bytes, or forced.
ProofFormat = Literal["auto", "text", "binary"]

# The ``reading=`` callback of run_files: reading(bytes_read, total_bytes), the
# total None when it is not known (a pipe).
Reading = Callable[[int, Optional[int]], object]

# Why a claim is not valid: the output schema's ``reason`` values.
Reason = Literal[
    "assignment_variable_out_of_range",
    "duplicate_assignment_literal",
    "conflicting_assignment",
    "clause_undetermined",
    "clause_falsified",
    "literal_out_of_range",
    "lemma_not_rup",
    "deleted_clause_not_found",
    "empty_clause_not_derived",
]


class Result(TypedDict):
    """The result object of a checked request: a plain dict with these keys.

    The keys come in this order (the output schema's).  ``reason`` and
    ``first_discrepancy`` are None when ``valid``; otherwise the discrepancy
    is a dict whose ``kind`` is "assignment", "clause", "step" or
    "conclusion".  docs/semantics.md ("The sat claim", "The unsat claim")
    lists every reason and the keys of each kind of discrepancy.
    """

    valid: bool
    reason: Optional[Reason]
    first_discrepancy: Optional[dict[str, Any]]
    claim: Claim
    clauses_checked: int
    steps_checked: int
    reference_version: str


if TYPE_CHECKING:
    from array import array
    from typing import Protocol, Union

    from ..limits import Limits

    # What a kernel takes for its flat arrays: array('i') (array('b') for the
    # step kinds), or a list or tuple of ints.
    Ints = Union[array[int], list[int], tuple[int, ...]]

    # (code, line, token, value, num_vars, num_clauses, offsets, lits): the
    # arrays are None when code is not SCAN_OK (see scan_py).
    CnfScan = tuple[
        int, int, Optional[bytes], int, int, int, Optional[array[int]], Optional[array[int]]
    ]
    # (code, line, token, value, offsets, lits) of a CNF part (CnfTextStream):
    # the clauses completed in it, also on an error or a stop.
    CnfPart = tuple[int, int, Optional[bytes], int, array[int], array[int]]
    # (code, line, token, value, kinds, offsets, lits), arrays as for CnfScan.
    DrupScan = tuple[
        int,
        int,
        Optional[bytes],
        int,
        Optional[array[int]],
        Optional[array[int]],
        Optional[array[int]],
    ]
    # A part of a proof scanned as it arrives: (code, line, token, value, kinds,
    # offsets, lits, lines), the arrays always given, lines the 1-based line
    # where each step starts.  For a binary proof, line is the byte offset of
    # the error (0-based) and lines the byte offsets of the steps.
    DrupPart = tuple[int, int, Optional[bytes], int, array[int], array[int], array[int], array[int]]

    class KernelObject(Protocol):
        """A ``Kernel`` of either engine (``kernel_py``, ``kernel_c``)."""

        reason_deletions: array[int]
        ignored_deletions: array[int]
        derived_empty: bool  # the CNF or an add taken holds the empty clause

        @property
        def work(self) -> int: ...

        def start(self, progress: Optional[Progress] = None, poll_interval: int = ...) -> int: ...

        def feed(self, kinds: Ints, offsets: Ints, lits: Ints) -> tuple[int, int]: ...

        def replay(self, kinds: Ints, offsets: Ints, lits: Ints) -> tuple[int, int]: ...

        def feed_step(
            self, kind: int, lits: Any, steps_left: int, literals_left: int
        ) -> Optional[int]: ...

        def finish(self) -> tuple[int, int, int, int]: ...

        def concluded(self) -> bool: ...

        def run(
            self, progress: Optional[Progress] = None, poll_interval: int = ...
        ) -> tuple[int, int, int, int]: ...

    class KernelModule(Protocol):
        """``kernel_py`` and ``kernel_c``."""

        def Kernel(
            self,
            num_vars: int,
            clause_offsets: Ints,
            clause_lits: Ints,
            step_kinds: Optional[Ints],
            step_offsets: Optional[Ints],
            step_lits: Optional[Ints],
            max_work: int,
            reading: int = ...,
            lrat: Any = ...,
            lrat_binary: bool = ...,
        ) -> KernelObject: ...

    class ConverterModule(Protocol):
        """``convert_py`` and ``convert_c``."""

        def flatten(
            self, arrays: Any, bound: int, zero_ok: bool, max_total: int
        ) -> Union[tuple[array[int], array[int]], int, None]: ...

        def flatten_steps(
            self, proof: Any, bound: int, max_total: int
        ) -> Union[tuple[array[int], array[int], array[int]], int, None]: ...

        def first_step_over(
            self, offsets: array[int], lits: array[int], bound: int, a: int, b: int
        ) -> Optional[int]: ...

        def mark_out_of_range(
            self, kinds: array[int], offsets: array[int], lits: array[int], num_vars: int
        ) -> None: ...

        def unique_keys(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]: ...

    class ScannerModule(Protocol):
        """``scan_py`` and ``scan_c``."""

        def parse_cnf(
            self, data: bytes, max_vars: int = ..., max_clauses: int = ..., max_lits: int = ...
        ) -> CnfScan: ...

        def parse_drup(
            self, data: bytes, max_steps: int = ..., max_lits: int = ...
        ) -> DrupScan: ...

        @property
        def DrupTextStream(self) -> "type[DrupStream]": ...

        @property
        def BinaryDrupStream(self) -> "type[DrupStream]": ...

        @property
        def CnfTextStream(self) -> "type[CnfStream]": ...

    class CnfStream(Protocol):
        """A CNF scanned in parts (``CnfTextStream``)."""

        def __init__(
            self, max_vars: int = ..., max_clauses: int = ..., max_lits: int = ...
        ) -> None: ...

        @property
        def header(self) -> tuple[int, int]: ...

        def scan(self, data: Union[bytes, bytearray, memoryview], final: bool) -> CnfPart: ...

    class DrupStream(Protocol):
        """A proof scanned in parts (``DrupTextStream``, ``BinaryDrupStream``)."""

        def scan(self, data: Union[bytes, bytearray, memoryview], final: bool) -> DrupPart: ...

    # What the request reader returns when it accepts JSON text: (claim, num_vars,
    # clause_offsets, clause_lits, assignment, step_kinds, step_offsets,
    # step_lits), the fields of a _validate.Validated (assignment None for an
    # unsat claim, the step arrays None for a sat claim).
    RequestArrays = tuple[
        Claim,
        int,
        array[int],
        array[int],
        Optional[array[int]],
        Optional[array[int]],
        Optional[array[int]],
        Optional[array[int]],
    ]

    class RequestReaderModule(Protocol):
        """``request_py`` and ``request_c``."""

        def read_request(
            self, data: Union[bytes, bytearray], limits: Limits
        ) -> Optional[RequestArrays]: ...

    # (num_vars, offsets, lits) of a CNF; (kinds, offsets, lits) of a proof.
    CnfArrays = tuple[int, array[int], array[int]]
    ProofArrays = tuple[array[int], array[int], array[int]]
    # What dimacs.parse_files returns: the CNF, and the proof arrays (an unsat
    # claim) or the model's literals (a sat claim).
    Parsed = tuple[CnfArrays, Optional[ProofArrays], Optional[list[int]]]

    # The compiled modules, as _engine loads them: (kernel, converter, scanner,
    # request reader).
    Compiled = tuple[KernelModule, ConverterModule, ScannerModule, RequestReaderModule]
