"""The report's charts, drawn with matplotlib to inline SVG at the size they are shown (L12).

Every panel is drawn ``PANEL_WIDTH_PX`` CSS pixels wide, its text in CSS
pixels tied to the page's, and the page never stretches it: panels sit side
by side on a wide screen and stack on a phone, so a chart's text is the same
size as every other chart's, at every width. Text stays text (``<text>``
elements, not glyph outlines), so the browser test can measure it and a
reader can find it.
"""

from __future__ import annotations

import functools
import io
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, ParamSpec, TypeVar

import matplotlib as mpl

mpl.use("Agg")  # no display: charts are drawn straight to SVG

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import FuncFormatter, NullFormatter

from agent_lab.lab.report.palette import STATUS_COLORS, STATUS_EDGE, policy_colors
from agent_lab.lab.report.terminal import printable
from agent_lab.lab.stats.metrics import Estimate
from agent_lab.log_replay.trial_status import TrialStatus

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from matplotlib.typing import RcKeyType

    from agent_lab.lab.results.records import TrialRecord
    from agent_lab.lab.stats.metrics import PolicyMetrics
    from agent_lab.lab.stats.sweep import SweepSummary

__all__ = [
    "CHARTS",
    "PANEL_WIDTH_PX",
    "SMALL_PX",
    "TEXT_PX",
    "Chart",
    "charts",
    "error_bars",
    "label",
    "legend_below",
    "log_x",
    "panel",
    "styled",
    "svg",
    "sweep_charts",
]

CHARTS = ("tradeoff", "by-category", "by-event", "latency-cdf", "llm-calls-and-cost",
          "status-breakdown")  # fmt: skip
"""Every chart's name, in the report's order."""

PANEL_WIDTH_PX: Final = 368
"""Every panel's width as drawn: a 390-pixel phone shows it unscaled inside the
page's 8-pixel margins, and three fit side by side in the 1,148 pixels of a wide page."""
TEXT_PX: Final = 13
"""Titles, axis labels: the size of the report's tables and notes."""
SMALL_PX: Final = 12
"""Tick labels and legends: one step below, as the page's code is."""

_PX_PER_INCH: Final = 96  # CSS pixels; matplotlib's SVG is in points, 72 to the inch
_PT_PER_PX: Final = 72 / _PX_PER_INCH
_STYLE: Final[dict[RcKeyType, Any]] = {
    "svg.fonttype": "none",
    "font.size": TEXT_PX * _PT_PER_PX,
    "axes.titlesize": TEXT_PX * _PT_PER_PX,
    "axes.labelsize": TEXT_PX * _PT_PER_PX,
    "figure.titlesize": TEXT_PX * _PT_PER_PX,
    "xtick.labelsize": SMALL_PX * _PT_PER_PX,
    "ytick.labelsize": SMALL_PX * _PT_PER_PX,
    "legend.fontsize": SMALL_PX * _PT_PER_PX,
    "legend.frameon": False,
    "axes.titlelocation": "left",
}

Params = ParamSpec("Params")
Result = TypeVar("Result")


@dataclass(frozen=True, slots=True, kw_only=True)
class Chart:
    """One chart of the report: a title and its panels, each an SVG drawn at its shown size."""

    title: str
    panels: tuple[str, ...]
    """Inline SVG, one per panel; the page lays them side by side, or stacks them."""


def styled(draw: Callable[Params, Result]) -> Callable[Params, Result]:
    """Run a chart's drawing with the report's text sizes and text kept as text."""

    @functools.wraps(draw)
    def drawing(*args: Params.args, **kwargs: Params.kwargs) -> Result:
        # rcParams are read as each artist is made, so the whole drawing runs inside.
        # matplotlib's stubs leave a parameter of rc_context unknown (its fname's PathLike).
        with mpl.rc_context(_STYLE):  # pyright: ignore[reportUnknownMemberType]
            return draw(*args, **kwargs)

    return drawing


def panel(height_px: float, *layout: int, **options: Any) -> Any:
    """A figure ``PANEL_WIDTH_PX`` wide and ``height_px`` tall, laid out to fit its text.

    ``plt.subplots`` typed loosely: matplotlib's stubs leave many Axes methods
    partly unknown, so the charts use them through Any.
    """
    size = (PANEL_WIDTH_PX / _PX_PER_INCH, height_px / _PX_PER_INCH)
    return plt.subplots(*layout, figsize=size, layout="constrained", **options)


def svg(figure: Any) -> str:
    """The figure as inline SVG text, at exactly its size; the figure is closed."""
    buffer = io.StringIO()
    # No tight bounding box: it would change the size the page relies on.
    figure.savefig(buffer, format="svg", metadata={"Date": None})
    plt.close(figure)
    text = buffer.getvalue()
    return text[text.index("<svg") :]


def legend_below(figure: Any, axis: Any, *, first: Sequence[str] = (), columns: int = 2) -> None:
    """The axis's legend under the panel, never over the data; the ``first`` labels lead."""
    entries = list(zip(*axis.get_legend_handles_labels(), strict=True))
    if not entries:
        return
    rank = {name: index for index, name in enumerate(first)}
    entries.sort(key=lambda entry: rank.get(entry[1], len(rank)))
    handles, labels = zip(*entries, strict=True)
    figure.legend(handles, labels, loc="outside lower center", ncol=min(columns, len(labels)))


def label(name: str, limit: int = 24) -> str:
    """A user's name (a policy's, a category's) as a chart shows it.

    As written, at most ``limit`` characters (then an ellipsis), its controls
    escaped, and no math read into a ``$``.
    """
    shown = printable(name)
    shown = shown if len(shown) <= limit else shown[: limit - 1] + "\u2026"
    return shown.replace("$", r"\$")


def log_x(axis: Any) -> None:
    """A log-scale x axis whose ticks read as plain numbers (``0.1``, ``10``)."""
    axis.set_xscale("log")
    # The default writes 10 to a power in a superscript two thirds the size of a tick label.
    axis.xaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))  # pyright: ignore[reportUnknownLambdaType, reportUnknownArgumentType]
    axis.xaxis.set_minor_formatter(NullFormatter())


def error_bars(estimates: Sequence[Estimate], scale: float = 1.0) -> list[list[float]]:
    """The ``yerr`` of a matplotlib bar: each value's distance down to its low, up to its high."""
    return [
        [max(0.0, ((e.value or 0.0) - (e.low or 0.0)) * scale) for e in estimates],
        [max(0.0, ((e.high or 0.0) - (e.value or 0.0)) * scale) for e in estimates],
    ]


def _bars_height(bars: int, *, extra: float = 0.0) -> float:
    # A title, the bars, the ticks and an axis label; ``extra`` for a legend below.
    return 78 + 24 * bars + extra


@styled
def _latency_cdf(trials: Sequence[TrialRecord], policies: list[str]) -> str:
    figure, axis = panel(300)
    colors = policy_colors(policies)
    for policy in policies:
        values = np.sort([t.latency_ns / 1e6 for t in trials if t.policy == policy])
        if values.size:
            axis.step(values, np.arange(1, values.size + 1) / values.size, where="post",
                      label=label(policy, 40), color=colors[policy])  # fmt: skip
    log_x(axis)
    axis.set_xlabel("latency per trial (ms, log scale)")
    axis.set_ylabel("share of trials")
    axis.grid(alpha=0.3)
    # Below the axes: a CDF fills its whole box, so any legend inside covers a curve.
    legend_below(figure, axis, first=[label(policy, 40) for policy in policies])
    return svg(figure)


def _whole_cost(metrics: PolicyMetrics) -> Estimate:
    # A mean over a part of the trials is drawn as unknown: the known part is often
    # the trials that called no model, so the bar would show a paid policy as free.
    if metrics.cost_known < metrics.trials:
        return Estimate(None, n=metrics.cost_known)
    return metrics.cost_per_trial


@styled
def _bars(metrics: Sequence[PolicyMetrics], estimates: Sequence[Estimate], measure: str) -> str:
    names = [m.policy for m in metrics]
    colors = policy_colors(names)
    figure, axis = panel(_bars_height(len(names)))
    axis.barh(
        [label(name) for name in names], [e.value or 0.0 for e in estimates],
        xerr=error_bars(estimates), capsize=3, color=[colors[name] for name in names],
    )  # fmt: skip
    axis.invert_yaxis()
    axis.set_xlabel(measure)
    axis.ticklabel_format(axis="x", style="sci", scilimits=(-3, 4))
    axis.grid(axis="x", alpha=0.3)
    return svg(figure)


def _calls_and_cost(metrics: Sequence[PolicyMetrics]) -> Chart:
    costs = [_whole_cost(m) for m in metrics]
    priced = any(e.value for e in costs)
    # Unknown is not zero: with no cost known above zero, the cost panel is left
    # out (the title says why) rather than drawn as bars at 0.
    panels = [_bars(metrics, [m.llm_calls_per_trial for m in metrics], "LLM calls per trial")]
    if priced:
        panels.append(_bars(metrics, costs, "cost per trial ($)"))
    title = (
        "LLM calls and cost per policy"
        if priced
        else "LLM calls per policy; cost left out: no policy has a known cost above zero"
    )
    return Chart(title=title, panels=tuple(panels))


@styled
def _status_breakdown(metrics: Sequence[PolicyMetrics]) -> str:
    present = [s for s in TrialStatus if any(m.status_counts.get(s) for m in metrics)]
    rows = (len(present) + 1) // 2
    figure, axis = panel(_bars_height(len(metrics), extra=20 * rows))
    names = [label(m.policy) for m in metrics]
    bottom = np.zeros(len(names))
    for status in present:
        shares = np.array(
            [m.status_counts.get(status, 0) / max(m.trials, 1) * 100 for m in metrics]
        )
        axis.barh(
            names, shares, left=bottom, label=status,
            color=STATUS_COLORS[status], edgecolor=STATUS_EDGE, linewidth=0.6,
        )  # fmt: skip
        bottom += shares
    axis.invert_yaxis()
    axis.set_xlim(0, 100)
    axis.set_xlabel("share of trials (%)")
    # Below the bars: inside the axes the legend hid a segment.
    legend_below(figure, axis)
    return svg(figure)


@styled
def _sweep_panel(summary: SweepSummary, *, accuracy: bool) -> str:
    key = summary.varied[0][0]
    figure, axis = panel(330)
    colors = policy_colors(summary.policies)
    rates = [point.setting[key] for point in summary.points]
    for policy in summary.policies:
        if accuracy:
            estimates, scale = [point.accuracy[policy] for point in summary.points], 100.0
        else:
            estimates, scale = [point.llm_calls[policy] for point in summary.points], 1.0
        axis.errorbar(
            rates, [(e.value or 0.0) * scale for e in estimates],
            yerr=error_bars(estimates, scale), fmt="o-", color=colors[policy],
            label=label(policy, 40), capsize=3,
        )  # fmt: skip
    if accuracy and summary.decline.value is not None:
        axis.axhline(
            summary.decline.value * 100, color="#57606a", linestyle=":", label="always-decline"
        )
    for even in summary.break_evens if accuracy else ():
        if even.value is not None and not even.fixed:
            axis.axvline(
                even.value, color="#9a6700", linestyle="--", label=f"break-even {even.value:.3g}"
            )
    axis.set_ylabel("accuracy (%)" if accuracy else "LLM calls per trial")
    axis.set_xlabel(key)
    axis.grid(alpha=0.3)
    legend_below(figure, axis, first=[label(policy, 40) for policy in summary.policies])
    return svg(figure)


def sweep_charts(summary: SweepSummary) -> dict[str, Chart]:
    """The sweep's charts: accuracy and LLM calls per policy against the first varied rate."""
    key = summary.varied[0][0]
    panels = (_sweep_panel(summary, accuracy=True), _sweep_panel(summary, accuracy=False))
    return {"sweep": Chart(title=f"Accuracy and LLM calls against {key}", panels=panels)}


def charts(trials: Sequence[TrialRecord], metrics: Sequence[PolicyMetrics]) -> dict[str, Chart]:
    """The run's distribution charts by name (the report adds the rest)."""
    policies = [m.policy for m in metrics]
    return {
        "latency-cdf": Chart(
            title="Latency per trial, cumulative", panels=(_latency_cdf(trials, policies),)
        ),
        "llm-calls-and-cost": _calls_and_cost(metrics),
        "status-breakdown": Chart(title="How trials ended", panels=(_status_breakdown(metrics),)),
    }
