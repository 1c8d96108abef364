"""``agent-lab export``: runs and trials as Parquet or CSV files."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from agent_lab.cli.checks import check_output_folder
from agent_lab.errors import StoreError, UsageError
from agent_lab.lab.results.store import Store

if TYPE_CHECKING:
    import argparse

    from agent_lab.cli.loading import Streams
    from agent_lab.cli.options import AddParser

__all__ = ["add_command", "handle"]


def add_command(add_parser: AddParser) -> None:
    """Add ``export`` and its options to the command line."""
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
    export.set_defaults(handler=handle)


def handle(options: argparse.Namespace, streams: Streams) -> int:
    """``agent-lab export``: runs and trials as Parquet or CSV files."""
    from agent_lab.cli.results import read_run  # noqa: PLC0415 (numpy)

    folder = Path(options.out)
    check_output_folder(folder, "--out")
    read_run(Path(options.db), options.run)  # an unknown run id is a usage error
    try:
        with Store(options.db, read_only=True) as store:
            paths = store.export(options.run, folder, fmt=options.format)
    except StoreError as problem:
        raise UsageError(str(problem)) from problem
    except OSError as problem:
        raise UsageError(f"--out {folder}: {problem.strerror or problem}") from problem
    for path in paths:
        print(f"wrote {path}", file=streams.out)
    return 0
