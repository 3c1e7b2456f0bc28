"""Hostile Python objects given to check()/run() (SPEC §2, last paragraph).

A subclass of list, tuple, dict, str, int or float is accepted as its base
type and read through the base type's own methods: nothing it overrides may
change what is checked, and none of its code may run.  The main tool is a
*trapped* subclass: every method it can override raises ``Sprung`` (a
BaseException, so no ``except Exception`` can swallow it) once the traps are
armed, and so does every method of its metaclass.  A request with trapped
nodes must give exactly the outcome of the same request built from plain
objects, on both engines and on both converters and the plain walk.

Literal limits are decided before literals are copied, and a request too big
for the machine's memory (possible only above the contract's limits) is a
clean limit_exceeded, tested in subprocesses with a capped address space.
"""

from __future__ import annotations

import collections
import contextlib
import json
import random
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest

import sat_claim_check as scc
from sat_claim_check import _engines as _engine
from sat_claim_check._core import sizes as _sizes
from sat_claim_check._core import validate as _validate
from sat_claim_check._core.options import Options
from sat_claim_check._core.session import check_request
from sat_claim_check._engines import convert_py

# -- outcomes on every implementation ---------------------------------------------

# The converter with no fast path at all: validation is the plain Python walk.
WALK_ONLY = SimpleNamespace(
    flatten=lambda *args: None,
    flatten_steps=lambda *args: None,
    mark_out_of_range=convert_py.mark_out_of_range,
)


@contextlib.contextmanager
def converter(module: Any) -> Iterator[None]:
    saved = _engine._chosen["converter"]
    _engine._chosen["converter"] = module
    try:
        yield
    finally:
        _engine._chosen["converter"] = saved


def outcome(request: Any, engine: str, limits: scc.Limits | None = None) -> tuple[Any, ...]:
    """("result", result, work) or ("error", error object); anything else raises."""
    try:
        report = scc.run(request, engine=engine, limits=limits)
    except scc.CheckError as err:
        return ("error", err.to_dict())
    return ("result", report.result, report.work)


def variants() -> list[tuple[str, str, Any]]:
    """(name, engine, converter) for every way this build can check a request."""
    out = [
        ("reference", "reference", _engine.converter()),
        ("pure converter", "reference", convert_py),
        ("plain walk", "reference", WALK_ONLY),
    ]
    if _engine.compiled_available():
        out.append(("compiled", "compiled", _engine.converter()))
    return out


def agreed(request: Any, limits: scc.Limits | None = None) -> tuple[Any, ...]:
    """The outcome, after checking that every implementation gives it."""
    seen = {}
    for name, engine, module in variants():
        with converter(module):
            seen[name] = outcome(request, engine, limits)
    first = seen["reference"]
    assert all(o == first for o in seen.values()), seen
    return first


def error_of(request: Any, limits: scc.Limits | None = None) -> dict[str, Any]:
    kind, *rest = agreed(request, limits)
    assert kind == "error", rest
    return {k: v for k, v in rest[0].items() if k != "message"}


# -- trapped subclasses -------------------------------------------------------------


class Sprung(BaseException):
    """A trapped method ran."""


ARMED = [False]

# Not trapped: what creating and destroying an object needs.
_SPARED = {
    "__new__",
    "__init__",
    "__del__",
    "__init_subclass__",
    "__subclasshook__",
    "__class_getitem__",
    "__class__",
    "__getstate__",
}


def _trap(name: str, original: Any) -> Any:
    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        if ARMED[0]:
            raise Sprung(name)
        return original(self, *args, **kwargs)

    method.__name__ = name
    return method


def _trapped_namespace(base: type, spared: frozenset[str] = frozenset()) -> dict[str, Any]:
    out = {}
    for name in dir(base):
        try:
            original = getattr(base, name)
        except AttributeError:  # type.__abstractmethods__
            continue
        if (
            name not in _SPARED
            and name not in spared
            and callable(original)
            and not isinstance(original, type)
        ):
            out[name] = _trap(name, original)
    return out


def _meta_name(cls: type) -> str:
    if ARMED[0]:
        raise Sprung("metaclass __name__")
    return type.__dict__["__name__"].__get__(cls)


def _class_property(self: Any) -> type:
    if ARMED[0]:
        raise Sprung("__class__")
    return type(self)


# A metaclass whose every method (hash, ==, __name__...) is trapped too.
TrapMeta = type(
    "TrapMeta",
    (type,),
    {
        **_trapped_namespace(
            type, frozenset({"__call__", "__prepare__", "mro", "__dir__", "__sizeof__"})
        ),
        "__name__": property(_meta_name),
    },
)

TRAPPED = {
    base: TrapMeta(
        f"Trapped{base.__name__.title()}",
        (base,),
        {**_trapped_namespace(base), "__class__": property(_class_property)},
    )
    for base in (list, tuple, dict, str, int, float)
}


@contextlib.contextmanager
def armed() -> Iterator[None]:
    ARMED[0] = True
    try:
        yield
    finally:
        ARMED[0] = False


def trapped(x: Any, wrap: Any = lambda path: True, path: tuple[Any, ...] = ()) -> Any:
    """``x`` rebuilt with every node for which ``wrap(path)`` holds made trapped
    (dict keys too; bools and None stay as they are: they cannot be subclassed)."""
    cls = type(x)
    if cls is dict:
        out = {
            trapped(k, wrap, (*path, "key", k)): trapped(v, wrap, (*path, k)) for k, v in x.items()
        }
    elif cls in (list, tuple):
        out = cls(trapped(item, wrap, (*path, i)) for i, item in enumerate(x))
    elif cls in (str, int, float):
        out = x
    else:
        return x
    return TRAPPED[cls](out) if wrap(path) else out


def nodes(x: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """The paths ``trapped`` gives to the nodes of ``x`` that it can trap."""
    if type(x) in (list, tuple, dict, str, int, float):
        yield path
    if type(x) is dict:
        for k, v in x.items():
            yield (*path, "key", k)
            yield from nodes(v, (*path, k))
    elif type(x) in (list, tuple):
        for i, item in enumerate(x):
            yield from nodes(item, (*path, i))


def agreed_trapped(request: Any, hostile: Any, limits: scc.Limits | None = None) -> tuple[Any, ...]:
    """The hostile request's outcome (armed) equals the plain request's, everywhere."""
    expected = agreed(request, limits)
    with armed():
        seen = {}
        for name, engine, module in variants():
            with converter(module):
                seen[name] = outcome(hostile, engine, limits)
    assert all(o == expected for o in seen.values()), (expected, seen)
    return expected


def test_the_traps_work() -> None:
    """The traps spring on ordinary use: a passing test below means something."""
    x, d, k, n = (TRAPPED[list]([1, 2]), TRAPPED[dict](a=1), TRAPPED[str]("add"), TRAPPED[int](5))
    with armed():
        for use in (
            lambda: len(x),
            lambda: list(x),
            lambda: x[0],
            lambda: d["a"],
            lambda: list(d.items()),
            lambda: "a" in d,
            lambda: hash(k),
            lambda: k == "add",
            lambda: int(n),
            lambda: abs(n),
            lambda: n < 3,
            lambda: hash(type(x)),
            lambda: type(x) == list,  # noqa: E721 lambda: type(x).__name__,
            lambda: x.__class__,
            lambda: isinstance(x, dict),
        ):
            with pytest.raises(Sprung):
                use()


# -- every node trapped, one at a time and all at once --------------------------------

CNF2 = {"num_vars": 2, "clauses": [[1, 2], [-1, 2], [1, -2]]}
REQUESTS = [
    # results
    {"cnf": CNF2, "claim": "sat", "assignment": [1, 2]},
    {"cnf": CNF2, "claim": "sat", "assignment": [-1, 2.0]},
    {"cnf": CNF2, "claim": "sat", "assignment": [1, 1]},
    {
        "cnf": {"num_vars": 2, "clauses": [[1, 2], [-1, 2], [1, -2], [-1, -2]]},
        "claim": "unsat",
        "proof": [{"add": [2]}, {"delete": [1, -2]}, {"add": []}],
    },
    {"cnf": CNF2, "claim": "unsat", "proof": [{"add": [1]}, {"add": [3.0]}]},
    {"cnf": CNF2, "claim": "unsat", "proof": ({"delete": (2, 1)},)},
    # errors, one per kind of check
    {"cnf": CNF2, "claim": "sat", "assignment": [1], "zzz": 0},
    {"cnf": {"num_vars": 2, "clauses": [[1, 2]], "vars": 1}, "claim": "sat", "assignment": []},
    {"cnf": {"num_vars": 2}, "claim": "sat", "assignment": []},
    {"cnf": {"num_vars": 2.5, "clauses": []}, "claim": "sat", "assignment": []},
    {"cnf": {"num_vars": -3, "clauses": []}, "claim": "sat", "assignment": []},
    {"cnf": {"num_vars": 2, "clauses": "[[1]]"}, "claim": "sat", "assignment": []},
    {"cnf": {"num_vars": 2, "clauses": [[1], {"a": 1}]}, "claim": "sat", "assignment": []},
    {"cnf": {"num_vars": 2, "clauses": [[1, 3]]}, "claim": "sat", "assignment": []},
    {"cnf": {"num_vars": 2, "clauses": [[1, "x"]]}, "claim": "sat", "assignment": []},
    {"cnf": {"num_vars": 2, "clauses": [[1, 0.5]]}, "claim": "sat", "assignment": []},
    {"cnf": {"num_vars": 2, "clauses": [[10**30]]}, "claim": "sat", "assignment": []},
    {"cnf": CNF2, "claim": "maybe", "assignment": []},
    {"cnf": CNF2, "claim": "sat", "assignment": [1, [2]]},
    {"cnf": CNF2, "claim": "sat", "assignment": {"1": 1}},
    {"cnf": CNF2, "claim": "sat", "assignment": [1], "proof": []},
    {"cnf": CNF2, "claim": "unsat", "proof": [{"add": [1], "delete": [1]}]},
    {"cnf": CNF2, "claim": "unsat", "proof": [{"add": [1]}, {"remove": [1]}]},
    {"cnf": CNF2, "claim": "unsat", "proof": [{"add": [1]}, {"add": [1e300]}]},
    {"cnf": CNF2, "claim": "unsat", "proof": [{"add": [1]}, {"delete": "1"}]},
    {"cnf": CNF2, "claim": "unsat", "proof": [["add", [1]]]},
    {"cnf": CNF2, "claim": "unsat", "proof": [{"add": [10001]}]},
]


@pytest.mark.parametrize("request_", REQUESTS)
def test_a_trapped_node_changes_nothing(request_: Any) -> None:
    for path in nodes(request_):
        agreed_trapped(request_, trapped(request_, lambda p, path=path: p == path))


@pytest.mark.parametrize("request_", REQUESTS)
def test_every_node_trapped_changes_nothing(request_: Any) -> None:
    agreed_trapped(request_, trapped(request_))


def test_trapped_nodes_over_the_limits() -> None:
    small = scc.Limits(
        max_vars=5,
        max_clauses=2,
        max_total_literals=3,
        max_assignment_literals=2,
        max_proof_steps=2,
        max_proof_literals=3,
    )
    for request in [
        {"cnf": {"num_vars": 6, "clauses": []}, "claim": "sat", "assignment": []},
        {"cnf": {"num_vars": 2, "clauses": [[1], [2], [1]]}, "claim": "sat", "assignment": []},
        {"cnf": {"num_vars": 2, "clauses": [[1, 2], ["x", 2]]}, "claim": "sat", "assignment": []},
        {"cnf": CNF2 | {"clauses": [[1]]}, "claim": "sat", "assignment": [1, 2, 1]},
        {"cnf": CNF2 | {"clauses": [[1]]}, "claim": "unsat", "proof": [{"add": []}] * 3},
        {
            "cnf": CNF2 | {"clauses": [[1]]},
            "claim": "unsat",
            "proof": [{"add": [1, 2]}, {"add": [1, 2]}],
        },
        {
            "cnf": CNF2 | {"clauses": [[1]]},
            "claim": "unsat",
            "proof": [{"add": [1, 2]}, {"add": [1, "x"]}],
        },
    ]:
        assert agreed_trapped(request, trapped(request), small)[0] == "error"


# -- a seeded differential campaign: random requests, random nodes trapped -------------

JUNK = [None, True, "1", 1.5, float("nan"), [], {}, 2.0, -0.0, 10**20]


def random_literal(rnd: random.Random, bound: int) -> Any:
    if rnd.random() < 0.08:
        return rnd.choice(JUNK)
    lit = rnd.randint(-bound, bound) or 1
    return float(lit) if rnd.random() < 0.1 else lit


def random_request(rnd: random.Random) -> dict[str, Any]:
    num_vars = rnd.randint(0, 4)
    bound = max(num_vars, 1)
    clauses = [
        [random_literal(rnd, bound) for _ in range(rnd.randint(0, 3))]
        for _ in range(rnd.randint(0, 5))
    ]
    request: dict[str, Any] = {"cnf": {"num_vars": num_vars, "clauses": clauses}}
    if rnd.random() < 0.4:
        request["claim"] = "sat"
        request["assignment"] = [random_literal(rnd, bound + 1) for _ in range(rnd.randint(0, 4))]
    else:
        request["claim"] = "unsat"
        request["proof"] = [
            {
                rnd.choice(["add", "add", "delete"]): [
                    random_literal(rnd, bound + 1) for _ in range(rnd.randint(0, 3))
                ]
            }
            for _ in range(rnd.randint(0, 5))
        ]
        if rnd.random() < 0.1:
            request["proof"].append(rnd.choice([{}, {"add": [], "delete": []}, {"x": []}, 7]))
    if rnd.random() < 0.05:
        request[rnd.choice(["zzz", "cnf", "claim"])] = rnd.choice(JUNK)
    return request


def test_random_requests_with_random_nodes_trapped() -> None:
    rnd = random.Random(20240509)
    kinds = set()
    for _ in range(250):
        request = random_request(rnd)
        chosen = {p for p in nodes(request) if rnd.random() < 0.5}
        limits = rnd.choice(
            [
                None,
                scc.Limits(
                    max_total_literals=6,
                    max_proof_literals=5,
                    max_propagation_work=rnd.randint(0, 30),
                ),
            ]
        )
        kind, *rest = agreed_trapped(request, trapped(request, chosen.__contains__), limits)
        kinds.add(kind if kind == "result" else rest[0]["error"])
    assert kinds == {"result", "invalid_input", "limit_exceeded"}


# -- liars: what the overrides would have claimed, had anything asked -------------------


class ShortList(list):
    def __len__(self) -> int:
        return 0


class OtherItems(list):
    def __iter__(self) -> Iterator[Any]:
        return iter([99])

    def __getitem__(self, i: Any) -> Any:
        return 99


class NoKeys(dict):
    def __getitem__(self, key: Any) -> Any:
        raise KeyError(key)

    def __contains__(self, key: Any) -> bool:
        return False

    def items(self) -> Any:
        raise RuntimeError("no items")

    def keys(self) -> Any:
        return iter(())


class Cnf(str):
    """A key "zzz" that claims to be "cnf"."""

    def __eq__(self, other: object) -> bool:
        return True

    def __hash__(self) -> int:
        return hash("cnf")


class Seven(int):
    def __index__(self) -> int:
        return 7

    def __int__(self) -> int:
        return 7

    def __abs__(self) -> int:
        return 7

    def __eq__(self, other: object) -> bool:
        raise TypeError("no comparing")

    __hash__ = int.__hash__


class Fractional(float):
    def is_integer(self) -> bool:
        return True


def test_a_lying_len_neither_splits_the_engines_nor_hides_literals() -> None:
    # Before: the reference engine said valid, the compiled one raised ValueError.
    request = {
        "cnf": {"num_vars": 1, "clauses": [ShortList([1]), [-1]]},
        "claim": "unsat",
        "proof": [{"add": []}],
    }
    kind, result, _ = agreed(request)
    assert kind == "result" and result["valid"] is True and result["steps_checked"] == 1
    big = {
        "cnf": {"num_vars": 1, "clauses": [ShortList([1] * 50001)]},
        "claim": "sat",
        "assignment": [1],
    }
    assert error_of(big) == {
        "error": "limit_exceeded",
        "field": "cnf",
        "path": "/cnf/clauses",
        "limit": "max_total_literals",
        "max": 50000,
        "actual": 50001,
    }
    assignment = {"cnf": CNF2, "claim": "sat", "assignment": ShortList([1] * 10001)}
    assert error_of(assignment)["limit"] == "max_assignment_literals"
    proof = {"cnf": CNF2, "claim": "unsat", "proof": ShortList([{"add": []}] * 2001)}
    assert error_of(proof)["limit"] == "max_proof_steps"


def test_overridden_items_are_not_what_is_checked() -> None:
    request = {
        "cnf": {"num_vars": 2, "clauses": [OtherItems([1, 2])]},
        "claim": "sat",
        "assignment": OtherItems([-1, 2]),
    }
    _, result, _ = agreed(request)
    assert result["valid"] is True and result["clauses_checked"] == 1


def test_a_dict_that_hides_its_keys_is_read_as_what_it_holds() -> None:
    request = NoKeys(
        cnf=NoKeys(num_vars=1, clauses=[[1], [-1]]), claim="unsat", proof=[NoKeys(add=[])]
    )
    _, result, _ = agreed(request)
    assert result["valid"] is True and result["steps_checked"] == 1


def test_a_key_is_the_string_it_holds_whatever_it_claims() -> None:
    request = {Cnf("zzz"): CNF2, "claim": "sat", "assignment": [1, 2]}
    assert error_of(request) == {"error": "invalid_input", "field": "zzz", "path": "/zzz"}


def test_an_int_is_the_number_it_holds() -> None:
    # 2 read as 2, not as the 7 its overrides claim (7 is out of range).
    request = {
        "cnf": {"num_vars": Seven(2), "clauses": [[Seven(2)]]},
        "claim": "sat",
        "assignment": [Seven(2)],
    }
    _, result, _ = agreed(request)
    assert result["valid"] is True
    assert error_of({"cnf": CNF2, "claim": "sat", "assignment": [Fractional(1.5)]}) == {
        "error": "invalid_input",
        "field": "assignment",
        "path": "/assignment/0",
    }


def test_keys_that_repeat_as_strings() -> None:
    class OwnHash(str):
        def __hash__(self) -> int:
            return id(self)

        def __eq__(self, other: object) -> bool:
            return self is other

    cnf = {OwnHash("num_vars"): 2, OwnHash("num_vars"): 2, "clauses": []}
    assert len(cnf) == 3
    request = {"cnf": cnf, "claim": "sat", "assignment": []}
    assert error_of(request) == {"error": "invalid_input", "field": "cnf", "path": "/cnf/num_vars"}
    request = {OwnHash("cnf"): CNF2, OwnHash("cnf"): CNF2, "claim": "sat"}
    assert error_of(request) == {"error": "invalid_input", "field": "cnf", "path": "/cnf"}
    # The object's own order: an unknown key before the repeat is reported first.
    request = {"zzz": 1, OwnHash("cnf"): CNF2, OwnHash("cnf"): CNF2}
    assert error_of(request) == {"error": "invalid_input", "field": "zzz", "path": "/zzz"}
    step = {OwnHash("add"): [1], OwnHash("add"): [1]}
    request = {"cnf": CNF2, "claim": "unsat", "proof": [{"add": [1]}, step]}
    assert error_of(request) == {"error": "invalid_input", "field": "proof", "path": "/proof/1/add"}


def test_an_object_that_only_claims_to_be_a_list_is_not_one() -> None:
    class Fake:
        __class__ = list  # isinstance(Fake(), list) is True

    assert isinstance(Fake(), list)
    for request, path in [
        (
            {"cnf": {"num_vars": 1, "clauses": Fake()}, "claim": "sat", "assignment": []},
            "/cnf/clauses",
        ),
        (
            {"cnf": {"num_vars": 1, "clauses": [Fake()]}, "claim": "sat", "assignment": []},
            "/cnf/clauses/0",
        ),
        ({"cnf": CNF2, "claim": "sat", "assignment": [Fake()]}, "/assignment/0"),
        ({"cnf": CNF2, "claim": "unsat", "proof": [{"add": Fake()}]}, "/proof/0/add"),
    ]:
        assert error_of(request)["path"] == path


# -- count before copying ----------------------------------------------------------

MILLION = [1] * 1_000_000
SECONDS = 2.0  # generous: each of these runs in milliseconds


def timed_error(request: Any) -> dict[str, Any]:
    start = time.perf_counter()
    err = error_of(request)
    assert time.perf_counter() - start < SECONDS * len(variants())
    return err


def test_the_proof_literal_count_comes_before_copying() -> None:
    # 2000 steps of a million literals: 2e9 literals, 8 GB if they were copied.
    request = {"cnf": CNF2, "claim": "unsat", "proof": [{"add": MILLION}] * 2000}
    assert timed_error(request) == {
        "error": "limit_exceeded",
        "field": "proof",
        "path": "/proof",
        "limit": "max_proof_literals",
        "max": 50000,
        "actual": 2_000_000_000,
    }
    distinct_dicts = {
        "cnf": CNF2,
        "claim": "unsat",
        "proof": [{"delete": MILLION} for _ in range(2000)],
    }
    assert timed_error(distinct_dicts)["actual"] == 2_000_000_000


def test_over_the_proof_literal_limit_a_malformed_step_still_comes_first() -> None:
    # SPEC §2 step 4: the count is checked once every step is well formed.
    steps = [{"add": MILLION}] * 5 + [{"add": [1, "x"]}] + [{"add": MILLION}] * 1994
    assert timed_error({"cnf": CNF2, "claim": "unsat", "proof": steps}) == {
        "error": "invalid_input",
        "field": "proof",
        "path": "/proof/5/add/1",
    }
    steps = [{"add": MILLION}] * 1500 + [{"add": MILLION, "delete": []}] + [{"add": []}]
    assert timed_error({"cnf": CNF2, "claim": "unsat", "proof": steps}) == {
        "error": "invalid_input",
        "field": "proof",
        "path": "/proof/1500",
    }
    last_bad = [*MILLION[:-1], 3.5]
    steps = [{"delete": last_bad}] * 2000
    assert timed_error({"cnf": CNF2, "claim": "unsat", "proof": steps}) == {
        "error": "invalid_input",
        "field": "proof",
        "path": "/proof/0/delete/999999",
    }
    steps = [{"add": MILLION}] * 3 + [{"add": ShortList([*MILLION[:5], "x"])}]
    assert timed_error({"cnf": CNF2, "claim": "unsat", "proof": steps}) == {
        "error": "invalid_input",
        "field": "proof",
        "path": "/proof/3/add/5",
    }
    steps = [{"add": MILLION}] * 3 + [{"add": ShortList([2, Seven(2)])}]
    assert timed_error({"cnf": CNF2, "claim": "unsat", "proof": steps})["actual"] == 3_000_002


def test_the_cnf_literal_count_comes_before_the_literals() -> None:
    request = {
        "cnf": {"num_vars": 1, "clauses": [MILLION] * 2000 + [["x"]]},
        "claim": "sat",
        "assignment": [],
    }
    assert timed_error(request) == {
        "error": "limit_exceeded",
        "field": "cnf",
        "path": "/cnf/clauses",
        "limit": "max_total_literals",
        "max": 50000,
        "actual": 2_000_000_001,
    }


def run_capped(code: str, megabytes: int) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter whose address space is capped."""
    prelude = textwrap.dedent(f"""
        import resource
        cap = {megabytes} << 20
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    """)
    return subprocess.run(
        [sys.executable, "-c", prelude + textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_no_copy_in_a_capped_process() -> None:
    # The same request in 600 MB: a copy of its literals would need 8 GB.
    done = run_capped(
        """
        import json, sat_claim_check as scc
        from sat_claim_check._engines import convert_py
        from sat_claim_check import _engines as _engine
        big = [1] * 1_000_000
        request = {"cnf": {"num_vars": 1, "clauses": [[1]]}, "claim": "unsat",
                   "proof": [{"add": big}] * 2000}
        out = []
        for engine in ("reference", "compiled"):
            try:
                scc.run(request, engine=engine)
            except scc.CheckError as err:
                out.append(err.to_dict()["actual"])
            except ImportError:
                pass
        _engine._chosen["converter"] = convert_py
        try:
            scc.run(request, engine="reference")
        except scc.CheckError as err:
            out.append(err.to_dict()["actual"])
        print(json.dumps(out))
    """,
        600,
    )
    assert done.returncode == 0, done.stderr
    counts = json.loads(done.stdout)
    assert counts and set(counts) == {2_000_000_000}


# -- memory at the ceilings --------------------------------------------------------

HUGE = {
    "cnf": {"num_vars": 2**30 - 1, "clauses": [[1], [-1]]},
    "claim": "unsat",
    "proof": [{"add": []}],
}


def test_a_request_too_big_for_memory_is_limit_exceeded() -> None:
    # Both engines allocate per variable: 2**30 variables do not fit in 1 GB.
    done = run_capped(
        f"""
        import json, sat_claim_check as scc
        from sat_claim_check import _engines as _engine
        request = {HUGE!r}
        out = {{}}
        engines = ["reference"] + (["compiled"] if _engine.compiled_available() else [])
        for engine in engines:
            try:
                scc.run(request, engine=engine, limits=scc.Limits.unlimited())
            except scc.CheckError as err:
                out[engine] = err.to_dict()
        small = dict(request, cnf={{"num_vars": 1, "clauses": [[1], [-1]]}})
        out["small"] = scc.check(small)["valid"]
        print(json.dumps(out))
    """,
        1024,
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out.pop("small") is True
    assert "reference" in out
    for err in out.values():
        assert {k: v for k, v in err.items() if k != "message"} == {
            "error": "limit_exceeded",
            "field": "cnf",
            "path": "/cnf/num_vars",
            "limit": "max_vars",
            "max": 2**30 - 1,
            "actual": 2**30 - 1,
        }


def test_the_command_line_reports_it_without_a_traceback(tmp_path: Any) -> None:
    path = tmp_path / "huge.json"
    path.write_text(json.dumps(HUGE))
    done = run_capped(
        f"""
        import sys
        from sat_claim_check.cli import main
        sys.exit(main(["check", "--unlimited", {str(path)!r}]))
    """,
        1024,
    )
    assert done.returncode == 2, done.stderr
    assert json.loads(done.stdout)["limit"] == "max_vars"
    assert "Traceback" not in done.stderr


def test_which_size_an_allocation_failure_names() -> None:
    v = _validate.validate(HUGE, scc.Limits.unlimited())
    assert _sizes.out_of_memory(v, scc.Limits.unlimited()).limit == "max_vars"
    # The size furthest above its contract value: 200 times max_proof_literals
    # beats twice max_vars.
    request = {
        "cnf": {"num_vars": 20000, "clauses": [[1], [-1]]},
        "claim": "unsat",
        "proof": [{"add": [1] * 10_000_000}],
    }
    v = _validate.validate(request, scc.Limits.unlimited())
    err = _sizes.out_of_memory(v, scc.Limits.unlimited())
    assert (err.limit, err.actual, err.path) == ("max_proof_literals", 10_000_000, "/proof")
    # Within the contract's limits the request is not the cause: no error.
    small = _validate.validate({"cnf": CNF2, "claim": "unsat", "proof": []}, scc.Limits())
    assert _sizes.out_of_memory(small, scc.Limits()) is None


def test_a_memory_error_within_the_contract_limits_is_not_hidden() -> None:
    class Kernel:
        def __init__(self, *args: Any) -> None:
            raise MemoryError("no memory at all")

    v = _validate.validate({"cnf": CNF2, "claim": "unsat", "proof": []}, scc.Limits())
    with pytest.raises(MemoryError):
        check_request(
            v, Options("reference", SimpleNamespace(Kernel=Kernel), scc.Limits(), False, None)
        )
    v = _validate.validate(HUGE, scc.Limits.unlimited())
    with pytest.raises(scc.LimitExceeded):
        check_request(
            v,
            Options(
                "reference", SimpleNamespace(Kernel=Kernel), scc.Limits.unlimited(), False, None
            ),
        )


def test_an_ordered_dict_is_read_in_insertion_order() -> None:
    # dict.items order, not OrderedDict's own: it decides which unknown key is named.
    request = collections.OrderedDict(cnf=CNF2, yyy=1, zzz=2)
    request.move_to_end("yyy")
    assert list(request) == ["cnf", "zzz", "yyy"]
    assert error_of(request) == {"error": "invalid_input", "field": "yyy", "path": "/yyy"}
