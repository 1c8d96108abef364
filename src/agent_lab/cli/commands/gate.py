"""``agent-lab gate``: exit 1 when a run moved past a limit against its baseline run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from agent_lab.cli.checks import fraction, non_negative, signed_fraction
from agent_lab.errors import ComparisonError, UsageError
from agent_lab.lab.report.terminal import printable

if TYPE_CHECKING:
    import argparse

    from agent_lab.cli.loading import Streams
    from agent_lab.cli.options import AddParser

__all__ = ["add_command", "handle"]


def add_command(add_parser: AddParser) -> None:
    """Add ``gate``, its limits and what failing means, to the command line."""
    gate = add_parser(
        "gate",
        help="exit 1 when a run sends more to the LLM, costs more or answers worse than a "
        "baseline run",
        description="Compares --run with --baseline on the cases they share, paired by case, "
        "policy by policy. A check fails only when its whole 95% interval lies past its "
        "limit: a change the noise could explain passes, and says so.",
    )
    gate.add_argument("db", help="the results database holding both runs")
    gate.add_argument("--run", required=True, help="the run to check (a pull request's)")
    gate.add_argument("--baseline", required=True, help="the run to check it against (main's)")
    gate.add_argument(
        "--policy", action="append", help="a policy to check (repeatable; default every shared one)"
    )
    gate.add_argument(
        "--max-llm-share-increase",
        type=fraction,
        default=0.02,
        metavar="SHARE",
        help="fail when the share of trials calling the LLM grows by more, wholly "
        "(default 0.02: 2 points)",
    )
    gate.add_argument(
        "--max-cost-increase",
        type=non_negative,
        default=0.05,
        metavar="FRACTION",
        help="fail when the mean cost per trial grows by more, relatively, wholly (default 0.05: "
        "5%%; an unknown cost is not comparable and never fails)",
    )
    gate.add_argument(
        "--min-accuracy-change",
        type=signed_fraction,
        default=-0.01,
        metavar="SHARE",
        help="fail when accuracy changes by less, wholly (default -0.01: 1 point worse)",
    )
    gate.add_argument("--json", action="store_true", help="print the checks as JSON")
    gate.set_defaults(handler=handle)


def handle(options: argparse.Namespace, streams: Streams) -> int:
    """Every check of ``--run`` against ``--baseline``; 1 when one fails, else 0."""
    from agent_lab.cli.results import read_run  # noqa: PLC0415 (numpy)
    from agent_lab.lab.stats.gate import Limits, gate  # noqa: PLC0415 (numpy)

    db = Path(options.db)
    baseline_run, before = read_run(db, options.baseline)
    candidate_run, after = read_run(db, options.run)
    limits = Limits(
        max_llm_share_increase=options.max_llm_share_increase,
        max_cost_increase=options.max_cost_increase,
        min_accuracy_change=options.min_accuracy_change,
    )
    try:
        checks = gate(before, after, limits, policies=options.policy or ())
    except ComparisonError as err:
        raise UsageError(f"runs {options.run} and {options.baseline}: {err}") from err
    failed = [check for check in checks if check.verdict == "fail"]
    if options.json:
        body = {
            "run": candidate_run.run_id,
            "baseline": baseline_run.run_id,
            "passed": not failed,
            "checks": [check.as_json() for check in checks],
        }
        print(json.dumps(body, indent=2), file=streams.out)
    else:
        print(
            f"gate: run {candidate_run.run_id} against run {baseline_run.run_id}, "
            "paired by case (a check fails only when its whole 95% interval is past the limit)",
            file=streams.out,
        )
        for check in checks:
            print(printable(("x " if check.verdict == "fail" else "  ") + check.sentence()),
                  file=streams.out)  # fmt: skip
        verdict = f"FAILED: {len(failed)} of {len(checks)} checks" if failed else "passed"
        print(f"gate {verdict}", file=streams.out)
    return 1 if failed else 0
