"""``agent-lab shadow``'s options: the logs, how to read them, and what to print."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from agent_lab.cli import checks, commands, shadowing
from agent_lab.logs.record import LogFormat

if TYPE_CHECKING:
    from collections.abc import Callable

    AddParser = Callable[..., argparse.ArgumentParser]

__all__ = ["add_import", "add_log_reading", "add_shadow"]


def add_log_reading(command: argparse.ArgumentParser) -> None:
    """The options every command that reads logs shares."""
    command.add_argument(
        "logs", nargs="+", help="log files: chat, pairs or otel JSON lines, plain or gzipped"
    )
    command.add_argument(
        "--format",
        choices=[str(f) for f in LogFormat],
        help="read every file in this format (default: detected per file)",
    )
    command.add_argument(
        "--plugins",
        help="MODULE:ATTRIBUTE or a folder: your own resolvers and routes for the tools they "
        "name (default: the schema-driven resolver for every tool)",
    )
    command.add_argument(
        "--read",
        choices=("last", "user_turns"),
        default="last",
        help="what of a conversation the resolvers read: its last user message, or every "
        "user message so far (default last)",
    )
    command.add_argument(
        "--skip-bad-lines",
        action="store_true",
        help="count a line that cannot be used, by reason, and go on (default: stop at it)",
    )


def add_shadow(add_parser: AddParser) -> None:
    """Add ``shadow`` to the command line."""
    shadow = add_parser(
        "shadow",
        help="replay your agent's logs: what deterministic-first would have saved on them",
    )
    add_log_reading(shadow)
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
    shadow.add_argument(
        "--workers", type=checks.positive_count, default=1, help="processes (default 1)"
    )
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
    shadow.set_defaults(handler=shadowing.shadow_command)


def add_import(add_parser: AddParser) -> None:
    """Add ``import sgd|bfcl FOLDER`` and ``import logs LOGS...`` to the command line."""
    importer = add_parser(
        "import", help="convert a public benchmark, or your own logs, into events and workloads"
    )
    sources = importer.add_subparsers(
        dest="source",
        required=True,
        metavar="SOURCE",
        parser_class=type(importer),
        help="sgd or bfcl (a benchmark's folder), or logs (your agent's log files)",
    )

    def add_source(name: str, **options: Any) -> argparse.ArgumentParser:
        source = sources.add_parser(name, **options)
        # Also after the source (`import sgd dev -v`); not given there, import's own stands.
        source.add_argument(
            "-v", "--verbose", action="count", default=argparse.SUPPRESS, help="say more"
        )
        return source

    for source, folder in (
        ("sgd", "the split's folder, e.g. dev/"),
        ("bfcl", "the data folder"),
    ):
        benchmark = add_source(source, help=f"the {source.upper()} benchmark")
        benchmark.add_argument("folder", help=folder)
        benchmark.add_argument("--out", required=True, help="write events.json and workloads here")
        benchmark.set_defaults(handler=commands.import_benchmark)
    logs = add_source(
        "logs",
        help="your agent's logs: each logged call a case whose truth is what the model did",
    )
    add_log_reading(logs)
    logs.add_argument("--out", required=True, help="write events.json and workload-logs.jsonl here")
    logs.set_defaults(handler=shadowing.import_logs_command)
