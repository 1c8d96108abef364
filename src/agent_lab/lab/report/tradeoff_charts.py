"""The report's charts that always have data: the trade-off, and the breakdowns (L12).

The trade-off puts accuracy against LLM calls per trial, which every run
has, and against cost only when every trial's cost is known (against mean
latency otherwise), with both intervals on each point and the baselines as
reference lines. The breakdowns are small multiples: one panel per group, its
accuracy and its LLM calls per policy side by side.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent_lab.lab.report.charts import (
    Chart,
    error_bars,
    label,
    legend_below,
    log_x,
    panel,
    styled,
    svg,
)
from agent_lab.lab.report.palette import REFERENCE_COLOR, policy_colors
from agent_lab.lab.report.wording import counted

if TYPE_CHECKING:
    from collections.abc import Sequence

    from agent_lab.lab.stats.breakdown import Group
    from agent_lab.lab.stats.metrics import Estimate, PolicyMetrics, Reference

__all__ = ["MAX_GROUPS", "breakdown_chart", "tradeoff_chart"]

MAX_GROUPS = 8
"""Groups drawn in a breakdown chart; the table lists every one."""


def _point(axis: Any, x: Estimate, y: Estimate, *, color: str, label: str) -> None:
    if x.value is None or y.value is None:
        return
    axis.errorbar(
        [x.value], [y.value * 100], xerr=error_bars([x]), yerr=error_bars([y], 100),
        fmt="o", color=color, label=label, capsize=4, markersize=7,
    )  # fmt: skip


@styled
def _tradeoff_panel(
    metrics: Sequence[PolicyMetrics], references: Sequence[Reference], *, against: str
) -> str:
    colors = policy_colors([m.policy for m in metrics])
    figure, axis = panel(340)
    for m in metrics:
        x = {"calls": m.llm_calls_per_trial, "cost": m.cost_per_trial}.get(
            against, m.latency_mean_ms
        )
        _point(axis, x, m.accuracy, color=colors[m.policy], label=label(m.policy, 40))
    for reference in references:
        if reference.accuracy.value is not None:
            axis.axhline(
                reference.accuracy.value * 100, color=REFERENCE_COLOR, linestyle=":",
                label=label(reference.name, 40),
            )  # fmt: skip
    axis.set_ylabel("accuracy (%)")
    if against == "calls":
        axis.set_xlabel("LLM calls per trial")
    elif against == "cost":
        axis.set_xlabel("cost per trial ($)")
        axis.ticklabel_format(axis="x", style="sci", scilimits=(-3, 4))
    else:
        axis.set_xlabel("mean latency per trial (ms, log scale)")
        log_x(axis)
    axis.grid(alpha=0.3)
    legend_below(figure, axis, first=[label(m.policy, 40) for m in metrics])
    return svg(figure)


def tradeoff_chart(metrics: Sequence[PolicyMetrics], references: Sequence[Reference]) -> Chart:
    """Accuracy against LLM calls, and against cost (all known) or mean latency."""
    priced = all(m.cost_known == m.trials for m in metrics) and any(
        m.cost_per_trial.value for m in metrics
    )
    panels = (
        _tradeoff_panel(metrics, references, against="calls"),
        _tradeoff_panel(metrics, references, against="cost" if priced else "latency"),
    )
    title = (
        "Accuracy against LLM calls and cost"
        if priced
        else "Accuracy against LLM calls and mean latency; cost is not known for every trial"
    )
    return Chart(title=title, panels=panels)


@styled
def _group_panel(group: Group, colors: dict[str, str]) -> str:
    figures = group.figures
    figure, (accuracy, calls) = panel(96 + 24 * len(figures), 1, 2, sharey=True)
    names = [label(f.policy, 20) for f in figures]
    bar_colors = [colors[f.policy] for f in figures]
    accuracy.barh(
        names, [(f.accuracy.value or 0.0) * 100 for f in figures],
        xerr=error_bars([f.accuracy for f in figures], 100), color=bar_colors, capsize=3,
    )  # fmt: skip
    calls.barh(
        names, [f.llm_calls.value or 0.0 for f in figures],
        xerr=error_bars([f.llm_calls for f in figures]), color=bar_colors, capsize=3,
    )  # fmt: skip
    marker = " *" if group.significant else ""
    figure.suptitle(
        f"{label(group.name, 40)}: {counted(group.cases, 'case')}{marker}", x=0.01, ha="left"
    )
    accuracy.set_title("accuracy (%)")
    calls.set_title("LLM calls/trial")
    accuracy.set_xlim(0, 105)
    accuracy.set_xticks([0, 50, 100])
    calls.set_xlim(0, max(1.05, *(f.llm_calls.high or 0.0 for f in figures)) * 1.05)
    calls.locator_params(axis="x", nbins=3)
    accuracy.invert_yaxis()
    calls.tick_params(axis="y", left=False, labelleft=False)
    return svg(figure)


def breakdown_chart(groups: Sequence[Group]) -> Chart:
    """Per group (the ones that matter most), accuracy and LLM calls per policy."""
    shown = list(groups[:MAX_GROUPS])
    policies = list(dict.fromkeys(f.policy for g in shown for f in g.figures))
    colors = policy_colors(policies)
    kind = shown[0].kind if shown else "group"
    return Chart(
        title=f"Each {kind}: accuracy and LLM calls per policy",
        panels=tuple(_group_panel(group, colors) for group in shown),
    )
