"""The terminal's view of ``agent-lab learn``: the gain on held-out calls, and the rules kept."""

from __future__ import annotations

import json
import math
from collections import Counter
from typing import TYPE_CHECKING, cast

from rich.table import Table

from agent_lab.lab.report.terminal import plain
from agent_lab.lab.shadow.tables import AGREEMENT_IS_NOT_ACCURACY, share
from agent_lab.log_replay.intervals import wilson
from agent_lab.resolvers.learned import ANY_TOOL

if TYPE_CHECKING:
    from agent_lab.lab.learn.learning import Learned
    from agent_lab.resolvers.learned import RuleBook

__all__ = ["gain_lines", "gain_table", "rules_table"]


def gain_lines(learned: Learned) -> list[str]:
    """What was mined, kept and gained, in sentences."""
    book = learned.rules.source.get("gate")
    candidates = book.get("candidates") if isinstance(book, dict) else None
    kinds = Counter(rule.kind for rule in learned.rules.rules)
    refused = Counter(refusal.reason for refusal in learned.verdicts.refused)
    before, after = learned.gain.before, learned.gain.after
    return [
        f"Mined {candidates} candidate rules from {learned.training} training calls; kept "
        f"{len(learned.rules.rules)} ("
        + (", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items())) or "none")
        + ") on "
        f"{learned.held} held-out calls; refused "
        + (
            ", ".join(f"{n} {reason.replace('_', ' ')}" for reason, n in sorted(refused.items()))
            or "none"
        )
        + ".",
        f"Of the {before.calls} held-out calls, deterministic-first would have sent no request "
        f"for {before.covered} without the rules ({share(before.covered, before.calls)}) and "
        f"for {after.covered} with them ({share(after.covered, after.calls)}); agreement on those "
        f"{share(before.agreed, before.covered)} before, {share(after.agreed, after.covered)} "
        f"after. The same calls admitted the rules: measure them on logs they never saw "
        "before trusting the gain.",
        *_too_few(learned),
        _saved(learned),
        AGREEMENT_IS_NOT_ACCURACY,
        *_left_out(learned),
    ]


def _left_out(learned: Learned) -> list[str]:
    """The lines learned from nothing (``--skip-bad-lines``), by reason, as shadow says it."""
    left = learned.rules.source.get("left_out")
    if not isinstance(left, dict) or not left:
        return []
    return ["Left out: " + ", ".join(f"{reason} {n}" for reason, n in left.items()) + "."]


def _too_few(learned: Learned) -> list[str]:
    """Why nothing could be kept when the logs are too few for the gate: said, not guessed."""
    if learned.examples and not (learned.training and learned.held):
        return [_empty_side(learned)]
    if not learned.too_few or not learned.held:
        return []
    gate = learned.rules.source.get("gate")
    facts = cast("dict[str, object]", gate) if isinstance(gate, dict) else {}
    bound, support, clean = (facts.get(k) for k in ("min_precision", "min_support", "clean_needed"))
    clean = clean if isinstance(clean, int) else learned.needed
    tool, most = learned.widest
    where = "over every tool" if tool == ANY_TOOL else f"for one tool ({tool})"
    why = (
        f"{clean} with every firing right for a lower bound of {bound}"
        if clean >= learned.needed
        else f"the minimum support; {clean} with every firing right for a lower bound of {bound}"
    )
    # The highest bound ``most`` conversations, all right, can clear.
    reachable = math.floor(wilson(most, most)[0] * 100) / 100
    asks: list[str] = []
    if clean > most and reachable > 0:
        asks.append(f"a precision of at most {reachable:.2f}")
    if isinstance(support, int) and support > most:
        asks.append("a lower minimum support")
    lower = f"or ask for {' and '.join(asks)}" if asks else "then learn again"
    return [
        f"The held-out part is too small for the gate: a group is admitted only over "
        f"{learned.needed} held-out conversations ({why}), and it holds at most {most} "
        f"{where}. Learn from more logs, {lower}."
    ]


def _empty_side(learned: Learned) -> str:
    """Why one side of the split is empty: too few conversations, or the share held out."""
    split = learned.rules.source.get("split")
    share = cast("dict[str, object]", split).get("holdout") if isinstance(split, dict) else None
    part, larger = ("training", "smaller") if not learned.training else ("held-out", "larger")
    count = learned.conversations
    said = f"{count} conversation{'' if count == 1 else 's'}"
    if count * 2 < learned.examples:
        said += (
            " (a conversation is known by its first two messages: logs whose conversations "
            'open alike, one system prompt then "hi", count as one)'
        )
    held = f", {share:.2%} of them held out" if isinstance(share, float) else ""
    return (
        f"The split left no {part} calls: the {learned.examples} logged calls fall in {said}"
        f"{held}. Learn from logs of more conversations, or hold out a {larger} share."
    )


def _saved(learned: Learned) -> str:
    """What the new coverage would save on the held-out calls, as the logs recorded it."""
    before, after = learned.gain.before, learned.gain.after
    requests = after.saved_requests - before.saved_requests
    tokens = after.prompt_tokens + after.completion_tokens
    tokens -= before.prompt_tokens + before.completion_tokens
    unknown = after.tokens_unknown - before.tokens_unknown
    said = f"The rules would save {requests} more request{'' if requests == 1 else 's'} there"
    if requests and unknown < requests:
        said += f", {tokens:,} tokens as the logs recorded them"
        if unknown:
            said += f" ({unknown} without token counts)"
    return said + "."


def gain_table(learned: Learned, *, limit: int = 15) -> Table:
    """Per tool, held-out coverage and agreement without and with the rules (gains first)."""
    table = Table(title="Held-out calls, without and with the rules")
    for column in ("tool", "calls", "covered before", "covered after", "agreement after"):
        table.add_column(column, justify="left" if column == "tool" else "right")
    rows = sorted(
        learned.gain.by_tool.items(),
        key=lambda item: (item[1][0].covered - item[1][1].covered, item[0]),
    )
    for tool, (before, after) in rows[:limit]:
        table.add_row(
            plain(tool),
            str(before.calls),
            share(before.covered, before.calls),
            share(after.covered, after.calls),
            share(after.agreed, after.covered),
        )
    return table


def rules_table(book: RuleBook) -> Table:
    """Each rule, its value, and its evidence: what a person reviews before trusting it."""
    table = Table(title=f"{len(book.rules)} learned rules")
    columns = ("kind", "tool", "parameter", "phrase", "value", "support", "held-out", "group low")
    for column in columns:
        table.add_column(column, justify="right" if column in ("support", "group low") else "left")
    for rule in book.rules:
        evidence = rule.evidence
        table.add_row(
            plain(rule.kind),
            plain(rule.tool),
            plain(rule.parameter),
            plain(rule.phrase or ""),
            plain(json.dumps(rule.value, ensure_ascii=False)),
            str(evidence.support),
            f"{evidence.right} right, {evidence.wrong} wrong",
            f"{evidence.low:.3f}",
        )
    return table
