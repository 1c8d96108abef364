"""The floors of the package: imports run downward, without a cycle; no module or function is long.

Read from the source with ``ast``, so that type-only imports (under
``TYPE_CHECKING``) and imports inside functions count as well.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT

PACKAGE = REPO_ROOT / "src" / "agent_lab"
GROUND = frozenset(
    {
        "agent_lab.errors",
        "agent_lab.usage",
        "agent_lab.clock",
        "agent_lab.strict_json",
        "agent_lab._json_walk",
        "agent_lab._frozen_json",
        "agent_lab._canonical",
        "agent_lab._input_files",
        "agent_lab._text",
        "agent_lab._loops",
        "agent_lab.chat_completions",
    }
)
MAX_LINES = 450
DEPLOYED_PACKAGES = ("agent_lab.gateway", "agent_lab.integrations")
"""What runs beside a user's agent; with the public face, it stands below the lab."""
ABOVE_LOG_REPLAY = ("agent_lab.lab", "agent_lab.gateway", "agent_lab.integrations", "agent_lab.cli")
MAX_FUNCTION_LINES = 80


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES: dict[str, Path] = {_module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _imports(name: str) -> set[str]:
    """The package's modules that ``name`` imports, at any place in its source."""
    path = MODULES[name]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            # `from a.b import c` imports the module a.b.c when there is one, else a.b.
            targets = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base
                for alias in node.names
            ]
        else:
            continue
        for dotted in targets:
            target = dotted
            while target and target not in MODULES:
                target = target.rpartition(".")[0]
            if target.startswith("agent_lab") and target != name:
                found.add(target)
    return found


GRAPH = {name: _imports(name) for name in MODULES}


def _under(name: str, *packages: str) -> bool:
    return any(name == p or name.startswith(p + ".") for p in packages)


def _allowed(importer: str, imported: str) -> bool:
    if imported == "agent_lab":
        return False  # the public face re-exports; nothing inside may lean on it
    if _under(imported, "agent_lab.application"):
        return _under(importer, "agent_lab.application")  # the seed's paths: nothing leans on them
    if _under(importer, "agent_lab.application"):
        return _under(imported, "agent_lab.kernel")  # thin re-exports of the kernel, no more
    if importer in GROUND:
        return imported in GROUND
    if _under(importer, "agent_lab.kernel"):
        # The kernel knows no LLM: nothing above it, not the agents, not a provider.
        return imported in GROUND or _under(imported, "agent_lab.kernel")
    if _under(importer, "agent_lab.resolvers"):
        return imported in GROUND or _under(imported, "agent_lab.resolvers", "agent_lab.kernel")
    if _under(importer, "agent_lab.agents"):
        # The agents own the model port; no provider adapter is theirs to know.
        return imported in GROUND or _under(
            imported, "agent_lab.agents", "agent_lab.kernel", "agent_lab.resolvers"
        )
    if _under(importer, "agent_lab.answering"):
        # The envelope every caller asks: the decision, and the rules around it; no caller.
        return imported in GROUND or _under(
            imported,
            "agent_lab.answering",
            "agent_lab.agents",
            "agent_lab.kernel",
            "agent_lab.resolvers",
            "agent_lab.logs.bounds",  # the most of one request any caller decides on
        )
    if _under(importer, "agent_lab.integrations"):
        # The framework wrappers: the envelope, and log replay's figures.
        return imported in GROUND or _under(
            imported,
            "agent_lab.integrations",
            "agent_lab.answering",
            "agent_lab.agents",
            "agent_lab.kernel",
            "agent_lab.logs",
            "agent_lab.log_replay",
            "agent_lab.resolvers",
            "agent_lab.otel",
            "agent_lab.providers",
        )
    if _under(importer, "agent_lab.exchange_stores"):
        # A gateway's store in each database: rows in and out, nothing read into them.
        return imported in GROUND or _under(imported, "agent_lab.exchange_stores")
    if _under(importer, "agent_lab.logs"):
        # Reading logs: what a request offered becomes tool specs the agents read, no more.
        return imported in GROUND or _under(
            imported,
            "agent_lab.logs",
            "agent_lab.agents",
            "agent_lab.kernel",
            "agent_lab.exchange_stores",
        )
    if _under(importer, "agent_lab.providers", "agent_lab.testing"):
        # Adapters above the port: the port and the kernel's values, nothing of the lab.
        return imported in GROUND or _under(
            imported,
            "agent_lab.providers",
            "agent_lab.agents.port",
            "agent_lab.kernel",
        )
    if _under(importer, "agent_lab.otel"):
        # The optional extra: it reads the kernel's, the agents' and the providers' values,
        # and only the lab and the command line reach it (below, never the other way).
        return imported in GROUND or _under(
            imported,
            "agent_lab.otel",
            "agent_lab.kernel",
            "agent_lab.agents",
            "agent_lab.providers",
        )
    if _under(importer, "agent_lab.log_replay"):
        # Log replay: a logged request through the one decision, scored against its case;
        # the gateway, the wrappers and the lab stand on it, so it knows none of them.
        return imported in GROUND or _under(
            imported,
            "agent_lab.log_replay",
            "agent_lab.answering",
            "agent_lab.agents",
            "agent_lab.kernel",
            "agent_lab.resolvers",
            "agent_lab.logs",
            "agent_lab.providers.pricing",  # the price of the requests a replay saves
        )
    if _under(importer, "agent_lab.lab"):
        return not _under(imported, "agent_lab.cli")
    if _under(importer, "agent_lab.gateway"):
        # The server: the envelope, log replay and its figures, the logs' request shapes,
        # redaction and spans; nothing of the lab, no wrapper, no command line.
        return imported in GROUND or _under(
            imported,
            "agent_lab.gateway",
            "agent_lab.answering",
            "agent_lab.agents",
            "agent_lab.kernel",
            "agent_lab.logs",
            "agent_lab.exchange_stores",
            "agent_lab.log_replay",
            "agent_lab.providers.redaction",
            "agent_lab.otel",
            "agent_lab.resolvers.learned",  # the rules a deployment applies
        )
    return True


def _demo_allowed(importer: str, imported: str) -> bool:
    if not _under(imported, "agent_lab.demo"):
        return True
    return _under(importer, "agent_lab.demo", "agent_lab.cli", "agent_lab.lab")


def test_every_import_runs_down_the_floors() -> None:
    """Ground floor, then resolvers and application, providers beside them, lab, cli on top."""
    wrong = sorted(
        f"{importer} imports {imported}"
        for importer, targets in GRAPH.items()
        for imported in targets
        if not _allowed(importer, imported) or not _demo_allowed(importer, imported)
    )
    assert wrong == []


def _private_to(name: str) -> str | None:
    """The package a private module is its own: the parent of its first ``_`` part, if any."""
    parts = name.split(".")
    for index, part in enumerate(parts[1:], start=1):
        if part.startswith("_"):
            return ".".join(parts[:index])
    return None


def test_no_module_imports_another_packages_private_module() -> None:
    """``agent_lab.a._x`` is ``agent_lab.a``'s own: only modules within ``agent_lab.a`` import it.

    The ground's private helpers (``agent_lab._x``) belong to the whole package.
    What another package needs of a private module is a public module's to hold.
    """
    wrong = sorted(
        f"{importer} imports {imported}"
        for importer, targets in GRAPH.items()
        for imported in targets
        if (owner := _private_to(imported)) is not None and not _under(importer, owner)
    )
    assert wrong == []


@pytest.mark.parametrize(
    ("name", "owner"),
    [
        ("agent_lab._text", "agent_lab"),
        ("agent_lab.logs._values", "agent_lab.logs"),
        ("agent_lab.kernel._drive", "agent_lab.kernel"),
        ("agent_lab.a._b.c", "agent_lab.a"),
        ("agent_lab.logs.pairs", None),
    ],
)
def test_a_private_module_belongs_to_the_package_it_is_in(name: str, owner: str | None) -> None:
    """The checker itself: the first ``_`` part names where the module may be imported from."""
    assert _private_to(name) == owner


def test_providers_import_only_the_port_from_the_package_above() -> None:
    """``agent_lab.providers`` (the package) does not drag the back ends into the application."""
    assert "agent_lab.providers.openai_compat" not in GRAPH["agent_lab.agents.port"]


def test_no_import_cycle_anywhere() -> None:
    """Tarjan's strongly connected components over every import, type-only ones included."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    counter = 0

    def visit(node: str) -> None:
        nonlocal counter
        index[node] = low[node] = counter
        counter += 1
        stack.append(node)
        on_stack.add(node)
        for target in sorted(GRAPH[node]):
            # A package's __init__ re-exports its children; children importing a
            # sibling through it would be a cycle, so it counts like any module.
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component: list[str] = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for name in sorted(GRAPH):
        if name not in index:
            visit(name)
    assert cycles == []


@pytest.mark.parametrize("name", sorted(MODULES))
def test_modules_stay_small(name: str) -> None:
    """One job per module: none longer than 450 lines."""
    lines = MODULES[name].read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_LINES, f"{MODULES[name].relative_to(REPO_ROOT)} has {lines} lines"


@pytest.mark.parametrize(
    ("importer", "imported"),
    [
        ("agent_lab.strict_json", "agent_lab.kernel.models"),
        ("agent_lab.errors", "agent_lab.kernel.models"),
        ("agent_lab.resolvers.schema", "agent_lab.demo.domain"),
        ("agent_lab.resolvers.schema", "agent_lab.agents.plugins"),
        ("agent_lab.kernel.event_kernel", "agent_lab.agents.port"),
        ("agent_lab.kernel.tools", "agent_lab.agents.plugins"),
        ("agent_lab.agents.port", "agent_lab.providers.openai_compat"),
        ("agent_lab.agents.event_agent", "agent_lab.providers.openai_compat"),
        ("agent_lab.agents.llm", "agent_lab.lab.workload"),
        ("agent_lab.lab.run.runner", "agent_lab.cli"),
        ("agent_lab.kernel.event_kernel", "agent_lab"),
        ("agent_lab.agents.decider", "agent_lab.application.events.models"),
        ("agent_lab.application.tools", "agent_lab.agents.plugins"),
        ("agent_lab.gateway.app", "agent_lab.cli.commands.serve.app"),
        ("agent_lab.gateway.app", "agent_lab.lab.run.runner"),
        ("agent_lab.gateway.app", "agent_lab.providers.openai_compat"),
        ("agent_lab.gateway.trust", "agent_lab.lab.shadow.run"),
        ("agent_lab.integrations._shadow", "agent_lab.lab.stats.metrics"),
        ("agent_lab.log_replay.replayed", "agent_lab.lab.workload"),
        ("agent_lab.log_replay.figures", "agent_lab.gateway.trust"),
        ("agent_lab.log_replay.replayed", "agent_lab.integrations.wrapper"),
        ("agent_lab.answering.answerer", "agent_lab.log_replay.replayed"),
        ("agent_lab.answering.answerer", "agent_lab.gateway.wire_rules"),
        ("agent_lab.answering.answerer", "agent_lab.logs.reader"),
        ("agent_lab.gateway.enforce", "agent_lab.integrations.wrapper"),
        ("agent_lab.log_replay.figures", "agent_lab.providers.simulated"),
    ],
)
def test_the_rules_refuse_an_upward_import(importer: str, imported: str) -> None:
    """The checker itself: each of these would climb a floor."""
    assert not (_allowed(importer, imported) and _demo_allowed(importer, imported))


def _named(name: str) -> set[str]:
    """The package's modules that ``name`` names in a string: ones it loads on first use."""
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
    return {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in MODULES
    }


def _reached(names: list[str]) -> list[tuple[str, str]]:
    """Each (importer, imported) of ``names``: imports, and modules named to load on first use."""
    return [(name, imported) for name in names for imported in sorted(GRAPH[name] | _named(name))]


def test_what_is_deployed_imports_nothing_from_the_lab() -> None:
    """The gateway, the framework wrappers and the public face stand below the lab.

    The public face loads log replay and the providers on first use, from
    modules it names in strings (PEP 562): those count as imports too.
    """
    deployed = [name for name in MODULES if name == "agent_lab" or _under(name, *DEPLOYED_PACKAGES)]
    assert "agent_lab.log_replay.replayed" in _named("agent_lab")
    wrong = sorted(
        f"{importer} imports {imported}"
        for importer, imported in _reached(deployed)
        if _under(imported, "agent_lab.lab")
    )
    assert wrong == []


def test_log_replay_imports_nothing_from_the_lab_the_gateway_the_wrappers_or_the_cli() -> None:
    """Log replay is a floor of its own, under every caller that replays a logged request."""
    replay = [name for name in MODULES if _under(name, "agent_lab.log_replay")]
    assert "agent_lab.log_replay.replayed" in replay
    wrong = sorted(
        f"{importer} imports {imported}"
        for importer, imported in _reached(replay)
        if _under(imported, *ABOVE_LOG_REPLAY)
    )
    assert wrong == []


@dataclass(frozen=True, slots=True, kw_only=True)
class _Function:
    name: str
    """Module, classes and enclosing functions, dotted: ``agent_lab.cli.trials.execute``."""
    line: int
    lines: int


def _functions(tree: ast.AST, module: str) -> list[_Function]:
    """Every function and method under ``tree``, nested ones too, with its span in lines."""
    found: list[_Function] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                name = f"{prefix}.{child.name}"
                # lineno is the def line (decorators have their own); end_lineno the last.
                assert child.end_lineno is not None
                span = child.end_lineno - child.lineno + 1
                found.append(_Function(name=name, line=child.lineno, lines=span))
                visit(child, name)
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}.{child.name}")
            else:
                visit(child, prefix)

    visit(tree, module)
    return found


# A list, not a mapping: two functions of one name (a property's setter, an overload)
# are each measured.
FUNCTIONS = [
    (path, function)
    for name, path in MODULES.items()
    for function in _functions(ast.parse(path.read_text(encoding="utf-8")), name)
]


def test_no_function_is_longer_than_80_lines() -> None:
    """A function or method, sync or async, spans at most 80 lines.

    Counted from its ``def`` line to its last line: decorators excluded, the
    docstring and comments included. Longer, it is split into named steps.
    """
    long = sorted(
        f"{function.name} ({path.relative_to(REPO_ROOT)}:{function.line}) "
        f"spans {function.lines} lines"
        for path, function in FUNCTIONS
        if function.lines > MAX_FUNCTION_LINES
    )
    assert long == []


def test_a_function_spans_its_def_to_its_last_line() -> None:
    """The measure itself: decorators are left out, docstrings and nested functions counted."""
    source = """
import functools

class Outer:
    @staticmethod
    @functools.cache
    def method() -> None:
        \"\"\"Docstring.\"\"\"

        def nested() -> None:
            pass

    async def waiting(self) -> None:
        pass
"""
    spans = {f.name: (f.line, f.lines) for f in _functions(ast.parse(source), "m")}
    assert spans == {
        "m.Outer.method": (7, 5),
        "m.Outer.method.nested": (10, 2),
        "m.Outer.waiting": (13, 2),
    }


def test_no_module_keys_anything_by_id() -> None:
    """State lives on the objects that own it: no cache is keyed by ``id()``.

    An ``id`` is reused once its object is gone, so such a cache must also keep
    the object alive and check it again; a caller's own object (an ``Answerer``,
    a ``Decider``) holds what it prepared instead.
    """
    found = [
        f"{name}:{node.lineno}"
        for name, path in MODULES.items()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "id"
    ]
    assert found == []
