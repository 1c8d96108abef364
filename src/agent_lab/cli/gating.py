"""``agent-lab gate``: exit 1 when a run moved past a limit against its baseline run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from agent_lab.cli.results import read_run
from agent_lab.errors import ComparisonError, UsageError
from agent_lab.lab.report.terminal import printable
from agent_lab.lab.stats.gate import Limits, gate

if TYPE_CHECKING:
    import argparse

    from agent_lab.cli.loading import Streams

__all__ = ["run_gate"]


def run_gate(options: argparse.Namespace, streams: Streams) -> int:
    """Every check of ``--run`` against ``--baseline``; 1 when one fails, else 0."""
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
