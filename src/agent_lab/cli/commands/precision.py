"""``agent-lab precision``: how often the resolvers fill a value right, without an LLM."""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING

from rich.table import Table

from agent_lab.cli import checks
from agent_lab.cli.loading import load_cases, load_plugin_set, plugin_registry, with_rules_file
from agent_lab.cli.options import add_rules_option
from agent_lab.lab.report.terminal import plain
from agent_lab.lab.stats.precision import measure_precision
from agent_lab.lab.workload import LOGGED_TRUTH, truth_is_logged

if TYPE_CHECKING:
    import argparse

    from agent_lab.cli.loading import Streams
    from agent_lab.cli.options import AddParser

__all__ = ["add_command", "handle"]


def add_command(add_parser: AddParser) -> None:
    """Add ``precision`` and its options to the command line."""
    precision = add_parser(
        "precision", help="how often the resolvers are right when they fill a value (no LLM)"
    )
    precision.add_argument("workload", help="a JSONL file, or a built-in workload name")
    precision.add_argument(
        "--plugins", required=True, help="MODULE:ATTRIBUTE or an imported folder"
    )
    add_rules_option(precision)
    precision.add_argument(
        "--examples", type=checks.count, default=10, help="wrong values to show (default 10)"
    )
    precision.add_argument(
        "--json",
        action="store_true",
        help='print {"overall": F, "by_kind": {KIND: F}} (F: filled, right, precision, low, high)',
    )
    precision.set_defaults(handler=handle)


def handle(options: argparse.Namespace, streams: Streams) -> int:
    """``agent-lab precision``: how often the resolvers fill a value right, without an LLM."""
    plugins = load_plugin_set(options.plugins)
    plugin_registry(plugins, options.plugins)
    workload = load_cases(options.workload, skip_bad=False, plugins=plugins, stderr=streams.err)
    plugins, _ = with_rules_file(plugins, options.plugins, options.rules, streams.err)
    result = measure_precision(workload, plugins, examples=options.examples)
    logged = truth_is_logged(case.category for case in workload.cases)
    if options.json:
        figures = result.as_json() | ({"truth": LOGGED_TRUTH} if logged else {})
        print(json.dumps(figures, indent=2, sort_keys=True), file=streams.out)
        return 0
    table = Table(
        title=f"deterministic precision over {result.cases} cases expected to succeed "
        f"({result.resolver_errors} resolver errors)",
        caption=f"{LOGGED_TRUTH[0].upper()}{LOGGED_TRUTH[1:]}." if logged else None,
    )
    for column in ("kind", "source", "filled", "right", "precision", "95% CI", "truth filled"):
        table.add_column(column, justify="left" if column in ("kind", "source") else "right")
    for row in (*result.rows, result.overall):
        low, high = row.interval
        coverage = row.coverage
        table.add_row(
            plain(row.kind),
            plain(row.source),
            str(row.filled),
            str(row.right),
            f"{row.precision:.1%}" if row.filled else "-",
            f"[{low:.1%}, {high:.1%}]" if row.filled else "-",
            "-" if coverage is None else f"{row.answered}/{row.expected} ({coverage:.0%})",
        )
    console = streams.console
    console.print(table)
    for wrong in result.wrong:
        console.print(
            plain(
                f"{wrong.case} {wrong.argument} ({wrong.kind}, {wrong.source}): filled "
                f"{_shown(wrong.filled)}, expected {_shown(wrong.expected)}: "
                f"{wrong.text[:100]}"
            )
        )
    return 0


def _shown(value: object) -> str:
    # A resolver may fill any integer: past 4300 digits Python writes none as text.
    try:
        return json.dumps(value)
    except (ValueError, TypeError, RecursionError):
        if isinstance(value, int):
            return f"(an integer of about {round(value.bit_length() * math.log10(2))} digits)"
        return f"(a {type(value).__name__} that is not JSON)"
