"""Proof steps validated as they arrive, chunk by chunk (the Checker's way in).

Each entry validates what it is given in stream order and returns the steps
that passed as flat arrays, with the first problem after them, if any.
"""

from __future__ import annotations

import sys
from array import array
from bisect import bisect_right
from collections.abc import Callable, Iterator, Sequence
from itertools import islice
from typing import TYPE_CHECKING, Any

from .._engines import converter
from ..errors import CheckError, InvalidInput
from .codes import STEP_ADD, STEP_DELETE
from .literals import flatten, literal_array, literal_error
from .sizes import check_size, size_error
from .validate import step_shape
from .values import array_length, pointer

if TYPE_CHECKING:
    from ..limits import Limits

    Flat = tuple[array[int], array[int]]  # (offsets, literals)
    Steps = tuple[array[int], array[int], array[int]]  # (kinds, offsets, literals)
    PathOf = Callable[[int, int], str]  # (array, item) -> JSON Pointer


__all__ = ["BATCH", "ProofChunk", "next_batch", "one_step", "step_arrays_chunk", "steps_chunk"]

# Checker.feed() takes BATCH steps at a time; of an iterable, which it holds
# before it checks them, fewer once they hold BATCH_LITERALS literals.
BATCH = 4096
BATCH_LITERALS = 1 << 20


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

    def __init__(
        self, kinds: array[int], offsets: array[int], lits: array[int], problem: CheckError | None
    ) -> None:
        self.kinds = kinds
        self.offsets = offsets
        self.lits = lits
        self.problem = problem


def next_batch(items: Iterator[Any]) -> list[Any]:
    """The next steps of an iterable given to feed(): BATCH of them, fewer once
    they hold BATCH_LITERALS literals, none at its end.  (A batch of BATCH
    steps of 10**5 literals each held gigabytes before the first was checked.)"""
    batch: list[Any] = []
    append = batch.append
    literals = 0
    for step in islice(items, BATCH):
        append(step)
        if type(step) is dict and len(step) == 1:  # the usual step, read inline
            for value in step.values():
                literals += len(value) if type(value) is list else _step_size(step)
        else:
            literals += _step_size(step)
        if literals >= BATCH_LITERALS:
            break
    return batch


def _step_size(step: Any) -> int:
    """About how many literals a step holds, read as validation reads it: 1 for
    anything but an object of one key whose value is an array."""
    if issubclass(type(step), dict) and dict.__len__(step) == 1:
        for value in dict.values(step):
            return max(array_length(value), 1)
    return 1


def steps_chunk(
    steps: Sequence[Any], first: int, literals_before: int, num_vars: int, limits: Limits
) -> ProofChunk:
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
    return _within_literal_limit(
        kinds, offsets, lits, problem, first, literals_before, num_vars, limits
    )


def one_step(
    key: str,
    value: Any,
    index: int,
    literals_before: int,
    num_vars: int,
    limits: Limits,
    kinds: array[int],
    offsets: array[int],
) -> array[int]:
    """``steps_chunk`` for the single step {key: value} (key "add" or "delete"),
    raising its problem: return its literals, and set ``kinds[0]`` (its kind,
    classified for the engines) and ``offsets`` to ``[0, len(literals)]``."""
    check_size("max_proof_steps", index + 1, limits)
    kinds[0] = STEP_ADD if key == "add" else STEP_DELETE
    # The usual step: plain ints within 1..num_vars (so within max_vars, and
    # nothing to classify).
    flat = converter().flatten((value,), num_vars, False, sys.maxsize)
    if isinstance(flat, int):  # no count: sys.maxsize is no limit
        flat = None
    plain = flat is not None
    if flat is None:
        if type(value) is not list and type(value) is not tuple:
            step_shape({key: value}, index)  # raises, unless a list or tuple subclass
        flat = flatten(
            (value,), limits.max_vars, True, "proof", _step_path(index, key), "a proof literal"
        )
    lits = flat[1]
    check_size("max_proof_literals", literals_before + len(lits), limits)
    offsets[1] = len(lits)
    if not plain:
        converter().mark_out_of_range(kinds, offsets, lits, num_vars)
    return lits


def step_arrays_chunk(
    kinds: array[int],
    offsets: array[int],
    lits: array[int],
    a: int,
    b: int,
    first: int,
    literals_before: int,
    num_vars: int,
    limits: Limits,
) -> ProofChunk:
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
        problem = literal_error(kinds, offsets, lits, s, first + s - a, limits.max_vars)
        b = s
    return _within_literal_limit(
        kinds[a:b], offsets[a : b + 1], lits, problem, first, literals_before, num_vars, limits
    )


def _steps_until_malformed(
    steps: Sequence[Any],
    first: int,
    limits: Limits,
) -> tuple[array[int], array[int], array[int], InvalidInput | None]:
    """(kinds, offsets, literals) of the steps before the first malformed one (in
    document order: its shape, then its literals), and that step's error."""
    kinds = array("b")
    values: list[Any] = []
    error: InvalidInput | None = None
    for s, step in enumerate(steps):
        try:
            key, value = step_shape(step, first + s)
            literal_array(
                (value,),
                limits.max_vars,
                True,
                "proof",
                _step_path(first + s, key),
                "a proof literal",
            )
        except InvalidInput as exc:
            error = exc
            break
        kinds.append(STEP_ADD if key == "add" else STEP_DELETE)
        values.append(value)
    offsets, lits = flatten(
        values,
        limits.max_vars,
        True,
        "proof",
        lambda i, j: pointer("proof", first + i),
        "a proof literal",
    )
    return kinds, offsets, lits, error


def _step_path(index: int, key: str) -> Callable[[int, int], str]:
    """The path of literal j of proof step ``index`` (for ``literal_array``)."""
    return lambda _, j: pointer("proof", index, key, j)


def _within_literal_limit(
    kinds: array[int],
    offsets: array[int],
    lits: array[int],
    problem: CheckError | None,
    first: int,
    literals_before: int,
    num_vars: int,
    limits: Limits,
) -> ProofChunk:
    """Cut the well-formed steps at the one that takes the literal count past
    ``max_proof_literals``, if any (that is then the problem); classify the
    rest for the engines, as ``_attach_proof`` does."""
    n = len(kinds)
    room = limits.max_proof_literals - literals_before
    if offsets[n] - offsets[0] > room:
        s = bisect_right(offsets, offsets[0] + room, 0, n + 1) - 1  # its offsets[s + 1] > room
        problem = size_error(
            "max_proof_literals", literals_before + offsets[s + 1] - offsets[0], limits
        )
        kinds, offsets = kinds[:s], offsets[: s + 1]
    if not isinstance(kinds, array) or kinds.typecode != "b":
        kinds = array("b", kinds)
    converter().mark_out_of_range(kinds, offsets, lits, num_vars)
    return ProofChunk(kinds, offsets, lits, problem)
