"""``agent-lab shadow``'s options: the logs, how to read them, and what to print."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_lab.cli import checks, shadowing
from agent_lab.lab.shadow.figures import DEFAULT_MIN_AGREEMENT
from agent_lab.logs.record import LogFormat

if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable

    AddParser = Callable[..., argparse.ArgumentParser]

__all__ = ["add_log_reading", "add_shadow"]


def add_log_reading(command: argparse.ArgumentParser) -> None:
    """The options every command that reads logs shares."""
    command.add_argument(
        "logs", nargs="+", help="log files: chat, pairs or otel JSON lines, plain or gzipped"
    )
    command.add_argument(
        "--format",
        choices=[str(f) for f in LogFormat],
        help="read every file in this format (default: detected per file)",
    )
    command.add_argument(
        "--plugins",
        help="MODULE:ATTRIBUTE or a folder: your own resolvers and routes for the tools they "
        "name (default: the schema-driven resolver for every tool)",
    )
    command.add_argument(
        "--read",
        choices=("last", "user_turns"),
        default="last",
        help="what of a conversation the resolvers read: its last user message, or every "
        "user message so far (default last)",
    )
    command.add_argument(
        "--skip-bad-lines",
        action="store_true",
        help="count a line that cannot be used, by reason, and go on (default: stop at it)",
    )


def add_shadow(add_parser: AddParser) -> None:
    """Add ``shadow`` to the command line."""
    shadow = add_parser(
        "shadow",
        help="replay your agent's logs: what deterministic-first would have saved on them",
    )
    add_log_reading(shadow)
    shadow.add_argument(
        "--prices", help='prices per model, {"MODEL": {"input_per_mtok": "0.15", ...}}'
    )
    shadow.add_argument(
        "--min-agreement",
        type=checks.fraction,
        default=DEFAULT_MIN_AGREEMENT,
        help="the agreement a tool must clear at its interval's lower bound to be switched "
        f"first (default {DEFAULT_MIN_AGREEMENT})",
    )
    shadow.add_argument(
        "--workers", type=checks.positive_count, default=1, help="processes (default 1)"
    )
    shadow.add_argument(
        "--redact",
        action="store_true",
        help="keep message text and argument values out of every output",
    )
    shadow.add_argument("--html", help="also write an HTML page of the figures")
    shadow.add_argument(
        "--json",
        action="store_true",
        help='print {"calls", "covered", "agreement": A, "by_tool": {TOOL: {...}}, "saved": '
        '{...}, "skipped": {REASON: N}, ...} (A: right, of, rate, low, high)',
    )
    shadow.set_defaults(handler=shadowing.shadow_command)
