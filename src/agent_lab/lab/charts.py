"""The report's charts, drawn with matplotlib straight to inline SVG (L12)."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any

import matplotlib as mpl

mpl.use("Agg")  # no display: charts are drawn straight to SVG

import matplotlib.pyplot as plt
import numpy as np

from agent_lab.lab.metrics import Estimate
from agent_lab.lab.palette import policy_colors
from agent_lab.lab.records import TrialStatus

if TYPE_CHECKING:
    from collections.abc import Sequence

    from agent_lab.lab.metrics import PolicyMetrics
    from agent_lab.lab.records import TrialRecord
    from agent_lab.lab.sweep import SweepSummary

__all__ = ["CHARTS", "charts", "error_bars", "subplots", "svg", "sweep_charts"]

CHARTS = ("tradeoff", "by-category", "by-event", "latency-cdf", "llm-calls-and-cost",
          "status-breakdown")  # fmt: skip
"""Every chart's name, in the report's order."""


def subplots(*layout: int, figsize: tuple[float, float], **options: Any) -> Any:
    """``plt.subplots``, typed loosely."""
    # matplotlib's stubs leave many Axes methods partly unknown; the charts use them through Any.
    return plt.subplots(*layout, figsize=figsize, **options)


def svg(figure: Any) -> str:
    """The figure as inline SVG text; the figure is closed."""
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", bbox_inches="tight")
    plt.close(figure)
    text = buffer.getvalue()
    return text[text.index("<svg") :]


def error_bars(estimates: Sequence[Estimate], scale: float = 1.0) -> list[list[float]]:
    """The ``yerr`` of a matplotlib bar: each value's distance down to its low, up to its high."""
    return [
        [max(0.0, ((e.value or 0.0) - (e.low or 0.0)) * scale) for e in estimates],
        [max(0.0, ((e.high or 0.0) - (e.value or 0.0)) * scale) for e in estimates],
    ]


def _latency_cdf(trials: Sequence[TrialRecord], policies: list[str]) -> str:
    figure, axis = subplots(figsize=(7, 3.6))
    colors = policy_colors(policies)
    for policy in policies:
        values = np.sort([t.latency_ns / 1e6 for t in trials if t.policy == policy])
        if values.size:
            axis.step(values, np.arange(1, values.size + 1) / values.size, where="post",
                      label=policy, color=colors[policy])  # fmt: skip
    axis.set_xscale("log")
    axis.set_xlabel("latency per trial (ms, log scale)")
    axis.set_ylabel("share of trials")
    axis.grid(alpha=0.3)
    # Below the axes: a CDF fills its whole box, so any legend inside covers a curve.
    axis.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=3)
    return svg(figure)


def _whole_cost(metrics: PolicyMetrics) -> Estimate:
    # A mean over a part of the trials is drawn as unknown: the known part is often
    # the trials that called no model, so the bar would show a paid policy as free.
    if metrics.cost_known < metrics.trials:
        return Estimate(None, n=metrics.cost_known)
    return metrics.cost_per_trial


def _calls_and_cost(metrics: Sequence[PolicyMetrics]) -> tuple[str, str]:
    names = [m.policy for m in metrics]
    colors = policy_colors(names)
    costs = [_whole_cost(m) for m in metrics]
    priced = any(e.value for e in costs)
    # Unknown is not zero: with no cost known above zero, the cost panel is left
    # out (the title says why) rather than drawn as bars at 0.
    panels = [([m.llm_calls_per_trial for m in metrics], "LLM calls per trial")]
    if priced:
        panels.append((costs, "cost per trial ($)"))
    figure, axes = subplots(1, len(panels), figsize=(4.2 * len(panels), 3.4), squeeze=False)
    for axis, (estimates, label) in zip(axes[0], panels, strict=True):
        axis.set_title(label)
        values = [e.value or 0.0 for e in estimates]
        axis.bar(
            names, values, yerr=error_bars(estimates), capsize=4,
            color=[colors[name] for name in names],
        )  # fmt: skip
        axis.tick_params(axis="x", rotation=15)
        axis.ticklabel_format(axis="y", style="sci", scilimits=(-3, 4))
    figure.tight_layout()
    title = (
        "LLM calls and cost per policy"
        if priced
        else ("LLM calls per policy (cost left out: no policy has a known cost above zero)")
    )
    return title, svg(figure)


def _status_breakdown(metrics: Sequence[PolicyMetrics]) -> str:
    figure, axis = subplots(figsize=(7, 3.4))
    names = [m.policy for m in metrics]
    bottom = np.zeros(len(names))
    for index, status in enumerate(TrialStatus):
        shares = np.array(
            [m.status_counts.get(status, 0) / max(m.trials, 1) * 100 for m in metrics]
        )
        if shares.any():
            axis.barh(names, shares, left=bottom, label=status, color=plt.get_cmap("tab10")(index))
            bottom += shares
    axis.set_xlabel("share of trials (%)")
    # Below the bars: inside the axes the legend hid a segment.
    axis.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=4)
    figure.tight_layout()
    return svg(figure)


def sweep_charts(summary: SweepSummary) -> dict[str, tuple[str, str]]:
    """The sweep's charts: accuracy and LLM calls per policy against the first varied rate."""
    key = summary.varied[0][0]
    figure, (accuracy, calls) = subplots(1, 2, figsize=(10, 3.8))
    colors = policy_colors(summary.policies)
    for policy in summary.policies:
        color = colors[policy]
        rates = [point.setting[key] for point in summary.points]
        for axis, estimates, scale in (
            (accuracy, [point.accuracy[policy] for point in summary.points], 100.0),
            (calls, [point.llm_calls[policy] for point in summary.points], 1.0),
        ):
            axis.errorbar(
                rates, [(e.value or 0.0) * scale for e in estimates],
                yerr=error_bars(estimates, scale), fmt="o-", color=color, label=policy, capsize=3,
            )  # fmt: skip
    if summary.decline.value is not None:
        accuracy.axhline(
            summary.decline.value * 100, color="#57606a", linestyle=":", label="always-decline"
        )
    for even in summary.break_evens:
        if even.value is not None and not even.fixed:
            accuracy.axvline(
                even.value, color="#9a6700", linestyle="--", label=f"break-even {even.value:.3g}"
            )
    accuracy.set_ylabel("accuracy (%)")
    calls.set_ylabel("LLM calls per trial")
    for axis in (accuracy, calls):
        axis.set_xlabel(key)
        axis.grid(alpha=0.3)
    # Below the plots, never over the data.
    handles, labels = accuracy.get_legend_handles_labels()
    figure.legend(
        handles, labels, loc="lower center", ncol=min(len(labels), 5), bbox_to_anchor=(0.5, -0.12)
    )
    figure.tight_layout()
    return {"sweep": (f"Accuracy and LLM calls against {key}", svg(figure))}


def charts(
    trials: Sequence[TrialRecord], metrics: Sequence[PolicyMetrics]
) -> dict[str, tuple[str, str]]:
    """The run's distribution charts by name: title and SVG (the report adds the rest)."""
    policies = [m.policy for m in metrics]
    return {
        "latency-cdf": ("Latency per trial, cumulative", _latency_cdf(trials, policies)),
        "llm-calls-and-cost": _calls_and_cost(metrics),
        "status-breakdown": ("How trials ended", _status_breakdown(metrics)),
    }
