"""The report's table columns, spelled once for the terminal and for the HTML report (L11, L12)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, Literal, TypeVar

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from agent_lab.lab.stats.breakdown import Group, GroupFigures
    from agent_lab.lab.stats.metrics import Comparison, PolicyMetrics, Reference

__all__ = [
    "BREAKDOWN_COLUMNS",
    "COMPARISON_COLUMNS",
    "REFERENCE_COLUMNS",
    "SUMMARY_COLUMNS",
    "Column",
    "Fitted",
    "breakdown_rows",
    "every_column",
    "fit",
]

Row = TypeVar("Row")


@dataclass(frozen=True, slots=True, kw_only=True)
class Column(Generic[Row]):
    """One column of a table: its heading, and how a row becomes its cell's text."""

    name: str
    cell: Callable[[Row], str]
    align: Literal["left", "right"] = "right"
    terminal: bool = True
    """Shown in the terminal too; the HTML report shows every column."""
    drop: int = 0
    """When a terminal is too narrow: 0 is always shown, and the highest is left out first."""
    wrap: bool = False
    """Prose that may wrap onto more lines; other cells keep to one line."""


_WRAPPED_WIDTH = 24
_BORDER = 3
"""A column's share of a rich box: the rule and a space of padding on each side."""


def stacked(text: str) -> str:
    """``value [low, high] (note)`` on a line each: a narrow terminal's form of a cell."""
    return text.replace(" [", "\n[").replace(" (", "\n(")


def cell_width(column: Column[Row], cells: Sequence[str]) -> int:
    """The narrowest the column can be: its longest line and heading (prose wraps)."""
    longest = max((len(line) for text in cells for line in text.split("\n")), default=0)
    if column.wrap:
        return max(min(longest, _WRAPPED_WIDTH), *(len(word) for word in column.name.split()))
    # A one-line column keeps its heading on one line too (rich's no_wrap is per column).
    return max(longest, len(column.name))


@dataclass(frozen=True, slots=True)
class Fitted(Generic[Row]):
    """The columns of a table that fit a terminal."""

    shown: list[tuple[Column[Row], int]]
    """Each column shown, with the width its cells need."""
    dropped: list[Column[Row]]
    stack: bool
    """Whether intervals go on a line of their own below each value."""

    def cells(self, row: Row) -> list[str]:
        """The row's cells, in the form that fits."""
        texts = [column.cell(row) for column, _ in self.shown]
        return [stacked(text) for text in texts] if self.stack else texts


def fit(columns: Sequence[Column[Row]], rows: Sequence[Row], width: int) -> Fitted[Row]:
    """The terminal columns that fit in ``width``.

    First on one line per row; then with each interval below its value; then
    leaving out columns by ``drop`` (highest first, rightmost first among
    equals) until the rest fit. ``drop=0`` columns always stay.
    """
    chosen = [column for column in columns if column.terminal]
    for stack in (False, True):
        shown = [(column, _need(column, rows, stack=stack)) for column in chosen]
        if _width(shown) <= width:
            return Fitted(shown, [], stack=stack)
    dropped: list[Column[Row]] = []
    while _width(shown) > width:
        candidates = [index for index, (column, _) in enumerate(shown) if column.drop > 0]
        if not candidates:
            break
        victim = max(candidates, key=lambda index: (shown[index][0].drop, index))
        dropped.append(shown.pop(victim)[0])
    return Fitted(shown, dropped, stack=True)


def every_column(columns: Sequence[Column[Row]], rows: Sequence[Row]) -> Fitted[Row]:
    """Every column, the HTML report's too, each value and interval on one line."""
    shown = [(column, _need(column, rows, stack=False)) for column in columns]
    return Fitted(shown, [], stack=False)


def _need(column: Column[Row], rows: Sequence[Row], *, stack: bool) -> int:
    texts = [column.cell(row) for row in rows]
    return cell_width(column, [stacked(text) for text in texts] if stack else texts)


def _width(shown: Sequence[tuple[Column[Row], int]]) -> int:
    return sum(need + _BORDER for _, need in shown) + 1


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
        return f"{mean} ({metrics.cost_known}/{metrics.trials} known)"
    return mean


SUMMARY_COLUMNS: tuple[Column[PolicyMetrics], ...] = (
    Column(name="policy", cell=lambda m: m.policy, align="left"),
    Column(name="trials", cell=lambda m: str(m.trials), drop=3),
    Column(name="accuracy", cell=lambda m: m.accuracy.format(1, 100, "%")),
    Column(
        name="exact accuracy", cell=lambda m: m.accuracy_exact.format(1, 100, "%"), terminal=False
    ),
    Column(name="in domain", cell=lambda m: m.accuracy_in_domain.format(1, 100, "%"), drop=4),
    Column(
        name="out of domain", cell=lambda m: m.accuracy_out_of_domain.format(1, 100, "%"), drop=4
    ),
    Column(
        name="field precision",
        cell=lambda m: m.field_precision.format(1, 100, "%"),
        terminal=False,
    ),
    Column(name="field recall", cell=lambda m: m.field_recall.format(1, 100, "%"), terminal=False),
    Column(name="LLM calls/trial", cell=lambda m: m.llm_calls_per_trial.format(2), drop=1),
    Column(name="fallback rate", cell=lambda m: m.fallback_rate.format(1, 100, "%"), drop=5),
    Column(name="tokens/trial", cell=lambda m: m.tokens_per_trial.format(0), drop=2),
    Column(name="cost/trial $", cell=cost_cell, drop=1),
    Column(name="cost/correct $", cell=lambda m: m.cost_per_correct.format(6), drop=3),
    Column(name="failed calls", cell=lambda m: str(m.failed_calls), drop=6),
    Column(
        name="total cost $",
        cell=lambda m: "n/a" if m.total_cost is None else f"{m.total_cost:.6f}",
        terminal=False,
    ),
    Column(name="p50 ms", cell=lambda m: m.latency_p50_ms.format(1), drop=1),
    Column(name="p90 ms", cell=lambda m: m.latency_p90_ms.format(1), drop=5),
    Column(name="p99 ms", cell=lambda m: m.latency_p99_ms.format(1), drop=6),
    Column(name="mean ms", cell=lambda m: m.latency_mean_ms.format(1), drop=3),
)
"""The per-policy summary (L11)."""

COMPARISON_COLUMNS: tuple[Column[Comparison], ...] = (
    Column(name="policy", cell=lambda c: c.policy, align="left"),
    Column(name="metric", cell=lambda c: c.metric, align="left"),
    Column(name="ratio", cell=lambda c: c.ratio.format(3)),
    Column(name="policy mean", cell=lambda c: _mean(c.policy_mean), drop=1),
    Column(name="baseline mean", cell=lambda c: _mean(c.baseline_mean), drop=1),
)
"""Each policy against the baseline, paired by case (L11)."""

REFERENCE_COLUMNS: tuple[Column[Reference], ...] = (
    Column(name="baseline", cell=lambda r: r.name, align="left"),
    Column(name="accuracy", cell=lambda r: r.accuracy.format(1, 100, "%")),
    Column(name="what it is", cell=lambda r: r.description, align="left", wrap=True),
)
"""The baselines computed from the same cases with no LLM (L11, the fair protocol)."""


def _difference_cell(figures: GroupFigures) -> str:
    if figures.difference is None:
        return "-"
    text = figures.difference.format(1, 100, signed=True)
    return text + (" *" if figures.significant else "")


BreakdownRow = tuple["Group", "GroupFigures"]
"""One policy in one group: a row of a breakdown table."""

BREAKDOWN_COLUMNS: tuple[Column[BreakdownRow], ...] = (
    Column(name="group", cell=lambda r: r[0].name, align="left"),
    Column(name="policy", cell=lambda r: r[1].policy, align="left"),
    Column(name="cases", cell=lambda r: str(r[0].cases), drop=2),
    Column(name="accuracy", cell=lambda r: r[1].accuracy.format(1, 100, "%")),
    Column(name="vs baseline (points)", cell=lambda r: _difference_cell(r[1])),
    Column(name="LLM calls/trial", cell=lambda r: r[1].llm_calls.format(2), drop=1),
)
"""A breakdown, one row per group and policy; ``*`` marks a difference from the
baseline whose 95% interval leaves out 0."""


def breakdown_rows(groups: Sequence[Group]) -> list[BreakdownRow]:
    """The rows of a breakdown table, group by group."""
    return [(group, figures) for group in groups for figures in group.figures]
