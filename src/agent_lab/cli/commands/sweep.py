"""``agent-lab sweep``: the policies at each setting of the simulated model's error rates.

Building a provider (the OpenAI SDK) and the sweep's statistics (numpy) are
imported when the command runs, so that ``agent-lab --help`` stays fast.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from agent_lab.cli import checks
from agent_lab.cli.checks import check_output_file
from agent_lab.cli.examples import EXAMPLES
from agent_lab.cli.loading import POLICY_NAMES, load_cases, load_plugin_set, plugin_registry
from agent_lab.cli.options import DEFAULT_DB, add_provider_options
from agent_lab.cli.output import write_whole
from agent_lab.errors import StoreError, UsageError
from agent_lab.lab.report.terminal import plain
from agent_lab.lab.results.store import Store

if TYPE_CHECKING:
    from agent_lab.cli.loading import Streams
    from agent_lab.cli.options import AddParser
    from agent_lab.lab.results.records import RunRecord
    from agent_lab.lab.stats.sweep import SweepSummary

__all__ = ["add_command", "handle", "read_sweep", "show_sweep"]


def add_command(add_parser: AddParser) -> None:
    """Add ``sweep`` and its options to the command line."""
    sweep = add_parser(
        "sweep",
        help="the policies at each setting of the simulated model's rates; the break-even",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sweep.add_argument("workload", help="a JSONL file, or a built-in workload name (demo)")
    sweep.add_argument("--plugins", required=True, help="MODULE:ATTRIBUTE or an imported folder")
    sweep.add_argument(
        "--vary",
        action="append",
        required=True,
        metavar="KEY=V1,V2,...",
        help="a rate and its values, e.g. wrong_value=0,0.01,0.02,0.05,0.1 (repeatable: a grid; "
        "the break-even is found along the first)",
    )
    sweep.add_argument("--policy", action="append", choices=POLICY_NAMES, help="default: all three")
    sweep.add_argument("--db", default=DEFAULT_DB, help=f"results database (default {DEFAULT_DB})")
    sweep.add_argument(
        "--concurrency", type=checks.concurrency, default=32, help="trials at once (default 32)"
    )
    sweep.add_argument(
        "--repeats", type=checks.positive_count, default=1, help="trials per case (default 1)"
    )
    sweep.add_argument(
        "--limit",
        type=checks.positive_count,
        metavar="N",
        help="a stratified sample of about N cases",
    )
    sweep.add_argument("--warmup", type=checks.count, default=2, help="warm-up trials (default 2)")
    sweep.add_argument("--html", metavar="FILE", help="write the sweep's page here")
    sweep.add_argument("--json", action="store_true", help="print the sweep's figures as JSON")
    add_provider_options(sweep, "simulated", latency=(5.0, 10.0))
    sweep.set_defaults(handler=handle)


def handle(options: argparse.Namespace, streams: Streams) -> int:
    """Run the grid of ``--vary`` settings on the same cases, then print (and draw) the sweep."""
    from agent_lab.cli.providers import build_provider  # noqa: PLC0415 (the OpenAI SDK)
    from agent_lab.cli.trials import execute  # noqa: PLC0415 (numpy)
    from agent_lab.lab.stats.sweep import grid, parse_vary  # noqa: PLC0415 (numpy)

    if options.provider not in ("simulated", "oracle"):
        raise UsageError("a sweep varies a simulated model: use --provider simulated or oracle")
    varied = parse_vary(options.vary or [])
    db = Path(options.db)
    check_output_file(db, "--db", regular=True)
    if options.html:
        check_output_file(Path(options.html), "--html")
    plugins = load_plugin_set(options.plugins)
    plugin_registry(plugins, options.plugins)
    workload = load_cases(options.workload, skip_bad=False, plugins=plugins, stderr=streams.err)
    sweep_id = f"sweep-{uuid.uuid4().hex[:8]}"
    base = list(options.llm_error or [])
    settings = grid(varied)
    for index, setting in enumerate(settings, start=1):
        overrides = [*base, *(f"{key}={value}" for key, value in setting.items())]
        built = build_provider(
            argparse.Namespace(**{**vars(options), "llm_error": overrides}), workload
        )
        shown = ", ".join(f"{k}={v:g}" for k, v in setting.items())
        print(f"[{index}/{len(settings)}] {shown}", file=streams.err)
        execute(
            built,
            workload=workload,
            plugins_ref=options.plugins,
            plugins=plugins,
            db=db,
            policies=options.policy or POLICY_NAMES,
            settings={
                "repeats": options.repeats,
                "seed": options.seed,
                "limit": options.limit,
                "warmup": options.warmup,
                "concurrency": options.concurrency,
                "sweep": {"id": sweep_id, "setting": dict(setting)},
            },
            resume=False,
            progress=not options.no_progress,
            stderr=streams.err,
        )
    summary = read_sweep(db, sweep_id)
    show_sweep(summary, streams, as_json=options.json, html=options.html)
    return 0


def _point(run: RunRecord) -> tuple[str, dict[str, float]] | None:
    """A run's sweep id and rates, when it is a point of a sweep."""
    found: Any = run.config.get("sweep")
    if not isinstance(found, dict) or "id" not in found:
        return None
    info = cast("dict[str, Any]", found)
    setting = cast("dict[str, Any]", info.get("setting") or {})
    return str(info["id"]), {str(k): float(v) for k, v in setting.items()}


def read_sweep(db: Path, sweep_id: str | None) -> SweepSummary:
    """A sweep's summary from the store (the most recent sweep when ``sweep_id`` is None)."""
    from agent_lab.lab.stats.sweep import summarize_sweep  # noqa: PLC0415 (numpy)

    try:
        with Store(db, read_only=True) as store:
            runs = [(run, point) for run in store.runs() if (point := _point(run)) is not None]
            ids = [point[0] for _, point in runs]
            if not ids:
                raise UsageError(f"{db} holds no sweep")
            wanted = sweep_id or ids[-1]
            if wanted not in ids:
                known = ", ".join(sorted(set(ids)))
                raise UsageError(f"{db} has no sweep {wanted!r}; it has {known}")
            points = [
                (setting, run.run_id, store.trials(run.run_id))
                for run, (point_id, setting) in runs
                if point_id == wanted
            ]
    except StoreError as err:
        raise UsageError(str(err)) from err
    keys = list(points[0][0])
    varied = [(key, sorted({p[0][key] for p in points})) for key in keys]
    providers = {run.provider for run, (point_id, _) in runs if point_id == wanted}
    summary = summarize_sweep(wanted, varied, points)
    return dataclasses.replace(
        summary, provider="oracle" if providers == {"oracle"} else "simulated"
    )


def show_sweep(summary: SweepSummary, streams: Streams, *, as_json: bool, html: str | None) -> None:
    """Print the sweep's table and break-evens (or its JSON); write its HTML page."""
    if as_json:
        print(json.dumps(summary.as_json(), indent=2, sort_keys=True), file=streams.out)
    else:
        from rich.table import Table  # noqa: PLC0415

        key = summary.varied[0][0]
        title = plain(f"sweep {summary.sweep_id}: accuracy and LLM calls by {key}")
        table = Table(title=title, title_justify="left")
        columns = [
            *(k for k, _ in summary.varied),
            *(f"{p} accuracy" for p in summary.policies),
            *(f"{p} LLM calls" for p in summary.policies),
        ]
        for column in columns:
            table.add_column(column, justify="right")
        for point in summary.points:
            table.add_row(
                *(f"{point.setting[k]:g}" for k, _ in summary.varied),
                *(plain(point.accuracy[p].format(1, 100, "%")) for p in summary.policies),
                *(plain(point.llm_calls[p].format(2)) for p in summary.policies),
            )
        streams.console.print(table)
        print(f"always-decline: {summary.decline.format(1, 100, '%')}", file=streams.out)
        for even in summary.break_evens:
            print(even.sentence(), file=streams.out)
        if summary.truth:
            print(f"Accuracy here: {summary.truth}.", file=streams.out)
    if html:
        from agent_lab.lab.report.render import render_sweep_html  # noqa: PLC0415 (matplotlib)

        label = "ORACLE (the answer key)" if summary.provider == "oracle" else "SIMULATED"
        label += f"; {summary.truth}" if summary.truth else ""
        written = write_whole(
            Path(html), "--html", lambda path: render_sweep_html(summary, path, label=label)
        )
        print(f"report: {written.resolve()}", file=streams.err if as_json else streams.out)
