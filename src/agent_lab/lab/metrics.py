"""Statistics of a run: per-policy metrics with 95% bootstrap intervals; paired ratios (L11)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING

import numpy as np

from agent_lab.application.events.models import Status

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from numpy.typing import NDArray

    from agent_lab.lab.records import TrialRecord, TrialStatus

__all__ = ["Comparison", "Estimate", "PolicyMetrics", "compare", "summarize"]

RESAMPLES = 2000
"""Bootstrap resamples per interval."""


@dataclass(frozen=True, slots=True)
class Estimate:
    """A statistic and its 95% bootstrap confidence interval (percentile method)."""

    value: float | None
    low: float | None = None
    high: float | None = None
    n: int = 0
    """How many observations it rests on."""

    def format(self, digits: int = 2, scale: float = 1.0, suffix: str = "") -> str:
        """``value [low, high]``, or ``n/a``."""
        if self.value is None:
            return "n/a"
        text = f"{self.value * scale:.{digits}f}{suffix}"
        if self.low is not None and self.high is not None:
            text += f" [{self.low * scale:.{digits}f}, {self.high * scale:.{digits}f}]"
        return text


@dataclass(frozen=True, slots=True, kw_only=True)
class PolicyMetrics:
    """Everything L11 asks of one policy in one run."""

    policy: str
    trials: int
    cases: int
    status_counts: dict[TrialStatus, int]
    accuracy: Estimate
    field_precision: Estimate
    field_recall: Estimate
    llm_calls_per_trial: Estimate
    fallback_rate: Estimate
    """Share of trials that made at least one LLM request."""
    tokens_per_trial: Estimate
    """Over the trials whose tokens are known (its ``n`` says how many)."""
    cost_per_trial: Estimate
    """Over the trials whose cost is known (its ``n`` says how many)."""
    total_cost: Decimal | None
    """``None`` unless every trial's cost is known."""
    latency_p50_ms: Estimate
    latency_p90_ms: Estimate
    latency_p99_ms: Estimate
    latency_mean_ms: Estimate


@dataclass(frozen=True, slots=True, kw_only=True)
class Comparison:
    """A policy against the baseline on the same cases: a ratio of means with its interval."""

    policy: str
    baseline: str
    metric: str
    ratio: Estimate
    policy_mean: float | None
    baseline_mean: float | None


def _interval(
    values: NDArray[np.float64],
    statistic: Callable[[NDArray[np.float64]], NDArray[np.float64]],
    rng: np.random.Generator,
) -> Estimate:
    if values.size == 0:
        return Estimate(None)
    point = float(statistic(values[np.newaxis, :])[0])
    draws = statistic(values[rng.integers(0, values.size, size=(RESAMPLES, values.size))])
    low, high = np.nanpercentile(draws, [2.5, 97.5])
    return Estimate(point, float(low), float(high), int(values.size))


def _mean(sample: NDArray[np.float64]) -> NDArray[np.float64]:
    return sample.mean(axis=1)


def _percentile(q: float) -> Callable[[NDArray[np.float64]], NDArray[np.float64]]:
    def statistic(sample: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.percentile(sample, q, axis=1)

    return statistic


def _ratio_interval(
    numerators: NDArray[np.float64], denominators: NDArray[np.float64], rng: np.random.Generator
) -> Estimate:
    # A ratio of sums, resampled by pair: precision and recall (pairs are trials), and the
    # paired comparison (pairs are cases; with as many of each, a ratio of sums is one of means).
    if numerators.size == 0 or denominators.sum() == 0:
        return Estimate(None, n=int(numerators.size))
    point = float(numerators.sum() / denominators.sum())
    index = rng.integers(0, numerators.size, size=(RESAMPLES, numerators.size))
    top, bottom = numerators[index].sum(axis=1), denominators[index].sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        draws = np.where(bottom > 0, top / np.where(bottom > 0, bottom, 1), np.nan)
    low, high = np.nanpercentile(draws, [2.5, 97.5])
    return Estimate(point, float(low), float(high), int(numerators.size))


def _array(values: Sequence[float]) -> NDArray[np.float64]:
    return np.asarray(values, dtype=np.float64)


def summarize(trials: Sequence[TrialRecord], *, seed: int = 0) -> list[PolicyMetrics]:
    """Per-policy metrics of a run's (non-warm-up) trials, policies in first-seen order."""
    rng = np.random.default_rng(seed)
    by_policy: dict[str, list[TrialRecord]] = {}
    for trial in trials:
        by_policy.setdefault(trial.policy, []).append(trial)
    out: list[PolicyMetrics] = []
    for policy, rows in by_policy.items():
        latency = _array([row.latency_ns / 1e6 for row in rows])
        known_tokens = [
            row.prompt_tokens + row.completion_tokens
            for row in rows
            if row.prompt_tokens is not None and row.completion_tokens is not None
        ]
        costs = [row.cost for row in rows if row.cost is not None]
        with_fields = [row for row in rows if row.expected_status is Status.SUCCESS]
        tp = _array([row.field_tp for row in with_fields])
        fp = _array([row.field_fp for row in with_fields])
        fn = _array([row.field_fn for row in with_fields])
        out.append(
            PolicyMetrics(
                policy=policy,
                trials=len(rows),
                cases=len({row.case_id for row in rows}),
                status_counts=dict(Counter(row.status for row in rows)),
                accuracy=_interval(_array([float(row.correct) for row in rows]), _mean, rng),
                field_precision=_ratio_interval(tp, tp + fp, rng),
                field_recall=_ratio_interval(tp, tp + fn, rng),
                llm_calls_per_trial=_interval(_array([row.llm_calls for row in rows]), _mean, rng),
                fallback_rate=_interval(
                    _array([float(row.llm_calls > 0) for row in rows]), _mean, rng
                ),
                tokens_per_trial=_interval(_array(known_tokens), _mean, rng),
                cost_per_trial=_interval(_array([float(c) for c in costs]), _mean, rng),
                total_cost=sum(costs, Decimal(0)) if len(costs) == len(rows) else None,
                latency_p50_ms=_interval(latency, _percentile(50), rng),
                latency_p90_ms=_interval(latency, _percentile(90), rng),
                latency_p99_ms=_interval(latency, _percentile(99), rng),
                latency_mean_ms=_interval(latency, _mean, rng),
            )
        )
    return out


_METRICS: dict[str, Callable[[TrialRecord], float | None]] = {
    "latency_ms": lambda row: row.latency_ns / 1e6,
    "llm_calls": lambda row: float(row.llm_calls),
    "cost": lambda row: None if row.cost is None else float(row.cost),
    "accuracy": lambda row: float(row.correct),
}


def compare(trials: Sequence[TrialRecord], baseline: str, *, seed: int = 0) -> list[Comparison]:
    """Each policy against ``baseline`` on the cases both ran: ratio of means, paired bootstrap.

    Cases are the resampling unit (repeats of a case are averaged first), so
    the interval reflects which requests were asked, not only chance.

    Raises:
        ValueError: ``baseline`` has no trials in ``trials``.
    """
    rng = np.random.default_rng(seed)
    per_case: dict[str, dict[str, dict[str, list[float]]]] = {}
    for trial in trials:
        metrics = per_case.setdefault(trial.policy, {})
        for name, read in _METRICS.items():
            value = read(trial)
            if value is not None:
                metrics.setdefault(name, {}).setdefault(trial.case_id, []).append(value)
    if baseline not in per_case:
        raise ValueError(f"no trials of baseline policy {baseline!r} (have: {', '.join(per_case)})")
    out: list[Comparison] = []
    for policy, own in per_case.items():
        if policy == baseline:
            continue
        for name in _METRICS:
            mine = own.get(name, {})
            theirs = per_case[baseline].get(name, {})
            shared = sorted(set(mine) & set(theirs))
            a = _array([float(np.mean(mine[case])) for case in shared])
            b = _array([float(np.mean(theirs[case])) for case in shared])
            out.append(
                Comparison(
                    policy=policy,
                    baseline=baseline,
                    metric=name,
                    ratio=_ratio_interval(a, b, rng),
                    policy_mean=float(a.mean()) if shared else None,
                    baseline_mean=float(b.mean()) if shared else None,
                )
            )
    return out
