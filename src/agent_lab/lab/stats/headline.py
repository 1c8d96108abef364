"""What a run found, in one sentence per policy, generated from its figures (L12).

Every number carries its 95% interval, and a difference whose interval holds
no change is said as "no measurable difference", not as a number that reads
like a finding.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_lab.lab.stats.breakdown import accuracy_difference
from agent_lab.lab.stats.metrics import Estimate, case_mean, seeded

if TYPE_CHECKING:
    from collections.abc import Sequence

    from agent_lab.lab.results.records import TrialRecord
    from agent_lab.lab.stats.breakdown import Group
    from agent_lab.lab.stats.metrics import Comparison, PolicyMetrics

__all__ = ["headline"]


def _share(estimate: Estimate) -> str:
    return estimate.format(0, 100, "%")


def _points(estimate: Estimate) -> str:
    return estimate.format(1, 100, " points", signed=True)


def _latency(comparisons: Sequence[Comparison], policy: str) -> str | None:
    ratio = next(
        (c.ratio for c in comparisons if c.policy == policy and c.metric == "latency_ms"), None
    )
    if ratio is None or ratio.value is None or ratio.low is None or ratio.high is None:
        return None
    if not ratio.excludes(1.0):
        return "showed no measurable difference in mean latency"
    if ratio.value < 1:
        # "cut 2.6x" reads better than "0.38x of": the interval inverts with it.
        cut = 1 / max(ratio.value, 1e-12)
        return (
            f"cut mean latency {cut:.1f}x [{1 / max(ratio.high, 1e-12):.1f}, "
            f"{1 / max(ratio.low, 1e-12):.1f}]"
        )
    return f"raised mean latency {ratio.value:.1f}x [{ratio.low:.1f}, {ratio.high:.1f}]"


def _weakest(groups: Sequence[Group], policy: str) -> str | None:
    losses = [
        (figure.difference.value, group, figure.difference)
        for group in groups
        for figure in group.figures
        if figure.policy == policy
        and figure.significant
        and figure.difference is not None
        and figure.difference.value is not None
        and figure.difference.value < 0
    ]
    if not losses:
        return None
    _, group, difference = min(losses, key=lambda loss: loss[0])
    return f"it loses most on {group.kind} {group.name!r}: {_points(difference)}"


def headline(
    trials: Sequence[TrialRecord],
    metrics: Sequence[PolicyMetrics],
    comparisons: Sequence[Comparison],
    categories: Sequence[Group],
    *,
    baseline: str | None,
    provenance: str,
    seed: int = 0,
) -> list[str]:
    """One sentence per policy against ``baseline``, then who produced the figures."""
    counted = [t for t in trials if not t.warmup]
    sentences: list[str] = []
    for m in metrics:
        if m.policy == baseline:
            continue
        own = [t for t in counted if t.policy == m.policy]
        rng = seeded(seed, m.policy, "no LLM call")
        no_call = case_mean(own, lambda t: float(t.llm_calls == 0), rng, proportion=True)
        sentence = f"{m.policy} answered {_share(no_call)} of requests with no LLM call"
        if baseline is None:
            sentences.append(f"{sentence}, at {_share(m.accuracy)} accuracy.")
            continue
        difference = accuracy_difference(trials, m.policy, baseline, seed=seed)
        if difference is None or difference.value is None:
            sentence += f", at {_share(m.accuracy)} accuracy"
        elif not difference.excludes(0.0):
            sentence += (
                f", with no measurable difference in accuracy from {baseline} "
                f"({_points(difference)})"
            )
        else:
            sentence += f", at {_points(difference)} of accuracy against {baseline}"
        latency = _latency(comparisons, m.policy)
        if latency is not None:
            sentence += f", and {latency}"
        weakest = _weakest(categories, m.policy)
        if weakest is not None:
            sentence += f"; {weakest}"
        sentences.append(sentence + ".")
    if not sentences and metrics:
        only = metrics[0]
        sentences.append(f"{only.policy}: {_share(only.accuracy)} accuracy.")
    sentences.append(f"Figures from {provenance}; intervals are 95%, resampled by case.")
    return sentences
