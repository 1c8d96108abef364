"""The argparse tree of ``agent-lab``: each command names its handler in ``commands``."""

from __future__ import annotations

import argparse
import importlib.metadata
import typing
from typing import TYPE_CHECKING, Any

from agent_lab.cli import checks, commands, loading
from agent_lab.cli.examples import EXAMPLES
from agent_lab.cli.gate_parser import add_gate
from agent_lab.cli.learn_parser import add_learn
from agent_lab.cli.options import (
    DEFAULT_DB,
    add_failure_option,
    add_log_requests_option,
    add_otel_option,
    add_provider_options,
    add_rules_option,
    add_wide_option,
)
from agent_lab.cli.routing_parser import add_routing
from agent_lab.cli.serve_parser import add_serve
from agent_lab.cli.shadow_parser import add_import, add_shadow

if TYPE_CHECKING:
    from agent_lab.cli.options import AddParser

__all__ = ["OneLineErrors", "build_parser"]


class OneLineErrors(argparse.ArgumentParser):
    """argparse, with a usage error said in one line (exit code 2) instead of usage plus error."""

    def error(self, message: str) -> typing.NoReturn:
        """Print ``agent-lab COMMAND: message`` and where to look, then exit 2."""
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    """The whole command line; ``options.handler`` is the chosen command's function."""
    parser = OneLineErrors(
        prog="agent-lab",
        description="Measure what a deterministic-first kernel saves against an LLM-always agent.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"agent-lab {importlib.metadata.version('agent-lab')}",
    )
    subparsers = parser.add_subparsers(
        dest="command", required=True, metavar="COMMAND", parser_class=OneLineErrors
    )

    def add_parser(*names: str, **options: Any) -> argparse.ArgumentParser:
        command = subparsers.add_parser(*names, **options)
        command.add_argument(
            "-v", "--verbose", action="count", default=0,
            help="say more on stderr: -v run decisions, retries with their wait and provider "
            "failures with the server's message (redacted); -vv every trial too "
            "(default: quiet)",
        )  # fmt: skip
        return command

    for add_commands in (_demo, _run, _sweep, _results, _plugins):
        add_commands(add_parser)
    return parser


def _demo(add_parser: AddParser) -> None:
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
        default=loading.DEMO_SAMPLE,
        metavar="N",
        help=f"a stratified sample of about N cases (default {loading.DEMO_SAMPLE})",
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
    demo.set_defaults(handler=commands.demo)


def _run(add_parser: AddParser) -> None:
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
        choices=loading.POLICY_NAMES,
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
    run.set_defaults(handler=commands.run)


def _sweep(add_parser: AddParser) -> None:
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
    sweep.add_argument(
        "--policy", action="append", choices=loading.POLICY_NAMES, help="default: all three"
    )
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
    sweep.set_defaults(handler=commands.sweep)


def _results(add_parser: AddParser) -> None:
    report = add_parser("report", help="print a run's table and write the HTML report")
    report.add_argument("db", help="the results database (a SQLite file written by run or demo)")
    report.add_argument("--run", help="run id (default: the most recent)")
    report.add_argument("--html", help="write the HTML report here")
    report.add_argument(
        "--baseline", default="llm-always", help="policy to compare against (default llm-always)"
    )
    report.add_argument("--json", action="store_true", help="print the figures as JSON")
    add_wide_option(report)
    report.set_defaults(handler=commands.report)

    compare = add_parser(
        "compare",
        help="each policy against a baseline in one run, or one run against another, by case",
    )
    compare.add_argument("db", help="the results database (a SQLite file written by run or demo)")
    compare.add_argument(
        "runs", nargs="*", metavar="RUN", help="two run ids: the later against the earlier"
    )
    compare.add_argument("--baseline", help="one run: the policy to compare against")
    compare.add_argument("--run", help="one run: its id (default: the most recent)")
    compare.add_argument("--json", action="store_true", help="print the figures as JSON")
    add_wide_option(compare)
    compare.set_defaults(handler=commands.compare)

    add_gate(add_parser)

    runs = add_parser("runs", help="the runs in a results database, oldest first")
    runs.add_argument("db", help="the results database (a SQLite file written by run or demo)")
    runs.add_argument("--json", action="store_true", help="print a JSON array, one object per run")
    runs.set_defaults(handler=commands.runs)

    export = add_parser("export", help="export runs and trials")
    export.add_argument("db", help="the results database (a SQLite file written by run or demo)")
    export.add_argument(
        "--format",
        choices=("parquet", "csv"),
        required=True,
        help="parquet keeps numbers as numbers (cost as a decimal); csv opens in a spreadsheet",
    )
    export.add_argument("--out", required=True, help="folder for runs.<format> and trials.<format>")
    export.add_argument("--run", help="one run's id (default: every run)")
    export.set_defaults(handler=commands.export)


def _plugins(add_parser: AddParser) -> None:
    events = add_parser("events", help="list a plugin set's events and schemas")
    events.add_argument("--plugins", required=True, help="MODULE:ATTRIBUTE or an imported folder")
    events.add_argument(
        "--summary",
        action="store_true",
        help="one line per event (its required fields, then its optional ones), and the count",
    )
    events.set_defaults(handler=commands.events)

    providers = add_parser("providers", help="what providers are available and configured")
    providers.add_argument(
        "--json", action="store_true", help="print a JSON array of {name, description}"
    )
    providers.set_defaults(handler=commands.providers)

    add_import(add_parser)

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
    precision.set_defaults(handler=commands.precision)

    add_routing(add_parser)
    add_shadow(add_parser)
    add_learn(add_parser)
    add_serve(add_parser)
