"""Faults found reading the streaming and batch changes over, each pinned."""

from __future__ import annotations

import json
import subprocess
import sys
from array import array
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sat_claim_check._batch.manifest import Manifest, check_manifest_line
from sat_claim_check._engines import convert_py


def test_a_manifest_names_the_byte_of_a_binary_proof_error(tmp_path: Path) -> None:
    (tmp_path / "f.cnf").write_text("p cnf 1 2\n1 0\n-1 0\n")
    (tmp_path / "f.bin").write_bytes(b"a\x02\x00x")       # byte 3 starts no step
    kind, text = check_manifest_line("auto", None, 7, b'{"cnf": "f.cnf", "proof": "f.bin"}',
                                     Manifest(str(tmp_path)))
    error = json.loads(text)
    assert kind == 2 and (error["field"], error["line"]) == ("proof", 7)
    assert error["message"].startswith("f.bin:byte 3: proof (binary): byte 'x'")


# -- the first step with a literal over the bound: compiled and pure twins ----------

steps = st.lists(st.lists(st.integers(-40, 40), max_size=5), max_size=8)


@settings(max_examples=400, deadline=None)
@given(steps=steps, bound=st.one_of(st.integers(0, 45), st.just(1 << 40)), data=st.data())
def test_the_twins_find_the_same_first_step_over_the_bound(steps: list[list[int]], bound: int,
                                                           data: st.DataObject) -> None:
    convert_c = pytest.importorskip("sat_claim_check._engines.convert_c")
    offsets = array("i", [0])
    for step in steps:
        offsets.append(offsets[-1] + len(step))
    lits = array("i", [lit for step in steps for lit in step])
    a = data.draw(st.integers(0, len(steps)))
    b = data.draw(st.integers(a, len(steps)))
    want = convert_py.first_step_over(offsets, lits, bound, a, b)
    assert convert_c.first_step_over(offsets, lits, bound, a, b) == want
    over = [s for s in range(a, b) if any(abs(lit) > bound for lit in steps[s])]
    assert want == (over[0] if over else None)


def test_the_compiled_twin_refuses_offsets_that_describe_no_steps() -> None:
    convert_c = pytest.importorskip("sat_claim_check._engines.convert_c")
    lits = array("i", [1, 2])
    for offsets, a, b in ((array("i", [0, 3]), 0, 1), (array("i", [0, 2]), 0, 2),
                          (array("i", [1, 0]), 0, 1), (array("i", [0, 2]), -1, 1)):
        with pytest.raises(ValueError, match="offsets do not describe the steps"):
            convert_c.first_step_over(offsets, lits, 5, a, b)


# -- a Kernel called again from its own progress callback ------------------------

REENTRY = r"""
import sys
sys.path.insert(0, {tests!r})
import proofgen
from sat_claim_check._engines import kernel_c

n = 4000
clauses = [[-i, i + 1] for i in range(1, n)] + [[-n, -1]]
flat = proofgen.to_flat({{"cnf": {{"num_vars": n, "clauses": clauses}}, "claim": "unsat",
                         "proof": [{{"add": [-1]}}, {{"delete": [-1]}}] * 50}})
k = kernel_c.Kernel(*flat, 10**9)

def progress(steps, work):
    {call}

try:
    k.run(progress=progress, poll_interval=5)
except RuntimeError as exc:
    print("refused:", exc)
print("after:", k.run() == kernel_c.Kernel(*flat, 10**9).run())
"""


@pytest.mark.parametrize("call", [
    "k._collect_now()",                             # moved the arena under _propagate
    "k.__init__(n, flat[1], flat[2], flat[3][:1], flat[4], flat[5], 10**9)",  # kinds cut
    "k._check_invariants()",
    "k._stats()",
])
def test_a_kernel_refuses_calls_from_its_own_progress_callback(call: str) -> None:
    pytest.importorskip("sat_claim_check._engines.kernel_c")
    code = REENTRY.format(tests=str(Path(__file__).parents[1]), call=call)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "refused: this Kernel is already running" in proc.stdout
    assert "after: True" in proc.stdout          # the Kernel stays usable


# -- --explain names the first reason deletions and the last, not all ---------------

def cycling_request(cycles: int) -> dict[str, object]:
    """A proof that deletes a reason clause twice a cycle, then a lemma not RUP."""
    proof = [{"delete": [-1, 2]}, {"add": [-1, 2]}, {"delete": [-4, 2]}, {"add": [-4, 2]}]
    return {"cnf": {"num_vars": 4, "clauses": [[1], [-1, 2], [-1, 4], [-4, 2]]},
            "claim": "unsat", "proof": proof * cycles + [{"add": [3]}]}


def test_explain_lists_a_bounded_number_of_reason_deletions() -> None:
    from sat_claim_check import explain
    from sat_claim_check._core.explain import LISTED

    few, many = explain(cycling_request(3)), explain(cycling_request(300))
    assert len(many.strict.reason_deletions) == 600
    listed = [line for line in many.lines if line.startswith("explain:   step ")]
    assert len(listed) == 1 + LISTED                # the failing step, then LISTED
    assert "explain:   ... 590 more" in many.lines
    assert listed[-1] == "explain:   step 1198: d -4 2 0"     # the last one, shown
    assert len([x for x in few.lines if x.startswith("explain:   step ")]) == 1 + 6
    assert not any("more" in line for line in few.lines)
