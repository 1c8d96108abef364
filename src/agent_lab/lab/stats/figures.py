"""A run's figures as JSON data: what ``agent-lab report --json`` prints, table for table.

Every number the terminal and HTML reports print is here, with its interval
and the number of cases it rests on, so that scripts (and a test that
recomputes them from the store's rows) read the same figures people do.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

    from agent_lab.lab.results.records import RunRecord
    from agent_lab.lab.stats.metrics import Comparison, Estimate, PolicyMetrics, Reference
    from agent_lab.strict_json import JSONObject, JSONValue

__all__ = ["report_json"]

_ESTIMATES = (
    "accuracy",
    "accuracy_exact",
    "accuracy_in_domain",
    "accuracy_out_of_domain",
    "field_precision",
    "field_recall",
    "llm_calls_per_trial",
    "fallback_rate",
    "tokens_per_trial",
    "cost_per_trial",
    "cost_per_correct",
    "latency_p50_ms",
    "latency_p90_ms",
    "latency_p99_ms",
    "latency_mean_ms",
)


def estimate_json(estimate: Estimate) -> JSONObject:
    """``{"value", "low", "high", "n"}``; ``value`` is ``null`` when unknown (never 0 for it)."""
    return {"value": estimate.value, "low": estimate.low, "high": estimate.high, "n": estimate.n}


def _policy(metrics: PolicyMetrics) -> JSONObject:
    figures: JSONObject = {
        "policy": metrics.policy,
        "trials": metrics.trials,
        "cases": metrics.cases,
        "status_counts": {str(k): v for k, v in metrics.status_counts.items()},
        "total_cost": None if metrics.total_cost is None else str(metrics.total_cost),
        "cost_known_trials": metrics.cost_known,
        "failed_llm_calls": metrics.failed_calls,
    }
    for name in _ESTIMATES:
        figures[name] = estimate_json(getattr(metrics, name))
    return figures


def report_json(
    run: RunRecord,
    metrics: Sequence[PolicyMetrics],
    *,
    provenance: str,
    references: Sequence[Reference] = (),
    comparisons: Sequence[Comparison] = (),
) -> JSONObject:
    """The whole report of one run as JSON data."""
    run_fields: dict[str, JSONValue] = {
        key: value for key, value in dataclasses.asdict(run).items() if key not in ("environment",)
    }
    # What the run found out about its provider (the mode --structured-output auto chose).
    for key in ("structured_output_used", "structured_output_note"):
        if key in run.environment:
            run_fields[key] = run.environment[key]
    return {
        "run": {**run_fields, "state": str(run.state)},
        "provenance": provenance,
        "intervals": "95%: bootstrap over cases (2000 resamples, seeded); Wilson score where a "
        "proportion is 0% or 100%",
        "policies": [_policy(m) for m in metrics],
        "references": [
            {"name": r.name, "accuracy": estimate_json(r.accuracy), "description": r.description}
            for r in references
        ],
        "comparisons": [
            {
                "policy": c.policy,
                "baseline": c.baseline,
                "metric": c.metric,
                "ratio": estimate_json(c.ratio),
                "policy_mean": c.policy_mean,
                "baseline_mean": c.baseline_mean,
            }
            for c in comparisons
        ],
    }
