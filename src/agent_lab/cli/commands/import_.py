"""``agent-lab import``: a public benchmark (SGD, BFCL), or your own logs, as events and workloads.

Named with PEP 8's trailing underscore: ``import`` is a keyword.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_lab.cli.checks import check_output_folder
from agent_lab.cli.log_reading import (
    add_engine_options,
    add_log_options,
    log_sources,
    settings_of,
)
from agent_lab.errors import DatasetImportError, UsageError
from agent_lab.lab.importers.bfcl import import_bfcl
from agent_lab.lab.importers.sgd import import_sgd
from agent_lab.lab.report.terminal import printable

if TYPE_CHECKING:
    from agent_lab.cli.loading import Streams
    from agent_lab.cli.options import AddParser

__all__ = ["add_command", "handle_benchmark", "handle_logs"]


def add_command(add_parser: AddParser) -> None:
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
        benchmark.set_defaults(handler=handle_benchmark)
    logs = add_source(
        "logs",
        help="your agent's logs: each logged call a case whose truth is what the model did",
    )
    add_log_options(logs)
    add_engine_options(logs, local_workers=False)
    logs.add_argument("--out", required=True, help="write events.json and workload-logs.jsonl here")
    logs.set_defaults(handler=handle_logs)


def handle_benchmark(options: argparse.Namespace, streams: Streams) -> int:
    """``agent-lab import sgd|bfcl FOLDER``: the benchmark as a plugin folder and workloads."""
    folder, target = Path(options.folder), Path(options.out)
    if not folder.is_dir():
        raise UsageError(f"no folder {folder}")
    check_output_folder(target, "--out")
    importer = import_sgd if options.source == "sgd" else import_bfcl
    try:
        summary = importer(folder, target)
    except DatasetImportError as problem:
        raise UsageError(str(problem)) from problem
    out = streams.out
    print(printable(summary.summary()), file=out)
    print(f"what was converted or skipped, and why: {target / 'import-report.json'}", file=out)
    print(f"next: agent-lab run {target / summary.first_workload} --plugins {target}", file=out)
    return 0


def handle_logs(options: argparse.Namespace, streams: Streams) -> int:
    """``agent-lab import logs LOGS... --out DIR``: the logs as a workload and plugin folder."""
    from agent_lab.lab.shadow.importing import WORKLOAD, import_logs  # noqa: PLC0415

    logs = log_sources(options, local_workers=False)
    target = Path(options.out)
    check_output_folder(target, "--out")
    report = import_logs(logs.names, settings_of(options), target, engine=logs.engine)
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
