"""The argparse tree of ``agent-lab``: the program, then each command in ``commands.COMMANDS``."""

from __future__ import annotations

import argparse
import importlib.metadata
import typing
from typing import Any

from agent_lab.cli.commands import COMMANDS
from agent_lab.cli.examples import EXAMPLES

__all__ = ["OneLineErrors", "build_parser"]


class OneLineErrors(argparse.ArgumentParser):
    """argparse, with a usage error said in one line (exit code 2) instead of usage plus error."""

    def error(self, message: str) -> typing.NoReturn:
        """Print ``agent-lab COMMAND: message`` and where to look, then exit 2."""
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    """The whole command line; ``options.handler`` is the chosen command's function."""
    parser = OneLineErrors(
        prog="agent-lab",
        description="Measure what a deterministic-first kernel saves against an LLM-always agent.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"agent-lab {importlib.metadata.version('agent-lab')}",
    )
    subparsers = parser.add_subparsers(
        dest="command", required=True, metavar="COMMAND", parser_class=OneLineErrors
    )

    def add_parser(*names: str, **options: Any) -> argparse.ArgumentParser:
        command = subparsers.add_parser(*names, **options)
        command.add_argument(
            "-v", "--verbose", action="count", default=0,
            help="say more on stderr: -v run decisions, retries with their wait and provider "
            "failures with the server's message (redacted); -vv every trial too "
            "(default: quiet)",
        )  # fmt: skip
        return command

    for command in COMMANDS:
        command.add_command(add_parser)
    return parser
