"""Validation in field order, filling the engines' flat arrays.

The rules and their order are those of docs/semantics.md ("Validation order").

Only the first error is reported.  The common case (every literal a plain
``int`` within range) is checked with C-level builtins over whole arrays; as
soon as that fast path sees anything unusual, a plain walk in document order
finds the exact first error, or normalizes integral floats (``3.0`` is 3).

Subclasses of the JSON types are read through their base type's methods, so
that nothing they override changes what is checked.  Literal counts are
decided from lengths before any literal is copied.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from .._engines import converter, request_reader
from ..errors import InvalidInput
from .codes import STEP_ADD, STEP_DELETE, STEP_KEYS
from .jsontext import loads
from .literals import check_literals, flatten, literal_array, literal_error
from .sizes import check_size, size_error
from .validated import Validated
from .values import (
    array_items,
    array_length,
    as_integer,
    is_array,
    is_object,
    number_text,
    pointer,
    read_object,
    type_name,
)

if TYPE_CHECKING:
    from ..limits import Limits

    Flat = tuple[array[int], array[int]]  # (offsets, literals)
    Steps = tuple[array[int], array[int], array[int]]  # (kinds, offsets, literals)
    PathOf = Callable[[int, int], str]  # (array, item) -> JSON Pointer

__all__ = [
    "read_common_case",
    "validate",
    "validate_arrays",
    "validate_cnf",
    "validate_cnf_arrays",
    "validated_from_text",
]


REQUEST_KEYS = ("cnf", "claim", "assignment", "proof")

CNF_KEYS = ("num_vars", "clauses")

CLAIMS = ("sat", "unsat")


# -- the fields, in order ------------------------------------------------------


def validate(request: object, limits: Limits) -> Validated:
    """Check ``request`` (any value) in the order of docs/semantics.md,
    "Validation order"; return a Validated or raise CheckError."""
    if not is_object(request):
        raise InvalidInput(None, "", f"the request must be an object, got {type_name(request)}")
    request = read_object(request, REQUEST_KEYS, (), None, ())

    if "cnf" not in request:
        raise InvalidInput("cnf", "/cnf", "missing required field 'cnf'")
    num_vars, clause_offsets, clause_lits = validate_cnf(request["cnf"], limits)

    if "claim" not in request:
        raise InvalidInput("claim", "/claim", "missing required field 'claim'")
    claim = request["claim"]
    if issubclass(type(claim), str):
        claim = str.__str__(claim)
    if type(claim) is not str or claim not in CLAIMS:
        raise InvalidInput(
            "claim",
            "/claim",
            f'claim must be "sat" or "unsat", got {type_name(claim)}'
            + (f" {claim!r}" if type(claim) is str else ""),
        )
    out = Validated(claim, num_vars, clause_offsets, clause_lits)

    if claim == "sat":
        if "assignment" not in request:
            raise InvalidInput("assignment", "/assignment", "a sat claim needs an 'assignment'")
        out.assignment = _assignment(request["assignment"], limits)
        if "proof" in request:
            raise InvalidInput("proof", "/proof", "a sat claim must not have a 'proof'")
    else:
        if "assignment" in request:
            raise InvalidInput(
                "assignment", "/assignment", "an unsat claim must not have an 'assignment'"
            )
        if "proof" not in request:
            raise InvalidInput("proof", "/proof", "an unsat claim needs a 'proof'")
        kinds, offsets, lits = _proof(request["proof"], limits)
        _attach_proof(out, kinds, offsets, lits, limits)
    return out


def validate_arrays(
    num_vars: int,
    clause_offsets: array[int],
    clause_lits: array[int],
    *,
    proof: tuple[array[int], array[int], array[int]] | None = None,
    assignment: Sequence[int] | None = None,
    limits: Limits,
) -> Validated:
    """Validation for a request that arrives as flat arrays; return a Validated.

    The way in for the DIMACS/DRUP front door: the same limits and range rules
    as ``validate``, in the same order, for what such a request can hold.
    ``proof`` is ``(kinds, offsets, lits)`` with STEP_ADD/STEP_DELETE kinds
    (an unsat claim), ``assignment`` a sequence of ints (a sat claim).  The
    CNF's literals must already be within ``1..num_vars`` (the scanner checks
    them against the header; the kernel refuses anything else).
    """
    validate_cnf_arrays(num_vars, clause_offsets, clause_lits, limits)
    if assignment is not None:
        out = Validated("sat", num_vars, clause_offsets, clause_lits)
        out.assignment = _assignment(assignment, limits)
        return out
    assert proof is not None  # an unsat claim
    kinds, offsets, lits = proof
    check_size("max_proof_steps", len(kinds), limits)
    s = converter().first_step_over(offsets, lits, limits.max_vars, 0, len(kinds))
    if s is not None:
        raise literal_error(kinds, offsets, lits, s, s, limits.max_vars)
    out = Validated("unsat", num_vars, clause_offsets, clause_lits)
    _attach_proof(out, kinds, offsets, lits, limits)
    return out


def validate_cnf(cnf: Any, limits: Limits) -> tuple[int, array[int], array[int]]:
    """The ``cnf`` field alone (any value), as ``validate`` checks it; return
    (num_vars, clause_offsets, clause_lits) or raise CheckError."""
    num_vars, clauses = _cnf(cnf, limits)
    clause_offsets, clause_lits = _cnf_literals(clauses, num_vars, limits)
    return num_vars, clause_offsets, clause_lits


def validate_cnf_arrays(
    num_vars: int, clause_offsets: array[int], clause_lits: array[int], limits: Limits
) -> None:
    """The size limits of a CNF that arrives as flat arrays (its literals are in
    ``1..num_vars`` already); raise LimitExceeded."""
    check_size("max_vars", num_vars, limits)
    check_size("max_clauses", len(clause_offsets) - 1, limits)
    check_size("max_total_literals", len(clause_lits), limits)


def _attach_proof(
    out: Validated, kinds: array[int], offsets: array[int], lits: array[int], limits: Limits
) -> None:
    """The last checks of the proof's validation, then the steps the engines cannot run get
    their own kinds (the one place where out-of-range steps are classified)."""
    check_size("max_proof_literals", len(lits), limits)
    converter().mark_out_of_range(kinds, offsets, lits, out.num_vars)
    out.step_kinds = kinds
    out.step_offsets = offsets
    out.step_lits = lits


def _cnf(cnf: object, limits: Limits) -> tuple[int, Any]:
    """(num_vars, clauses), or the first error of the cnf's validation before the
    clauses' items."""
    if not is_object(cnf):
        raise InvalidInput("cnf", "/cnf", f"cnf must be an object, got {type_name(cnf)}")
    cnf = read_object(cnf, CNF_KEYS, CNF_KEYS, "cnf", ("cnf",))

    raw = cnf["num_vars"]
    num_vars = as_integer(raw)
    if num_vars is None:
        raise InvalidInput(
            "cnf", "/cnf/num_vars", f"num_vars must be an integer, got {type_name(raw)}"
        )
    if num_vars < 0:
        raise InvalidInput(
            "cnf", "/cnf/num_vars", f"num_vars must be >= 0, got {number_text(num_vars)}"
        )
    check_size("max_vars", num_vars, limits)

    clauses = cnf["clauses"]
    length = array_length(clauses)
    if length < 0:
        raise InvalidInput(
            "cnf", "/cnf/clauses", f"clauses must be an array, got {type_name(clauses)}"
        )
    check_size("max_clauses", length, limits)
    return num_vars, clauses


def _cnf_literals(clauses: Any, num_vars: int, limits: Limits) -> Flat:
    """(offsets, literals) of the clauses, or the first error: a clause that is
    not an array, then the literal count (before any literal is read), then a
    literal, in document order."""
    fast: Flat | int | None = converter().flatten(
        clauses, num_vars, False, limits.max_total_literals
    )
    if isinstance(fast, int):  # plain arrays, but over the limit
        raise size_error("max_total_literals", fast, limits)
    if fast is not None:
        return fast
    total = 0
    for k, clause in enumerate(array_items(clauses)):
        length = array_length(clause)
        if length < 0:
            raise InvalidInput(
                "cnf",
                pointer("cnf", "clauses", k),
                f"a clause must be an array, got {type_name(clause)}",
            )
        total += length
    check_size("max_total_literals", total, limits)
    return flatten(
        clauses,
        num_vars,
        False,
        "cnf",
        lambda i, j: pointer("cnf", "clauses", i, j),
        "a CNF literal",
    )


def _assignment(assignment: object, limits: Limits) -> array[int]:
    length = array_length(assignment)
    if length < 0:
        raise InvalidInput(
            "assignment", "/assignment", f"assignment must be an array, got {type_name(assignment)}"
        )
    check_size("max_assignment_literals", length, limits)
    return literal_array(
        (assignment,),
        limits.max_vars,
        True,
        "assignment",
        lambda i, j: pointer("assignment", j),
        "an assignment literal",
    )


def _proof(proof: object, limits: Limits) -> Steps:
    """(kinds, offsets, literals) of the proof, or the first error of its validation
    (the literal count is decided before any literal is copied)."""
    length = array_length(proof)
    if length < 0:
        raise InvalidInput("proof", "/proof", f"proof must be an array, got {type_name(proof)}")
    check_size("max_proof_steps", length, limits)
    fast: Steps | int | None = converter().flatten_steps(
        proof, limits.max_vars, limits.max_proof_literals
    )
    if fast is None:
        return _steps(proof, limits)
    if isinstance(fast, int):  # every step well formed, but over the limit
        raise size_error("max_proof_literals", fast, limits)
    return fast


def _steps(proof: Any, limits: Limits) -> Steps:
    """(kinds, offsets, literals) of the steps, or the first error in document order."""
    is_add, values, shape_error = _step_shapes(proof)

    def path_of(i: int, j: int) -> str:
        return pointer("proof", i, "add" if is_add[i] else "delete", j)

    total = sum(map(array_length, values))
    if total > limits.max_proof_literals:
        # Over the limit: check without copying.  The first bad literal, then
        # a shape error after it, comes before the count.
        check_literals(values, limits.max_vars, True, "proof", path_of, "a proof literal")
        if shape_error is not None:
            raise shape_error
        check_size("max_proof_literals", total, limits)
    offsets, lits = flatten(values, limits.max_vars, True, "proof", path_of, "a proof literal")
    if shape_error is not None:
        raise shape_error
    return array("b", [STEP_ADD if add else STEP_DELETE for add in is_add]), offsets, lits


def _step_shapes(proof: Any) -> tuple[list[bool], list[Any], InvalidInput | None]:
    """(is_add per step, value per step, the first shape error or None).

    A shape error at step k is returned, not raised: it is reported only after
    the literals of steps 0..k-1, which come before it in document order.
    """
    is_add: list[bool] = []
    values: list[Any] = []
    for s, step in enumerate(array_items(proof)):
        try:
            key, value = step_shape(step, s)
        except InvalidInput as exc:
            return is_add, values, exc
        is_add.append(key == "add")
        values.append(value)
    return is_add, values, None


def step_shape(step: object, s: int) -> tuple[str, Any]:
    if not is_object(step):
        raise InvalidInput(
            "proof", pointer("proof", s), f"a proof step must be an object, got {type_name(step)}"
        )
    step = read_object(step, STEP_KEYS, (), "proof", ("proof", s), exactly_one=True)
    ((key, value),) = step.items()
    if not is_array(value):
        raise InvalidInput(
            "proof",
            pointer("proof", s, key),
            f"the value of {key!r} must be an array, got {type_name(value)}",
        )
    return key, value


# -- JSON text ------------------------------------------------------------------

# The compiled reader of the common case, or the pure twin that declines all.


def validated_from_text(data: bytes | bytearray | str, limits: Limits) -> Validated:
    """One request's JSON text, read and validated: a Validated, or CheckError.

    Always the answer of ``validate(loads(data), limits)``.  The compiled reader
    (``request_c``) reads the common case straight into the arrays, without
    the GIL; it declines anything else (an error, an escape, ``3.0``...), and
    the exact path reads the text then.
    """
    fast = read_common_case(data, limits)
    return validate(loads(data), limits) if fast is None else fast


def read_common_case(data: bytes | bytearray | str, limits: Limits) -> Validated | None:
    """The compiled reader alone: the Validated of a request's text in the
    common case, or None (then ``validate(loads(data))`` has the answer)."""
    raw: bytes | bytearray | None
    if isinstance(data, str):
        try:
            raw = data.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: the exact path says so
            raw = None
    else:
        raw = data
    arrays = None if raw is None else request_reader().read_request(raw, limits)
    if arrays is None:
        return None
    claim, num_vars, clause_offsets, clause_lits, assignment, kinds, offsets, lits = arrays
    out = Validated(claim, num_vars, clause_offsets, clause_lits)
    out.assignment = assignment
    out.step_kinds = kinds
    out.step_offsets = offsets
    out.step_lits = lits
    return out


# -- proof steps in stream order (the Checker) ---------------------------------
