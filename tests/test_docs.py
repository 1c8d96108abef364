"""The README and the docs site cannot drift: their code runs, their commands parse and run.

Each page's Python blocks run in order in one namespace, in a folder of
their own, offline; a block titled as a file (``title="my_events.py"``) is
written there instead, as the reader would write it. Every ``agent-lab``
line of a shell block is parsed by the real parser, and run there unless
its block says why not. No example imports deeper than the public face.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import doctest
import importlib.util
import io
import json
import re
import runpy
import sys
import types
from collections.abc import Generator
from pathlib import Path
from typing import cast

import jsonschema_rs
import pytest

from agent_lab.cli import run as cli
from agent_lab.cli.parser import build_parser
from tests.conftest import REPO_ROOT, skip_without_extra
from tests.docs_pages import (
    PAGES,
    PYTHON,
    SHELL,
    Block,
    anchors,
    blocks,
    commands,
    links,
    page_id,
)

README_MAX_LINES = 250
PUBLIC = frozenset(
    {
        "agent_lab",
        "agent_lab.testing",
        "agent_lab.strict_json",
        "agent_lab.otel",
        "agent_lab.integrations.pydantic_ai",
        "agent_lab.integrations.openai_agents",
        "agent_lab.integrations.langchain",
    }
)
"""What an example may import: the public face, the test doubles, strict JSON, and the
optional extras' own modules (``agent_lab.otel`` with ``[otel]``, each framework wrapper
with its framework's extra)."""
NOT_RUN = "not run, "
EXAMPLES = sorted((REPO_ROOT / "examples").glob("*.py"))


def _parse(argv: tuple[str, ...]) -> tuple[int, str]:
    """``agent-lab ARGV`` through the real parser: the exit code (0: parsed) and what it said."""
    said = io.StringIO()
    parser = build_parser()
    # A page spells every option in full: argparse would take "--plugin" for "--plugins".
    for command in [parser, *_commands(parser).values()]:
        command.allow_abbrev = False
    try:
        with contextlib.redirect_stdout(said), contextlib.redirect_stderr(said):
            parser.parse_args(list(argv))
    except SystemExit as exit_:
        return (exit_.code if isinstance(exit_.code, int) else 1), said.getvalue()
    return 0, said.getvalue()


def _commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The parser's commands by name."""
    found: dict[str, argparse.ArgumentParser] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):  # pyright: ignore[reportPrivateUsage]
            found.update(cast("dict[str, argparse.ArgumentParser]", action.choices))  # pyright: ignore[reportUnknownMemberType]
    return found


def _shell_blocks(page: Path) -> list[Block]:
    return [block for block in blocks(page) if block.language in SHELL]


# What the pages say ---------------------------------------------------------------------


def test_the_readme_is_at_most_250_lines() -> None:
    """The README is the front door; the manual is the site."""
    lines = (REPO_ROOT / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines"


GENERATED = frozenset({"reference/cli.md"})
"""Pages the site's hooks write at build time (docs/hooks/): in the nav, never in the repository."""


def _nav() -> set[str]:
    """The files mkdocs.yml's nav lists, relative to docs/."""
    nav = (REPO_ROOT / "mkdocs.yml").read_text(encoding="utf-8").split("\nnav:", 1)[1]
    return set(re.findall(r":\s*(\S+\.(?:md|json))\s*$", nav, flags=re.MULTILINE))


def _ci_commands() -> list[str]:
    """The commands .ci/run runs, in order: its lines that call ``uv run``."""
    lines = (REPO_ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip().startswith("uv run ")]


def test_the_readmes_test_command_is_what_ci_runs() -> None:
    """The README's test command is .ci/run's, and CI builds the site strictly before it."""
    [first, *_] = [block for block in blocks(REPO_ROOT / "README.md") if block.language in SHELL]
    [tests] = [
        line.split("#")[0].strip() for line in first.text.splitlines() if "# run the tests" in line
    ]
    ran = _ci_commands()
    site = "uv run --group docs mkdocs build --strict"
    assert tests in ran
    assert site in ran
    assert ran.index(site) < ran.index(tests)


def test_every_file_the_navigation_lists_exists() -> None:
    """Each nav entry is a page of docs/, or one a hook generates."""
    docs = REPO_ROOT / "docs"
    assert sorted(p for p in _nav() - GENERATED if not (docs / p).is_file()) == []


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_every_link_on_the_page_resolves(page: Path) -> None:
    """A relative link names a file that is there, and a heading it has; URLs are not fetched."""
    docs = REPO_ROOT / "docs"
    broken: list[str] = []
    for link in links(page):
        if re.match(r"[a-z][a-z0-9+.-]*:", link.target):
            continue
        path, _, anchor = link.target.partition("#")
        target = (page.parent / path).resolve() if path else page
        generated = target.is_relative_to(docs) and str(target.relative_to(docs)) in GENERATED
        if not generated and not target.is_file():
            broken.append(f"{link.where}: {link.target} (no such file)")
        elif anchor and target.suffix == ".md" and not generated and anchor not in anchors(target):
            broken.append(f"{link.where}: {link.target} (no such heading)")
    assert broken == []


def test_every_page_is_in_the_sites_navigation() -> None:
    """A page missing from mkdocs.yml's nav is a page nobody finds."""
    pages = {str(p.relative_to(REPO_ROOT / "docs")) for p in PAGES if p.name != "README.md"}
    assert sorted(pages - _nav()) == []


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_every_agent_lab_command_on_the_page_parses(page: Path) -> None:
    """Each ``agent-lab`` line of a shell block is one the real parser takes, as written."""
    wrong = [
        f"{block.where}: {command.line}\n    {said.strip()}"
        for block in _shell_blocks(page)
        for command in commands(block)
        if (argv := command.agent_lab) is not None
        for code, said in [_parse(argv)]
        if code != 0
    ]
    assert wrong == []


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_every_repository_path_the_page_names_exists(page: Path) -> None:
    """A test, module, example or benchmark the page names is there (or the page writes it)."""
    text = page.read_text(encoding="utf-8")
    written = {block.title for block in blocks(page) if block.title}
    named = set(re.findall(r"`((?:[\w.-]+/)*[\w.-]+\.py)`", text))
    named |= set(re.findall(r"`((?:tests|docs|examples|benchmarks|src)/[\w./-]+)`", text))
    for block in _shell_blocks(page):
        for command in commands(block):
            named |= {
                w for w in command.words if re.fullmatch(r"(tests|benchmarks|examples)/.+", w)
            }
    package = REPO_ROOT / "src" / "agent_lab"
    searched = (package, REPO_ROOT / "tests", REPO_ROOT / "benchmarks", REPO_ROOT / "examples")
    missing = sorted(
        name
        for name in named - written
        if not (REPO_ROOT / name).exists()
        and not (package / name).exists()
        and ("/" in name or not any(next(root.rglob(name), None) for root in searched))
    )
    assert missing == []


def _imports(source: str) -> set[str]:
    """Every ``agent_lab`` module the source imports, however it is written."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
    return {name for name in found if name.split(".")[0] == "agent_lab"}


def _examples() -> list[tuple[str, str]]:
    """Every Python example a reader meets: the pages' blocks and files, and ``examples/``."""
    found = [
        (block.where, block.text)
        for page in PAGES
        for block in blocks(page)
        if block.language in PYTHON
    ]
    found += [(str(path.relative_to(REPO_ROOT)), path.read_text("utf-8")) for path in EXAMPLES]
    return found


def _deep_imports() -> set[str]:
    return {
        f"{where}: {name}"
        for where, source in _examples()
        for name in _imports(source)
        if name not in PUBLIC
    }


def test_no_example_imports_deeper_than_the_public_face() -> None:
    """Examples import ``agent_lab``, ``agent_lab.testing`` or ``agent_lab.strict_json``."""
    assert sorted(_deep_imports()) == []


def _options(parser: argparse.ArgumentParser) -> set[str]:
    """Every option a command takes, its subcommands' too (``import sgd --out``)."""
    found: set[str] = set()
    for action in parser._actions:
        found |= set(action.option_strings)
        if isinstance(action, argparse._SubParsersAction):  # pyright: ignore[reportPrivateUsage]
            subparsers = cast("dict[str, argparse.ArgumentParser]", action.choices)  # pyright: ignore[reportUnknownMemberType]
            for sub in subparsers.values():
                found |= _options(sub)
    return found


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_every_synopsis_names_commands_and_options_the_parser_takes(page: Path) -> None:
    """A ``<!-- test: synopsis -->`` block's ``agent-lab COMMAND [--option]...`` lines hold."""
    commands_ = _commands(build_parser())
    wrong: list[str] = []
    for block in blocks(page):
        if block.marker != "synopsis":
            continue
        for line in re.sub(r"\n\s+", " ", block.text).splitlines():
            [program, command, *rest] = line.split()
            if program != "agent-lab" or command not in commands_:
                wrong.append(f"{block.where}: {line}: no such command")
                continue
            taken = _options(commands_[command])
            wrong += [
                f"{block.where}: agent-lab {command} has no {option}"
                for option in re.findall(r"--[a-z][a-z0-9-]*", " ".join(rest))
                if option not in taken
            ]
    assert wrong == []


def test_the_provider_protocol_on_its_page_is_agent_labs() -> None:
    """docs/providers.md's ``class Provider(Protocol)`` names the port's members, no more."""
    import agent_lab

    [source] = [
        block.text
        for block in blocks(REPO_ROOT / "docs" / "providers.md")
        if "class Provider(Protocol)" in block.text
    ]
    [protocol] = [
        node
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.ClassDef) and node.name == "Provider"
    ]
    on_the_page = {
        node.target.id
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
        else getattr(node, "name", "")
        for node in protocol.body
    }
    assert on_the_page == {name for name in vars(agent_lab.Provider) if not name.startswith("_")}


@pytest.mark.parametrize(
    ("source", "deep"),
    [
        ("from agent_lab import EventKernel", set[str]()),
        ("from agent_lab.testing import ScriptedProvider", set[str]()),
        ("from agent_lab.agents.fallback import LLMFallback", {"agent_lab.agents.fallback"}),
        ("import agent_lab.kernel.tools as tools", {"agent_lab.kernel.tools"}),
        ("def f():\n    from agent_lab.lab.run import runner", {"agent_lab.lab.run"}),
    ],
    ids=["public", "testing", "from-deep", "import-deep", "nested"],
)
def test_the_import_check_catches_a_deep_import(source: str, deep: set[str]) -> None:
    """The checker itself: a deeper path is found wherever and however it is imported."""
    assert _imports(source) - PUBLIC == deep


@pytest.mark.parametrize(
    ("line", "parses"),
    [
        ("agent-lab run my.jsonl --plugins my_events:plugins --provider simulated", True),
        ("uv run agent-lab report agent-lab.sqlite --json", True),
        ("agent-lab run my.jsonl --plugin my_events:plugins", False),
        ("agent-lab run my.jsonl --plugns my_events:plugins", False),
        ("agent-lab run my.jsonl --plugins m:p --provider nowhere", False),
        ("agent-lab report", False),
    ],
    ids=[
        "run",
        "uv-run",
        "abbreviated-option",
        "misspelt-option",
        "bad-provider",
        "missing-argument",
    ],
)
def test_the_command_check_refuses_what_the_parser_refuses(line: str, parses: bool) -> None:
    """The checker itself: a wrong option in a page's command fails the test."""
    block = Block(page=REPO_ROOT / "README.md", line=1, language="sh", title=None, marker=None,
                  text=line + "\n")  # fmt: skip
    [command] = commands(block)
    assert command.agent_lab is not None
    assert (_parse(command.agent_lab)[0] == 0) is parses


# The pages run --------------------------------------------------------------------------


class _Page:
    """One page's run: its folder, its namespace, what its last Python block printed."""

    def __init__(self, page: Path, folder: Path) -> None:
        self.page = page
        self.folder = folder
        self.module = types.ModuleType("docs_page_" + re.sub(r"\W", "_", page.stem))
        self.module.__dict__["__file__"] = str(folder / "page.py")
        self.printed = ""
        self.written: list[str] = []
        """The modules the page wrote, by name."""
        self.written_files: set[str] = set()
        """The files the page wrote, as it names them."""

    def write(self, block: Block) -> None:
        assert block.title is not None
        target = self.folder / block.title
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(block.text, encoding="utf-8")
        self.written_files.add(block.title)
        if target.suffix == ".py":
            self.written.append(target.stem)
            sys.modules.pop(target.stem, None)
        if target.suffix in {".json", ".jsonl"}:
            _check_json(block)

    def python(self, block: Block) -> None:
        printed = io.StringIO()
        code = compile(block.text, block.where, "exec")
        with contextlib.redirect_stdout(printed):
            try:
                exec(code, self.module.__dict__)
            except ModuleNotFoundError as err:
                skip_without_extra(err, block.where)
        self.printed = printed.getvalue()

    def shell(self, block: Block) -> None:
        if block.marker is not None and block.marker.startswith(NOT_RUN):
            return
        for command in commands(block):
            if (script := command.script) is not None and script in self.written_files:
                self.script(script)
                continue
            argv = command.agent_lab
            assert argv is not None, (
                f"{block.where}: {command.line!r} is neither an agent-lab command nor a script "
                "the page wrote; mark the block <!-- test: not run, WHY --> or leave it out"
            )
            out, err = io.StringIO(), io.StringIO()
            with _as_a_console_script(self):
                code = cli(list(argv), stdout=out, stderr=err)
            assert code == 0, f"{block.where}: {command.line}\n{out.getvalue()}{err.getvalue()}"
            self.printed = out.getvalue()

    def script(self, name: str) -> None:
        """``python NAME``: the file run as ``__main__``, its folder first on ``sys.path``."""
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            runpy.run_path(str(self.folder / name), run_name="__main__")
        self.printed = printed.getvalue()

    def prints(self, block: Block) -> None:
        checker = doctest.OutputChecker()
        options = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
        assert checker.check_output(block.text, self.printed, options), (
            f"{block.where}: the page says it prints\n{block.text}\nbut it printed\n{self.printed}"
        )


@contextlib.contextmanager
def _as_a_console_script(run: _Page) -> Generator[None]:
    """What ``agent-lab`` sees: the page's folder is not on ``sys.path``, nothing it wrote loaded.

    A console script's ``sys.path`` does not hold the folder it runs in
    (``python -m`` and ``python script.py`` do), so a command must find the
    reader's files as a reader's shell would.
    """
    folder = str(run.folder)
    kept = list(sys.path)
    sys.path[:] = [entry for entry in sys.path if entry not in (folder, "", ".")]
    for name in run.written:
        sys.modules.pop(name, None)
    try:
        yield
    finally:
        sys.path[:] = kept
        for name in run.written:
            sys.modules.pop(name, None)


def _check_json(block: Block) -> None:
    """A JSON block is JSON (JSON Lines when titled ``.jsonl``), valid where it says so."""
    text = block.text
    values = (
        [json.loads(line) for line in text.splitlines() if line.strip()]
        if (block.title or "").endswith(".jsonl")
        else [json.loads(text)]
    )
    marker = block.marker or ""
    if marker.startswith("valid against "):
        schema = json.loads(
            (REPO_ROOT / "docs" / marker.removeprefix("valid against ")).read_text()
        )
        for value in values:
            jsonschema_rs.validate(schema, value)


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_the_page_runs_as_written(
    page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Files written, Python run in order, commands run: as a reader following the page would."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))  # pyright: ignore[reportUnknownMemberType]
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    run = _Page(page, tmp_path)
    sys.modules[run.module.__name__] = run.module
    try:
        for block in blocks(page):
            if block.title is not None:
                run.write(block)
            elif block.language in PYTHON:
                run.python(block)
            elif block.language in SHELL:
                run.shell(block)
            elif block.language == "json":
                _check_json(block)
            elif block.marker == "prints":
                run.prints(block)
    finally:
        sys.modules.pop(run.module.__name__, None)
        for name in run.written:
            sys.modules.pop(name, None)


def test_the_cli_reference_lists_every_command_and_option() -> None:
    """The generated reference (docs/hooks/cli_reference.py) names every option of every command."""
    spec = importlib.util.spec_from_file_location(
        "cli_reference", REPO_ROOT / "docs" / "hooks" / "cli_reference.py"
    )
    assert spec is not None
    assert spec.loader is not None
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    page: str = hook.reference()
    sections = {section.split("\n", 1)[0]: section for section in page.split("\n## ")[1:]}
    commands_ = _commands(build_parser())
    assert sorted(sections) == sorted(commands_)
    for name, command in commands_.items():
        for action in command._actions:
            for option in action.option_strings:
                if option not in ("-h", "--help"):
                    assert f"`{option}" in sections[name] or f", {option}" in sections[name], (
                        f"{name} {option}"
                    )


# The architecture page states the floors once; the layout test enforces them ------------

FLOORS = {
    # A module of each floor, as the layout test names them.
    "ground": "agent_lab.errors",
    "kernel": "agent_lab.kernel.models",
    "resolvers": "agent_lab.resolvers.schema",
    "agents": "agent_lab.agents.decider",
    "agents/port.py": "agent_lab.agents.port",
    "providers": "agent_lab.providers.simulated",
    "testing": "agent_lab.testing",
    "otel": "agent_lab.otel.tracing",
    "exchange_stores": "agent_lab.exchange_stores.sqlite",
    "logs": "agent_lab.logs.reader",
    "answering": "agent_lab.answering.answerer",
    "log_replay": "agent_lab.log_replay.replayed",
    "lab": "agent_lab.lab.workload",
    "gateway": "agent_lab.gateway.app",
    "integrations": "agent_lab.integrations.pydantic_ai",
    "demo": "agent_lab.demo",
    "cli": "agent_lab.cli.parser",
}
PARTS = {"agents": ("agents/port.py",)}
"""A floor that is named imports its parts too."""


def _table(heading: str, page: str) -> list[list[str]]:
    """The rows of the first table under ``heading`` on ``page``, its header left out."""
    lines = (REPO_ROOT / "docs" / page).read_text(encoding="utf-8").split(heading, 1)[1]
    rows: list[list[str]] = []
    for line in lines.splitlines():
        if line.startswith("|"):
            rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
        elif rows:
            break
    return rows[2:]


def _may_import(cell: str) -> set[str]:
    if cell == "everything":
        return set(FLOORS)
    if cell == "everything but cli":
        return set(FLOORS) - {"cli"}
    named = {name.strip() for name in cell.split(",")}
    return named | {part for name in named for part in PARTS.get(name, ())}


def test_the_architecture_page_states_the_floors_the_layout_test_enforces() -> None:
    """Each floor's "may import" cell is exactly what tests/test_layout.py allows it."""
    from tests.test_layout import _allowed, _demo_allowed  # pyright: ignore[reportPrivateUsage]

    rows = _table("## The floors, and their rule", "architecture.md")
    assert [row[0] for row in rows] == [f for f in FLOORS if f != "agents/port.py"]
    wrong = [
        f"{floor} -> {imported}: the page says {said}, the layout test says {allowed}"
        for floor, _, cell in rows
        for imported, module in FLOORS.items()
        if module != FLOORS[floor]
        for said in [imported in _may_import(cell)]
        for allowed in [_allowed(FLOORS[floor], module) and _demo_allowed(FLOORS[floor], module)]
        if said != allowed
    ]
    assert wrong == []


def test_the_architecture_page_names_every_branch_of_the_exception_tree() -> None:
    """The branches under ``AgentLabError`` on the page are the classes directly under it."""
    from agent_lab import AgentLabError

    rows = _table("## The exception tree", "architecture.md")
    assert {row[0].strip("`") for row in rows} == {
        c.__name__ for c in AgentLabError.__subclasses__()
    }
