"""A Checker (and a Kernel) used the wrong way: no misuse gets a verdict.

An iterable that fails inside feed(), a call from a progress callback while a
step is checked, a second thread sharing the Checker, a copy of it: each is
refused, or ends the Checker, the same way with both engines, and no later
call answers for a proof that was not checked whole.
"""

import copy
import pickle
import threading

import pytest

import sat_claim_check as scc
from sat_claim_check._core.codes import STATUS_VALID, STEP_ADD
from sat_claim_check._engines import kernel_py

# The full 2-variable formula: unsat, and every lemma but the right ones fails.
FULL = {"num_vars": 2, "clauses": [[1, 2], [-1, 2], [1, -2], [-1, -2]]}
UNLIMITED = scc.Limits.unlimited()


def chain(length):
    """x1 -> x2 -> ... -> xL, with the clause xL+1 v x1: satisfiable, and the lemma
    [-1, L] walks the whole chain (about 2L units of work each time it is checked)."""
    return {
        "num_vars": length + 1,
        "clauses": [[-i, i + 1] for i in range(1, length)] + [[length + 1, 1]],
    }


def later_calls(checker):
    """What each later call does: (call, exception type) for every call that raises."""
    calls = {
        "add": lambda: checker.add([2]),
        "delete": lambda: checker.delete([1, 2]),
        "feed": lambda: checker.feed([{"add": []}]),
        "finish": checker.finish,
    }
    out = {}
    for name, call in calls.items():
        try:
            call()
        except Exception as exc:
            out[name] = type(exc).__name__
    return out


ALL_REFUSED = {
    "add": "RuntimeError",
    "delete": "RuntimeError",
    "feed": "RuntimeError",
    "finish": "RuntimeError",
}


# -- a failed feed() ----------------------------------------------------------------


@pytest.mark.parametrize("before", [0, 1, 4095, 4096, 5000])
def test_an_iterable_that_fails_ends_the_checker(engine, before):
    # Steps taken from the iterable before it fails were never checked (up to a
    # chunk of them): no later call may answer for the proof.  Before the fix,
    # after {"delete": [-1, -2]} then OSError, add([2]); add([]); finish() said
    # valid for a proof whose whole form is not (its delete removes a clause
    # the lemma [2] needs).
    checker = scc.Checker(FULL, engine=engine, limits=UNLIMITED)
    # Steps that all succeed: the delete, then a tautology added and deleted.
    first = ([{"delete": [-1, -2]}] + [{"add": [1, -1]}, {"delete": [1, -1]}] * before)[:before]

    def steps():
        yield from first
        raise OSError("the reader failed")

    with pytest.raises(OSError, match="the reader failed"):
        checker.feed(steps())
    assert "ended" in repr(checker)
    assert later_calls(checker) == ALL_REFUSED
    with pytest.raises(RuntimeError, match=r"feed\(\) raised OSError"):
        checker.finish()


def test_the_exact_reproducer_gets_no_verdict(engine):
    checker = scc.Checker(FULL, engine=engine)

    def steps():
        yield {"delete": [-1, -2]}
        raise OSError("the reader failed")

    with pytest.raises(OSError):
        checker.feed(steps())
    with pytest.raises(RuntimeError):
        checker.add([2])
    with pytest.raises(RuntimeError):
        checker.add([])
    with pytest.raises(RuntimeError):
        checker.finish()
    # The same steps, all checked, are what the verdict would have been.
    proof = [{"delete": [-1, -2]}, {"add": [2]}, {"add": []}]
    assert (
        scc.run({"cnf": FULL, "claim": "unsat", "proof": proof}, engine=engine).result["reason"]
        == "lemma_not_rup"
    )


def test_a_keyboard_interrupt_from_the_iterable_ends_the_checker(engine):
    checker = scc.Checker(FULL, engine=engine)

    def steps():
        yield {"add": [2]}
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        checker.feed(steps())
    assert later_calls(checker) == ALL_REFUSED


# -- one call at a time ------------------------------------------------------------

LENGTH = {"compiled": 3000, "reference": 300}
POLL = 1 << 20


def lemmas_until_polled(checker, length, limit=20_000):
    """Add and delete the chain lemma until the check has polled its callback."""
    for _ in range(limit):
        checker.add([-1, length])
        checker.delete([-1, length])


@pytest.mark.parametrize("calls", [("add", "finish"), ("finish",), ("feed",), ("delete",)])
def test_a_callback_cannot_reenter_the_checker(engine, calls):
    # Before the fix, the reference engine let a callback add [] and finish():
    # valid: true on a satisfiable formula.  The compiled one refused.
    length = LENGTH[engine]
    seen = []
    checker = None

    def progress(steps, work):
        for name in calls:
            try:
                if name == "add":
                    checker.add([])
                elif name == "delete":
                    checker.delete([1])
                elif name == "feed":
                    checker.feed([{"add": []}])
                else:
                    seen.append(checker.finish().result["valid"])
            except RuntimeError as exc:
                seen.append(str(exc))
                raise

    checker = scc.Checker(chain(length), engine=engine, limits=UNLIMITED, progress=progress)
    with pytest.raises(RuntimeError, match="already running a call"):
        lemmas_until_polled(checker, length)
    assert seen and all("already running a call" in s for s in seen), seen
    assert later_calls(checker) == ALL_REFUSED


def test_a_callback_that_swallows_the_refusal_still_gets_no_verdict(engine):
    length = LENGTH[engine]
    refused = []
    checker = None

    def progress(steps, work):
        try:
            checker.add([])
        except RuntimeError as exc:
            refused.append(exc)

    checker = scc.Checker(chain(length), engine=engine, limits=UNLIMITED, progress=progress)
    with pytest.raises(RuntimeError, match="has ended"):
        lemmas_until_polled(checker, length)
    assert refused
    assert later_calls(checker) == ALL_REFUSED


def test_a_second_thread_is_refused(engine):
    # Deterministic: the second thread calls while the first is inside a check
    # (from its progress callback, which waits for the second thread).
    length = LENGTH[engine]
    outcome = []
    checker = None

    def other_thread():
        try:
            checker.add([])
            outcome.append(checker.finish().result["valid"])
        except RuntimeError as exc:
            outcome.append(str(exc))

    def progress(steps, work):
        if not outcome:
            t = threading.Thread(target=other_thread)
            t.start()
            t.join()

    checker = scc.Checker(chain(length), engine=engine, limits=UNLIMITED, progress=progress)
    with pytest.raises(RuntimeError, match="has ended"):
        lemmas_until_polled(checker, length)
    assert len(outcome) == 1 and "already running a call" in outcome[0], outcome


def race(checker, length, out):
    """Add and delete the chain lemma, then claim the empty clause: what each of
    two threads sharing ``checker`` does; its answer goes to ``out``."""
    try:
        for _ in range(2000):
            checker.add([-1, length])
            checker.delete([-1, length])
        checker.add([])
        out.append(checker.finish().result["valid"])
    except RuntimeError as exc:
        out.append(type(exc).__name__)
    except Exception as exc:  # any other exception is a broken store
        out.append(repr(exc))


def test_threads_racing_on_one_checker_never_get_a_verdict(engine):
    # Undeterministic, as users meet it: two threads, one satisfiable formula.
    # Before the fix the reference engine answered valid: true, or raised an
    # IndexError from its stores.
    length = 100
    for _ in range(3):
        checker = scc.Checker(chain(length), engine=engine, limits=UNLIMITED)
        out = []
        threads = [threading.Thread(target=race, args=(checker, length, out)) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert True not in out
        assert all(o in (False, "RuntimeError") for o in out), out


# -- the kernels refuse the same misuse --------------------------------------------


def kernel_module(engine):
    return scc._engines.resolve(engine)[1]


def kernel_reentry(engine, method):
    """What a kernel's progress callback gets when it calls ``method`` of the kernel
    checking: the exception type and message, or the value."""
    module = kernel_module(engine)
    cnf = chain(LENGTH[engine])
    from array import array

    offsets = array("i", [0])
    lits = array("i")
    for clause in cnf["clauses"]:
        lits.extend(clause)
        offsets.append(len(lits))
    kernel = module.Kernel(cnf["num_vars"], offsets, lits, None, None, None, 2**62)
    got = []

    def progress(steps, work):
        if got:
            return
        try:
            if method == "feed":
                got.append(kernel.feed(array("b", [STEP_ADD]), array("i", [0, 0]), array("i")))
            elif method == "feed_step":
                got.append(kernel.feed_step(STEP_ADD, [], 1, 1))
            elif method == "start":
                got.append(kernel.start(None))
            elif method == "finish":
                got.append(kernel.finish())
            elif method == "__init__":
                got.append(kernel.__init__(1, array("i", [0]), array("i"), None, None, None, 10))
            else:
                got.append(getattr(kernel, method)())
        except RuntimeError as exc:
            got.append(("RuntimeError", str(exc)))

    assert kernel.start(progress, 1000) == STATUS_VALID
    n = cnf["num_vars"] - 1
    kinds = array("b", [STEP_ADD])
    step = array("i", [-1, n])
    while not got:
        assert kernel.feed(kinds, array("i", [0, 2]), step)[0] == STATUS_VALID
    return got[0]


@pytest.mark.compiled
@pytest.mark.parametrize(
    "method", ["feed", "feed_step", "start", "finish", "__init__", "_stats", "_check_invariants"]
)
def test_both_kernels_refuse_a_call_from_their_callback(method):
    compiled = kernel_reentry("compiled", method)
    reference = kernel_reentry("reference", method)
    assert reference == compiled
    assert compiled[0] == "RuntimeError" and "already running" in compiled[1]


def test_the_reference_kernel_refuses_a_second_thread():
    # Its lock makes the test and the claim one step, whatever the interleaving.
    kernel = kernel_py.Kernel(1, [0], [], None, None, None, 10)
    kernel._busy.acquire()
    try:
        with pytest.raises(RuntimeError, match="already running"):
            kernel.start()
    finally:
        kernel._busy.release()
    assert kernel.start() == STATUS_VALID


# -- copies ----------------------------------------------------------------------


@pytest.mark.parametrize("how", ["pickle", "copy", "deepcopy"])
def test_a_checker_is_not_copied(engine, how):
    checker = scc.Checker(FULL, engine=engine)
    checker.add([2])
    with pytest.raises(TypeError, match="a Checker cannot be pickled or copied"):
        if how == "pickle":
            pickle.dumps(checker)
        elif how == "copy":
            copy.copy(checker)
        else:
            copy.deepcopy(checker)
    # The refusal costs the checker nothing.
    checker.add([])
    assert checker.finish().result["valid"]


def test_a_checker_is_made_once(engine):
    # __init__ again, from the progress callback or on an ended Checker, would
    # give it a new kernel under the old one's counts.
    checker = scc.Checker(FULL, engine=engine)
    checker.add([2])
    with pytest.raises(RuntimeError, match="a Checker is made once"):
        checker.__init__(FULL, engine=engine)
    assert later_calls(checker) == ALL_REFUSED
