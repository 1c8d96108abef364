"""``agent-lab shadow``'s options: the logs, how to read them, and what to print."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_lab.cli import checks, shadowing
from agent_lab.cli.log_reading import add_log_options

if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable

    AddParser = Callable[..., argparse.ArgumentParser]

__all__ = ["add_shadow"]


def add_shadow(add_parser: AddParser) -> None:
    """Add ``shadow`` to the command line."""
    shadow = add_parser(
        "shadow",
        help="replay your agent's logs: what deterministic-first would have saved on them",
    )
    add_log_options(shadow)
    shadow.add_argument(
        "--prices", help='prices per model, {"MODEL": {"input_per_mtok": "0.15", ...}}'
    )
    shadow.add_argument(
        "--min-agreement",
        type=checks.fraction,
        default=0.99,
        help="the agreement a tool must clear at its interval's lower bound to be switched "
        "first (default 0.99)",
    )
    shadow.add_argument(
        "--workers", type=checks.positive_count, default=1, help="processes (default 1)"
    )
    shadow.add_argument(
        "--redact",
        action="store_true",
        help="keep message text and argument values out of every output",
    )
    shadow.add_argument(
        "--rules", help="a rules file agent-lab learn wrote: the schema-driven resolver applies it"
    )
    shadow.add_argument("--html", help="also write an HTML page of the figures")
    shadow.add_argument(
        "--json",
        action="store_true",
        help='print {"calls", "covered", "agreement": A, "by_tool": {TOOL: {...}}, "saved": '
        '{...}, "skipped": {REASON: N}, ...} (A: right, of, rate, low, high)',
    )
    shadow.set_defaults(handler=shadowing.shadow_command)
