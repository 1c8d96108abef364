"""``agent-lab report``: a run's tables, and the HTML report with ``--html``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from agent_lab.cli.options import add_wide_option

if TYPE_CHECKING:
    import argparse

    from agent_lab.cli.loading import Streams
    from agent_lab.cli.options import AddParser

__all__ = ["add_command", "handle"]


def add_command(add_parser: AddParser) -> None:
    """Add ``report`` and its options to the command line."""
    report = add_parser("report", help="print a run's table and write the HTML report")
    report.add_argument("db", help="the results database (a SQLite file written by run or demo)")
    report.add_argument("--run", help="run id (default: the most recent)")
    report.add_argument("--html", help="write the HTML report here")
    report.add_argument(
        "--baseline", default="llm-always", help="policy to compare against (default llm-always)"
    )
    report.add_argument("--json", action="store_true", help="print the figures as JSON")
    add_wide_option(report)
    report.set_defaults(handler=handle)


def handle(options: argparse.Namespace, streams: Streams) -> int:
    """``agent-lab report``: a run's tables, and the HTML report with ``--html``."""
    from agent_lab.cli.results import write_report  # noqa: PLC0415 (numpy)

    written = write_report(
        Path(options.db),
        options.run,
        options.html,
        options.baseline,
        streams.console,
        as_json=options.json,
        wide=streams.wide,
    )
    if written is not None:
        print(f"report: {written.resolve()}", file=streams.err if options.json else streams.out)
    return 0
