"""MkDocs hook: the command-line reference, generated from the parser at every build.

The page ``reference/cli.md`` is never written by hand nor committed: it is
made from ``agent_lab.cli.parser.build_parser()`` when the site is built, so
that it cannot say an option the command line does not take.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, cast

from agent_lab.cli.parser import build_parser

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.files import Files

__all__ = ["PAGE", "on_files", "reference"]

PAGE = "reference/cli.md"
"""Where the generated page sits in the site."""

_WIDTH = 88
"""Usage lines are wrapped at this width, whatever terminal builds the site."""


def _commands(parser: argparse.ArgumentParser) -> list[tuple[str, str, argparse.ArgumentParser]]:
    """Each command's name, one-line help and parser, in the order ``--help`` lists them."""
    found: list[tuple[str, str, argparse.ArgumentParser]] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):  # pyright: ignore[reportPrivateUsage]
            subparsers = cast("argparse._SubParsersAction[argparse.ArgumentParser]", action)  # pyright: ignore[reportPrivateUsage]
            helps = {choice.dest: choice.help or "" for choice in subparsers._choices_actions}
            found.extend(
                (name, helps.get(name, ""), sub) for name, sub in subparsers.choices.items()
            )
    return found


def _usage(parser: argparse.ArgumentParser) -> str:
    formatter = argparse.HelpFormatter(parser.prog, width=_WIDTH)
    formatter.add_usage(
        parser.usage,
        parser._actions,
        parser._mutually_exclusive_groups,
    )
    return formatter.format_help().strip()


def _cell(text: str) -> str:
    """Text fit for a Markdown table cell: one line, pipes escaped."""
    return " ".join(text.split()).replace("|", "\\|")


def _options(parser: argparse.ArgumentParser) -> list[str]:
    formatter = argparse.HelpFormatter(parser.prog, width=_WIDTH)
    rows = ["| argument | what it does |", "| --- | --- |"]
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction | argparse._SubParsersAction):  # pyright: ignore[reportPrivateUsage]
            continue
        invocation = formatter._format_action_invocation(action)
        described = formatter._expand_help(action) if action.help else ""
        if action.choices is not None and not action.option_strings:
            described = f"{described} ({', '.join(map(str, action.choices))})"
        if action.required and action.option_strings:
            described = f"required; {described}"
        rows.append(f"| `{_cell(invocation)}` | {_cell(described)} |")
    return rows


def reference() -> str:
    """The whole reference page, in Markdown: the program, then every command and its options."""
    parser = build_parser()
    lines = [
        "# Command line",
        "",
        "<!-- Generated from agent_lab.cli.parser.build_parser() at build time: not a file "
        "in the repository. -->",
        "",
        "This page is generated from the parser every time the site is built; "
        "`agent-lab COMMAND --help` prints the same.",
        "",
        "```text",
        _usage(parser),
        "```",
        "",
        parser.description or "",
        "",
        "```text",
        (parser.epilog or "").strip(),
        "```",
        "",
    ]
    for name, summary, command in _commands(parser):
        lines += [
            f"## {name}",
            "",
            f"{summary[:1].upper()}{summary[1:]}.",
            "",
            "```text",
            _usage(command),
            "```",
            "",
            *_options(command),
            "",
        ]
    return "\n".join(lines)


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add the generated page to the site's files (MkDocs calls this once per build)."""
    from mkdocs.structure.files import File  # noqa: PLC0415 - MkDocs is present when it calls

    files.append(File.generated(config, PAGE, content=reference()))
    return files
