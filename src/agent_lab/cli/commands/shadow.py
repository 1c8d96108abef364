"""``agent-lab shadow``: an agent's own logs replayed, and what deterministic-first saves.

The replay, the price table (genai-prices: 0.4 s) and the page are imported
when the command runs, so that ``agent-lab --help`` stays fast.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import TYPE_CHECKING

from agent_lab.cli import checks
from agent_lab.cli.checks import check_output_file, check_outputs_apart
from agent_lab.cli.loading import load_plugin_set, plugin_registry
from agent_lab.cli.log_reading import (
    add_engine_options,
    add_log_options,
    log_sources,
    settings_of,
)
from agent_lab.cli.output import write_whole
from agent_lab.errors import PriceError, UsageError
from agent_lab.exchange_stores import safe_name
from agent_lab.lab.run.plugin_sets import load_plugins

if TYPE_CHECKING:
    import argparse

    from agent_lab.agents.plugins import PluginSet
    from agent_lab.cli.loading import Streams
    from agent_lab.cli.options import AddParser
    from agent_lab.providers.pricing import PriceTable

__all__ = ["add_command", "handle"]


def add_command(add_parser: AddParser) -> None:
    """Add ``shadow``: the logs, how to read them, and what to print."""
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
    add_engine_options(shadow, local_workers=True)
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
    shadow.set_defaults(handler=handle)


def handle(options: argparse.Namespace, streams: Streams) -> int:
    """``agent-lab shadow LOGS...``: the figures on the terminal, as JSON, or as a page."""
    from agent_lab.lab.shadow.run import shadow  # noqa: PLC0415
    from agent_lab.lab.shadow.tables import headline, tool_table  # noqa: PLC0415

    logs = log_sources(options, local_workers=True)
    html = Path(options.html) if options.html else None
    if html is not None:
        check_output_file(html, "--html")
        check_outputs_apart({"--html": html}, logs.local)
    plugins = _plugin_loader(options.plugins)
    load_plugins = plugins if plugins is not None else _no_plugins
    if logs.engine is not None:
        from agent_lab.lab.shadow.on_ray import shadow_on_ray  # noqa: PLC0415

        figures = shadow_on_ray(
            logs.names,
            settings_of(options),
            logs.engine,
            load_plugins=load_plugins,
            load_prices=_price_loader(options.prices),
        )
    else:
        figures = shadow(
            logs.names,
            settings_of(options, workers=options.workers or 1),
            load_plugins=load_plugins,
            load_prices=_price_loader(options.prices),
        )
    document = figures.as_json(min_agreement=options.min_agreement, redact=options.redact)
    if html is not None:
        from agent_lab.lab.shadow.page import render_page  # noqa: PLC0415  (jinja2 on demand)

        lines = headline(figures, min_agreement=options.min_agreement)
        write_whole(
            html,
            "--html",
            lambda target: render_page(
                target,
                document=document,
                headline=lines,
                logs=[safe_name(name) for name in logs.names],
            ),
        )
    if options.json:
        print(json.dumps(document, indent=2), file=streams.out)
        return 0
    for line in headline(figures, min_agreement=options.min_agreement):
        streams.console.print(line, highlight=False)
    streams.console.print(tool_table(figures, min_agreement=options.min_agreement))
    if html is not None:
        streams.console.print(f"HTML page: {html}", highlight=False)
    return 0


def _no_plugins() -> PluginSet | None:
    return None


def _plugin_loader(reference: str | None) -> functools.partial[PluginSet] | None:
    if reference is None:
        return None
    # Loaded here first, so that a wrong reference is one line before any worker starts.
    plugin_registry(load_plugin_set(reference), reference)
    return functools.partial(load_plugins, reference)


def _price_loader(path: str | None) -> functools.partial[PriceTable]:
    from agent_lab.providers.pricing import PriceTable  # noqa: PLC0415

    if path is None:
        return functools.partial(PriceTable)
    try:
        PriceTable.from_file(path)
    except (PriceError, OSError) as err:
        raise UsageError(f"--prices: {err}") from err
    return functools.partial(PriceTable.from_file, path)
