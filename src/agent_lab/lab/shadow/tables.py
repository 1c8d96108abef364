"""The terminal's view of a log replay: a headline in sentences, a table per tool."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.table import Table

from agent_lab.lab.report.wording import counted
from agent_lab.log_replay.intervals import wilson

if TYPE_CHECKING:
    from agent_lab.log_replay.figures import ShadowFigures, Tally

__all__ = ["headline", "share", "tool_table"]

AGREEMENT_IS_NOT_ACCURACY = (
    "Agreement is agreement with the logged model, not accuracy: a disagreement may be "
    "the model's error."
)


def share(right: int, of: int) -> str:
    """``right`` of ``of`` as a percentage with its 95% Wilson interval; "n/a" of none."""
    if not of:
        return "n/a"
    low, high = wilson(right, of)
    return f"{right / of:.1%} [{low:.1%}, {high:.1%}]"


def headline(figures: ShadowFigures, *, min_agreement: float) -> list[str]:
    """What the replay found, in sentences: coverage, agreement, savings, what to switch first."""
    total = figures.total
    lines = [
        f"{counted(figures.requests, 'logged request')}: {counted(total.calls, 'tool call')}, "
        f"{counted(figures.kinds['words'], 'reply', 'replies')} in words, "
        f"{counted(figures.kinds['follow_up'], 'follow-up')} after a tool's result.",
    ]
    if total.calls:
        lines.append(
            f"Deterministic-first would have sent no request for {total.covered} of the "
            f"{total.calls} tool calls ({share(total.covered, total.calls)}); on those it "
            f"agreed with the logged model {total.agreed} times "
            f"({share(total.agreed, total.covered)}; "
            f"{share(total.agreed_lenient, total.covered)} by BFCL's looser rule); where it "
            f"chose the logged tool, the values agreed in {total.agreed} of {total.same_tool} "
            f"({share(total.agreed, total.same_tool)})."
        )
    if figures.values:
        lines.append(
            "Values plain code filled on covered calls of the logged tool, by kind, that the "
            "logged call holds too: "
            + "; ".join(
                f"{kind} {agreed} of {filled} ({share(agreed, filled)})"
                for kind, (agreed, filled) in sorted(figures.values.items())
            )
            + "."
        )
    if figures.by_source:
        lines.append(
            "The same values by where they came from: "
            + "; ".join(
                f"{source.replace('_', ' ')} {agreed} of {filled} ({share(agreed, filled)})"
                for source, (agreed, filled) in sorted(figures.by_source.items())
            )
            + "."
        )
    if figures.acted_on_words:
        lines.append(
            f"It would have acted on {counted(figures.acted_on_words, 'message')} the model "
            "answered in words."
        )
    lines.append(_saved_sentence(total, estimated=figures.tokens_estimated))
    first = figures.switch_first(min_agreement)
    lines.append(
        f"Switch first ({min_agreement:.0%} agreement at the interval's lower bound): "
        + (", ".join(first) if first else "no tool clears it yet")
        + "."
    )
    decided = figures.requests - figures.kinds["follow_up"]
    if decided:
        lines.append(
            "Relative dates (tomorrow, friday, March 5th) were read against each request's own "
            "time, as its log gives it"
            + (
                f"; {figures.undated} of {decided} requests had none, so any relative date in "
                "them was left to the model."
                if figures.undated
                else "."
            )
        )
    lines.append(AGREEMENT_IS_NOT_ACCURACY)
    if figures.skipped:
        left = ", ".join(f"{reason} {n}" for reason, n in sorted(figures.skipped.items()))
        lines.append(f"Left out: {left}.")
    return lines


def _saved_sentence(total: Tally, *, estimated: bool) -> str:
    saved = total.saved_requests
    parts = [counted(saved, "request")]
    if total.tokens_unknown < saved:
        label = " (estimated)" if estimated else ""
        parts.append(
            f"{total.prompt_tokens:,} prompt and {total.completion_tokens:,} completion "
            f"tokens{label}"
        )
    if total.cost_unknown < saved:
        parts.append(f"${total.cost:.4f}")
    if total.latency_unknown < saved:
        parts.append(f"{total.latency_ms / 1000:.1f} s of model time")
    unknown = [
        f"{count} without {what}"
        for count, what in (
            (total.tokens_unknown, "tokens"),
            (total.cost_unknown, "a price"),
            (total.latency_unknown, "a latency"),
        )
        if count
    ]
    tail = f" ({'; '.join(unknown)})" if unknown else ""
    # Only what it would have answered as the logged model did is a saving.
    return "Saved where it agreed: " + ", ".join(parts) + tail + "."


def tool_table(figures: ShadowFigures, *, min_agreement: float) -> Table:
    """One row per logged tool, most calls first."""
    table = Table(title="by tool (agreement: with the logged model, not accuracy)")
    for column in ("tool", "calls", "covered", "agreement", "lenient", "router", "saved"):
        table.add_column(column, justify="left" if column == "tool" else "right")
    first = set(figures.switch_first(min_agreement))
    ranked = sorted(figures.by_tool.items(), key=lambda pair: (-pair[1].calls, pair[0]))
    for tool, tally in ranked:
        table.add_row(
            tool + (" *" if tool in first else ""),
            str(tally.calls),
            share(tally.covered, tally.calls),
            share(tally.agreed, tally.covered),
            share(tally.agreed_lenient, tally.covered),
            share(tally.routed_right, tally.calls),
            str(tally.saved_requests),
        )
    return table
