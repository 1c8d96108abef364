"""The report's charts that always have data: the trade-off, and the breakdowns (L12).

The trade-off puts accuracy against LLM calls per trial, which every run
has, and against cost only when every trial's cost is known (against mean
latency otherwise), with both intervals on each point and the baselines as
reference lines. The breakdowns are small multiples: one row per group, its
accuracy and its LLM calls per policy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent_lab.lab.charts import error_bars, subplots, svg
from agent_lab.lab.palette import REFERENCE_COLOR, policy_colors

if TYPE_CHECKING:
    from collections.abc import Sequence

    from agent_lab.lab.breakdown import Group
    from agent_lab.lab.metrics import Estimate, PolicyMetrics, Reference

__all__ = ["MAX_GROUPS", "breakdown_chart", "tradeoff_chart"]

MAX_GROUPS = 8
"""Groups drawn in a breakdown chart; the table lists every one."""


def _point(axis: Any, x: Estimate, y: Estimate, *, color: str, label: str, x_scale: float) -> None:
    if x.value is None or y.value is None:
        return
    axis.errorbar(
        [x.value * x_scale], [y.value * 100],
        xerr=error_bars([x], x_scale), yerr=error_bars([y], 100),
        fmt="o", color=color, label=label, capsize=4, markersize=7,
    )  # fmt: skip


def tradeoff_chart(metrics: Sequence[PolicyMetrics], references: Sequence[Reference]) -> str:
    """Accuracy against LLM calls, and against cost (all known) or mean latency."""
    colors = policy_colors([m.policy for m in metrics])
    priced = all(m.cost_known == m.trials for m in metrics) and any(
        m.cost_per_trial.value for m in metrics
    )
    figure, (calls, other) = subplots(1, 2, figsize=(9, 4.2), sharey=True, layout="constrained")
    for m in metrics:
        color = colors[m.policy]
        _point(calls, m.llm_calls_per_trial, m.accuracy, color=color, label=m.policy, x_scale=1)
        second = m.cost_per_trial if priced else m.latency_mean_ms
        _point(other, second, m.accuracy, color=color, label=m.policy, x_scale=1)
    for reference in references:
        if reference.accuracy.value is None:
            continue
        for axis in (calls, other):
            axis.axhline(
                reference.accuracy.value * 100, color=REFERENCE_COLOR, linestyle=":",
                label=reference.name,
            )  # fmt: skip
    calls.set_xlabel("LLM calls per trial")
    calls.set_ylabel("accuracy (%)")
    if priced:
        other.set_xlabel("cost per trial ($)")
        other.ticklabel_format(axis="x", style="sci", scilimits=(-3, 4))
    else:
        other.set_xlabel("mean latency per trial (ms, log scale; cost not known for every trial)")
        other.set_xscale("log")
    for axis in (calls, other):
        axis.grid(alpha=0.3)
    handles, labels = calls.get_legend_handles_labels()
    # Below the panels, never over a point.
    figure.legend(handles, labels, loc="outside lower center", ncol=4, fontsize=8)
    return svg(figure)


def breakdown_chart(groups: Sequence[Group]) -> str:
    """Per group (the ones that matter most), accuracy and LLM calls per policy."""
    shown = list(groups[:MAX_GROUPS])
    policies = list(dict.fromkeys(f.policy for g in shown for f in g.figures))
    colors = policy_colors(policies)
    height = 0.42 * len(policies) * len(shown) + 1.2
    figure, axes = subplots(
        len(shown), 2, figsize=(9, max(2.6, height)), squeeze=False, layout="constrained"
    )
    for row, group in enumerate(shown):
        accuracy, calls = axes[row][0], axes[row][1]
        names = [f.policy for f in group.figures]
        bar_colors = [colors[name] for name in names]
        accuracy.barh(
            names, [(f.accuracy.value or 0.0) * 100 for f in group.figures],
            xerr=error_bars([f.accuracy for f in group.figures], 100), color=bar_colors, capsize=3,
        )  # fmt: skip
        calls.barh(
            names, [f.llm_calls.value or 0.0 for f in group.figures],
            xerr=error_bars([f.llm_calls for f in group.figures]), color=bar_colors, capsize=3,
        )  # fmt: skip
        marker = " *" if group.significant else ""
        accuracy.set_title(f"{group.name} ({group.cases} cases){marker}", loc="left", fontsize=9)
        accuracy.set_xlim(0, 105)
        calls.set_xlim(0, max(1.05, *(f.llm_calls.high or 0.0 for f in group.figures)) * 1.05)
        for axis in (accuracy, calls):
            axis.tick_params(labelsize=8)
            axis.invert_yaxis()
        calls.set_yticks([])
    axes[-1][0].set_xlabel("accuracy (%)")
    axes[-1][1].set_xlabel("LLM calls per trial")
    return svg(figure)
