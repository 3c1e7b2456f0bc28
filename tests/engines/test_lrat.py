"""LRAT out (SPEC §10) from both kernels.

* The twins write the same bytes, text and binary, under every reading, fed
  whole or in random splits, and under caps at and near the work counter.
* Every LRAT of a valid verdict is accepted by the suite's own checker
  (tests/_lrat.py, sharing no code with the kernels), and by cake_lpr where
  it is on the PATH; a verdict that is not valid leaves nothing either accepts;
  an accepted LRAT with a hint taken away is rejected.
* The cases the numbering and the hints must get right: a CNF clause that
  repeats a literal, a tautology and its deletion, a CNF with the empty
  clause, a CNF inconsistent alone, a lemma true at level 0.
* The sink: refused when it has no write(), its errors propagate, and a write
  that calls back into the kernel is refused.
"""

from __future__ import annotations

import importlib
import io
import random
import shutil
import subprocess
from array import array
from pathlib import Path
from typing import Any

import proofgen
import pytest
from _lrat import LratRejected, check_lrat
from proofgen import small_requests

import sat_claim_check as scc
from sat_claim_check._core import codes as _codes
from sat_claim_check._engines import kernel_py

BIG = 10**12
READINGS = (_codes.READING_STRICT, _codes.READING_LENIENT, _codes.READING_DRAT_TRIM)
CAKE_LPR = shutil.which("cake_lpr")


def _kernels() -> list[Any]:
    modules: list[Any] = [kernel_py]
    if scc._engines.compiled_available():
        modules.append(importlib.import_module("sat_claim_check._engines.kernel_c"))
    return modules


def _lrat_of(
    module: Any,
    request: dict[str, Any],
    reading: int = 0,
    binary: bool = False,
    cap: int = BIG,
    split: random.Random | None = None,
) -> tuple[tuple[int, ...], bytes]:
    """(status, step_index, steps_checked) and the LRAT bytes of one kernel,
    run whole or (``split``) fed in random chunks."""
    n, co, cl, kinds, offsets, lits = proofgen.to_flat(request)
    out = io.BytesIO()
    if split is None:
        k = module.Kernel(n, co, cl, kinds, offsets, lits, cap, reading, out, binary)
        return k.run()[:3], out.getvalue()
    k = module.Kernel(n, co, cl, None, None, None, cap, reading, lrat=out, lrat_binary=binary)
    if k.start() == _codes.STATUS_VALID:
        a = 0
        while a < len(kinds):
            b = min(len(kinds), a + split.randint(1, 5))
            if k.feed(kinds[a:b], offsets[a : b + 1], lits)[0] != _codes.STATUS_VALID:
                break
            a = b
    return k.finish()[:3], out.getvalue()


def _agree(request: dict[str, Any], **how: Any) -> tuple[tuple[int, ...], bytes]:
    """The twins' outcome and bytes, the same; the suite's checker accepts them
    exactly when the verdict is valid."""
    seen = {module.__name__: _lrat_of(module, request, **how) for module in _kernels()}
    assert len(set(seen.values())) == 1, seen
    (status, _, _), data = next(iter(seen.values()))
    clauses = request["cnf"]["clauses"]
    if status == _codes.STATUS_VALID:
        check_lrat(clauses, data)
    else:
        with pytest.raises(LratRejected):
            check_lrat(clauses, data)
    return (status, *next(iter(seen.values()))[0][1:]), data


# -- the twins, on generated requests -------------------------------------------------


@pytest.mark.parametrize("seed", range(4))
def test_twins_write_the_same_lrat_and_it_checks(seed: int) -> None:
    rng = random.Random(seed)
    valid = 0
    for request in proofgen.cases(1000 + seed, 60):
        try:
            proofgen.to_flat(request)
        except ValueError:
            continue  # a CNF literal out of range: the validator's case
        for reading in READINGS:
            binary = rng.random() < 0.5
            (status, *_), whole = _agree(request, reading=reading, binary=binary)
            _, split = _agree(request, reading=reading, binary=binary, split=rng)
            assert split == whole  # the LRAT does not depend on the chunks
            valid += status == _codes.STATUS_VALID
    assert valid > 40  # the generator's proofs are mostly valid


@pytest.mark.parametrize("seed", range(2))
def test_caps_at_and_near_the_counter(seed: int) -> None:
    rng = random.Random(seed)
    for request in proofgen.cases(2000 + seed, 40):
        try:
            n, co, cl, kinds, offsets, lits = proofgen.to_flat(request)
        except ValueError:
            continue
        work = kernel_py.Kernel(n, co, cl, kinds, offsets, lits, BIG).run()[3]
        for cap in {max(0, work - 1), work, work + 1, rng.randint(0, work + 1)}:
            _agree(request, cap=cap, reading=rng.choice(READINGS), split=rng)


@small_requests
def test_arbitrary_small_requests(
    clauses: list[list[int]], proof: list[dict[str, list[int]]], cap: int
) -> None:
    request = {"cnf": {"num_vars": 4, "clauses": clauses}, "claim": "unsat", "proof": proof}
    for reading in READINGS:
        _agree(request, reading=reading)
        _agree(request, reading=reading, cap=cap, binary=True)


def test_an_accepted_lrat_loses_a_hint_and_is_rejected() -> None:
    rng = random.Random(5)
    mutated = 0
    for request in proofgen.cases(3000, 150):
        try:
            (status, *_), data = _agree(request)
        except ValueError:
            continue
        lines = data.decode().splitlines()
        additions = [i for i, line in enumerate(lines) if " d " not in line]
        if status != _codes.STATUS_VALID or not additions:
            continue
        i = rng.choice(additions)
        words = lines[i].split()
        # Drop the last hint: the conflict; the propagation then ends without one.
        lines[i] = " ".join([*words[:-2], "0"])
        with pytest.raises(LratRejected):
            check_lrat(request["cnf"]["clauses"], "\n".join(lines).encode() + b"\n")
        mutated += 1
    assert mutated > 20


# -- cases the numbering and the hints must get right ---------------------------------


def _unsat(clauses: list[list[int]], steps: list[tuple[str, list[int]]], n: int = 3) -> Any:
    proof = [{key: lits} for key, lits in steps]
    return {"cnf": {"num_vars": n, "clauses": clauses}, "claim": "unsat", "proof": proof}


PAIR = [[1, 2], [-1, 2], [1, -2], [-1, -2]]


def test_the_first_lines_of_a_small_proof() -> None:
    _, data = _agree(_unsat(PAIR, [("add", [2]), ("add", [])]))
    # [2]: -2 makes clause 1 unit (1), then clause 2 is falsified.  The empty
    # clause: 2 (lemma 5) makes clause 3 unit (1), then clause 4 is falsified.
    assert data == b"5 2 0 1 2 0\n6 0 5 3 4 0\n"
    _, binary = _agree(_unsat(PAIR, [("add", [2]), ("add", [])]), binary=True)
    assert binary == bytes([ord("a"), 10, 4, 0, 2, 4, 0, ord("a"), 12, 0, 10, 6, 8, 0])


def test_a_cnf_clause_that_repeats_a_literal_gets_a_copy_first() -> None:
    # cake_lpr reads "1 1 0" as given: not unit.  Its copy "1" is used instead.
    _, data = _agree(_unsat([[1, 1], [-1]], [("add", [])], n=1))
    assert data == b"3 1 0 1 0\n4 0 3 2 0\n"


def test_a_tautology_and_its_deletion_are_left_out() -> None:
    steps = [("add", [3, -3]), ("delete", [3, -3]), ("add", [2]), ("add", [])]
    _, data = _agree(_unsat(PAIR, steps))
    assert data == b"6 2 0 1 2 0\n7 0 6 3 4 0\n"  # number 5 was the tautology's


def test_a_deletion_names_the_clause_it_removed() -> None:
    steps = [("add", [1, 2]), ("delete", [2, 1]), ("add", [2]), ("add", [])]
    _, data = _agree(_unsat(PAIR, steps))
    # The later of the two equal clauses goes: 5, the lemma.
    assert data.splitlines()[:2] == [b"5 1 2 0 1 0", b"5 d 5 0"]


def test_a_cnf_with_the_empty_clause_or_inconsistent_alone() -> None:
    _, data = _agree(_unsat([[1], [], [-1]], []))
    assert data == b"4 0 2 0\n"
    # The units 1 and -2 (in id order), then clause 2 falsified.
    _, data = _agree(_unsat([[1], [-1, 2], [-2]], []), reading=_codes.READING_DRAT_TRIM)
    assert data == b"4 0 1 3 2 0\n"


def test_a_lemma_true_at_level_0_is_justified_from_its_first_true_literal() -> None:
    # 1 and then 2 are true at level 0; the lemma [2, 1] holds both, and its
    # hints justify the earlier one on the trail: 1, from the unit clause.
    # (From 2, the first in the lemma, the hints would need 1 true: it is false.)
    _, data = _agree(_unsat([[1], [-1, 2]], [("add", [2, 1])]))
    assert data == b"3 2 1 0 1 0\n"


def test_nothing_after_the_first_inconsistent_state_is_written() -> None:
    steps = [("add", [2]), ("add", [1]), ("delete", [1, 2]), ("add", [])]
    _, data = _agree(_unsat(PAIR, steps))
    assert data == b"5 2 0 1 2 0\n6 0 5 3 4 0\n"


# -- the sink -------------------------------------------------------------------------


@pytest.mark.parametrize("bad", [object(), "file.lrat", 3])
def test_a_sink_without_write_is_refused(bad: Any) -> None:
    for module in _kernels():
        with pytest.raises(TypeError, match="lrat must have a write"):
            module.Kernel(1, array("i", [0]), array("i"), None, None, None, BIG, 0, bad)
        with pytest.raises(TypeError, match="lrat_binary must be a bool"):
            module.Kernel(1, array("i", [0]), array("i"), None, None, None, BIG, 0, None, 1)


class _Failing:
    def __init__(self) -> None:
        self.calls = 0

    def write(self, data: bytes) -> None:
        self.calls += 1
        raise OSError(28, "No space left on device")


def test_a_write_that_fails_propagates() -> None:
    request = _unsat(PAIR, [("add", [2]), ("add", [])])
    n, co, cl, kinds, offsets, lits = proofgen.to_flat(request)
    for module in _kernels():
        sink = _Failing()
        k = module.Kernel(n, co, cl, kinds, offsets, lits, BIG, 0, sink)
        with pytest.raises(OSError, match="No space"):
            k.run()
        assert sink.calls == 1


def test_a_write_that_calls_back_into_the_kernel_is_refused() -> None:
    # Enough lines to fill the buffer: the kernel writes it out between steps.
    n = 40
    clauses = [[v, v + 1] for v in range(1, n)]
    steps = [{"add": [v, v + 1]} for v in range(1, n)] * 400
    request = {"cnf": {"num_vars": n, "clauses": clauses}, "claim": "unsat", "proof": steps}
    nv, co, cl, kinds, offsets, lits = proofgen.to_flat(request)

    class Reentrant:
        def __init__(self) -> None:
            self.kernel: Any = None
            self.refused: list[str] = []

        def write(self, data: bytes) -> None:
            try:
                self.kernel.feed(kinds[:1], offsets[:2], lits)
            except RuntimeError as err:
                self.refused.append(str(err))

    for module in _kernels():
        sink = Reentrant()
        kernel = sink.kernel = module.Kernel(nv, co, cl, None, None, None, BIG, 0, sink)
        kernel.start()
        kernel.feed(kinds, offsets, lits)
        kernel.finish()
        assert sink.refused and all("already running" in why for why in sink.refused), module


# -- cake_lpr, where it is on the PATH ------------------------------------------------


def _dimacs(clauses: list[list[int]], n: int) -> str:
    body = "".join(" ".join(map(str, [*c, 0])) + "\n" for c in clauses)
    return f"p cnf {n} {len(clauses)}\n{body}"


@pytest.mark.skipif(CAKE_LPR is None, reason="cake_lpr is not on the PATH")
def test_cake_lpr_accepts_what_is_valid_and_rejects_a_lost_hint(tmp_path: Path) -> None:
    assert CAKE_LPR is not None
    checked = 0
    for i, request in enumerate(proofgen.cases(4000, 120)):
        try:
            (status, *_), data = _agree(request, binary=i % 2 == 1)
        except ValueError:
            continue
        if status != _codes.STATUS_VALID:
            continue
        cnf = tmp_path / "f.cnf"
        cnf.write_text(_dimacs(request["cnf"]["clauses"], request["cnf"]["num_vars"]))
        (tmp_path / "p.lrat").write_bytes(data)
        out = subprocess.run(
            [CAKE_LPR, str(cnf), str(tmp_path / "p.lrat")], capture_output=True, text=True
        )
        assert "s VERIFIED UNSAT" in out.stdout, (request, out.stderr)
        checked += 1
        lines = data.splitlines()
        if i % 2 == 0 and len(lines) > 1 and b" d " not in lines[0]:
            words = lines[0].split()
            lines[0] = b" ".join([*words[:-2], b"0"])
            (tmp_path / "p.lrat").write_bytes(b"\n".join(lines) + b"\n")
            out = subprocess.run(
                [CAKE_LPR, str(cnf), str(tmp_path / "p.lrat")], capture_output=True, text=True
            )
            assert "s VERIFIED UNSAT" not in out.stdout
    assert checked > 30


@pytest.mark.fuzz
@pytest.mark.parametrize("chunk", range(10))
def test_lrat_campaign(chunk: int) -> None:
    """pytest -m fuzz: 10 x 500 generated requests, every reading, split feeds."""
    rng = random.Random(chunk)
    for request in proofgen.cases(90_000 + chunk, 500):
        try:
            proofgen.to_flat(request)
        except ValueError:
            continue
        reading = rng.choice(READINGS)
        binary = rng.random() < 0.5
        _, whole = _agree(request, reading=reading, binary=binary)
        assert _agree(request, reading=reading, binary=binary, split=rng)[1] == whole
