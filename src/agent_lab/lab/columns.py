"""The report's table columns, spelled once for the terminal and for the HTML report (L11, L12)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, Literal, TypeVar

if TYPE_CHECKING:
    from collections.abc import Callable

    from agent_lab.lab.metrics import Comparison, PolicyMetrics, Reference

__all__ = ["COMPARISON_COLUMNS", "REFERENCE_COLUMNS", "SUMMARY_COLUMNS", "Column"]

Row = TypeVar("Row")


@dataclass(frozen=True, slots=True, kw_only=True)
class Column(Generic[Row]):
    """One column of a table: its heading, and how a row becomes its cell's text."""

    name: str
    cell: Callable[[Row], str]
    align: Literal["left", "right"] = "right"
    terminal: bool = True
    """Shown in the terminal too; the HTML report shows every column."""


def _mean(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.4g}"


def cost_cell(metrics: PolicyMetrics) -> str:
    """The mean cost per trial, ``n/a`` when no cost is known, and how many were known."""
    if metrics.cost_known == 0:
        return "n/a"
    mean = metrics.cost_per_trial.format(6)
    if metrics.cost_known < metrics.trials:
        # The known part is not a sample of the whole: often only the trials that
        # called no model (cost 0) are known, so the mean alone would read as free.
        return f"{mean} ({metrics.cost_known} of {metrics.trials} known)"
    return mean


SUMMARY_COLUMNS: tuple[Column[PolicyMetrics], ...] = (
    Column(name="policy", cell=lambda m: m.policy, align="left"),
    Column(name="trials", cell=lambda m: str(m.trials)),
    Column(name="accuracy", cell=lambda m: m.accuracy.format(1, 100, "%")),
    Column(
        name="exact accuracy", cell=lambda m: m.accuracy_exact.format(1, 100, "%"), terminal=False
    ),
    Column(name="in domain", cell=lambda m: m.accuracy_in_domain.format(1, 100, "%")),
    Column(name="out of domain", cell=lambda m: m.accuracy_out_of_domain.format(1, 100, "%")),
    Column(
        name="field precision",
        cell=lambda m: m.field_precision.format(1, 100, "%"),
        terminal=False,
    ),
    Column(name="field recall", cell=lambda m: m.field_recall.format(1, 100, "%"), terminal=False),
    Column(name="LLM calls/trial", cell=lambda m: m.llm_calls_per_trial.format(2)),
    Column(name="fallback rate", cell=lambda m: m.fallback_rate.format(1, 100, "%")),
    Column(name="tokens/trial", cell=lambda m: m.tokens_per_trial.format(0)),
    Column(name="cost/trial $", cell=cost_cell),
    Column(
        name="total cost $",
        cell=lambda m: "n/a" if m.total_cost is None else f"{m.total_cost:.6f}",
        terminal=False,
    ),
    Column(name="p50 ms", cell=lambda m: m.latency_p50_ms.format(1)),
    Column(name="p90 ms", cell=lambda m: m.latency_p90_ms.format(1)),
    Column(name="p99 ms", cell=lambda m: m.latency_p99_ms.format(1)),
    Column(name="mean ms", cell=lambda m: m.latency_mean_ms.format(1)),
)
"""The per-policy summary (L11)."""

COMPARISON_COLUMNS: tuple[Column[Comparison], ...] = (
    Column(name="policy", cell=lambda c: c.policy, align="left"),
    Column(name="metric", cell=lambda c: c.metric, align="left"),
    Column(name="ratio", cell=lambda c: c.ratio.format(3)),
    Column(name="policy mean", cell=lambda c: _mean(c.policy_mean)),
    Column(name="baseline mean", cell=lambda c: _mean(c.baseline_mean)),
)
"""Each policy against the baseline, paired by case (L11)."""

REFERENCE_COLUMNS: tuple[Column[Reference], ...] = (
    Column(name="baseline", cell=lambda r: r.name, align="left"),
    Column(name="accuracy", cell=lambda r: r.accuracy.format(1, 100, "%")),
    Column(name="what it is", cell=lambda r: r.description, align="left"),
)
"""The baselines computed from the same cases with no LLM (L11, the fair protocol)."""
