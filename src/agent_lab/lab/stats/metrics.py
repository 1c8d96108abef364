"""Statistics of a run: per-policy metrics with 95% intervals, paired ratios, baselines (L11).

Intervals resample cases, not trials (a cluster bootstrap): the repeats of a
case stay together, so ``--repeats 10`` does not narrow an interval by
sqrt(10) as if the cases were new. A proportion whose estimate is 0% or 100%
(where every bootstrap draw is the same) gets a Wilson score interval over
the cases instead, so that it is never of zero width.
"""

from __future__ import annotations

import zlib
from collections import Counter
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING

import numpy as np

from agent_lab.errors import ComparisonError
from agent_lab.kernel.models import Status
from agent_lab.log_replay.intervals import wilson

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from numpy.typing import NDArray

    from agent_lab.lab.results.records import TrialRecord
    from agent_lab.log_replay.trial_status import TrialStatus

__all__ = [
    "Comparison",
    "Estimate",
    "PolicyMetrics",
    "Reference",
    "case_mean",
    "case_means",
    "compare",
    "paired_difference",
    "references",
    "seeded",
    "summarize",
    "wilson",
]

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

    def excludes(self, value: float) -> bool:
        """Whether the interval is known and leaves ``value`` out (a change beyond the noise)."""
        low, high = self.low, self.high
        return low is not None and high is not None and not low <= value <= high

    def format(
        self, digits: int = 2, scale: float = 1.0, suffix: str = "", *, signed: bool = False
    ) -> str:
        """``value [low, high]``, or ``n/a``; ``signed`` writes ``+`` on a positive number."""
        if self.value is None:
            return "n/a"
        sign = "+" if signed else ""
        text = f"{self.value * scale:{sign}.{digits}f}{suffix}"
        if self.low is not None and self.high is not None:
            text += f" [{self.low * scale:{sign}.{digits}f}, {self.high * scale:{sign}.{digits}f}]"
        return text


@dataclass(frozen=True, slots=True, kw_only=True)
class PolicyMetrics:
    """Everything L11 asks of one policy in one run."""

    policy: str
    trials: int
    cases: int
    status_counts: dict[TrialStatus, int]
    accuracy: Estimate
    """By the cases' matching rules (``exact`` unless a workload names its benchmark's)."""
    accuracy_exact: Estimate
    """By type-sensitive equality, whatever the rule."""
    accuracy_in_domain: Estimate
    """Over the cases some event serves."""
    accuracy_out_of_domain: Estimate
    """Over the cases no event serves (the right answer is to decline)."""
    field_precision: Estimate
    field_recall: Estimate
    llm_calls_per_trial: Estimate
    fallback_rate: Estimate
    """Share of trials that made at least one LLM request."""
    tokens_per_trial: Estimate
    """Over the trials whose tokens are known (its ``n`` says how many)."""
    cost_per_trial: Estimate
    """Over the trials whose cost is known (``cost_known`` says how many)."""
    cost_known: int
    """Trials whose cost is known; below ``trials``, the mean is over a part only."""
    total_cost: Decimal | None
    """``None`` unless every trial's cost is known."""
    cost_per_correct: Estimate
    """Total cost over correct answers: what one right answer costs, retries and
    wrong answers paid for included; unknown unless every trial's cost is known."""
    failed_calls: int = 0
    """LLM requests that got no usable reply (timeouts, refusals, errors), of every trial."""
    latency_p50_ms: Estimate
    latency_p90_ms: Estimate
    latency_p99_ms: Estimate
    latency_mean_ms: Estimate


@dataclass(frozen=True, slots=True, kw_only=True)
class Reference:
    """A baseline computed from the run's cases alone, with no LLM and no agent."""

    name: str
    accuracy: Estimate
    description: str


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


class _Cases:
    """One policy's trial values grouped by case, resampled by case (cluster bootstrap)."""

    def __init__(self, groups: list[list[float]], rng: np.random.Generator) -> None:
        self.groups = [g for g in groups if g]
        self.rng = rng

    def mean(self) -> Estimate:
        # The mean of case means: each case weighs the same, however often it ran.
        means = _array([sum(g) / len(g) for g in self.groups])
        return _interval(means, _mean, self.rng)

    def proportion(self) -> Estimate:
        """A share in [0, 1]: bootstrap, or Wilson where the estimate is 0% or 100%."""
        estimate = self.mean()
        if estimate.value is None or 0.0 < estimate.value < 1.0:
            return estimate
        low, high = wilson(estimate.value * estimate.n, estimate.n)
        return Estimate(estimate.value, low, high, estimate.n)

    def percentile(self, q: float) -> Estimate:
        if not self.groups:
            return Estimate(None)
        flat = _array([v for g in self.groups for v in g])
        point = float(np.percentile(flat, q))
        sizes = [len(g) for g in self.groups]
        count = len(self.groups)
        draws = np.empty(RESAMPLES)
        if len(set(sizes)) == 1:
            # Every case ran as often (the usual run): resample rows of a case x repeat matrix.
            matrix = flat.reshape(count, sizes[0])
            rows = self.rng.integers(0, count, size=(RESAMPLES, count))
            draws = np.percentile(matrix[rows].reshape(RESAMPLES, -1), q, axis=1)
        else:
            arrays = [_array(g) for g in self.groups]
            for index in range(RESAMPLES):
                picks: list[int] = self.rng.integers(0, count, size=count).tolist()
                draws[index] = np.percentile(np.concatenate([arrays[i] for i in picks]), q)
        low, high = np.percentile(draws, [2.5, 97.5])
        return Estimate(point, float(low), float(high), len(self.groups))


def _by_case(
    rows: Sequence[TrialRecord], read: Callable[[TrialRecord], float | None]
) -> list[list[float]]:
    groups: dict[str, list[float]] = {}
    for row in rows:
        value = read(row)
        if value is not None:
            groups.setdefault(row.case_id, []).append(value)
    # In case order, and each case's values in repeat order: a seeded bootstrap then
    # draws the same cases whatever order the trials ended (and were stored) in.
    return [sorted(groups[case]) for case in sorted(groups)]


def case_mean(
    rows: Sequence[TrialRecord],
    read: Callable[[TrialRecord], float | None],
    rng: np.random.Generator,
    *,
    proportion: bool = False,
) -> Estimate:
    """The mean of ``read`` over ``rows``, case by case, with its case-bootstrap interval.

    ``proportion``: a share in [0, 1], with a Wilson interval at 0% or 100%.
    """
    cases = _Cases(_by_case(rows, read), rng)
    return cases.proportion() if proportion else cases.mean()


def case_means(
    rows: Sequence[TrialRecord], read: Callable[[TrialRecord], float]
) -> dict[str, float]:
    """``read``'s mean over each case's trials (its repeats), by case id."""
    groups: dict[str, list[float]] = {}
    for row in rows:
        groups.setdefault(row.case_id, []).append(read(row))
    return {case: sum(values) / len(values) for case, values in groups.items()}


def paired_difference(
    mine: Sequence[float], theirs: Sequence[float], rng: np.random.Generator
) -> Estimate:
    """The mean of ``mine - theirs`` (values paired by case), resampled by case."""
    return _interval(_array(mine) - _array(theirs), _mean, rng)


def seeded(seed: int, *about: str) -> np.random.Generator:
    """A generator for one estimate, from the seed and what it is about (a policy, a metric...).

    Each estimate draws from its own: its interval then depends neither on
    the order the estimates are computed in nor on the order trials ended in.
    """
    return np.random.default_rng([seed, *(zlib.crc32(key.encode("utf-8")) for key in about)])


def _in_case_order(row: TrialRecord) -> tuple[str, int]:
    return row.case_id, row.repeat


def _exact(row: TrialRecord) -> float:
    return float(row.correct if row.correct_exact is None else row.correct_exact)


def summarize(trials: Sequence[TrialRecord], *, seed: int = 0) -> list[PolicyMetrics]:
    """Per-policy metrics of a run's (non-warm-up) trials, policies in first-seen order."""
    by_policy: dict[str, list[TrialRecord]] = {}
    for trial in trials:
        by_policy.setdefault(trial.policy, []).append(trial)
    out: list[PolicyMetrics] = []
    for policy, rows in by_policy.items():
        rng = seeded(seed, policy)
        rows.sort(key=_in_case_order)

        def cases(
            read: Callable[[TrialRecord], float | None],
            subset: Sequence[TrialRecord] = rows,
            rng: np.random.Generator = rng,
        ) -> _Cases:
            return _Cases(_by_case(subset, read), rng)

        costs = [row.cost for row in rows if row.cost is not None]
        with_fields = [row for row in rows if row.expected_status is Status.SUCCESS]
        tp = _array([row.field_tp for row in with_fields])
        fp = _array([row.field_fp for row in with_fields])
        fn = _array([row.field_fn for row in with_fields])
        in_domain = [row for row in rows if row.expected_event is not None]
        out_of_domain = [row for row in rows if row.expected_event is None]
        latency = cases(lambda row: row.latency_ns / 1e6)
        out.append(
            PolicyMetrics(
                policy=policy,
                trials=len(rows),
                cases=len({row.case_id for row in rows}),
                status_counts=dict(Counter(row.status for row in rows)),
                accuracy=cases(lambda row: float(row.correct)).proportion(),
                accuracy_exact=cases(_exact).proportion(),
                accuracy_in_domain=cases(lambda row: float(row.correct), in_domain).proportion(),
                accuracy_out_of_domain=cases(
                    lambda row: float(row.correct), out_of_domain
                ).proportion(),
                field_precision=_ratio_interval(tp, tp + fp, rng),
                field_recall=_ratio_interval(tp, tp + fn, rng),
                llm_calls_per_trial=cases(lambda row: float(row.llm_calls)).mean(),
                fallback_rate=cases(lambda row: float(row.llm_calls > 0)).proportion(),
                tokens_per_trial=cases(_tokens).mean(),
                cost_per_trial=cases(
                    lambda row: None if row.cost is None else float(row.cost)
                ).mean(),
                cost_known=len(costs),
                total_cost=sum(costs, Decimal(0)) if len(costs) == len(rows) else None,
                cost_per_correct=_cost_per_correct(rows, rng),
                failed_calls=sum(row.failed_calls for row in rows),
                latency_p50_ms=latency.percentile(50),
                latency_p90_ms=latency.percentile(90),
                latency_p99_ms=latency.percentile(99),
                latency_mean_ms=latency.mean(),
            )
        )
    return out


def _cost_per_correct(rows: Sequence[TrialRecord], rng: np.random.Generator) -> Estimate:
    # A ratio of sums resampled by case: a case's cost and its right answers go together.
    if any(row.cost is None for row in rows):
        return Estimate(None, n=len(rows))
    cost: dict[str, float] = {}
    right: dict[str, float] = {}
    for row in rows:
        cost[row.case_id] = cost.get(row.case_id, 0.0) + float(row.cost or 0)
        right[row.case_id] = right.get(row.case_id, 0.0) + float(row.correct)
    cases = sorted(cost)  # in case order, whatever order the trials ended in
    return _ratio_interval(
        _array([cost[case] for case in cases]), _array([right[case] for case in cases]), rng
    )


def _tokens(row: TrialRecord) -> float | None:
    if row.prompt_tokens is None or row.completion_tokens is None:
        return None
    return float(row.prompt_tokens + row.completion_tokens)


DECLINE_RIGHT = frozenset({Status.UNKNOWN_EVENT, Status.MISSING_INFORMATION})
"""The expected endings a policy that never acts gets right (``log_replay.scoring``)."""


def references(trials: Sequence[TrialRecord], *, seed: int = 0) -> list[Reference]:
    """Baselines from the run's own cases, with no LLM: what always declining scores."""
    rng = np.random.default_rng(seed)
    expected: dict[str, Status] = {}
    for trial in trials:
        expected.setdefault(trial.case_id, trial.expected_status)
    right = _Cases([[float(expected[case] in DECLINE_RIGHT)] for case in sorted(expected)], rng)
    return [
        Reference(
            name="always-decline",
            accuracy=right.proportion(),
            description=(
                "never acts: right exactly where the case expects no action "
                "(out of domain, or information missing)"
            ),
        )
    ]


_METRICS: dict[str, Callable[[TrialRecord], float | None]] = {
    "latency_ms": lambda row: row.latency_ns / 1e6,
    "llm_calls": lambda row: float(row.llm_calls),
    "tokens": lambda row: (
        None
        if row.prompt_tokens is None or row.completion_tokens is None
        else float(row.prompt_tokens + row.completion_tokens)
    ),
    "cost": lambda row: None if row.cost is None else float(row.cost),
    "accuracy": lambda row: float(row.correct),
}


def compare(trials: Sequence[TrialRecord], baseline: str, *, seed: int = 0) -> list[Comparison]:
    """Each policy against ``baseline`` on the cases both ran: ratio of means, paired bootstrap.

    Cases are the resampling unit (repeats of a case are averaged first), so
    the interval reflects which requests were asked, not only chance.

    Raises:
        ComparisonError: ``baseline`` has no trials in ``trials``.
    """
    per_case: dict[str, dict[str, dict[str, list[float]]]] = {}
    for trial in trials:
        metrics = per_case.setdefault(trial.policy, {})
        for name, read in _METRICS.items():
            value = read(trial)
            if value is not None:
                metrics.setdefault(name, {}).setdefault(trial.case_id, []).append(value)
    if baseline not in per_case:
        raise ComparisonError(
            f"no trials of baseline policy {baseline!r} (have: {', '.join(per_case)})"
        )
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
                    ratio=_ratio_interval(a, b, seeded(seed, policy, baseline, name)),
                    policy_mean=float(a.mean()) if shared else None,
                    baseline_mean=float(b.mean()) if shared else None,
                )
            )
    return out
