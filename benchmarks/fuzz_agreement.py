"""Fuzz the compiled kernel against the reference kernel.

    python benchmarks/fuzz_agreement.py --cases 100000 [--seed S] [--jobs J] [--split]
                                        [--deletions strict|lenient|both]
                                        [--reading strict|lenient|drat-trim|all]

Each case is a seeded request from tests/proofgen.py (mostly valid DRUP
proofs, some mutated), run on both kernels without a cap, then with caps at
the reference's final counter, one below it and a random one below it.  The
two must agree on (status, step_index, steps_checked), on work except under
STATUS_WORK_LIMIT, on reason_deletions, on ignored_deletions and on whether the
check concluded early.  ``--deletions`` picks the reading of delete steps
(strict, the default; lenient, as drat-trim reads them; or both, each case
checked in both).  ``--reading`` picks the reading of the proof instead
(strict, lenient, drat-trim: lenient deletions, and the check ends valid at
the first inconsistent state; or all three); the caps at the final counter
and one below it then fall on the step that ends a drat-trim check.  With ``--split`` the compiled
kernel is fed the proof in random chunks (start, feed, finish) instead of
run(), single steps often through feed_step (the Checker's add()/delete(),
with random room under the limits: a step it declines goes through feed()),
with a collection forced at random step boundaries, against the reference's
run().  Prints a summary; exits 1 on the first disagreement,
printing the request so it can be replayed.
"""

import argparse
import collections
import json
import multiprocessing
import os
import random
import sys
import time
from array import array

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))

import proofgen

from sat_claim_check._core import codes as _codes
from sat_claim_check._engines import kernel_c as comp
from sat_claim_check._engines import kernel_py as ref

BIG = 10**12
STATUS_NAMES = {getattr(_codes, n): n for n in dir(_codes) if n.startswith("STATUS_")}


def one_step(k, kind, lits, rng):
    """Step (kind, lits) through feed_step, as the Checker's add()/delete() feed
    it, with random room left under the limits: a step it must decline (a
    literal out of range, no room) must change nothing and goes through feed()
    then.  Returns the status."""
    plain = kind in (_codes.STEP_ADD, _codes.STEP_DELETE)
    key = (
        _codes.STEP_ADD
        if kind in (_codes.STEP_ADD, _codes.STEP_ADD_OUT_OF_RANGE)
        else _codes.STEP_DELETE
    )
    steps_room = rng.choice((0, 1, 1, 1, 7))
    literals_room = len(lits) + rng.choice((-1, 0, 0, 0, 3))
    status = k.feed_step(key, list(lits), steps_room, literals_room)
    takes = plain and steps_room >= 1 and len(lits) <= literals_room
    if (status is not None) != takes:
        raise AssertionError(
            f"feed_step({key}, {list(lits)}, {steps_room}, "
            f"{literals_room}) of a step of kind {kind} gave {status}"
        )
    if status is None:
        status = k.feed(array("b", [kind]), array("i", [0, len(lits)]), lits)[0]
    return status


def fed(flat, cap, rng, reading=_codes.READING_STRICT):
    """The compiled kernel fed in random chunks, some steps one at a time through
    feed_step: (finish(), reason_deletions, ignored_deletions, concluded())."""
    n, co, cl, kinds, so, sl = flat
    k = comp.Kernel(n, co, cl, None, None, None, cap, reading)
    if k.start() == _codes.STATUS_VALID:
        a = 0
        while a < len(kinds):
            b = min(len(kinds), a + rng.choice((1, 1, 2, 3, 8, 50)))
            if b == a + 1 and rng.random() < 0.5:
                status = one_step(k, kinds[a], sl[so[a] : so[a + 1]], rng)
            else:
                status = k.feed(kinds[a:b], so[a : b + 1], sl)[0]
            if status != _codes.STATUS_VALID:
                break
            if rng.random() < 0.1:
                k._collect_now()
            a = b
    return k.finish(), k.reason_deletions, k.ignored_deletions, k.concluded()


def compare(flat, cap, rng=None, reading=_codes.READING_STRICT):
    kr = ref.Kernel(*flat, cap, reading)
    r = kr.run()
    if rng is None:
        kc = comp.Kernel(*flat, cap, reading)
        c = kc.run()
        deletions, ignored, concluded = kc.reason_deletions, kc.ignored_deletions, kc.concluded()
    else:
        c, deletions, ignored, concluded = fed(flat, cap, rng, reading)
    if r[0] == _codes.STATUS_WORK_LIMIT:  # the compiled kernel stops at the cap
        same = c[:3] == r[:3] and cap < c[3] <= r[3]
    else:
        same = c == r
    same = same and kr.reason_deletions == deletions and kr.ignored_deletions == ignored
    same = same and kr.concluded() == concluded
    return same, r, c


def check(seed, index, split=False, reading=_codes.READING_STRICT):
    """None when both kernels agree on case (seed, index), else a report."""
    rng = random.Random(f"{seed}-{index}")
    request = proofgen.case(rng)
    flat = proofgen.to_flat(request)
    splits = rng if split else None
    same, r, c = compare(flat, BIG, splits, reading)
    status = r[0]
    caps = [r[3], r[3] + 1]
    if r[3] > 0:
        caps += [r[3] - 1, rng.randrange(r[3])]
    for cap in caps if same else ():
        same, r2, c = compare(flat, cap, splits, reading)
        if not same:
            r = r2
            break
    else:
        cap = BIG
    if same:
        return status, r[3], None
    return (
        status,
        r[3],
        {
            "seed": seed,
            "index": index,
            "cap": cap,
            "reading": _codes.READINGS[reading],
            "reference": r,
            "compiled": c,
            "request": request,
        },
    )


def _chunk(args):
    seed, start, stop, split, readings = args
    statuses = collections.Counter()
    work = 0
    for index in range(start, stop):
        for reading in readings:
            status, w, failure = check(seed, index, split, reading)
            statuses[status] += 1
            work += w
            if failure is not None:
                return statuses, work, failure, index - start + 1
    return statuses, work, None, stop - start


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=10000)
    parser.add_argument("--seed", default="fuzz")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument(
        "--split",
        action="store_true",
        help="feed the compiled kernel in random chunks instead of run()",
    )
    parser.add_argument(
        "--deletions",
        choices=("strict", "lenient", "both"),
        default="strict",
        help="the reading of delete steps: strict (the default), lenient "
        "(as drat-trim reads them) or both, each case in both",
    )
    parser.add_argument(
        "--reading",
        choices=("strict", "lenient", "drat-trim", "all"),
        default=None,
        help="the reading of the proof (instead of --deletions): strict, lenient, "
        "drat-trim (lenient deletions, ends valid at the first inconsistent "
        "state) or all, each case in all three",
    )
    args = parser.parse_args(argv)
    if args.reading is not None:
        names = _codes.READINGS if args.reading == "all" else (args.reading,)
        readings = tuple(_codes.READINGS.index(name) for name in names)
        how = f"reading {args.reading}"
    else:
        names = {"strict": ("strict",), "lenient": ("lenient",), "both": ("strict", "lenient")}
        readings = tuple(_codes.READINGS.index(name) for name in names[args.deletions])
        how = f"deletions {args.deletions}"

    start = time.perf_counter()
    size = 500
    chunks = [
        (args.seed, i, min(i + size, args.cases), args.split, readings)
        for i in range(0, args.cases, size)
    ]
    statuses = collections.Counter()
    work = done = 0
    failure = None
    with multiprocessing.Pool(args.jobs) as pool:
        for st, w, fail, n in pool.imap_unordered(_chunk, chunks):
            statuses.update(st)
            work += w
            done += n
            if fail is not None and failure is None:
                failure = fail
                pool.terminate()
                break
    elapsed = time.perf_counter() - start
    summary = ", ".join(f"{STATUS_NAMES[s]}={n}" for s, n in sorted(statuses.items()))
    print(f"{done} cases, seed {args.seed!r}, {how}, {elapsed:.1f}s, total work {work}")
    print(f"uncapped outcomes: {summary}")
    if failure is not None:
        print("DISAGREEMENT:", json.dumps(failure))
        return 1
    fed_how = "fed in random chunks" if args.split else "run()"
    print(f"both kernels agree on every case (compiled: {fed_how}; each also under 4 caps)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
