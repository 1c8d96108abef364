"""``agent-lab shadow``: an agent's own logs replayed, and what deterministic-first saves.

The replay, the price table (genai-prices: 0.4 s) and the page are imported
when the command runs, so that ``agent-lab --help`` stays fast.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import TYPE_CHECKING

from agent_lab.cli.checks import check_output_file, check_output_folder, check_outputs_apart
from agent_lab.cli.loading import load_plugin_set, plugin_registry
from agent_lab.cli.output import write_whole
from agent_lab.errors import PriceError, UsageError
from agent_lab.lab.run.plugin_sets import load_plugins
from agent_lab.logs.record import LogFormat

if TYPE_CHECKING:
    import argparse

    from agent_lab.agents.plugins import PluginSet
    from agent_lab.cli.loading import Streams
    from agent_lab.lab.shadow.run import ShadowSettings
    from agent_lab.providers.pricing import PriceTable

__all__ = ["import_logs_command", "settings_of", "shadow_command"]


def _no_plugins() -> PluginSet | None:
    return None


def settings_of(options: argparse.Namespace, *, workers: int = 1) -> ShadowSettings:
    """How to read and replay the logs, from the options every log command shares."""
    from agent_lab.lab.shadow.run import ShadowSettings  # noqa: PLC0415

    rules = getattr(options, "rules", None)
    if rules is not None:
        from agent_lab.resolvers.learned import load_rules  # noqa: PLC0415

        rules = load_rules(rules)
    return ShadowSettings(
        format=None if options.format is None else LogFormat(options.format),
        on_error="skip" if options.skip_bad_lines else "fail",
        read=options.read,
        workers=workers,
        rules=rules,
    )


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


def _log_paths(logs: list[str]) -> list[Path]:
    paths = [Path(name) for name in logs]
    for path in paths:
        if not path.exists():
            raise UsageError(f"{path}: no such log file")
        if path.is_dir():
            raise UsageError(f"{path} is a folder: name the log files in it")
    return paths


def shadow_command(options: argparse.Namespace, streams: Streams) -> int:
    """``agent-lab shadow LOGS...``: the figures on the terminal, as JSON, or as a page."""
    from agent_lab.lab.shadow.run import shadow  # noqa: PLC0415
    from agent_lab.lab.shadow.tables import headline, tool_table  # noqa: PLC0415

    paths = _log_paths(options.logs)
    html = Path(options.html) if options.html else None
    if html is not None:
        check_output_file(html, "--html")
        check_outputs_apart({"--html": html}, paths)
    plugins = _plugin_loader(options.plugins)
    figures = shadow(
        paths,
        settings_of(options, workers=options.workers),
        load_plugins=plugins if plugins is not None else _no_plugins,
        load_prices=_price_loader(options.prices),
    )
    document = figures.as_json(min_agreement=options.min_agreement, redact=options.redact)
    if html is not None:
        from agent_lab.lab.shadow.page import render_page  # noqa: PLC0415  (jinja2 on demand)

        lines = headline(figures, min_agreement=options.min_agreement)
        write_whole(
            html,
            "--html",
            lambda target: render_page(target, document=document, headline=lines, logs=paths),
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


def import_logs_command(options: argparse.Namespace, streams: Streams) -> int:
    """``agent-lab import logs LOGS... --out DIR``: the logs as a workload and plugin folder."""
    from agent_lab.lab.shadow.importing import WORKLOAD, import_logs  # noqa: PLC0415

    paths = _log_paths(options.logs)
    target = Path(options.out)
    check_output_folder(target, "--out")
    report = import_logs(paths, settings_of(options), target)
    out = streams.out
    skipped = sum(report.skipped.values())
    print(
        f"{report.cases} cases from {report.requests} logged requests "
        f"({report.follow_ups} follow-ups after a tool's result, {skipped} lines skipped); "
        f"{report.events} events",
        file=out,
    )
    if report.conflicting_tools:
        print(
            "tools offered with different schemas (the first kept): "
            + ", ".join(report.conflicting_tools),
            file=out,
        )
    print(f"what was converted or skipped, and why: {target / 'import-report.json'}", file=out)
    workload = target / f"workload-{WORKLOAD}.jsonl"
    print(f"next: agent-lab precision {workload} --plugins {target}", file=out)
    return 0
