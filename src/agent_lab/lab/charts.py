"""The report's charts, drawn with matplotlib straight to inline SVG (L12)."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any

import matplotlib as mpl

mpl.use("Agg")  # no display: charts are drawn straight to SVG

import matplotlib.pyplot as plt
import numpy as np

from agent_lab.lab.metrics import Estimate
from agent_lab.lab.records import TrialStatus

if TYPE_CHECKING:
    from collections.abc import Sequence

    from agent_lab.lab.metrics import PolicyMetrics
    from agent_lab.lab.records import TrialRecord
    from agent_lab.lab.sweep import SweepSummary

__all__ = ["CHARTS", "charts", "sweep_charts"]

CHARTS = ("latency-cdf", "llm-calls-and-cost", "accuracy-vs-cost", "status-breakdown")
"""Every chart's name, in the report's order."""
COLORS = ("#1f6feb", "#d1242f", "#1a7f37", "#9a6700", "#8250df", "#57606a")


def _subplots(*layout: int, figsize: tuple[float, float]) -> Any:
    # matplotlib's stubs leave many Axes methods partly unknown; the charts use them through Any.
    return plt.subplots(*layout, figsize=figsize)


def _svg(figure: Any) -> str:
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", bbox_inches="tight")
    plt.close(figure)
    text = buffer.getvalue()
    return text[text.index("<svg") :]


def _error_bars(estimates: Sequence[Estimate], scale: float = 1.0) -> list[list[float]]:
    """The ``yerr`` of a matplotlib bar: each value's distance down to its low, up to its high."""
    return [
        [max(0.0, ((e.value or 0.0) - (e.low or 0.0)) * scale) for e in estimates],
        [max(0.0, ((e.high or 0.0) - (e.value or 0.0)) * scale) for e in estimates],
    ]


def _latency_cdf(trials: Sequence[TrialRecord], policies: list[str]) -> str:
    figure, axis = _subplots(figsize=(7, 3.6))
    for index, policy in enumerate(policies):
        values = np.sort([t.latency_ns / 1e6 for t in trials if t.policy == policy])
        if values.size:
            axis.step(values, np.arange(1, values.size + 1) / values.size, where="post",
                      label=policy, color=COLORS[index % len(COLORS)])  # fmt: skip
    axis.set_xscale("log")
    axis.set_xlabel("latency per trial (ms, log scale)")
    axis.set_ylabel("share of trials")
    axis.grid(alpha=0.3)
    axis.legend()
    return _svg(figure)


def _whole_cost(metrics: PolicyMetrics) -> Estimate:
    # A mean over a part of the trials is drawn as unknown: the known part is often
    # the trials that called no model, so the bar would show a paid policy as free.
    if metrics.cost_known < metrics.trials:
        return Estimate(None, n=metrics.cost_known)
    return metrics.cost_per_trial


def _calls_and_cost(metrics: Sequence[PolicyMetrics]) -> str:
    figure, (calls, cost) = _subplots(1, 2, figsize=(8, 3.4))
    names = [m.policy for m in metrics]
    for axis, estimates, label in (
        (calls, [m.llm_calls_per_trial for m in metrics], "LLM calls per trial"),
        (cost, [_whole_cost(m) for m in metrics], "cost per trial ($)"),
    ):
        axis.set_title(label)
        if not any(e.value for e in estimates):
            # Unknown is not zero: an empty panel that says so, not bars at 0.
            axis.text(0.5, 0.5, "no known value above zero", ha="center", transform=axis.transAxes)
            axis.set_xticks([])
            continue
        values = [e.value or 0.0 for e in estimates]
        axis.bar(names, values, yerr=_error_bars(estimates), capsize=4, color=COLORS[: len(names)])
        axis.tick_params(axis="x", rotation=15)
        axis.ticklabel_format(axis="y", style="sci", scilimits=(-3, 4))
    figure.tight_layout()
    return _svg(figure)


def _accuracy_vs_cost(metrics: Sequence[PolicyMetrics]) -> str:
    figure, axis = _subplots(figsize=(6, 3.6))
    for index, m in enumerate(metrics):
        cost = _whole_cost(m).value
        if cost is None:
            continue  # an unknown cost has no place on a cost axis, least of all at 0
        axis.errorbar(
            [cost], [(m.accuracy.value or 0.0) * 100],
            yerr=_error_bars([m.accuracy], 100),
            fmt="o", color=COLORS[index % len(COLORS)], label=m.policy, capsize=4,
        )  # fmt: skip
    axis.set_xlabel("cost per trial ($)")
    axis.ticklabel_format(axis="x", style="sci", scilimits=(-3, 4))
    axis.set_ylabel("accuracy (%)")
    axis.grid(alpha=0.3)
    axis.legend()
    return _svg(figure)


def _status_breakdown(metrics: Sequence[PolicyMetrics]) -> str:
    figure, axis = _subplots(figsize=(7, 3.4))
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
    return _svg(figure)


def sweep_charts(summary: SweepSummary) -> dict[str, tuple[str, str]]:
    """The sweep's charts: accuracy and LLM calls per policy against the first varied rate."""
    key = summary.varied[0][0]
    figure, (accuracy, calls) = _subplots(1, 2, figsize=(10, 3.8))
    for index, policy in enumerate(summary.policies):
        color = COLORS[index % len(COLORS)]
        rates = [point.setting[key] for point in summary.points]
        for axis, estimates, scale in (
            (accuracy, [point.accuracy[policy] for point in summary.points], 100.0),
            (calls, [point.llm_calls[policy] for point in summary.points], 1.0),
        ):
            axis.errorbar(
                rates, [(e.value or 0.0) * scale for e in estimates],
                yerr=_error_bars(estimates, scale), fmt="o-", color=color, label=policy, capsize=3,
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
    return {"sweep": (f"Accuracy and LLM calls against {key}", _svg(figure))}


def charts(
    trials: Sequence[TrialRecord], metrics: Sequence[PolicyMetrics]
) -> dict[str, tuple[str, str]]:
    """Each chart of ``CHARTS`` by name: its title and its SVG."""
    policies = [m.policy for m in metrics]
    priced = any(_whole_cost(m).value for m in metrics)
    return {
        "latency-cdf": ("Latency per trial, cumulative", _latency_cdf(trials, policies)),
        "llm-calls-and-cost": ("LLM calls and cost per policy", _calls_and_cost(metrics)),
        "accuracy-vs-cost": (
            "Accuracy against cost",
            _accuracy_vs_cost(metrics) if priced else NO_COST,
        ),
        "status-breakdown": ("How trials ended", _status_breakdown(metrics)),
    }


NO_COST = (
    '<p class="omitted">Left out: no policy has a known cost above zero '
    "(a free local model, or one no price table knows), so there is nothing to plot.</p>"
)
"""What stands in for a cost chart with nothing to show (fixed text, no user input)."""
