"""``agent-lab demo``: the demo workload under the three policies, then the report."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from agent_lab.cli import checks
from agent_lab.cli.checks import check_output_folder
from agent_lab.cli.examples import EXAMPLES
from agent_lab.cli.loading import (
    DEMO_PLUGINS,
    DEMO_SAMPLE,
    POLICY_NAMES,
    load_cases,
    load_plugin_set,
)
from agent_lab.cli.options import (
    add_failure_option,
    add_log_requests_option,
    add_otel_option,
    add_provider_options,
    add_wide_option,
)
from agent_lab.lab.report.terminal import printable

if TYPE_CHECKING:
    from agent_lab.cli.loading import Streams
    from agent_lab.cli.options import AddParser

__all__ = ["add_command", "handle"]


def add_command(add_parser: AddParser) -> None:
    """Add ``demo`` and its options to the command line."""
    demo = add_parser(
        "demo",
        help="run the demo workload and write the report",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    size = demo.add_mutually_exclusive_group()
    size.add_argument(
        "--full", action="store_true", help="every case, not a stratified sample of about 100"
    )
    size.add_argument(
        "--limit",
        type=checks.positive_count,
        default=DEMO_SAMPLE,
        metavar="N",
        help=f"a stratified sample of about N cases (default {DEMO_SAMPLE})",
    )
    demo.add_argument(
        "--out",
        default="agent-lab-demo",
        help="folder for the database and the report (default agent-lab-demo)",
    )
    demo.add_argument(
        "--concurrency",
        type=checks.concurrency,
        help="trials at once (default 1 for local, 8 otherwise)",
    )
    add_provider_options(demo, "local")
    add_failure_option(demo)
    add_otel_option(demo)
    add_log_requests_option(demo)
    add_wide_option(demo)
    demo.set_defaults(handler=handle)


def handle(options: argparse.Namespace, streams: Streams) -> int:
    """``agent-lab demo``: the demo workload under the three policies, then the report."""
    from agent_lab.cli.providers import build_provider  # noqa: PLC0415 (the OpenAI SDK)
    from agent_lab.cli.results import write_report  # noqa: PLC0415 (numpy)
    from agent_lab.cli.trials import execute, failed_trials  # noqa: PLC0415 (numpy)

    folder = Path(options.out)
    check_output_folder(folder, "--out")
    plugins = load_plugin_set(DEMO_PLUGINS)
    workload = load_cases("demo", skip_bad=False, plugins=plugins, stderr=streams.err)
    built = build_provider(options, workload)
    db = folder / "results.sqlite"
    limit: int | None = None if options.full else options.limit
    concurrency = options.concurrency or (1 if options.provider == "local" else 8)
    print(
        printable(
            f"agent-lab demo: {'all' if limit is None else f'about {limit}'} of "
            f"{len(workload.cases)} cases, 3 policies, model {built.model} ({options.provider})"
        ),
        file=streams.out,
    )
    run_id = execute(
        built,
        workload=workload,
        plugins_ref=DEMO_PLUGINS,
        plugins=plugins,
        db=db,
        policies=POLICY_NAMES,
        settings={"limit": limit, "concurrency": concurrency, "seed": options.seed, "warmup": 2},
        resume=False,
        progress=not options.no_progress,
        stderr=streams.err,
        otel_file=None if options.otel_file is None else Path(options.otel_file),
    )
    written = write_report(
        db, run_id, str(folder / "report.html"), "llm-always", streams.console, wide=streams.wide
    )
    print(f"report: {written.resolve() if written else '-'}", file=streams.out)
    print(f"results: {db.resolve()} (agent-lab report {db})", file=streams.out)
    return failed_trials(db, run_id, streams.err, max_failure_rate=options.max_failure_rate)
