"""The exception tree: every exception class of agent-lab in it, and drawn whole in errors.py."""

from __future__ import annotations

import ast
import builtins
import importlib
import re
from pathlib import Path

import pytest

import agent_lab
from agent_lab import errors
from agent_lab.errors import (
    AgentLabError,
    ConfigChange,
    ConfigMismatchError,
    InputError,
    MissingInputError,
    NotFoundError,
    SettingError,
)
from tests.conftest import an_extra_is_missing

SRC = Path(agent_lab.__file__).parent

BUILTIN_EXCEPTIONS = {
    name
    for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, BaseException)
}


def _base_name(base: ast.expr) -> str:
    if isinstance(base, ast.Attribute):
        return base.attr  # openai.APIError -> APIError
    if isinstance(base, ast.Subscript):
        return _base_name(base.value)
    return base.id if isinstance(base, ast.Name) else ""


def _classes() -> dict[str, tuple[str, list[str]]]:
    """Every class defined in src: name -> (dotted module, base names)."""
    found: dict[str, tuple[str, list[str]]] = {}
    for path in sorted(SRC.rglob("*.py")):
        parts = path.relative_to(SRC.parent).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.ClassDef):
                found.setdefault(node.name, (module, [_base_name(b) for b in node.bases]))
    return found


def _ancestors(name: str, classes: dict[str, tuple[str, list[str]]]) -> set[str]:
    seen: set[str] = set()
    todo = [name]
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        if current in classes:
            todo += classes[current][1]
    return seen


def _exception_classes() -> dict[str, str]:
    """Every exception class defined in src, by name, with its module (read, not imported)."""
    classes = _classes()
    found: dict[str, str] = {}
    for name, (module, _) in classes.items():
        outside = {a for a in _ancestors(name, classes) if a not in classes}
        # A base from outside src is an exception when it is a builtin one or is named as one.
        if outside & BUILTIN_EXCEPTIONS or any(a.endswith(("Error", "Exception")) for a in outside):
            found[name] = module
    return found


def test_every_exception_class_in_src_derives_from_agent_lab_error() -> None:
    """Issue 22: one tree; an exception class outside it is a bug (found by reading src)."""
    classes = _classes()
    outside = sorted(
        f"{module}.{name}"
        for name, module in _exception_classes().items()
        if "AgentLabError" not in _ancestors(name, classes)
    )
    assert outside == []


def test_the_finder_sees_an_exception_class_outside_the_tree(tmp_path: Path) -> None:
    """The check above can fail: a plain Exception subclass is found and has no AgentLabError."""
    tree = ast.parse("class StrayError(ValueError):\n    pass\n")
    node = tree.body[0]
    assert isinstance(node, ast.ClassDef)
    classes = {"StrayError": ("x", [_base_name(b) for b in node.bases])}
    assert _ancestors("StrayError", classes) & BUILTIN_EXCEPTIONS == {"ValueError"}
    assert "AgentLabError" not in _ancestors("StrayError", classes)


# Builtin raises that stay, each with its reason; an entry no longer found fails too.
KEPT_BUILTIN_RAISES = {
    # PEP 562: a module's __getattr__ must raise AttributeError for a missing name.
    ("providers/__init__.py", "AttributeError"): 1,
    ("__init__.py", "AttributeError"): 1,
    # json.dumps's default hook must raise TypeError for what it cannot encode.
    ("answering/answerer.py", "TypeError"): 1,
}


def _builtin_raises() -> dict[tuple[str, str], int]:
    found: dict[tuple[str, str], int] = {}
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if not isinstance(node, ast.Raise) or node.exc is None:
                continue
            raised = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            if isinstance(raised, ast.Name) and raised.id in BUILTIN_EXCEPTIONS:
                key = (str(path.relative_to(SRC)), raised.id)
                found[key] = found.get(key, 0) + 1
    return found


def test_src_raises_classes_of_the_tree_not_bare_builtins() -> None:
    """Issue 22: a bare ``raise ValueError(...)`` is outside the tree; the few kept are named."""
    assert _builtin_raises() == KEPT_BUILTIN_RAISES


_LINE = re.compile(r"^(?P<indent>[│├└─ ]*)(?P<name>_?[A-Z]\w+)(?:\s+(?P<says>.*))?$")


def _drawn() -> dict[str, tuple[str | None, str, set[str]]]:
    """The docstring's tree: name -> (parent, module, builtin bases in parentheses)."""
    doc = errors.__doc__ or ""
    block = doc.split("::\n\n", 1)[1].split("\n\n", 1)[0]
    drawn: dict[str, tuple[str | None, str, set[str]]] = {}
    stack: list[tuple[int, str]] = []
    for raw in block.splitlines():
        match = _LINE.match(raw.removeprefix("    "))
        assert match is not None, raw
        depth = len(match["indent"]) // 4
        name, says = match["name"], match["says"] or ""
        while stack and stack[-1][0] >= depth:
            stack.pop()
        where = re.search(r"\[([\w.]+)\]$", says)
        module = f"agent_lab.{where[1]}" if where else "agent_lab.errors"
        also = set(re.findall(r"\((\w+)\)", says)) & BUILTIN_EXCEPTIONS
        assert name not in drawn, f"{name} is drawn twice"
        drawn[name] = (stack[-1][1] if stack else None, module, also)
        stack.append((depth, name))
    return drawn


def test_the_docstring_draws_every_exception_class_and_nothing_else() -> None:
    """errors.py's tree names each exception class of src once, and no other name."""
    assert set(_drawn()) == set(_exception_classes())


def test_the_docstring_draws_each_class_where_it_is_and_under_its_parent() -> None:
    """Each drawn class lives in the module drawn, under the parent drawn, with its builtins."""
    for name, (parent, module, also) in _drawn().items():
        try:
            cls = getattr(importlib.import_module(module), name)
        except ModuleNotFoundError as err:
            if an_extra_is_missing(err):
                continue  # a module of an extra this clone did not install: not drawn here
            raise
        assert cls.__module__ == module, name
        assert issubclass(cls, AgentLabError), name
        if parent is None:
            assert cls is AgentLabError
            continue
        tree_bases = [b for b in cls.__bases__ if issubclass(b, AgentLabError)]
        assert [b.__name__ for b in tree_bases] == [parent], name
        assert {b.__name__ for b in cls.__bases__ if b.__module__ == "builtins"} == also, name


def test_every_class_errors_exports_is_drawn_or_a_value() -> None:
    """errors.__all__ is its exception classes and ConfigChange, the value one of them holds."""
    exported = {name for name in errors.__all__ if name != "ConfigChange"}
    drawn = {name for name, (_, module, _) in _drawn().items() if module == "agent_lab.errors"}
    assert exported == drawn
    assert errors.__all__ == sorted(errors.__all__)


def test_the_intermediate_bases_are_public() -> None:
    """A user catches agent_lab.InputError or agent_lab.MisuseError without importing errors."""
    for name in ("AgentLabError", "InputError", "MisuseError", "StoreError"):
        assert getattr(agent_lab, name) is getattr(errors, name)


@pytest.mark.parametrize(
    ("error", "builtin"),
    [
        (SettingError("vary", "x"), ValueError),
        (errors.ArgumentError("x"), ValueError),
        (errors.WrongTypeError("x"), TypeError),
        (NotFoundError("x"), KeyError),
        (MissingInputError("x"), FileNotFoundError),
        (errors.PluginLoadError("x"), ImportError),
        (errors.ScriptExhaustedError("x"), AssertionError),
        (errors.SchemaError("x"), ValueError),
    ],
    ids=["setting", "argument", "wrong-type", "not-found", "missing", "plugin", "script", "schema"],
)
def test_a_class_that_replaced_a_builtin_raise_is_still_caught_as_it(
    error: AgentLabError, builtin: type[BaseException]
) -> None:
    """An ``except ValueError`` written before the tree still catches what it caught."""
    with pytest.raises(builtin):
        raise error


def test_a_not_found_error_reads_as_written() -> None:
    """A KeyError quotes its argument; a NotFoundError's message is shown as it was written."""
    assert str(NotFoundError("unknown policy 'x'")) == "unknown policy 'x'"


def test_an_input_error_names_its_setting_in_the_callers_words() -> None:
    """Below the CLI an error names a field; a front end words it with its own names."""
    problem = SettingError("vary", "'x=1': expected KEY=V1,V2,...")
    assert str(problem) == "vary 'x=1': expected KEY=V1,V2,..."
    assert problem.worded(lambda field: f"--{field}") == "--vary 'x=1': expected KEY=V1,V2,..."
    assert InputError("no such file").worded(lambda field: f"--{field}") == "no such file"


def test_a_config_mismatch_lists_the_fields_that_changed() -> None:
    """The refusal to resume carries each changed field, named as a field."""
    problem = ConfigMismatchError("r0", [ConfigChange(setting="seed", was="1", now="2")])
    assert problem.run_id == "r0"
    assert str(problem) == (
        "the unfinished run r0 used another configuration: seed (was 1, now 2); "
        "resume with the same configuration, or start a new run"
    )
    assert problem.worded(str.upper, advice="stop").endswith("SEED (was 1, now 2); stop")
