"""The compiled request reader against the exact path, on the same JSON text.

``_validate.validated_from_text`` reads a request's text with the compiled
reader (``request_c``) and falls back to ``validate(loads(text))`` when the
reader declines.  Every case here runs both on the same bytes: the Validated
fields (types and typecodes included), or the error object, must be equal.
The texts are valid requests re-serialized with random whitespace and key
orders, and every kind of breakage: wrong types, repeated keys, escapes,
unicode, fractions, huge integers, truncation, each size limit at W-1, W and
W+1, trailing bytes, NaN, deep nesting, a byte-order mark, invalid UTF-8 and
random bytes.

Each case also says what the reader must do: accept it exactly when it is
valid (plain text: integers, the contract's names, JSON whitespace), decline
it (a spelling only the exact path reads: ``3.0``, an escape, a BOM), or
either (random damage).  The counts are asserted, so a reader that declined
everything, or accepted too much, fails.
"""

from __future__ import annotations

import copy
import json
import random
import threading
from array import array
from collections.abc import Callable
from pathlib import Path
from typing import Any, Union

import proofgen
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sat_claim_check import _engines as _engine
from sat_claim_check._core.jsontext import loads
from sat_claim_check._core.validate import validate, validated_from_text
from sat_claim_check._core.validated import Validated
from sat_claim_check.errors import CheckError
from sat_claim_check.limits import CEILINGS, CONTRACT_LIMITS, Limits

COMPILED = _engine.compiled_available()
READER = _engine.request_reader()
UNLIMITED = Limits.unlimited()

# What Tally.check compares: ("ok", fields) or ("error", class name, error object).
Outcome = tuple[Any, ...]
Text = Union[bytes, bytearray, str]


# -- the two paths -------------------------------------------------------------------


def fields(v: Validated) -> list[tuple[Any, ...]]:
    """A Validated as plain comparable values: type, typecode and items of each field."""
    out: list[tuple[Any, ...]] = []
    for name in Validated.__slots__:
        x = getattr(v, name)
        if isinstance(x, array):
            out.append((name, "array", x.typecode, x.tolist()))
        else:
            out.append((name, type(x).__name__, x))
    return out


def outcome(read: Callable[[Text, Limits], Validated], data: Text, limits: Limits) -> Outcome:
    try:
        return ("ok", fields(read(data, limits)))
    except CheckError as err:
        return ("error", type(err).__name__, err.to_dict())


def exact_path(data: Text, limits: Limits) -> Validated:
    return validate(loads(data), limits)


class Tally:
    """Runs cases and counts what the reader did with them."""

    def __init__(self) -> None:
        self.cases = self.accepted = self.valid = self.fallback_valid = 0

    def check(
        self, data: Text, limits: Limits = CONTRACT_LIMITS, plain: bool | None = None
    ) -> Outcome:
        """Both paths on data; plain=True: the reader must accept exactly when the
        request is valid; plain=False: it must decline; None: either."""
        want = outcome(exact_path, data, limits)
        got = outcome(validated_from_text, data, limits)
        assert got == want, data[:400]
        accepted = READER.read_request(data, limits) is not None
        valid = want[0] == "ok"
        if COMPILED and plain is not None:
            assert accepted == (plain and valid), (plain, valid, data[:400])
        self.cases += 1
        self.accepted += accepted
        self.valid += valid
        self.fallback_valid += valid and not accepted
        return want


# -- trees: requests that JSON text can spell but dicts cannot -----------------------


class Raw:
    """JSON text written as is; ``reads`` says whether the reader reads it
    (when it does not, a request holding it must be declined)."""

    def __init__(self, text: str, reads: bool = True) -> None:
        self.text = text
        self.reads = reads


class Obj:
    """A JSON object as a list of [key, value] pairs: keys may repeat; a key is
    a str or a Raw (the quoted text)."""

    def __init__(self, pairs: list[list[Any]]) -> None:
        self.pairs = pairs


def tree(value: Any, rng: random.Random) -> Any:
    """A request (dicts and lists) as a tree, object keys in a random order."""
    if isinstance(value, dict):
        pairs = [[k, tree(v, rng)] for k, v in value.items()]
        rng.shuffle(pairs)
        return Obj(pairs)
    if isinstance(value, list):
        return [tree(v, rng) for v in value]
    return value


def dump(node: Any, rng: random.Random, spaces: float = 0.3) -> str:
    """JSON text of a tree; each gap between tokens gets JSON whitespace with
    probability ``spaces``."""
    parts: list[str] = []

    def gap() -> None:
        if rng.random() < spaces:
            parts.append("".join(rng.choice(" \t\n\r") for _ in range(rng.randint(1, 3))))

    def walk(x: Any) -> None:
        gap()
        if isinstance(x, Raw):
            parts.append(x.text)
        elif isinstance(x, Obj):
            parts.append("{")
            for i, (key, value) in enumerate(x.pairs):
                if i:
                    parts.append(",")
                gap()
                parts.append(
                    key.text
                    if isinstance(key, Raw)
                    else json.dumps(key, ensure_ascii=rng.random() < 0.5)
                )
                gap()
                parts.append(":")
                walk(value)
            gap()
            parts.append("}")
        elif isinstance(x, list):
            parts.append("[")
            for i, item in enumerate(x):
                if i:
                    parts.append(",")
                walk(item)
            gap()
            parts.append("]")
        elif type(x) is int:
            parts.append(str(x))
        else:  # str, float, bool, None
            parts.append(json.dumps(x, ensure_ascii=rng.random() < 0.5))
        gap()

    walk(node)
    return "".join(parts)


def reads_all(node: Any) -> bool:
    """Whether every Raw token and key of the tree is one the reader reads."""
    if isinstance(node, Raw):
        return node.reads
    if isinstance(node, Obj):
        return all((not isinstance(k, Raw) or k.reads) and reads_all(v) for k, v in node.pairs)
    if isinstance(node, list):
        return all(map(reads_all, node))
    return True


def slots(node: Any) -> list[tuple[list[Any], int]]:
    """(container, index) of every value in the tree, the root excluded."""
    out: list[tuple[list[Any], int]] = []
    if isinstance(node, Obj):
        for pair in node.pairs:
            out.append((pair, 1))
            out.extend(slots(pair[1]))
    elif isinstance(node, list):
        for i, item in enumerate(node):
            out.append((node, i))
            out.extend(slots(item))
    return out


def objects(node: Any) -> list[Obj]:
    out: list[Obj] = []
    if isinstance(node, Obj):
        out.append(node)
        for _, v in node.pairs:
            out.extend(objects(v))
    elif isinstance(node, list):
        for item in node:
            out.extend(objects(item))
    return out


def escaped(name: str, rng: random.Random) -> Raw:
    """A quoted key that json.loads reads as ``name`` but spelled with an escape."""
    i = rng.randrange(len(name))
    return Raw('"' + name[:i] + f"\\u{ord(name[i]):04x}" + name[i + 1 :] + '"', reads=False)


# Values put in place of another; the reader declines those with reads=False
# even where the exact path accepts them (3.0 is the integer 3).
JUNK: list[Any] = [
    True,
    False,
    None,
    "x",
    "",
    "sat",
    1.5,
    -2.5,
    [],
    [[]],
    [1, [2]],
    Raw("{}"),
    Raw('{"add":[1]}'),
    Raw("0"),
    Raw("-0"),
    Raw("1"),
    Raw("-1"),
    Raw("2147483647"),
    Raw("-2147483648"),
    Raw("2147483648"),
    Raw("9999999999"),
    Raw("10000000000"),
    Raw("-99999999999"),
    Raw("1" + "0" * 5000),
    Raw("-" + "7" * 4400),
    Raw("3.0", reads=False),
    Raw("1.0", reads=False),
    Raw("-0.0", reads=False),
    Raw("1e0", reads=False),
    Raw("2E+0", reads=False),
    Raw("10e-1", reads=False),
    Raw("0.1e1", reads=False),
    Raw("1e400"),
    Raw("-1e400"),
    Raw("1.5e-1"),
    Raw("NaN"),
    Raw("Infinity"),
    Raw("-Infinity"),
    Raw("nan"),
    Raw("01"),
    Raw("-01"),
    Raw("00"),
    Raw("+1"),
    Raw("- 1"),
    Raw("1."),
    Raw(".5"),
    Raw("-"),
    Raw("0x1"),
    Raw("1_000"),
    Raw("tru"),
    Raw("nul"),
    Raw("1 2"),
    Raw('"1"'),
    Raw('"\\u0031"'),
    Raw('"sat'),
    Raw("'sat'"),
    Raw("[" * 3000 + "]" * 3000),
    Raw("[[[1]]]"),
    Raw("[1,]"),
    Raw("[,1]"),
    Raw("[1 2]"),
]

UNKNOWN_KEYS = [
    "zzz",
    "Cnf",
    "cnf ",
    "",
    "adds",
    "Add",
    "num_vars",
    "clauses",
    "proof",
    "claim",
    "assignment",
    "add",
    "delete",
    "cnf\u00e9",
    "\u00e9",
    "n\x00",
]


def mutate(root: Obj, rng: random.Random) -> bool:
    """Break the tree in place in one way; return False when the change is a
    spelling that only the exact path reads (the reader must decline)."""
    choice = rng.randrange(10)
    obj = rng.choice(objects(root))
    places = slots(root)
    if choice <= 2 and places:  # a value replaced
        container, index = rng.choice(places)
        container[index] = copy.deepcopy(rng.choice(JUNK))
    elif choice == 3 and obj.pairs:  # a key repeated
        key, value = rng.choice(obj.pairs)
        obj.pairs.insert(
            rng.randint(0, len(obj.pairs)),
            [key, value if rng.random() < 0.5 else rng.choice([[], 0, [1]])],
        )
    elif choice == 4:  # an extra key
        obj.pairs.insert(
            rng.randint(0, len(obj.pairs)),
            [rng.choice(UNKNOWN_KEYS), rng.choice([[], 0, None, [1]])],
        )
    elif choice == 5 and obj.pairs:  # a key missing
        del obj.pairs[rng.randrange(len(obj.pairs))]
    elif choice == 6 and obj.pairs:  # a key escaped
        pair = rng.choice(obj.pairs)
        if isinstance(pair[0], str) and pair[0]:
            pair[0] = escaped(pair[0], rng)
    elif choice == 7:  # the claim spelled otherwise
        for pair in root.pairs:
            if pair[0] == "claim" and isinstance(pair[1], str):
                pair[1] = rng.choice(
                    [
                        escaped(pair[1], rng),
                        "SAT",
                        "unsat ",
                        "sat\u00e9",
                        Raw('"un\\u0073at"', reads=False),
                        "unsat" if pair[1] == "sat" else "sat",
                    ]
                )
    elif choice == 8:  # assignment/proof misplaced
        root.pairs.insert(
            rng.randint(0, len(root.pairs)),
            [rng.choice(["assignment", "proof"]), rng.choice([[], None, [1]])],
        )
    elif choice == 9:  # an integral float, valid
        ints = [(c, i) for c, i in places if type(c[i]) is int]
        if ints:
            container, index = rng.choice(ints)
            container[index] = Raw(f"{container[index]}.0", reads=False)
    return reads_all(root)


def damage(data: bytes, rng: random.Random) -> tuple[bytes, bool | None]:
    """Byte-level damage to text: (bytes, plain) where plain is as for Tally.check,
    None when the damage is random."""
    choice = rng.randrange(8)
    pos = rng.randint(0, len(data))
    if choice == 0:
        return data[:pos], True  # truncated
    if choice == 1:
        return data + rng.choice(
            [
                b" ",
                b"\n",
                b"\r\n\t",
                b"x",
                b"}",
                b"]",
                b",",
                b"\x00",
                b"{}",
                b"0",
                b"\xef\xbb\xbf",
                b"\x0c",
                b"\xc2\xa0",
            ]
        ), True
    if choice == 2:
        return b"\xef\xbb\xbf" + data, False  # a BOM: json.loads skips it
    if choice == 3:  # invalid UTF-8
        bad = rng.choice(
            [
                b"\xff",
                b"\x80",
                b"\xc3",
                b"\xed\xa0\x80",
                b"\xc0\xaf",
                b"\xf4\x90\x80\x80",
                b"\xe2\x82",
            ]
        )
        return data[:pos] + bad + data[pos:], True
    if choice == 4:  # valid UTF-8, not ASCII
        extra = rng.choice(["\u00e9", "\u00a0", "\u2028", "\ufeff", "\U0001f600"])
        # U+FEFF first is a BOM, which json.loads skips; anywhere else it is an error.
        return data[:pos] + extra.encode() + data[pos:], not (pos == 0 and extra == "\ufeff")
    if choice == 5:  # whitespace json does not skip
        return data[:pos] + rng.choice([b"\x0b", b"\x0c", b"\x00", b"\x1f"]) + data[pos:], True
    if choice == 6 and data:  # one byte changed
        i = rng.randrange(len(data))
        return data[:i] + bytes([rng.randrange(256)]) + data[i + 1 :], None
    if data:  # one byte dropped
        i = rng.randrange(len(data))
        return data[:i] + data[i + 1 :], None
    return data, True


# -- requests -------------------------------------------------------------------------


def sat_request(rng: random.Random) -> dict[str, Any]:
    """A sat claim: a small CNF and an assignment with the oddities that are
    verdicts (0, variables above num_vars, repeats, contradictions)."""
    n, clauses = proofgen.random_cnf(rng)
    width = n + 2
    assignment = [rng.randint(-width, width) for _ in range(rng.randint(0, n + 3))]
    return {"cnf": {"num_vars": n, "clauses": clauses}, "claim": "sat", "assignment": assignment}


def base_requests(seed: str, count: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        out.append(sat_request(rng) if rng.random() < 0.3 else proofgen.case(rng))
    return out


BASE = base_requests("request-reader", 120)


def variants(request: dict[str, Any], rng: random.Random) -> list[tuple[bytes, bool | None]]:
    """(bytes, plain) texts of one request: plain, mutated, damaged."""
    out: list[tuple[bytes, bool | None]] = []
    for spaces in (0.0, 0.5):
        out.append((dump(tree(request, rng), rng, spaces).encode(), True))
    for _ in range(6):
        root = tree(request, rng)
        reads = mutate(root, rng)
        out.append((dump(root, rng, rng.random()).encode(), reads))
    for _ in range(4):
        text = dump(tree(request, rng), rng, rng.random()).encode()
        data, plain = damage(text, rng)
        out.append((data, plain))
    return out


# -- the tests ---------------------------------------------------------------------------


def test_seeded_requests_mutations_and_damage() -> None:
    tally = Tally()
    rng = random.Random(20250704)
    for request in BASE:
        for data, plain in variants(request, rng):
            tally.check(data, plain=plain)
    assert tally.cases == 12 * len(BASE)
    assert tally.valid >= 450
    if COMPILED:
        # At least the two plain spellings of each request are accepted; some
        # texts are valid only through the exact path (3.0, escapes, a BOM).
        assert tally.accepted >= 2 * len(BASE)
        assert tally.fallback_valid >= 100
    else:
        assert tally.accepted == 0


@pytest.mark.compiled
def test_every_corpus_request_is_accepted(corpus: Path) -> None:
    rng = random.Random(7)
    paths = sorted(corpus.glob("c*.json"))
    assert len(paths) >= 90
    for i, path in enumerate(paths):
        data = path.read_bytes()
        assert READER.read_request(data, CONTRACT_LIMITS) is not None, path.name
        Tally().check(data, plain=True)
        if i % 5 == 0:  # the same request in another spelling: whitespace, key order
            again = dump(tree(json.loads(data), rng), rng, 0.2).encode()
            Tally().check(again, plain=True)


def limit_boundaries(request: dict[str, Any]) -> dict[str, int]:
    """{limit: W}: the smallest value of each size limit that the request passes."""
    cnf = request["cnf"]
    lits = [abs(x) for x in request.get("assignment", [])]
    lits += [abs(x) for step in request.get("proof", []) for x in next(iter(step.values()))]
    out = {
        "max_vars": max([cnf["num_vars"], *lits]),
        "max_clauses": len(cnf["clauses"]),
        "max_total_literals": sum(map(len, cnf["clauses"])),
    }
    if "assignment" in request:
        out["max_assignment_literals"] = len(request["assignment"])
    else:
        out["max_proof_steps"] = len(request["proof"])
        out["max_proof_literals"] = sum(len(next(iter(s.values()))) for s in request["proof"])
    return out


def test_each_size_limit_at_w_minus_1_w_w_plus_1() -> None:
    tally = Tally()
    checked = set()
    # Variables that no literal uses: num_vars alone meets max_vars.
    unused: list[dict[str, Any]] = [
        {
            "cnf": {"num_vars": 9, "clauses": [[1, -2]]},
            "claim": "unsat",
            "proof": [{"add": [3]}, {"delete": [-4, 0]}],
        },
        {"cnf": {"num_vars": 7, "clauses": [[1], []]}, "claim": "sat", "assignment": [1, -2, 0]},
    ]
    for request in unused + BASE[:40]:
        data = json.dumps(request).encode()
        if outcome(exact_path, data, UNLIMITED)[0] != "ok":
            continue
        for name, w in limit_boundaries(request).items():
            for value in (w - 1, w, w + 1):
                if value < 0:
                    continue
                limits = Limits(**dict(CEILINGS, **{name: value}))
                want = tally.check(data, limits, plain=True)
                assert (want[0] == "ok") == (value >= w), (name, value, w)
                checked.add((name, value >= w))
    assert len(checked) == 2 * len(CEILINGS) - 2  # every size limit, both sides


def test_largest_values_the_limits_allow() -> None:
    top = CEILINGS["max_vars"]
    request: dict[str, Any] = {
        "cnf": {"num_vars": top, "clauses": [[top, -top], [1]]},
        "claim": "unsat",
        "proof": [{"add": [-top]}, {"delete": [top, 0, -top]}, {"add": []}],
    }
    tally = Tally()
    tally.check(json.dumps(request).encode(), UNLIMITED, plain=True)
    request["proof"][0]["add"] = [-top - 1]
    tally.check(json.dumps(request).encode(), UNLIMITED, plain=True)
    request = {
        "cnf": {"num_vars": 2, "clauses": []},
        "claim": "sat",
        "assignment": [top, -top, 0, -0],
    }
    tally.check(json.dumps(request).encode(), UNLIMITED, plain=True)
    assert tally.valid == 2
    assert tally.accepted == (2 if COMPILED else 0)


def test_out_of_range_proof_steps_get_their_kinds() -> None:
    # Literals over num_vars (and 0) in a proof are verdicts, marked per step;
    # in num_vars order the CNF comes after, so the reader learns it last.
    text = (
        b'{"proof":[{"add":[1,-3]},{"delete":[0]},{"delete":[2]},{"add":[-9]},{"add":[]}],'
        b'"claim":"unsat","cnf":{"clauses":[[1,2],[-2]],"num_vars":2}}'
    )
    want = Tally().check(text, plain=True)
    assert dict((f[0], f[-1]) for f in want[1])["step_kinds"] == [2, 3, 1, 2, 0]


def test_every_prefix_and_every_dropped_byte() -> None:
    request = {
        "cnf": {"num_vars": 3, "clauses": [[1, -2], [2, 3], [-3]]},
        "claim": "unsat",
        "proof": [{"add": [1]}, {"delete": [1, -2]}, {"add": []}],
    }
    data = (
        b' {"cnf" : {"num_vars":3,"clauses":[[1,-2],\n[2,3],[-3]]},"claim":"unsat",'
        b'"proof":[{"add":[1]},{"delete":[1,-2]},{"add":[]}]}\r\n'
    )
    assert loads(data) == request
    tally = Tally()
    for i in range(len(data) + 1):
        tally.check(data[:i], plain=True)
    for i in range(len(data)):
        tally.check(data[:i] + data[i + 1 :], plain=None)
    # Valid: the whole text, and the prefixes that only drop trailing whitespace.
    assert tally.valid >= 3
    assert tally.accepted == (tally.valid if COMPILED else 0)


def test_bytes_like_and_str() -> None:
    data = json.dumps(BASE[0]).encode()
    tally = Tally()
    for form in (data, bytearray(data), data.decode(), " " + data.decode() + "\n"):
        tally.check(form, plain=None)
    if COMPILED:
        assert READER.read_request(bytearray(data), CONTRACT_LIMITS) is not None
        assert READER.read_request(memoryview(data), CONTRACT_LIMITS) is not None
        assert READER.read_request(data.decode(), CONTRACT_LIMITS) is None  # not bytes
        assert READER.read_request(12, CONTRACT_LIMITS) is None
    # A str that UTF-8 cannot encode goes the exact path, which says why.
    lone = data.decode().replace('"claim"', '"cl\udc00aim"')
    assert Tally().check(lone)[0] == "error"


@pytest.mark.compiled
def test_threads_read_the_same() -> None:
    texts = [json.dumps(r).encode() for r in BASE[:30]]
    want = [READER.read_request(t, CONTRACT_LIMITS) for t in texts]
    assert sum(w is not None for w in want) >= 15
    errors: list[str] = []

    def work() -> None:
        for _ in range(20):
            if [READER.read_request(t, CONTRACT_LIMITS) for t in texts] != want:
                errors.append("differ")

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


# -- hypothesis ----------------------------------------------------------------------------


@st.composite
def requests(draw: st.DrawFn) -> dict[str, Any]:
    n = draw(st.integers(0, 6))
    lit = st.integers(1, n).flatmap(lambda v: st.sampled_from((v, -v)))
    clauses = draw(st.lists(st.lists(lit, max_size=4 if n else 0), max_size=6))
    if draw(st.booleans()):
        return {
            "cnf": {"num_vars": n, "clauses": clauses},
            "claim": "sat",
            "assignment": draw(st.lists(st.integers(-n - 2, n + 2), max_size=8)),
        }
    lits = st.lists(st.integers(-n - 2, n + 2), max_size=4)
    steps = st.one_of(st.fixed_dictionaries({"add": lits}), st.fixed_dictionaries({"delete": lits}))
    return {
        "cnf": {"num_vars": n, "clauses": clauses},
        "claim": "unsat",
        "proof": draw(st.lists(steps, max_size=6)),
    }


FAST = settings(
    max_examples=300,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)


@FAST
@given(requests(), st.integers(0, 2**32), st.integers(0, 3))
def test_hypothesis_requests(request: dict[str, Any], seed: int, how: int) -> None:
    rng = random.Random(seed)  # spelling and damage (st.randoms() is slow here)
    root = tree(request, rng)
    if how == 0:
        Tally().check(dump(root, rng, rng.random()).encode(), plain=True)
    elif how == 1:
        reads = mutate(root, rng)
        Tally().check(dump(root, rng, rng.random()).encode(), plain=reads)
    else:
        data, plain = damage(dump(root, rng, rng.random()).encode(), rng)
        Tally().check(data, plain=plain)


@FAST
@given(st.binary(max_size=300))
def test_random_bytes(data: bytes) -> None:
    Tally().check(data)


JSONISH = st.text(alphabet='{}[],:"-0123456789 \t\n\r\\eE.u+acdefilmnoprstuv_\u00e9', max_size=120)


@FAST
@given(JSONISH)
def test_random_jsonish_text(text: str) -> None:
    Tally().check(text.encode())
    Tally().check(('{"cnf":{"num_vars":2,"clauses":[[1,' + text).encode())
