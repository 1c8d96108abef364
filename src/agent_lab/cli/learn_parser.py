"""``agent-lab learn``'s options: the logs, the split, the gate, and the rules file."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_lab.cli import checks, learning
from agent_lab.logs.record import LogFormat

if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable

    AddParser = Callable[..., argparse.ArgumentParser]

__all__ = ["add_learn"]


def add_learn(add_parser: AddParser) -> None:
    """Add ``learn`` to the command line."""
    learn = add_parser(
        "learn",
        help="learn resolver rules from your logs, kept only where held-out calls prove them",
    )
    learn.add_argument("logs", nargs="*", help="log files (as agent-lab shadow reads them)")
    learn.add_argument("--out", help="write the rules file here (JSON, for review)")
    learn.add_argument(
        "--workload",
        help="also learn from a workload's cases (a JSONL file or a built-in name), "
        "as the requests an agent would have logged",
    )
    learn.add_argument(
        "--plugins",
        help="MODULE:ATTRIBUTE or a folder: your own resolvers for the tools they name; "
        "rules are learned for what they leave out (needed with --workload)",
    )
    learn.add_argument(
        "--explain", metavar="RULES", help="print a rules file as a table, and learn nothing"
    )
    learn.add_argument(
        "--format",
        choices=[str(f) for f in LogFormat],
        help="read every file in this format (default: detected per file)",
    )
    learn.add_argument(
        "--read",
        choices=("last", "user_turns"),
        default="last",
        help="what of a conversation the rules read: its last user message, or every user "
        "message so far (default last)",
    )
    learn.add_argument(
        "--skip-bad-lines", action="store_true", help="count a line that cannot be used, go on"
    )
    learn.add_argument(
        "--holdout",
        type=checks.fraction,
        default=0.3,
        help="the share of conversations held out to admit and measure rules (default 0.3)",
    )
    learn.add_argument(
        "--split-by",
        choices=("conversation",),
        default="conversation",
        help="what the split keeps together (default conversation: its first two messages)",
    )
    learn.add_argument(
        "--min-precision",
        type=checks.fraction,
        default=0.99,
        help="the held-out precision a rule's group must clear at its Wilson lower bound "
        "(default 0.99)",
    )
    learn.add_argument(
        "--min-support",
        type=checks.positive_count,
        default=20,
        help="held-out conversations a group's rules must fire in before its bound counts "
        "(default 20)",
    )
    learn.add_argument("--seed", type=int, default=0, help="the split's seed (default 0)")
    learn.add_argument(
        "--across-tools",
        action="store_true",
        help="learn argument rules per parameter name over every tool, for tools the logs "
        "never showed (routes stay per tool)",
    )
    learn.add_argument("--html", help="also write an HTML page of the gain and the rules")
    learn.add_argument(
        "--json", action="store_true", help="print the gain and the rules file as JSON"
    )
    learn.set_defaults(handler=learning.learn_command)
