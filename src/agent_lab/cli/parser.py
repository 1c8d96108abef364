"""The argparse tree of ``agent-lab``: each command names its handler in ``commands``."""

from __future__ import annotations

import argparse
import importlib.metadata
import typing
from typing import TYPE_CHECKING, Any

from agent_lab.cli import checks, commands, loading
from agent_lab.cli.gate_parser import add_gate
from agent_lab.cli.learn_parser import add_learn
from agent_lab.cli.routing_parser import add_routing
from agent_lab.cli.serve_parser import add_serve
from agent_lab.cli.shadow_parser import add_import, add_shadow

if TYPE_CHECKING:
    from collections.abc import Callable

    AddParser = Callable[..., argparse.ArgumentParser]

__all__ = ["DEFAULT_DB", "EXAMPLES", "PROVIDERS", "OneLineErrors", "build_parser"]

EXAMPLES = """examples:
  agent-lab demo                             # ~100 cases, 3 policies, the local model
  agent-lab demo --full --provider simulated # every case, a simulated model
  agent-lab run demo --plugins agent_lab.demo:plugins --provider openai --model gpt-4o-mini
  agent-lab run cases.jsonl --plugins my_pkg.plugins:plugins --policy deterministic-first \\
      --repeats 3
  agent-lab run demo --plugins agent_lab.demo:plugins --resume
  agent-lab report agent-lab.sqlite --html report.html
  agent-lab compare agent-lab.sqlite --baseline llm-always
  agent-lab export agent-lab.sqlite --format parquet --out exported/
  agent-lab events --plugins agent_lab.demo:plugins
  agent-lab providers
  agent-lab import sgd sgd/dev --out sgd-dev  # events + workloads from a public benchmark
  agent-lab import bfcl bfcl --out bfcl-lab
  agent-lab precision sgd-dev/workload-payload.jsonl --plugins sgd-dev

exit codes: 0 ok, 1 a failed run, 2 bad usage (bad workload, plugins, database or options)
"""
DEFAULT_DB = "agent-lab.sqlite"
PROVIDERS = ("local", "openai", "simulated", "oracle", "replay")


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


def _provider_options(
    command: argparse.ArgumentParser,
    default: str,
    *,
    latency: tuple[float, float] = (600.0, 1500.0),
) -> None:
    command.add_argument(
        "--provider",
        type=checks.provider_name,
        default=default,
        metavar="|".join(PROVIDERS) + "|MODULE:ATTR",
        help=f"the LLM (default {default}); simulated answers only from what it is sent, "
        "oracle reads the answer key (a ceiling, not a model); MODULE:ATTR is a provider "
        "of your own (an instance, or a factory taking no argument)",
    )
    command.add_argument("--model", help="model name (local: smollm2 or gemma3; openai: any)")
    command.add_argument(
        "--base-url",
        metavar="URL",
        help="openai: the server's base URL, e.g. http://127.0.0.1:8000/v1 "
        "(default $OPENAI_BASE_URL, else OpenAI's)",
    )
    command.add_argument(
        "--api-key-env",
        metavar="NAME",
        default="OPENAI_API_KEY",
        help="openai: the environment variable that holds the key (default OPENAI_API_KEY)",
    )
    command.add_argument(
        "--structured-output",
        choices=("auto", "json_schema", "json_object", "tools", "prompted"),
        default="auto",
        help="openai: how the fallback asks for JSON that follows a schema; auto tries "
        "json_schema, then json_object (llama.cpp's server), tools, prompted, moving on "
        "when the server refuses or ignores one, and records the one used (default auto)",
    )
    command.add_argument(
        "--prices",
        metavar="FILE",
        help='openai/simulated: prices per model, {"MODEL": {"input_per_mtok": "0.15", '
        '"output_per_mtok": "0.6"}}, before genai-prices\' own',
    )
    command.add_argument("--cassette", help="replay: the cassette to answer from")
    command.add_argument(
        "--record", metavar="FILE", help="record every request and reply to this cassette"
    )
    command.add_argument(
        "--simulated-latency",
        metavar="MEDIAN_MS,P95_MS",
        type=checks.latency_pair,
        default=latency,
        help=f"simulated/oracle: the latency distribution (default {latency[0]:g},{latency[1]:g})",
    )
    command.add_argument(
        "--llm-profile",
        metavar="NAME|FILE",
        default="ideal",
        help="simulated/oracle: the error profile, built in (ideal, careful, typical, sloppy) "
        "or a JSON file; printed beside every figure (default ideal: no errors)",
    )
    command.add_argument(
        "--llm-error",
        action="append",
        metavar="KEY=RATE",
        help="simulated/oracle: override one rate of the profile, e.g. wrong_value=0.05 "
        "(repeatable)",
    )
    command.add_argument(
        "--seed",
        type=checks.count,
        default=0,
        help="seeds sampling and the simulated model (default 0)",
    )
    command.add_argument("--no-progress", action="store_true", help="no progress bar")


def _failure_option(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--max-failure-rate",
        type=checks.fraction,
        default=0.05,
        metavar="RATE",
        help="exit 1 when more than this share of the trials that asked the LLM failed "
        "for the provider's reasons (default 0.05)",
    )


def _otel_option(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--otel-file",
        metavar="FILE",
        help="write OpenTelemetry spans (one per trial's dispatch, one per LLM request, "
        "GenAI conventions) to FILE as OTLP/JSON lines; needs the otel extra. "
        "OTEL_EXPORTER_OTLP_ENDPOINT sends them to a collector too (default: no spans)",
    )


def _log_requests_option(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--log-requests",
        metavar="FILE",
        help="openai: append every HTTP request sent (retries included) and the response or "
        "error it got to FILE, one JSON line each in the pairs log format, keys redacted; "
        "gzip-compressed when FILE ends in .gz (default: not logged)",
    )


def _wide_option(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--wide",
        action="store_true",
        help="every column, the HTML report's too, however wide (default: the tables fit "
        "the terminal, leaving out columns by priority and saying which)",
    )


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
    _provider_options(demo, "local")
    _failure_option(demo)
    _otel_option(demo)
    _log_requests_option(demo)
    _wide_option(demo)
    demo.set_defaults(handler=commands.demo)


def _rules_option(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--rules",
        help="a rules file agent-lab learn wrote: applied after each event's own resolver",
    )


def _run(add_parser: AddParser) -> None:
    run = add_parser(
        "run",
        help="run a workload through policies",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    run.add_argument("workload", help="a JSONL file, or a built-in workload name (demo)")
    run.add_argument("--plugins", required=True, help="MODULE:ATTRIBUTE of the plugin set")
    _rules_option(run)
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
    _failure_option(run)
    _otel_option(run)
    _log_requests_option(run)
    run.add_argument(
        "--skip-bad-lines", action="store_true", help="skip malformed workload lines (reported)"
    )
    _provider_options(run, "simulated")
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
    _provider_options(sweep, "simulated", latency=(5.0, 10.0))
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
    _wide_option(report)
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
    _wide_option(compare)
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
    _rules_option(precision)
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
