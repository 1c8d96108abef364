"""``agent-lab gate``'s options: its limits, and what failing means."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_lab.cli import checks, commands

if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable

    AddParser = Callable[..., argparse.ArgumentParser]

__all__ = ["add_gate"]


def add_gate(add_parser: AddParser) -> None:
    """Add ``gate`` to the command line."""
    gate = add_parser(
        "gate",
        help="exit 1 when a run sends more to the LLM, costs more or answers worse than a "
        "baseline run",
        description="Compares --run with --baseline on the cases they share, paired by case, "
        "policy by policy. A check fails only when its whole 95% interval lies past its "
        "limit: a change the noise could explain passes, and says so.",
    )
    gate.add_argument("db", help="the results database holding both runs")
    gate.add_argument("--run", required=True, help="the run to check (a pull request's)")
    gate.add_argument("--baseline", required=True, help="the run to check it against (main's)")
    gate.add_argument(
        "--policy", action="append", help="a policy to check (repeatable; default every shared one)"
    )
    gate.add_argument(
        "--max-llm-share-increase",
        type=checks.fraction,
        default=0.02,
        metavar="SHARE",
        help="fail when the share of trials calling the LLM grows by more, wholly "
        "(default 0.02: 2 points)",
    )
    gate.add_argument(
        "--max-cost-increase",
        type=checks.non_negative,
        default=0.05,
        metavar="FRACTION",
        help="fail when the mean cost per trial grows by more, relatively, wholly (default 0.05: "
        "5%%; an unknown cost is not comparable and never fails)",
    )
    gate.add_argument(
        "--min-accuracy-change",
        type=checks.signed_fraction,
        default=-0.01,
        metavar="SHARE",
        help="fail when accuracy changes by less, wholly (default -0.01: 1 point worse)",
    )
    gate.add_argument("--json", action="store_true", help="print the checks as JSON")
    gate.set_defaults(handler=commands.gate)
