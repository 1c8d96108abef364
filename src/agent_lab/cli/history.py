"""``agent-lab runs`` and two-run ``compare``: a store's runs over time."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from rich.table import Table

from agent_lab.cli.results import read_run
from agent_lab.errors import ComparisonError, StoreError, UsageError
from agent_lab.lab.report.terminal import plain
from agent_lab.lab.results.store import Store
from agent_lab.lab.stats.history import compare_runs, run_summary

if TYPE_CHECKING:
    import argparse

    from agent_lab.cli.loading import Streams

__all__ = ["compare_two_runs", "list_runs"]


def list_runs(options: argparse.Namespace, streams: Streams) -> int:
    """``agent-lab runs``: every run in the store, oldest first."""
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


def compare_two_runs(options: argparse.Namespace, streams: Streams) -> int:
    """``agent-lab compare DB RUN_A RUN_B``: the later run against the earlier, by case."""
    db = Path(options.db)
    first, second = options.runs
    before_run, before = read_run(db, first)
    after_run, after = read_run(db, second)
    try:
        changes = compare_runs(before, after)
    except ComparisonError as err:
        raise UsageError(f"runs {first} and {second}: {err}") from err
    if options.json:
        figures = [
            {
                "policy": c.comparison.policy,
                "metric": c.comparison.metric,
                "ratio": {
                    "value": c.comparison.ratio.value,
                    "low": c.comparison.ratio.low,
                    "high": c.comparison.ratio.high,
                },
                "before_mean": c.comparison.baseline_mean,
                "after_mean": c.comparison.policy_mean,
                "cases": c.cases,
                "significant": c.significant,
            }
            for c in changes
        ]
        body = {"before": before_run.run_id, "after": after_run.run_id, "changes": figures}
        print(json.dumps(body, indent=2), file=streams.out)
        return 0
    out = streams.out
    print(f"run {after_run.run_id} against run {before_run.run_id}, paired by case:", file=out)
    for change in changes:
        print(("* " if change.significant else "  ") + change.sentence(), file=out)
    return 0
