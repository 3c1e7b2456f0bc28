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

import sys
from array import array
from bisect import bisect_right
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from .._engines import converter, request_reader
from ..errors import CheckError, InvalidInput, LimitExceeded
from ..limits import CONTRACT_LIMITS
from .codes import STEP_ADD, STEP_DELETE, STEP_KEYS, step_key
from .jsontext import LongInteger, loads

if TYPE_CHECKING:
    from ..limits import Limits

    Flat = tuple[array[int], array[int]]            # (offsets, literals)
    Steps = tuple[array[int], array[int], array[int]]   # (kinds, offsets, literals)
    PathOf = Callable[[int, int], str]              # (array, item) -> JSON Pointer

__all__ = [
    "ProofChunk",
    "Validated",
    "one_step",
    "proof_steps",
    "read_common_case",
    "request_step",
    "step_arrays_chunk",
    "steps_chunk",
    "validate",
    "validate_arrays",
    "validate_cnf",
    "validate_cnf_arrays",
    "validated_from_text",
]


REQUEST_KEYS = ("cnf", "claim", "assignment", "proof")
CNF_KEYS = ("num_vars", "clauses")
CLAIMS = ("sat", "unsat")


class Validated:
    """A request that passed validation, as flat arrays (see ``kernel_py``).

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
#
# A subclass of list, tuple, dict, str, int or float is read as its base type,
# through the base type's own methods (list.__len__, list.__iter__, dict.items,
# str.__str__, int.__index__, float.__float__): nothing it overrides changes
# what is checked, and none of its methods runs.  Types are tested with ``is``
# and issubclass(type(x), ...), never with isinstance (which believes a
# ``__class__`` attribute) nor by hashing or comparing them (a metaclass can
# override both).  Plain objects, the common case, are used as they are.

_class_name = type.__dict__["__name__"].__get__      # type's own, not a metaclass's


def is_array(x: Any) -> bool:
    return issubclass(type(x), (list, tuple))


def is_object(x: Any) -> bool:
    return issubclass(type(x), dict)


def array_length(x: Any) -> int:
    """The length of an array as its base type holds it; -1 for a non-array."""
    cls = type(x)
    if cls is list or issubclass(cls, list):
        return list.__len__(x)
    if cls is tuple or issubclass(cls, tuple):
        return tuple.__len__(x)
    return -1


def array_items(x: Any) -> Iterator[Any]:
    """The items of an array, read through its base type (nothing is copied)."""
    return list.__iter__(x) if issubclass(type(x), list) else tuple.__iter__(x)


def as_integer(x: Any) -> int | None:
    """The int value of a JSON Schema integer, or None (bools, NaN, fractions...).

    A LongInteger stays one: it is its own value (see ``_jsontext``).
    """
    cls = type(x)
    if cls is int:
        plain: int = x
        return plain
    if cls is bool:
        return None
    if cls is LongInteger:      # a JSON integer too long to convert: its own value
        long: LongInteger = x
        return long
    if issubclass(cls, int):
        return int.__index__(x)
    if issubclass(cls, float):
        value = float.__float__(x)
        return int(value) if value.is_integer() else None     # False for NaN, infinities
    return None


def pointer(*parts: str | int) -> str:
    """A JSON Pointer (RFC 6901) from path segments (plain str and int)."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def number_text(v: int) -> str:
    """An int for a message; very long ones are summarized (str() may refuse
    them, and a message is one line for people)."""
    if isinstance(v, LongInteger):
        digits = v.digits()
    elif v.bit_length() > 2000:
        digits = _digit_count(abs(v))
    else:
        return str(v)
    return f"{'-' if v < 0 else ''}(an integer of {digits} digits)"


def _digit_count(v: int) -> int:
    """The number of decimal digits of v > 0, without str()."""
    d = (v.bit_length() - 1) * 30102999 // 10**8    # 10**d <= v: 0.30102999 < log10(2)
    while v >= 10 ** (d + 1):
        d += 1
    return d + 1


def type_name(x: Any) -> str:
    """What ``x`` is, for a message (read as ``as_integer`` reads it)."""
    cls = type(x)
    if x is None:
        return "null"
    if cls is bool:
        return "a boolean"
    if cls is LongInteger:
        return f"the number {number_text(x)}"
    if issubclass(cls, int):
        return f"the number {number_text(int.__index__(x))}"
    if issubclass(cls, float):
        return f"the number {float.__repr__(x)}"
    if issubclass(cls, str):
        return "a string"
    if is_array(x):
        return "an array"
    if is_object(x):
        return "an object"
    return f"a {str.__str__(_class_name(cls))}"


def read_object(obj: Any, allowed: tuple[str, ...], required: tuple[str, ...],
                field: str | None, path: tuple[str | int, ...], *,
                exactly_one: bool = False) -> dict[str, Any]:
    """``obj`` as a plain dict with plain str keys, after the checks of its key set.

    In order: a key that is not a string (a dict with one is not a JSON object
    at all); then, in the object's own order, the first key that is unknown or
    repeats an earlier one (only str subclasses with their own ``__hash__`` or
    ``__eq__`` can repeat); then missing keys in listed order, or, with
    ``exactly_one``, a key count other than one.  ``field`` None is the request
    itself: its key errors name the key as the field.
    """
    if type(obj) is dict and all(type(key) is str for key in obj):
        plain = obj
        for key in obj:
            if key not in allowed:
                raise _unknown_key(key, allowed, field, path)
    else:
        items = list(dict.items(obj))
        if not all(issubclass(type(key), str) for key, _ in items):
            raise InvalidInput(field, pointer(*path), "object keys must be strings")
        plain = {}
        for key, value in items:
            key = str.__str__(key)
            if key in plain:
                raise InvalidInput(key if field is None else field, pointer(*path, key),
                                   f"key {key!r} is repeated in the object")
            if key not in allowed:
                raise _unknown_key(key, allowed, field, path)
            plain[key] = value
    if exactly_one:
        if len(plain) != 1:
            raise InvalidInput(field, pointer(*path),
                               f"a proof step must have exactly one key, add or delete; "
                               f"got {len(plain)}")
        return plain
    for key in required:
        if key not in plain:
            raise InvalidInput(key if field is None else field, pointer(*path, key),
                               f"missing required key {key!r}")
    return plain


def _unknown_key(key: str, allowed: tuple[str, ...], field: str | None,
                 path: tuple[str | int, ...]) -> InvalidInput:
    return InvalidInput(key if field is None else field, pointer(*path, key),
                        f"unknown key {key!r}; allowed: {', '.join(allowed)}")


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
    if actual > getattr(limits, limit):
        raise size_error(limit, actual, limits)


def size_error(limit: str, actual: int, limits: Limits) -> LimitExceeded:
    """The limit_exceeded error for ``actual``, over ``limits.<limit>``."""
    maximum = getattr(limits, limit)
    field, path, what = SIZE_LIMITS[limit]
    return LimitExceeded(field, path,
                         f"{what} ({number_text(actual)}) is over the limit of {maximum}",
                         limit=limit, max=maximum, actual=actual)


def sizes(v: Any) -> list[tuple[str, int]]:
    """The sizes of a validated request, as (limit, size), in validation order."""
    out = [("max_vars", v.num_vars), ("max_clauses", len(v.clause_offsets) - 1),
           ("max_total_literals", len(v.clause_lits))]
    if v.assignment is not None:
        out.append(("max_assignment_literals", len(v.assignment)))
    if v.step_kinds is not None:
        out += [("max_proof_steps", len(v.step_kinds)),
                ("max_proof_literals", len(v.step_lits))]
    return out


def out_of_memory(v: Any, limits: Limits) -> LimitExceeded | None:
    """``memory_error`` for a validated request (its sizes)."""
    return memory_error(sizes(v), limits)


def memory_error(counts: list[tuple[str, int]], limits: Limits) -> LimitExceeded | None:
    """The error for a check that could not allocate its memory, given the sizes
    of what it was checking (``counts``: (limit, size) in validation order), or
    None when they are all within the contract's limits (then the shortage is
    not the request's doing).

    It names the size furthest above its contract value, as a multiple of it
    (the first in validation order on a tie): the size that made the checker allocate
    the most.  ``max`` is the limit in force, so here ``actual <= max``; the
    error's ``out_of_memory`` is True (raising the limits cannot help).
    """
    ratio, name, actual = max(((size / getattr(CONTRACT_LIMITS, name), name, size)
                               for name, size in counts), key=lambda t: t[0])
    if ratio <= 1:
        return None
    field, path, what = SIZE_LIMITS[name]
    maximum = getattr(limits, name)
    error = LimitExceeded(field, path,
                          f"{what} ({number_text(actual)}) is within the limit of {maximum}, "
                          f"but more than this machine could allocate memory for",
                          limit=name, max=maximum, actual=actual)
    error.out_of_memory = True
    return error


# -- literal arrays ------------------------------------------------------------

def flatten(items_list: Any, bound: int, zero_ok: bool, field: str,
            path_of: PathOf, what: str) -> Flat:
    """Validate the literals of several arrays; return (offsets, literals) as array('i').

    Every literal must be an integer with ``|l| <= bound`` (and non-zero unless
    ``zero_ok``); ``path_of(i, j)`` names item j of array i for errors.  The
    caller has checked the literal count against its limit.
    """
    fast = converter().flatten(items_list, bound, zero_ok, sys.maxsize)
    if fast is not None and not isinstance(fast, int):     # no count: sys.maxsize is no limit
        return fast
    offsets, lits = array("i", [0]), array("i")
    for i, items in enumerate(array_items(items_list)):
        _walk_literals(items, i, bound, zero_ok, field, path_of, what, lits)
        offsets.append(len(lits))       # what was walked, whatever the lengths said
    return offsets, lits


def literal_array(items_list: Any, bound: int, zero_ok: bool, field: str,
                  path_of: PathOf, what: str) -> array[int]:
    """The literals of ``flatten`` alone."""
    return flatten(items_list, bound, zero_ok, field, path_of, what)[1]


def check_literals(items_list: Any, bound: int, zero_ok: bool, field: str,
                   path_of: PathOf, what: str) -> None:
    """``flatten``'s checks with nothing copied (for arrays over a literal limit).

    Raises the first error in document order; an array given several times
    is read once.
    """
    if converter().flatten(items_list, bound, zero_ok, -1) is not None:
        return
    seen: set[int] = set()
    for i, items in enumerate(array_items(items_list)):
        if id(items) not in seen:
            seen.add(id(items))
            if converter().flatten((items,), bound, zero_ok, -1) is None:
                _walk_literals(items, i, bound, zero_ok, field, path_of, what, None)


def _walk_literals(items: Any, i: int, bound: int, zero_ok: bool, field: str,
                   path_of: PathOf, what: str, out: array[int] | None) -> None:
    """Check array ``i``'s literals in order, appending them to ``out`` (if given)."""
    low = 0 if zero_ok else 1
    for j, x in enumerate(array_items(items)):
        v = as_integer(x)
        if v is None:
            raise InvalidInput(field, path_of(i, j),
                               f"{what} must be an integer, got {type_name(x)}")
        if not low <= abs(v) <= bound:
            raise InvalidInput(field, path_of(i, j),
                               f"{what} {number_text(v)} is out of range: "
                               f"|l| must be in {low}..{bound}")
        if out is not None:
            out.append(v)


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
        raise InvalidInput("claim", "/claim",
                           f"claim must be \"sat\" or \"unsat\", got {type_name(claim)}"
                           + (f" {claim!r}" if type(claim) is str else ""))
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
    s = converter().first_step_over(offsets, lits, limits.max_vars, 0, len(kinds))
    if s is not None:
        raise _literal_error(kinds, offsets, lits, s, s, limits.max_vars)
    out = Validated("unsat", num_vars, clause_offsets, clause_lits)
    _attach_proof(out, kinds, offsets, lits, limits)
    return out


def validate_cnf(cnf: Any, limits: Limits) -> tuple[int, array[int], array[int]]:
    """The ``cnf`` field alone (any value), as ``validate`` checks it; return
    (num_vars, clause_offsets, clause_lits) or raise CheckError."""
    num_vars, clauses = _cnf(cnf, limits)
    clause_offsets, clause_lits = _cnf_literals(clauses, num_vars, limits)
    return num_vars, clause_offsets, clause_lits


def validate_cnf_arrays(num_vars: int, clause_offsets: array[int], clause_lits: array[int],
                        limits: Limits) -> None:
    """The size limits of a CNF that arrives as flat arrays (its literals are in
    ``1..num_vars`` already); raise LimitExceeded."""
    check_size("max_vars", num_vars, limits)
    check_size("max_clauses", len(clause_offsets) - 1, limits)
    check_size("max_total_literals", len(clause_lits), limits)


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
        raise InvalidInput("cnf", "/cnf/num_vars",
                           f"num_vars must be an integer, got {type_name(raw)}")
    if num_vars < 0:
        raise InvalidInput("cnf", "/cnf/num_vars",
                           f"num_vars must be >= 0, got {number_text(num_vars)}")
    check_size("max_vars", num_vars, limits)

    clauses = cnf["clauses"]
    length = array_length(clauses)
    if length < 0:
        raise InvalidInput("cnf", "/cnf/clauses",
                           f"clauses must be an array, got {type_name(clauses)}")
    check_size("max_clauses", length, limits)
    return num_vars, clauses


def _cnf_literals(clauses: Any, num_vars: int, limits: Limits) -> Flat:
    """(offsets, literals) of the clauses, or the first error: a clause that is
    not an array, then the literal count (before any literal is read), then a
    literal, in document order."""
    fast: Flat | int | None = converter().flatten(clauses, num_vars, False,
                                               limits.max_total_literals)
    if isinstance(fast, int):           # plain arrays, but over the limit
        raise size_error("max_total_literals", fast, limits)
    if fast is not None:
        return fast
    total = 0
    for k, clause in enumerate(array_items(clauses)):
        length = array_length(clause)
        if length < 0:
            raise InvalidInput("cnf", pointer("cnf", "clauses", k),
                               f"a clause must be an array, got {type_name(clause)}")
        total += length
    check_size("max_total_literals", total, limits)
    return flatten(clauses, num_vars, False, "cnf",
                   lambda i, j: pointer("cnf", "clauses", i, j), "a CNF literal")


def _assignment(assignment: object, limits: Limits) -> array[int]:
    length = array_length(assignment)
    if length < 0:
        raise InvalidInput("assignment", "/assignment",
                           f"assignment must be an array, got {type_name(assignment)}")
    check_size("max_assignment_literals", length, limits)
    return literal_array((assignment,), limits.max_vars, True, "assignment",
                         lambda i, j: pointer("assignment", j), "an assignment literal")


def _proof(proof: object, limits: Limits) -> Steps:
    """(kinds, offsets, literals) of the proof, or the first error of its validation
    (the literal count is decided before any literal is copied)."""
    length = array_length(proof)
    if length < 0:
        raise InvalidInput("proof", "/proof", f"proof must be an array, got {type_name(proof)}")
    check_size("max_proof_steps", length, limits)
    fast: Steps | int | None = converter().flatten_steps(proof, limits.max_vars,
                                                      limits.max_proof_literals)
    if fast is None:
        return _steps(proof, limits)
    if isinstance(fast, int):           # every step well formed, but over the limit
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
            key, value = _step_shape(step, s)
        except InvalidInput as exc:
            return is_add, values, exc
        is_add.append(key == "add")
        values.append(value)
    return is_add, values, None


def _step_shape(step: object, s: int) -> tuple[str, Any]:
    if not is_object(step):
        raise InvalidInput("proof", pointer("proof", s),
                           f"a proof step must be an object, got {type_name(step)}")
    step = read_object(step, STEP_KEYS, (), "proof", ("proof", s),
                       exactly_one=True)
    (key, value), = step.items()
    if not is_array(value):
        raise InvalidInput("proof", pointer("proof", s, key),
                           f"the value of {key!r} must be an array, got {type_name(value)}")
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
        except UnicodeEncodeError:          # a lone surrogate: the exact path says so
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
    # No literal limit here: _within_literal_limit finds the step that passes it.
    flat = converter().flatten_steps(steps, limits.max_vars, sys.maxsize)
    if flat is None or isinstance(flat, int):
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
    flat = converter().flatten((value,), num_vars, False, sys.maxsize)
    if isinstance(flat, int):       # no count: sys.maxsize is no limit
        flat = None
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
        converter().mark_out_of_range(kinds, offsets, lits, num_vars)
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
    s = converter().first_step_over(offsets, lits, limits.max_vars, a, b)
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
    converter().mark_out_of_range(kinds, offsets, lits, num_vars)
    return ProofChunk(kinds, offsets, lits, problem)
