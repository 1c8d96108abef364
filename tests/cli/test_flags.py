"""The CLI's table of fields and flags: its flags are real, and nothing below the CLI names one."""

from __future__ import annotations

import argparse
import ast
import io
import re
from pathlib import Path

import pytest

import agent_lab
from agent_lab.cli import run
from agent_lab.cli.flags import FLAGS, flag, said
from agent_lab.cli.parser import build_parser
from agent_lab.errors import ConfigChange, ConfigMismatchError, SettingError, StoreError

SRC = Path(agent_lab.__file__).parent


def _flags(parser: argparse.ArgumentParser) -> set[str]:
    found: set[str] = set()
    for action in parser._actions:
        found.update(option for option in action.option_strings if option.startswith("--"))
        if isinstance(action, argparse._SubParsersAction):  # pyright: ignore[reportPrivateUsage]
            for command in action.choices.values():  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
                found |= _flags(command)  # pyright: ignore[reportUnknownArgumentType]
    return found


PARSER_FLAGS = _flags(build_parser())


def test_every_flag_in_the_table_is_one_the_parser_takes() -> None:
    """A flag the table names but no command takes would send the user after nothing."""
    named = {part for value in FLAGS.values() for part in value.split(" / ")}
    flags = {part for part in named if part.startswith("--")}
    assert flags
    assert flags <= PARSER_FLAGS, flags - PARSER_FLAGS


def test_a_field_with_no_flag_keeps_its_name() -> None:
    assert (flag("policies"), flag("retries")) == ("--policy", "retries")


def _strings_below_the_cli() -> list[tuple[str, int, str]]:
    """Every string literal under src/agent_lab outside cli/, docstrings left out."""
    found: list[tuple[str, int, str]] = []
    for path in sorted(SRC.rglob("*.py")):
        if path.relative_to(SRC).parts[0] == "cli":
            continue
        tree = ast.parse(path.read_text("utf-8"))
        # A string statement is a docstring (of a module, class, function or attribute):
        # one may show a command to its reader.
        docs = {
            id(node.value)
            for node in ast.walk(tree)
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        }
        found += [
            (str(path.relative_to(SRC)), node.lineno, node.value)
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docs
        ]
    return found


_A_FLAG = re.compile(
    r"(?<![\w-])("
    + "|".join(re.escape(f) for f in sorted(PARSER_FLAGS, key=len, reverse=True))
    + r")(?![\w-])"
)


def test_no_message_below_the_cli_names_a_flag() -> None:
    """Issue 22: below cli/ errors and values name fields; the CLI says them as flags."""
    named = [
        f"{path}:{line}: {text[:60]!r}"
        for path, line, text in _strings_below_the_cli()
        if _A_FLAG.search(text)
    ]
    assert named == []


def test_the_search_for_flags_finds_one() -> None:
    """The check above can fail: it finds a flag in a message, not a shell command's own."""
    assert _A_FLAG.search("rerun without --resume")
    assert not _A_FLAG.search("uv sync --extra local")


@pytest.mark.parametrize(
    ("problem", "shown"),
    [
        (SettingError("vary", "x=1 is given twice"), "--vary x=1 is given twice"),
        (SettingError("margin", "must be in [0, 1]"), "margin must be in [0, 1]"),
        (StoreError("r.sqlite is locked"), "r.sqlite is locked"),
        (
            ConfigMismatchError("r0", [ConfigChange(setting="policies", was="[]", now='["a"]')]),
            "the unfinished run r0 used another configuration: --policy (was [], now "
            '["a"]); rerun with the same options, or start a new run without --resume',
        ),
    ],
    ids=["setting-with-a-flag", "setting-without-one", "other-error", "config-mismatch"],
)
def test_said_words_an_error_with_the_flags(problem: Exception, shown: str) -> None:
    assert isinstance(problem, agent_lab.AgentLabError)
    assert said(problem) == shown


def test_a_bad_llm_error_is_said_as_the_flag_in_one_line() -> None:
    """The profile names the field llm_error; the command line, --llm-error: exit 2."""
    err = io.StringIO()
    argv = ["run", "demo", "--plugins", "agent_lab.demo:plugins", "--llm-error", "colour=1"]
    assert run(argv, stdout=io.StringIO(), stderr=err) == 2
    assert err.getvalue().startswith("agent-lab: --llm-error 'colour=1': expected KEY=RATE")
    assert err.getvalue().count("\n") == 1
