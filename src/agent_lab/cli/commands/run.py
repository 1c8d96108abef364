"""``agent-lab run``: a workload through the chosen policies, into a results database."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from agent_lab.cli import checks
from agent_lab.cli.checks import check_output_file
from agent_lab.cli.examples import EXAMPLES
from agent_lab.cli.loading import (
    POLICY_NAMES,
    load_cases,
    load_plugin_set,
    plugin_registry,
    with_rules_file,
)
from agent_lab.cli.options import (
    DEFAULT_DB,
    add_failure_option,
    add_log_requests_option,
    add_otel_option,
    add_provider_options,
    add_rules_option,
)

if TYPE_CHECKING:
    from agent_lab.cli.loading import Streams
    from agent_lab.cli.options import AddParser

__all__ = ["add_command", "handle"]


def add_command(add_parser: AddParser) -> None:
    """Add ``run`` and its options to the command line."""
    run = add_parser(
        "run",
        help="run a workload through policies",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    run.add_argument("workload", help="a JSONL file, or a built-in workload name (demo)")
    run.add_argument("--plugins", required=True, help="MODULE:ATTRIBUTE of the plugin set")
    add_rules_option(run)
    run.add_argument(
        "--policy",
        action="append",
        choices=POLICY_NAMES,
        help="repeatable; default: all three",
    )
    run.add_argument("--db", default=DEFAULT_DB, help=f"results database (default {DEFAULT_DB})")
    run.add_argument(
        "--concurrency", type=checks.concurrency, default=4, help="trials at once (default 4)"
    )
    run.add_argument(
        "--repeats",
        type=checks.positive_count,
        default=1,
        help="trials per case and policy (default 1)",
    )
    run.add_argument(
        "--limit",
        type=checks.positive_count,
        metavar="N",
        help="a stratified sample of about N cases (default: every case)",
    )
    run.add_argument(
        "--warmup",
        type=checks.count,
        default=2,
        help="warm-up trials per policy, run first, stored, never counted (default 2)",
    )
    run.add_argument(
        "--rate-limit",
        type=checks.positive_rate,
        metavar="PER_S",
        help="trials started per second, at most (default: no limit)",
    )
    run.add_argument(
        "--timeout",
        type=checks.positive_seconds,
        metavar="S",
        help="seconds allowed per trial (default: no limit)",
    )
    run.add_argument("--resume", action="store_true", help="continue the unfinished run in --db")
    add_failure_option(run)
    add_otel_option(run)
    add_log_requests_option(run)
    run.add_argument(
        "--skip-bad-lines", action="store_true", help="skip malformed workload lines (reported)"
    )
    add_provider_options(run, "simulated")
    run.set_defaults(handler=handle)


def handle(options: argparse.Namespace, streams: Streams) -> int:
    """``agent-lab run``: a workload through the chosen policies, into a results database."""
    from agent_lab.cli.providers import build_provider  # noqa: PLC0415 (the OpenAI SDK)
    from agent_lab.cli.trials import execute, failed_trials  # noqa: PLC0415 (numpy)

    db = Path(options.db)
    check_output_file(db, "--db", regular=True)
    plugins = load_plugin_set(options.plugins)
    plugin_registry(plugins, options.plugins)
    workload = load_cases(
        options.workload, skip_bad=options.skip_bad_lines, plugins=plugins, stderr=streams.err
    )
    plugins, plugins_ref = with_rules_file(plugins, options.plugins, options.rules, streams.err)
    built = build_provider(options, workload)
    run_id = execute(
        built,
        workload=workload,
        plugins_ref=plugins_ref,
        plugins=plugins,
        db=db,
        policies=options.policy or POLICY_NAMES,
        settings={
            "repeats": options.repeats,
            "seed": options.seed,
            "limit": options.limit,
            "warmup": options.warmup,
            "concurrency": options.concurrency,
            "rate_limit": options.rate_limit,
            "timeout": options.timeout,
        },
        resume=options.resume,
        progress=not options.no_progress,
        stderr=streams.err,
        otel_file=None if options.otel_file is None else Path(options.otel_file),
    )
    print(
        f"run {run_id} saved in {options.db}; see it with: agent-lab report {options.db}",
        file=streams.out,
    )
    return failed_trials(db, run_id, streams.err, max_failure_rate=options.max_failure_rate)
