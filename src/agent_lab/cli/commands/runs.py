"""``agent-lab runs``: the runs in a results database, oldest first."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from rich.table import Table

from agent_lab.errors import StoreError, UsageError
from agent_lab.lab.report.terminal import plain
from agent_lab.lab.results.store import Store

if TYPE_CHECKING:
    import argparse

    from agent_lab.cli.loading import Streams
    from agent_lab.cli.options import AddParser

__all__ = ["add_command", "handle"]


def add_command(add_parser: AddParser) -> None:
    """Add ``runs`` and its options to the command line."""
    runs = add_parser("runs", help="the runs in a results database, oldest first")
    runs.add_argument("db", help="the results database (a SQLite file written by run or demo)")
    runs.add_argument("--json", action="store_true", help="print a JSON array, one object per run")
    runs.set_defaults(handler=handle)


def handle(options: argparse.Namespace, streams: Streams) -> int:
    """``agent-lab runs``: every run in the store, oldest first."""
    from agent_lab.lab.stats.history import run_summary  # noqa: PLC0415 (numpy)

    db = Path(options.db)
    if not db.is_file():
        raise UsageError(f"no database {db}")
    try:
        with Store(db, read_only=True) as store:
            rows = [run_summary(run, store.count(run.run_id)) for run in store.runs()]
    except StoreError as err:
        raise UsageError(str(err)) from err
    if options.json:
        print(json.dumps(rows, indent=2), file=streams.out)
        return 0
    table = Table(title=f"runs in {db}")
    for column in ("run", "started", "state", "workload", "policies", "provider", "trials"):
        table.add_column(column, justify="right" if column == "trials" else "left")
    for row in rows:
        policies = row["policies"]
        names = ", ".join(str(p) for p in policies) if isinstance(policies, list) else ""
        model = f"{row['provider']} {row['model'] or ''}".strip()
        if row["profile"]:
            model += f" ({row['profile']})"
        table.add_row(
            *(plain(str(row[k])) for k in ("run_id", "started_at", "state", "workload")),
            plain(names),
            plain(model),
            str(row["trials"]),
        )
    streams.console.print(table)
    return 0
