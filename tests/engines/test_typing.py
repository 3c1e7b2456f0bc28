"""The annotations are checked and true, and help() documents the public API.

* The mypy configuration checks for the oldest supported Python, strictly.
  (mypy itself runs in scripts/lint.sh, over the package and tests/typing/:
  a user's script, the mistakes the types must catch, and the compiled
  modules' stubs held to the same protocols as their twins.)
* Each stub (``kernel_c.pyi``, ``convert_c.pyi``, ``scan_c.pyi``,
  ``request_c.pyi``) has the signatures of its pure twin, and the compiled
  module has the stub's names.
* The Literal types agree with the runtime tuples and the output schema.
* Every public name has a docstring that says what it returns; none points
  at a "SPEC §n" that does not ship with the package.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import json
import pydoc
import typing
from pathlib import Path

import pytest
from _helpers import parameter_names

import sat_claim_check as scc
from sat_claim_check import _engines as _engine
from sat_claim_check import dimacs, pysat
from sat_claim_check._core import types as _types

ROOT = Path(__file__).resolve().parents[2]
PACKAGE_DIR = Path(scc.__file__).resolve().parent

PUBLIC_MODULES = (scc, dimacs, pysat)
TWINS = (
    ("kernel_c", "kernel_py"),
    ("convert_c", "convert_py"),
    ("scan_c", "scan_py"),
    ("request_c", "request_py"),
)


# -- the mypy configuration -----------------------------------------------------


def test_config_checks_the_oldest_supported_python() -> None:
    pyproject = ROOT / "pyproject.toml"
    if not pyproject.is_file():
        pytest.skip("not a source checkout")
    text = pyproject.read_text(encoding="utf-8")
    assert 'requires-python = ">=3.9"' in text
    assert 'python_version = "3.9"' in text
    assert "strict = true" in text


# -- the stubs against the pure twins ------------------------------------------------


def _defs(tree: ast.AST) -> dict[str, ast.FunctionDef]:
    return {
        node.name: node for node in getattr(tree, "body", []) if isinstance(node, ast.FunctionDef)
    }


def _classes(tree: ast.Module) -> dict[str, ast.ClassDef]:
    return {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}


def _signature(node: ast.FunctionDef) -> str:
    returns = ast.unparse(node.returns) if node.returns is not None else "None?"
    return f"({ast.unparse(node.args)}) -> {returns}"


def _class_annotations(node: ast.ClassDef) -> dict[str, str]:
    return {
        item.target.id: ast.unparse(item.annotation)
        for item in node.body
        if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)
    }


def _reexported_classes(tree: ast.Module) -> dict[str, ast.ClassDef]:
    """A twin's classes, those it names from a sibling module of its own included
    (``from .scan_binary_py import BinaryDrupStream as BinaryDrupStream``)."""
    classes = _classes(tree)
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
            sibling = _classes(_parse(node.module + ".py"))
            classes.update({a.name: sibling[a.name] for a in node.names if a.name in sibling})
    return classes


def _parse(name: str) -> ast.Module:
    return ast.parse((PACKAGE_DIR / "_engines" / name).read_text(encoding="utf-8"))


@pytest.mark.parametrize(("compiled", "pure"), TWINS)
def test_stub_has_the_signatures_of_the_pure_twin(compiled: str, pure: str) -> None:
    stub, twin = _parse(compiled + ".pyi"), _parse(pure + ".py")
    stub_defs, twin_defs = _defs(stub), _defs(twin)
    for name, node in stub_defs.items():
        assert name in twin_defs, f"{compiled}.pyi has {name}, {pure} has not"
        assert _signature(node) == _signature(twin_defs[name]), name
    twin_classes = _reexported_classes(twin)
    for cname, cnode in _classes(stub).items():
        assert cname in twin_classes, f"{compiled}.pyi has {cname}, {pure} has not"
        twin_class = twin_classes[cname]
        twin_methods, twin_fields = _defs(twin_class), _class_annotations(twin_class)
        for attr, annotation in _class_annotations(cnode).items():
            assert twin_fields.get(attr) == annotation, f"{cname}.{attr}"
        for name, node in _defs(cnode).items():
            if any(ast.unparse(d) == "property" for d in node.decorator_list):
                # A read-only property in the stub; a plain attribute in the twin.
                assert twin_fields.get(name) == ast.unparse(node.returns), f"{cname}.{name}"
            else:
                assert name in twin_methods, f"{cname}.{name}"
                assert _signature(node) == _signature(twin_methods[name]), f"{cname}.{name}"
    if pure != "kernel_py":  # the kernel's helpers are its own business
        public = {name for name in twin_defs if not name.startswith("_")}
        assert public == set(stub_defs), f"{compiled}.pyi and {pure} differ in names"


@pytest.mark.compiled
@pytest.mark.parametrize(("compiled", "pure"), TWINS)
def test_compiled_module_has_the_stub_names(compiled: str, pure: str) -> None:
    # Imported directly: a missing extension is an error (--no-compiled deselects).
    module = importlib.import_module(f"sat_claim_check._engines.{compiled}")
    stub = _parse(compiled + ".pyi")
    for name, node in _defs(stub).items():
        params = [a.arg for a in node.args.args]
        assert list(inspect.signature(getattr(module, name)).parameters) == params, name
    for cname, cnode in _classes(stub).items():
        cls = getattr(module, cname)
        params = [a.arg for a in _defs(cnode)["__init__"].args.args[1:]]
        assert parameter_names(cls) == params, cname
        for name in _defs(cnode):
            assert hasattr(cls, name), f"{cname}.{name}"


# -- Literal types against the runtime -----------------------------------------------


def _output_schema() -> dict[str, typing.Any]:
    text = (PACKAGE_DIR / "schemas" / "output.schema.json").read_text(encoding="utf-8")
    schema: dict[str, typing.Any] = json.loads(text)
    return schema


def test_engine_names_are_the_runtime_ones() -> None:
    assert typing.get_args(scc.EngineName) == _engine.ENGINES
    assert set(typing.get_args(_types.KernelName)) == set(_engine.ENGINES) - {"auto"}
    assert _engine.default_engine() in typing.get_args(_types.KernelName)


def test_result_type_is_the_output_schema() -> None:
    schema = _output_schema()
    hints = typing.get_type_hints(scc.Result)
    assert list(hints) == list(schema["properties"]) == schema["required"]
    reasons = [r for r in schema["properties"]["reason"]["enum"] if r is not None]
    assert sorted(typing.get_args(_types.Reason)) == sorted(reasons)
    assert list(typing.get_args(_types.Claim)) == schema["properties"]["claim"]["enum"]
    result = scc.check(
        {"cnf": {"num_vars": 1, "clauses": [[1], [-1]]}, "claim": "unsat", "proof": [{"add": []}]}
    )
    assert type(result) is dict  # a TypedDict is a plain dict at runtime
    assert list(result) == list(hints)


# -- docstrings ------------------------------------------------------------------


def _public_objects() -> list[tuple[str, object]]:
    return [
        (f"{module.__name__}.{name}", getattr(module, name))
        for module in PUBLIC_MODULES
        for name in module.__all__
    ]


def test_every_public_name_says_what_it_returns() -> None:
    data = []
    for qualname, obj in _public_objects():
        if not (inspect.isfunction(obj) or inspect.isclass(obj)):
            data.append(qualname)
            continue
        doc = inspect.getdoc(obj)
        assert doc, f"{qualname} has no docstring"
        if inspect.isfunction(obj):
            assert "return" in doc.lower(), f"{qualname}: {doc!r}"
            continue
        for name, member in vars(obj).items():
            if name.startswith("_"):
                continue
            function = getattr(member, "__func__", member)  # classmethods
            if inspect.isfunction(function):
                method_doc = inspect.getdoc(function)
                assert method_doc and "return" in method_doc.lower(), f"{qualname}.{name}"
    # Data, not callables: nothing to call, nothing returned.
    assert sorted(data) == [
        "sat_claim_check.Deletions",
        "sat_claim_check.EngineName",
        "sat_claim_check.__version__",
        "sat_claim_check.pysat.MAX_VAR",
    ]


def test_the_core_api_points_at_the_semantics_page() -> None:
    for qualname, obj in _public_objects():
        if not qualname.startswith("sat_claim_check.") or qualname.count(".") != 1:
            continue
        if inspect.isfunction(obj) or inspect.isclass(obj):
            doc = inspect.getdoc(obj) or ""
            assert "docs/semantics.md" in doc, qualname
    for module in PUBLIC_MODULES:
        assert "docs/semantics.md" in (module.__doc__ or ""), module.__name__
    assert (ROOT / "docs" / "semantics.md").is_file() or not (ROOT / "src").is_dir()


def test_check_and_run_take_a_dict_not_json_text() -> None:
    for function in (scc.check, scc.run):
        doc = " ".join((inspect.getdoc(function) or "").split())
        assert "a dict" in doc and "not JSON text" in doc, function.__name__
        assert inspect.signature(function).parameters["request"].annotation == "dict[str, Any]"


def test_no_docstring_points_at_the_spec() -> None:
    # help() as a user sees it, for every public name and module.
    for qualname, obj in [*_public_objects(), *((m.__name__, m) for m in PUBLIC_MODULES)]:
        if isinstance(obj, str):  # __version__
            continue
        text = pydoc.render_doc(obj, renderer=pydoc.plaintext)
        assert "SPEC" not in text, qualname
    # Every docstring of every Python module of the package, private ones too.
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef)):
                doc = ast.get_docstring(node) or ""
                assert "SPEC" not in doc and "§" not in doc, f"{path.name}: {doc[:60]!r}"
