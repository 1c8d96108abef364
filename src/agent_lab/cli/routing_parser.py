"""``agent-lab routing``'s options: which routing to measure, at which settings, on which half."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_lab.agents.lexical_router import (
    DEFAULT_MARGIN,
    DEFAULT_MIN_TERMS,
    DEFAULT_NAME_SHARE,
)
from agent_lab.cli import checks, commands

if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable

    AddParser = Callable[..., argparse.ArgumentParser]

__all__ = ["add_routing"]


def add_routing(add_parser: AddParser) -> None:
    """Add ``routing`` to the command line."""
    routing = add_parser(
        "routing",
        help="how often the plugin set's routing decides with no LLM, and how often rightly",
    )
    routing.add_argument("workload", help="a JSONL file, or a built-in workload name")
    routing.add_argument("--plugins", required=True, help="MODULE:ATTRIBUTE or an imported folder")
    routing.add_argument(
        "--margins",
        type=checks.margins,
        default=[DEFAULT_MARGIN],
        help="the lexical router's relative leads to measure among several candidates, "
        f"e.g. 0,0.1,0.2 (default {DEFAULT_MARGIN})",
    )
    routing.add_argument(
        "--name-shares",
        type=checks.name_shares,
        default=[DEFAULT_NAME_SHARE],
        help="shares of a lone candidate's name words the message must hold, "
        f"e.g. 0.5,0.75,1 (default {DEFAULT_NAME_SHARE:g})",
    )
    routing.add_argument(
        "--min-terms",
        type=checks.positive_count,
        default=DEFAULT_MIN_TERMS,
        help=f"words shared with the best event's description (default {DEFAULT_MIN_TERMS})",
    )
    routing.add_argument(
        "--split",
        choices=("all", "even", "odd"),
        default="all",
        help="the cases whose id ends in an even or odd number (tune on one, report the "
        "other; default all)",
    )
    mode = routing.add_mutually_exclusive_group()
    mode.add_argument(
        "--lexical-only",
        dest="mode",
        action="store_const",
        const="lexical-only",
        default="configured",
        help="measure the lexical router whatever routes the plugin set has (default: the "
        "plugin set's routing as the agent runs it: its routes, or the lexical router when "
        "it has none)",
    )
    mode.add_argument(
        "--one-event",
        dest="mode",
        action="store_const",
        const="one-event",
        help="ask each event as a plugin set of its own, with no routes: every case, of each "
        "of its candidates alone; a route is right only to the case's own event",
    )
    routing.add_argument(
        "--json",
        action="store_true",
        help='print {"mode", "split", "figures": [F]} (F: router, margin, name_share, cases, '
        "in_domain, routed, right, precision, low, high, coverage, named_routed, named_right)",
    )
    routing.set_defaults(handler=commands.routing)
