"""``agent-lab compare``: each policy against a baseline in one run, or two runs, paired by case."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from agent_lab.cli.options import add_wide_option
from agent_lab.errors import ComparisonError, UsageError

if TYPE_CHECKING:
    import argparse

    from agent_lab.cli.loading import Streams
    from agent_lab.cli.options import AddParser

__all__ = ["add_command", "handle"]


def add_command(add_parser: AddParser) -> None:
    """Add ``compare`` and its options to the command line."""
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
    compare.set_defaults(handler=handle)


def handle(options: argparse.Namespace, streams: Streams) -> int:
    """``agent-lab compare``: policies against a baseline, or two runs, paired by case."""
    from agent_lab.cli.results import write_report  # noqa: PLC0415 (numpy)

    if options.runs:
        if len(options.runs) != 2 or options.baseline or options.run:
            raise UsageError("compare DB RUN_A RUN_B takes two run ids, and no --baseline or --run")
        return _two_runs(options, streams)
    if not options.baseline:
        raise UsageError("compare needs --baseline POLICY, or two run ids")

    write_report(
        Path(options.db),
        options.run,
        None,
        options.baseline,
        streams.console,
        baseline_required=True,
        as_json=options.json,
        wide=streams.wide,
    )
    return 0


def _two_runs(options: argparse.Namespace, streams: Streams) -> int:
    """``agent-lab compare DB RUN_A RUN_B``: the later run against the earlier, by case."""
    from agent_lab.cli.results import read_run  # noqa: PLC0415 (numpy)
    from agent_lab.lab.stats.history import compare_runs  # noqa: PLC0415 (numpy)

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
