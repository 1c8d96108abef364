"""Every option of every command says what it does, and what it is when not given."""

from __future__ import annotations

import argparse

import pytest

from agent_lab.cli.parser import build_parser


def commands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    found: dict[str, argparse.ArgumentParser] = {}
    for action in parser._actions:  # argparse keeps its subcommands only here
        if isinstance(action, argparse._SubParsersAction):  # pyright: ignore[reportPrivateUsage]
            found.update(action.choices)  # pyright: ignore[reportUnknownMemberType, reportUnknownArgumentType]
    return found


COMMANDS = commands()


def test_every_command_is_covered() -> None:
    assert {"demo", "run", "report", "compare", "runs", "providers", "events"} <= set(COMMANDS)


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_option_has_help_and_a_default_worth_saying_is_said(name: str) -> None:
    missing: list[str] = []
    unsaid: list[str] = []
    for action in COMMANDS[name]._actions:
        if isinstance(action, argparse._HelpAction):  # pyright: ignore[reportPrivateUsage]
            continue
        label = "/".join(action.option_strings) or action.dest
        if not action.help or action.help == argparse.SUPPRESS:
            missing.append(label)
            continue
        default = action.default
        worth_saying = default not in (None, False, argparse.SUPPRESS) and action.option_strings
        if worth_saying and "default" not in action.help and "%(default)" not in action.help:
            unsaid.append(f"{label} (default {default!r})")
    assert not missing, f"{name}: no help for {missing}"
    assert not unsaid, f"{name}: the default is not said for {unsaid}"
