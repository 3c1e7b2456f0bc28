"""Validation in field order, filling the engines' flat arrays.

The rules and their order are those of docs/semantics.md ("Validation order").

Only the first error is reported.  The common case (every literal a plain
``int`` within range) is checked with C-level builtins over whole arrays; as
soon as that fast path sees anything unusual, a plain walk in document order
finds the exact first error, or normalizes integral floats (``3.0`` is 3).
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Callable, Iterable, Sequence, Sized
from itertools import accumulate
from typing import TYPE_CHECKING, Any

from ._codes import STEP_ADD, STEP_DELETE, STEP_KEYS, step_key
from ._engine import converter
from .errors import CheckError, InvalidInput, LimitExceeded

if TYPE_CHECKING:
    from .limits import Limits

__all__ = ["ProofChunk", "Validated", "one_step", "proof_steps", "request_step",
           "step_arrays_chunk", "steps_chunk", "validate", "validate_arrays", "validate_cnf",
           "validate_cnf_arrays"]

_convert = converter()

REQUEST_KEYS = ("cnf", "claim", "assignment", "proof")
CNF_KEYS = ("num_vars", "clauses")
CLAIMS = ("sat", "unsat")


class Validated:
    """A request that passed validation, as flat arrays (see ``_engine_py``).

    ``assignment`` is set for a sat claim, the three step arrays for an
    unsat claim; the others are None.
    """

    __slots__ = (
        "assignment",
        "claim",
        "clause_lits",
        "clause_offsets",
        "num_vars",
        "step_kinds",
        "step_lits",
        "step_offsets",
    )

    claim: str
    num_vars: int
    clause_offsets: array[int]
    clause_lits: array[int]
    assignment: array[int] | None
    step_kinds: array[int] | None
    step_offsets: array[int] | None
    step_lits: array[int] | None

    def __init__(self, claim: str, num_vars: int, clause_offsets: array[int],
                 clause_lits: array[int]) -> None:
        self.claim = claim
        self.num_vars = num_vars
        self.clause_offsets = clause_offsets
        self.clause_lits = clause_lits
        self.assignment = None
        self.step_kinds = None
        self.step_offsets = None
        self.step_lits = None

    def clause(self, k: int) -> list[int]:
        return self.clause_lits[self.clause_offsets[k]:self.clause_offsets[k + 1]].tolist()

    def step(self, s: int) -> list[int]:
        assert self.step_lits is not None and self.step_offsets is not None    # an unsat claim
        return self.step_lits[self.step_offsets[s]:self.step_offsets[s + 1]].tolist()


def request_step(kinds: array[int], offsets: array[int], lits: array[int],
                 s: int) -> dict[str, list[int]]:
    """Proof step s of flat arrays as a request writes it: {"add"|"delete": [...]}."""
    return {step_key(kinds[s]): lits[offsets[s]:offsets[s + 1]].tolist()}


def proof_steps(kinds: array[int], offsets: array[int],
                lits: array[int]) -> list[dict[str, list[int]]]:
    """A request's proof (a list of request steps) from flat arrays."""
    return [request_step(kinds, offsets, lits, s) for s in range(len(kinds))]


# -- JSON Schema types in Python form (SPEC §2, last paragraph) ----------------

def is_array(x: object) -> bool:
    return isinstance(x, (list, tuple))


def is_object(x: object) -> bool:
    return isinstance(x, dict)


def as_integer(x: object) -> int | None:
    """The int value of a JSON Schema integer, or None (bools, NaN, fractions...)."""
    if isinstance(x, bool):
        return None
    if isinstance(x, int):
        return int(x)
    if isinstance(x, float) and x.is_integer():    # False for NaN and infinities
        return int(x)
    return None


def pointer(*parts: str | int) -> str:
    """A JSON Pointer (RFC 6901) from path segments."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def number_text(v: int) -> str:
    """An int for a message; very long ones are summarized (str() refuses them)."""
    if v.bit_length() > 3000:
        return f"{'-' if v < 0 else ''}(an integer of about {int(v.bit_length() * 0.30103)} digits)"
    return str(v)


def type_name(x: object) -> str:
    if x is None:
        return "null"
    if isinstance(x, bool):
        return "a boolean"
    if isinstance(x, (int, float)):
        return f"the number {number_text(x) if isinstance(x, int) else repr(x)}"
    if isinstance(x, str):
        return "a string"
    if is_array(x):
        return "an array"
    if is_object(x):
        return "an object"
    return f"a {type(x).__name__}"


def check_keys(obj: dict[Any, Any], allowed: Sequence[str], required: Sequence[str],
               field: str, path: tuple[str | int, ...], *, exactly_one: bool = False) -> None:
    """Unknown keys in the object's own order, then missing keys in listed order.

    A dict with a key that is not a str is not a JSON object at all.
    """
    if not all(isinstance(key, str) for key in obj):
        raise InvalidInput(field, pointer(*path), "object keys must be strings")
    for key in obj:
        if key not in allowed:
            raise InvalidInput(field, pointer(*path, key),
                               f"unknown key {key!r}; allowed: {', '.join(allowed)}")
    if exactly_one:
        if len(obj) != 1:
            raise InvalidInput(field, pointer(*path),
                               f"a proof step must have exactly one key, add or delete; "
                               f"got {len(obj)}")
        return
    for key in required:
        if key not in obj:
            raise InvalidInput(field, pointer(*path, key),
                               f"missing required key {key!r}")


# -- size limits and step kinds (shared with the DIMACS front door) ------------

# Where each size limit points (SPEC §1), and what it counts, for messages.
SIZE_LIMITS = {
    "max_vars": ("cnf", "/cnf/num_vars", "num_vars"),
    "max_clauses": ("cnf", "/cnf/clauses", "the number of clauses"),
    "max_total_literals": ("cnf", "/cnf/clauses", "the number of CNF literals"),
    "max_assignment_literals": ("assignment", "/assignment",
                                "the number of assignment literals"),
    "max_proof_steps": ("proof", "/proof", "the number of proof steps"),
    "max_proof_literals": ("proof", "/proof", "the number of proof literals"),
}


def check_size(limit: str, actual: int, limits: Limits) -> None:
    """Raise limit_exceeded when ``actual`` is over ``limits.<limit>``."""
    error = size_error(limit, actual, limits)
    if error is not None:
        raise error


def size_error(limit: str, actual: int, limits: Limits) -> LimitExceeded | None:
    """The limit_exceeded error when ``actual`` is over ``limits.<limit>``, else None."""
    maximum = getattr(limits, limit)
    if actual <= maximum:
        return None
    field, path, what = SIZE_LIMITS[limit]
    return LimitExceeded(field, path,
                         f"{what} ({number_text(actual)}) is over the limit of {maximum}",
                         limit=limit, max=maximum, actual=actual)


# -- literal arrays ------------------------------------------------------------

def flatten(items_list: Any, bound: int, zero_ok: bool, field: str,
            path_of: Callable[[int, int], str], what: str) -> tuple[array[int], array[int]]:
    """Validate the literals of several arrays; return (offsets, literals) as array('i').

    Every literal must be an integer with ``|l| <= bound`` (and non-zero unless
    ``zero_ok``); ``path_of(i, j)`` names item j of array i for errors.
    """
    fast = _convert.flatten(items_list, bound, zero_ok)
    if fast is not None:
        return fast
    return offsets_of(items_list), _literal_array_slow(
        items_list, bound, zero_ok, field, path_of, what)


def literal_array(items_list: Any, bound: int, zero_ok: bool, field: str,
                  path_of: Callable[[int, int], str], what: str) -> array[int]:
    """The literals of ``flatten`` alone."""
    return flatten(items_list, bound, zero_ok, field, path_of, what)[1]


def _literal_array_slow(items_list: Iterable[Iterable[object]], bound: int, zero_ok: bool,
                        field: str, path_of: Callable[[int, int], str], what: str) -> array[int]:
    lits = array("i")
    low = 0 if zero_ok else 1
    for i, items in enumerate(items_list):
        for j, x in enumerate(items):
            v = as_integer(x)
            if v is None:
                raise InvalidInput(field, path_of(i, j),
                                   f"{what} must be an integer, got {type_name(x)}")
            if not low <= abs(v) <= bound:
                raise InvalidInput(field, path_of(i, j),
                                   f"{what} {number_text(v)} is out of range: "
                                   f"|l| must be in {low}..{bound}")
            lits.append(v)
    return lits


def offsets_of(arrays: Iterable[Sized]) -> array[int]:
    return array("i", accumulate(map(len, arrays), initial=0))


# -- the fields, in order ------------------------------------------------------

def validate(request: Any, limits: Limits) -> Validated:
    """Check ``request`` (any value) in the order of docs/semantics.md,
    "Validation order"; return a Validated or raise CheckError."""
    if not is_object(request):
        raise InvalidInput(None, "", f"the request must be an object, got {type_name(request)}")
    if not all(isinstance(key, str) for key in request):
        raise InvalidInput(None, "", "object keys must be strings")
    for key in request:
        if key not in REQUEST_KEYS:
            raise InvalidInput(key, pointer(key),
                               f"unknown key {key!r}; allowed: {', '.join(REQUEST_KEYS)}")

    if "cnf" not in request:
        raise InvalidInput("cnf", "/cnf", "missing required field 'cnf'")
    num_vars, clause_offsets, clause_lits = validate_cnf(request["cnf"], limits)

    if "claim" not in request:
        raise InvalidInput("claim", "/claim", "missing required field 'claim'")
    claim = request["claim"]
    if not isinstance(claim, str) or claim not in CLAIMS:
        raise InvalidInput("claim", "/claim",
                           f"claim must be \"sat\" or \"unsat\", got {type_name(claim)}"
                           + (f" {claim!r}" if isinstance(claim, str) else ""))
    out = Validated(claim, num_vars, clause_offsets, clause_lits)

    if claim == "sat":
        if "assignment" not in request:
            raise InvalidInput("assignment", "/assignment",
                               "a sat claim needs an 'assignment'")
        out.assignment = _assignment(request["assignment"], limits)
        if "proof" in request:
            raise InvalidInput("proof", "/proof", "a sat claim must not have a 'proof'")
    else:
        if "assignment" in request:
            raise InvalidInput("assignment", "/assignment",
                               "an unsat claim must not have an 'assignment'")
        if "proof" not in request:
            raise InvalidInput("proof", "/proof", "an unsat claim needs a 'proof'")
        kinds, offsets, lits = _proof(request["proof"], limits)
        _attach_proof(out, kinds, offsets, lits, limits)
    return out


def validate_arrays(num_vars: int, clause_offsets: array[int], clause_lits: array[int], *,
                    proof: tuple[array[int], array[int], array[int]] | None = None,
                    assignment: Sequence[int] | None = None, limits: Limits) -> Validated:
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
    assert proof is not None        # an unsat claim
    kinds, offsets, lits = proof
    check_size("max_proof_steps", len(kinds), limits)
    s = _first_step_over(offsets, lits, limits.max_vars, 0, len(kinds))
    if s is not None:
        raise _literal_error(kinds, offsets, lits, s, s, limits.max_vars)
    out = Validated("unsat", num_vars, clause_offsets, clause_lits)
    _attach_proof(out, kinds, offsets, lits, limits)
    return out


def validate_cnf(cnf: Any, limits: Limits) -> tuple[int, array[int], array[int]]:
    """The ``cnf`` field alone (any value), as ``validate`` checks it; return
    (num_vars, clause_offsets, clause_lits) or raise CheckError."""
    num_vars, clauses = _cnf(cnf, limits)
    clause_offsets, clause_lits = flatten(
        clauses, num_vars, False, "cnf",
        lambda i, j: pointer("cnf", "clauses", i, j), "a CNF literal")
    return num_vars, clause_offsets, clause_lits


def validate_cnf_arrays(num_vars: int, clause_offsets: array[int], clause_lits: array[int],
                        limits: Limits) -> None:
    """The size limits of a CNF that arrives as flat arrays (its literals are in
    ``1..num_vars`` already); raise LimitExceeded."""
    check_size("max_vars", num_vars, limits)
    check_size("max_clauses", len(clause_offsets) - 1, limits)
    check_size("max_total_literals", len(clause_lits), limits)


def _first_step_over(offsets: Sequence[int], lits: array[int], bound: int, a: int,
                     b: int) -> int | None:
    """The first of steps a..b-1 with a literal over ``bound`` in magnitude, or None."""
    window = lits[offsets[a]:offsets[b]]
    if not window or (-bound <= min(window) and max(window) <= bound):
        return None
    i = offsets[a] + next(i for i, lit in enumerate(window) if not -bound <= lit <= bound)
    return bisect_right(offsets, i, a, b + 1) - 1       # offsets[s] <= i < offsets[s + 1]


def _literal_error(kinds: Sequence[int], offsets: Sequence[int], lits: array[int], s: int,
                   index: int, bound: int) -> InvalidInput:
    """The error of step s of flat arrays (step ``index`` of the proof), which has a
    literal over ``bound``: worded as ``validate`` words it."""
    key = step_key(kinds[s])
    try:
        literal_array((lits[offsets[s]:offsets[s + 1]].tolist(),), bound, True, "proof",
                      lambda _, j: pointer("proof", index, key, j), "a proof literal")
    except InvalidInput as exc:
        return exc
    raise AssertionError(f"step {index} has no literal over {bound}")   # pragma: no cover


def _attach_proof(out: Validated, kinds: array[int], offsets: array[int], lits: array[int],
                  limits: Limits) -> None:
    """The last checks of the proof's validation, then the steps the engines cannot run get
    their own kinds (the one place where out-of-range steps are classified)."""
    check_size("max_proof_literals", len(lits), limits)
    _convert.mark_out_of_range(kinds, offsets, lits, out.num_vars)
    out.step_kinds = kinds
    out.step_offsets = offsets
    out.step_lits = lits


def _cnf(cnf: Any, limits: Limits) -> tuple[int, Any]:
    if not is_object(cnf):
        raise InvalidInput("cnf", "/cnf", f"cnf must be an object, got {type_name(cnf)}")
    check_keys(cnf, CNF_KEYS, CNF_KEYS, "cnf", ("cnf",))

    raw = cnf["num_vars"]
    num_vars = as_integer(raw)
    if num_vars is None:
        raise InvalidInput("cnf", "/cnf/num_vars",
                           f"num_vars must be an integer, got {type_name(raw)}")
    if num_vars < 0:
        raise InvalidInput("cnf", "/cnf/num_vars",
                           f"num_vars must be >= 0, got {number_text(num_vars)}")
    check_size("max_vars", num_vars, limits)

    clauses = cnf["clauses"]
    if not is_array(clauses):
        raise InvalidInput("cnf", "/cnf/clauses",
                           f"clauses must be an array, got {type_name(clauses)}")
    check_size("max_clauses", len(clauses), limits)
    if not set(map(type, clauses)) <= {list, tuple}:
        for k, clause in enumerate(clauses):
            if not is_array(clause):
                raise InvalidInput("cnf", pointer("cnf", "clauses", k),
                                   f"a clause must be an array, got {type_name(clause)}")
    check_size("max_total_literals", sum(map(len, clauses)), limits)
    return num_vars, clauses


def _assignment(assignment: Any, limits: Limits) -> array[int]:
    if not is_array(assignment):
        raise InvalidInput("assignment", "/assignment",
                           f"assignment must be an array, got {type_name(assignment)}")
    check_size("max_assignment_literals", len(assignment), limits)
    return literal_array((assignment,), limits.max_vars, True, "assignment",
                         lambda i, j: pointer("assignment", j), "an assignment literal")


def _proof(proof: Any, limits: Limits) -> tuple[array[int], array[int], array[int]]:
    """(kinds, offsets, literals) of the proof, or the first error of the proof's
    validation before the literal count."""
    if not is_array(proof):
        raise InvalidInput("proof", "/proof", f"proof must be an array, got {type_name(proof)}")
    check_size("max_proof_steps", len(proof), limits)
    return _convert.flatten_steps(proof, limits.max_vars) or _steps(proof, limits)


def _steps(proof: Any, limits: Limits) -> tuple[array[int], array[int], array[int]]:
    """(kinds, offsets, literals) of the steps, or the first error in document order."""
    is_add, values, shape_error = _step_shapes(proof)
    offsets, lits = flatten(values, limits.max_vars, True, "proof",
                            lambda i, j: pointer("proof", i, "add" if is_add[i] else "delete", j),
                            "a proof literal")
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
    for s, step in enumerate(proof):
        try:
            key, value = _step_shape(step, s)
        except InvalidInput as exc:
            return is_add, values, exc
        is_add.append(key == "add")
        values.append(value)
    return is_add, values, None


def _step_shape(step: Any, s: int) -> tuple[str, Any]:
    if not is_object(step):
        raise InvalidInput("proof", pointer("proof", s),
                           f"a proof step must be an object, got {type_name(step)}")
    check_keys(step, STEP_KEYS, (), "proof", ("proof", s), exactly_one=True)
    (key, value), = step.items()
    if not is_array(value):
        raise InvalidInput("proof", pointer("proof", s, key),
                           f"the value of {key!r} must be an array, got {type_name(value)}")
    return key, value


# -- proof steps in stream order (the Checker) ---------------------------------

class ProofChunk:
    """Proof steps that passed validation in stream order, as the engines' flat
    arrays (out-of-range steps classified), and the first problem after them.

    ``kinds``, ``offsets`` and ``lits``: the steps before the problem (offsets
    index ``lits`` and need not start at 0); ``problem``: a CheckError to raise
    once those steps are checked, or None when every step given passed.
    """

    __slots__ = ("kinds", "lits", "offsets", "problem")

    kinds: array[int]
    offsets: array[int]
    lits: array[int]
    problem: CheckError | None

    def __init__(self, kinds: array[int], offsets: array[int], lits: array[int],
                 problem: CheckError | None) -> None:
        self.kinds = kinds
        self.offsets = offsets
        self.lits = lits
        self.problem = problem


def steps_chunk(steps: Sequence[Any], first: int, literals_before: int, num_vars: int,
                limits: Limits) -> ProofChunk:
    """Validate proof steps ``first, first + 1, ...`` (any values) as they arrive,
    after ``first`` steps of ``literals_before`` literals.

    Each step in turn: the one that takes the count past ``max_proof_steps``
    is a limit error (before its shape); then the step's shape and literals, as
    ``validate`` checks a proof step, with its index in the paths; then the one
    whose literals take the total past ``max_proof_literals`` is a limit error.
    """
    room = max(limits.max_proof_steps - first, 0)
    problem: CheckError | None = None
    if len(steps) > room:
        problem = size_error("max_proof_steps", limits.max_proof_steps + 1, limits)
        steps = steps[:room]
    flat = _convert.flatten_steps(steps, limits.max_vars)
    if flat is None:
        kinds, offsets, lits, malformed = _steps_until_malformed(steps, first, limits)
        if malformed is not None:
            problem = malformed
    else:
        kinds, offsets, lits = flat
    return _within_literal_limit(kinds, offsets, lits, problem, first, literals_before,
                                 num_vars, limits)


def one_step(key: str, value: Any, index: int, literals_before: int, num_vars: int,
             limits: Limits, kinds: array[int], offsets: array[int]) -> array[int]:
    """``steps_chunk`` for the single step {key: value} (key "add" or "delete"),
    raising its problem: return its literals, and set ``kinds[0]`` (its kind,
    classified for the engines) and ``offsets`` to ``[0, len(literals)]``."""
    check_size("max_proof_steps", index + 1, limits)
    kinds[0] = STEP_ADD if key == "add" else STEP_DELETE
    # The usual step: plain ints within 1..num_vars (so within max_vars, and
    # nothing to classify).
    flat = _convert.flatten((value,), num_vars, False)
    plain = flat is not None
    if flat is None:
        if type(value) is not list and type(value) is not tuple:
            _step_shape({key: value}, index)        # raises, unless a list or tuple subclass
        flat = flatten((value,), limits.max_vars, True, "proof", _step_path(index, key),
                       "a proof literal")
    lits = flat[1]
    check_size("max_proof_literals", literals_before + len(lits), limits)
    offsets[1] = len(lits)
    if not plain:
        _convert.mark_out_of_range(kinds, offsets, lits, num_vars)
    return lits


def step_arrays_chunk(kinds: array[int], offsets: array[int], lits: array[int], a: int,
                      b: int, first: int, literals_before: int, num_vars: int,
                      limits: Limits) -> ProofChunk:
    """``steps_chunk`` for steps ``a .. b - 1`` of flat arrays (STEP_ADD/STEP_DELETE
    kinds, ``lits[offsets[s]:offsets[s + 1]]``, 32-bit literals): what the
    DIMACS/DRUP door reads.  Step ``a`` is step ``first`` of the proof.  The
    arrays are not changed (the kinds are copied)."""
    problem: CheckError | None = None
    room = max(limits.max_proof_steps - first, 0)
    if b - a > room:
        problem = size_error("max_proof_steps", limits.max_proof_steps + 1, limits)
        b = a + room
    s = _first_step_over(offsets, lits, limits.max_vars, a, b)
    if s is not None:
        problem = _literal_error(kinds, offsets, lits, s, first + s - a, limits.max_vars)
        b = s
    return _within_literal_limit(kinds[a:b], offsets[a:b + 1], lits, problem, first,
                                 literals_before, num_vars, limits)


def _steps_until_malformed(steps: Sequence[Any], first: int, limits: Limits,
                           ) -> tuple[array[int], array[int], array[int], InvalidInput | None]:
    """(kinds, offsets, literals) of the steps before the first malformed one (in
    document order: its shape, then its literals), and that step's error."""
    kinds = array("b")
    values: list[Any] = []
    error: InvalidInput | None = None
    for s, step in enumerate(steps):
        try:
            key, value = _step_shape(step, first + s)
            literal_array((value,), limits.max_vars, True, "proof",
                          _step_path(first + s, key), "a proof literal")
        except InvalidInput as exc:
            error = exc
            break
        kinds.append(STEP_ADD if key == "add" else STEP_DELETE)
        values.append(value)
    offsets, lits = flatten(values, limits.max_vars, True, "proof",
                            lambda i, j: pointer("proof", first + i), "a proof literal")
    return kinds, offsets, lits, error


def _step_path(index: int, key: str) -> Callable[[int, int], str]:
    """The path of literal j of proof step ``index`` (for ``literal_array``)."""
    return lambda _, j: pointer("proof", index, key, j)


def _within_literal_limit(kinds: array[int], offsets: array[int], lits: array[int],
                          problem: CheckError | None, first: int, literals_before: int,
                          num_vars: int, limits: Limits) -> ProofChunk:
    """Cut the well-formed steps at the one that takes the literal count past
    ``max_proof_literals``, if any (that is then the problem); classify the
    rest for the engines, as ``_attach_proof`` does."""
    n = len(kinds)
    room = limits.max_proof_literals - literals_before
    if offsets[n] - offsets[0] > room:
        s = bisect_right(offsets, offsets[0] + room, 0, n + 1) - 1    # its offsets[s + 1] > room
        problem = size_error("max_proof_literals",
                             literals_before + offsets[s + 1] - offsets[0], limits)
        kinds, offsets = kinds[:s], offsets[:s + 1]
    if not isinstance(kinds, array) or kinds.typecode != "b":
        kinds = array("b", kinds)
    _convert.mark_out_of_range(kinds, offsets, lits, num_vars)
    return ProofChunk(kinds, offsets, lits, problem)
