"""``agent-lab routing``: the plugin set's routing's precision and coverage, without an LLM."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from rich.table import Table

from agent_lab.agents.lexical_router import (
    DEFAULT_MARGIN,
    DEFAULT_MIN_TERMS,
    DEFAULT_NAME_SHARE,
)
from agent_lab.cli import checks
from agent_lab.cli.loading import load_cases, load_plugin_set, plugin_registry
from agent_lab.lab.stats.routing import measure_routing

if TYPE_CHECKING:
    import argparse

    from agent_lab.cli.loading import Streams
    from agent_lab.cli.options import AddParser

__all__ = ["add_command", "handle"]


def add_command(add_parser: AddParser) -> None:
    """Add ``routing``: which routing to measure, at which settings, on which half."""
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
    routing.set_defaults(handler=handle)


def handle(options: argparse.Namespace, streams: Streams) -> int:
    """``agent-lab routing``: the plugin set's routing's precision and coverage, without an LLM."""
    plugins = load_plugin_set(options.plugins)
    plugin_registry(plugins, options.plugins)
    workload = load_cases(options.workload, skip_bad=False, plugins=plugins, stderr=streams.err)
    figures = measure_routing(
        workload,
        plugins,
        options.margins,
        name_shares=options.name_shares,
        min_terms=options.min_terms,
        split=options.split,
        mode=options.mode,
    )
    if options.json:
        rows = [f.as_json() for f in figures]
        document = {"mode": options.mode, "split": options.split, "figures": rows}
        print(json.dumps(document, indent=2), file=streams.out)
        return 0
    asked = (
        "(case, event) pairs" if options.mode == "one-event" else "cases whose event is not given"
    )
    table = Table(
        title=f"{options.mode} routing over {figures[0].cases} {asked} "
        f"(split {options.split}, at least {options.min_terms} shared words for the lexical router)"
    )
    for column in ("router", "margin", "name share", "routed", "right", "precision", "95% CI"):
        table.add_column(column, justify="right")
    table.add_column("coverage", justify="right")
    for row in figures:
        found = row.as_json()
        precision = "n/a" if row.precision is None else f"{row.precision:.1%}"
        table.add_row(
            row.router,
            "-" if row.margin is None else f"{row.margin:g}",
            "-" if row.name_share is None else f"{row.name_share:g}",
            str(row.routed),
            str(row.right),
            precision,
            f"[{found['low']:.1%}, {found['high']:.1%}]",
            f"{row.coverage:.1%}",
        )
    streams.console.print(table)
    return 0
