"""The report: a terminal table, and one self-contained HTML file with its charts inline (L12)."""

from __future__ import annotations

import html
import io
from typing import TYPE_CHECKING, Any

import matplotlib as mpl

mpl.use("Agg")  # no display: charts are drawn straight to SVG

import matplotlib.pyplot as plt
import numpy as np
from rich.table import Table

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from rich.console import Console

    from agent_lab.lab.metrics import Comparison, PolicyMetrics
    from agent_lab.lab.store import RunRecord

__all__ = ["CHARTS", "render_html", "terminal_tables"]

CHARTS = ("latency-cdf", "llm-calls-and-cost", "accuracy-vs-cost", "status-breakdown")
STATUSES = (
    "success", "missing_information", "invalid_arguments", "unknown_event", "fallback_failed",
    "handler_error", "definition_error", "error",
)  # fmt: skip
COLORS = ("#1f6feb", "#d1242f", "#1a7f37", "#9a6700", "#8250df", "#57606a")


def provenance(run: RunRecord) -> str:
    """Which model produced the figures, and whether they are simulated."""
    label = f"provider {run.provider}, model {run.model or 'default'}"
    return f"SIMULATED figures ({label})" if run.simulated else label


def terminal_tables(
    run: RunRecord,
    metrics: Sequence[PolicyMetrics],
    comparisons: Sequence[Comparison] = (),
    *,
    console: Console,
) -> None:
    """Print the run's table (and the comparison against the baseline) to a console."""
    table = Table(
        title=f"run {run.run_id}: {run.workload}, {provenance(run)}", title_justify="left"
    )
    for column in ("policy", "trials", "accuracy", "LLM calls/trial", "fallback rate",
                   "tokens/trial", "cost/trial $", "p50 ms", "p90 ms", "p99 ms", "mean ms"):  # fmt: skip
        if column == "policy":
            table.add_column(column, no_wrap=True)
        else:
            table.add_column(column, justify="right")
    for m in metrics:
        table.add_row(
            m.policy,
            str(m.trials),
            m.accuracy.format(1, 100, "%"),
            m.llm_calls_per_trial.format(2),
            m.fallback_rate.format(1, 100, "%"),
            m.tokens_per_trial.format(0),
            m.cost_per_trial.format(6),
            m.latency_p50_ms.format(1),
            m.latency_p90_ms.format(1),
            m.latency_p99_ms.format(1),
            m.latency_mean_ms.format(1),
        )
    console.print(table)
    statuses = Table(title="status counts", title_justify="left")
    statuses.add_column("policy")
    present = [s for s in STATUSES if any(s in m.status_counts for m in metrics)]
    for status in present:
        statuses.add_column(status, justify="right")
    for m in metrics:
        statuses.add_row(m.policy, *(str(m.status_counts.get(s, 0)) for s in present))
    console.print(statuses)
    if comparisons:
        ratios = Table(
            title=f"against {comparisons[0].baseline} (ratio of means on the same cases, 95% CI)",
            title_justify="left",
        )
        for column in ("policy", "metric", "ratio", "policy mean", "baseline mean"):
            ratios.add_column(column, justify="left" if column in ("policy", "metric") else "right")
        for c in comparisons:
            ratios.add_row(
                c.policy, c.metric, c.ratio.format(3),
                "n/a" if c.policy_mean is None else f"{c.policy_mean:.4g}",
                "n/a" if c.baseline_mean is None else f"{c.baseline_mean:.4g}",
            )  # fmt: skip
        console.print(ratios)


def _subplots(*layout: int, figsize: tuple[float, float]) -> Any:
    # matplotlib's stubs leave many Axes methods partly unknown; the charts use them through Any.
    return plt.subplots(*layout, figsize=figsize)


def _svg(figure: Any) -> str:
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", bbox_inches="tight")
    plt.close(figure)
    text = buffer.getvalue()
    return text[text.index("<svg") :]


def _latency_cdf(trials: Sequence[dict[str, Any]], policies: list[str]) -> str:
    figure, axis = _subplots(figsize=(7, 3.6))
    for index, policy in enumerate(policies):
        values = np.sort([t["latency_ns"] / 1e6 for t in trials if t["policy"] == policy])
        if values.size:
            axis.step(values, np.arange(1, values.size + 1) / values.size, where="post",
                      label=policy, color=COLORS[index % len(COLORS)])  # fmt: skip
    axis.set_xscale("log")
    axis.set_xlabel("latency per trial (ms, log scale)")
    axis.set_ylabel("share of trials")
    axis.grid(alpha=0.3)
    axis.legend()
    return _svg(figure)


def _calls_and_cost(metrics: Sequence[PolicyMetrics]) -> str:
    figure, (calls, cost) = _subplots(1, 2, figsize=(8, 3.4))
    names = [m.policy for m in metrics]
    for axis, estimates, label in (
        (calls, [m.llm_calls_per_trial for m in metrics], "LLM calls per trial"),
        (cost, [m.cost_per_trial for m in metrics], "cost per trial ($)"),
    ):
        values = [e.value or 0.0 for e in estimates]
        errors = [
            [max(0.0, (e.value or 0) - (e.low or 0)) for e in estimates],
            [max(0.0, (e.high or 0) - (e.value or 0)) for e in estimates],
        ]
        axis.bar(names, values, yerr=errors, capsize=4, color=COLORS[: len(names)])
        axis.set_title(label)
        axis.tick_params(axis="x", rotation=15)
        axis.ticklabel_format(axis="y", style="sci", scilimits=(-3, 4))
    figure.tight_layout()
    return _svg(figure)


def _accuracy_vs_cost(metrics: Sequence[PolicyMetrics]) -> str:
    figure, axis = _subplots(figsize=(6, 3.6))
    for index, m in enumerate(metrics):
        x = m.cost_per_trial.value or 0.0
        y = (m.accuracy.value or 0.0) * 100
        axis.errorbar(
            [x], [y],
            yerr=[[y - (m.accuracy.low or 0) * 100], [(m.accuracy.high or 0) * 100 - y]],
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
    for index, status in enumerate(STATUSES):
        shares = np.array(
            [m.status_counts.get(status, 0) / max(m.trials, 1) * 100 for m in metrics]
        )
        if shares.any():
            axis.barh(names, shares, left=bottom, label=status, color=plt.get_cmap("tab10")(index))
            bottom += shares
    axis.set_xlabel("share of trials (%)")
    axis.legend(fontsize=7, loc="lower right")
    return _svg(figure)


def render_html(
    run: RunRecord,
    trials: Sequence[dict[str, Any]],
    metrics: Sequence[PolicyMetrics],
    comparisons: Sequence[Comparison],
    path: Path,
) -> Path:
    """Write the self-contained HTML report (no scripts, no network) and return its path."""
    policies = [m.policy for m in metrics]
    charts = {
        "latency-cdf": ("Latency per trial, cumulative", _latency_cdf(trials, policies)),
        "llm-calls-and-cost": ("LLM calls and cost per policy", _calls_and_cost(metrics)),
        "accuracy-vs-cost": ("Accuracy against cost", _accuracy_vs_cost(metrics)),
        "status-breakdown": ("How trials ended", _status_breakdown(metrics)),
    }
    rows = "".join(
        "<tr>" + "".join(f"<td>{html.escape(cell)}</td>" for cell in (
            m.policy, str(m.trials), m.accuracy.format(1, 100, "%"), m.field_precision.format(1, 100, "%"),
            m.field_recall.format(1, 100, "%"), m.llm_calls_per_trial.format(2), m.fallback_rate.format(1, 100, "%"),
            m.tokens_per_trial.format(0), m.cost_per_trial.format(6),
            "n/a" if m.total_cost is None else f"{m.total_cost:.6f}",
            m.latency_p50_ms.format(1), m.latency_p90_ms.format(1), m.latency_p99_ms.format(1),
            m.latency_mean_ms.format(1),
        )) + "</tr>"
        for m in metrics
    )  # fmt: skip
    comparison_rows = "".join(
        f"<tr><td>{html.escape(c.policy)}</td><td>{c.metric}</td><td>{html.escape(c.ratio.format(3))}</td></tr>"
        for c in comparisons
    )
    label = html.escape(provenance(run))
    badge = '<span class="simulated">SIMULATED</span> ' if run.simulated else ""
    sections = "".join(
        f'<section class="chart" data-chart="{name}"><h2>{html.escape(title)}</h2>'
        f"{badge}{svg}</section>"
        for name, (title, svg) in charts.items()
    )
    environment = run.environment
    document = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>agent-lab report: {html.escape(run.run_id)}</title>
<style>
body {{ font: 15px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 1100px; color: #1f2328; }}
table {{ border-collapse: collapse; margin: 1em 0; font-size: 13px; }}
td, th {{ border: 1px solid #d0d7de; padding: 4px 8px; text-align: right; }}
td:first-child, th:first-child {{ text-align: left; }}
.simulated {{ background: #fff8c5; border: 1px solid #d4a72c; padding: 1px 6px; border-radius: 4px; font-weight: 600; }}
section.chart {{ margin: 2em 0; }} section.chart svg {{ max-width: 100%; height: auto; }}
.note {{ color: #57606a; font-size: 13px; }}
</style></head><body>
<h1>agent-lab report</h1>
<p>{badge}Run <code>{html.escape(run.run_id)}</code>, workload <code>{html.escape(run.workload)}</code>,
plugins <code>{html.escape(run.plugins)}</code>: {label}.</p>
<p class="note">The accuracy of a small model says nothing about a production model's. Intervals are 95% bootstrap
confidence intervals. Python {html.escape(str(environment.get("python")))}, {html.escape(str(environment.get("cpu")))},
agent-lab revision {html.escape(str(environment.get("git_revision")))}.</p>
<table id="summary"><thead><tr><th>policy</th><th>trials</th><th>accuracy</th><th>field precision</th><th>field recall</th>
<th>LLM calls/trial</th><th>fallback rate</th><th>tokens/trial</th><th>cost/trial $</th><th>total cost $</th>
<th>p50 ms</th><th>p90 ms</th><th>p99 ms</th><th>mean ms</th></tr></thead><tbody>{rows}</tbody></table>
<table id="comparison"><thead><tr><th>policy</th><th>metric</th><th>ratio to {html.escape(comparisons[0].baseline if comparisons else "-")}</th></tr></thead>
<tbody>{comparison_rows}</tbody></table>
{sections}
</body></html>
"""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(document, encoding="utf-8")
    return path
