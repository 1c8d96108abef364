"""The figures of a log replay, added up one replayed request at a time and mergeable.

Every figure names what it is: *agreement* is agreement with the logged
model, not accuracy (a disagreement may be the model's error); *saved* counts
only what would have been answered locally and agreed (a covered request that
disagrees would have answered otherwise, not saved a request); tokens from a
rendered log are estimates and say so; a cost nobody prices stays unknown.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, cast

from agent_lab.log_replay.intervals import wilson
from agent_lab.log_replay.replayed import Kind, Replayed

if TYPE_CHECKING:
    from agent_lab.logs.record import SkippedLine
    from agent_lab.providers.pricing import PriceTable
    from agent_lab.strict_json import JSONObject, JSONValue

__all__ = [
    "DEFAULT_MIN_AGREEMENT",
    "EXAMPLES_PER_CAUSE",
    "REDACTED",
    "ShadowFigures",
    "Tally",
    "rate",
]

DEFAULT_MIN_AGREEMENT = 0.99
"""The agreement a tool's interval must clear, at its lower bound, to be worth switching."""
EXAMPLES_PER_CAUSE = 20
"""Disagreements kept per cause for the outputs: enough to see a pattern, bounded in memory."""


def rate(right: int, of: int) -> JSONObject:
    """``{"right", "of", "rate", "low", "high"}``: a share with its 95% Wilson interval."""
    low, high = wilson(right, of)
    return {
        "right": right,
        "of": of,
        "rate": right / of if of else None,
        "low": low,
        "high": high,
    }


@dataclass(slots=True)
class Tally:
    """The counts of one group of logged calls (all of them, or one tool's)."""

    calls: int = 0
    covered: int = 0
    agreed: int = 0
    agreed_lenient: int = 0
    same_tool: int = 0
    """Covered calls that dispatched the logged tool (whatever the values)."""
    routed_right: int = 0
    saved_requests: int = 0
    """Requests covered and agreed: answered locally as the logged model answered them."""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    tokens_unknown: int = 0
    """Saved requests whose log gives no token counts."""
    cost: Decimal = Decimal(0)
    cost_unknown: int = 0
    latency_ms: float = 0.0
    latency_unknown: int = 0

    def add(self, item: Replayed, cost: Decimal | None) -> None:
        """Count one replayed request of this group."""
        if item.kind is Kind.CALL:
            self.calls += 1
            self.routed_right += item.routed is not None and item.routed == item.tool
        if not item.covered:
            return
        if item.kind is Kind.CALL:
            self.covered += 1
            self.same_tool += item.produced_tool == item.tool
            self.agreed += bool(item.agreed)
            self.agreed_lenient += bool(item.agreed_lenient)
        if not item.agreed:
            # Answered otherwise than the logged model (acting on words included): no saving.
            return
        self.saved_requests += 1
        if item.prompt_tokens is None or item.completion_tokens is None:
            self.tokens_unknown += 1
        else:
            self.prompt_tokens += item.prompt_tokens
            self.completion_tokens += item.completion_tokens
        if cost is None:
            self.cost_unknown += 1
        else:
            self.cost += cost
        if item.latency_ms is None:
            self.latency_unknown += 1
        else:
            self.latency_ms += item.latency_ms

    def merge(self, other: Tally) -> None:
        """Add another process's counts of the same group."""
        for name in self.__slots__:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def saved_json(self) -> JSONObject:
        """What deterministic-first would not have spent, answering locally and in agreement."""
        known = self.saved_requests - self.tokens_unknown
        priced = self.saved_requests - self.cost_unknown
        timed = self.saved_requests - self.latency_unknown
        return {
            "requests": self.saved_requests,
            "prompt_tokens": self.prompt_tokens if known else None,
            "completion_tokens": self.completion_tokens if known else None,
            "tokens_unknown_for": self.tokens_unknown,
            "cost_usd": float(self.cost) if priced else None,
            "cost_unknown_for": self.cost_unknown,
            "latency_ms": round(self.latency_ms, 3) if timed else None,
            "latency_unknown_for": self.latency_unknown,
        }

    def figures_json(self) -> JSONObject:
        """Calls, coverage, agreement (exact and lenient) and the router's share."""
        return {
            "calls": self.calls,
            "covered": self.covered,
            "coverage": rate(self.covered, self.calls),
            "agreement": rate(self.agreed, self.covered),
            "agreement_lenient": rate(self.agreed_lenient, self.covered),
            # The values alone: of the covered calls that chose the logged tool, those
            # whose arguments agree (the schema resolver's precision, call by call).
            "arguments_agreement": rate(self.agreed, self.same_tool),
            "router": rate(self.routed_right, self.calls),
        }


@dataclass(slots=True)
class ShadowFigures:
    """Everything a replay measured, added up as requests come (``add``) and mergeable."""

    prices: PriceTable | None = None
    total: Tally = field(default_factory=Tally)
    by_tool: dict[str, Tally] = field(default_factory=dict[str, Tally])
    requests: int = 0
    kinds: Counter[str] = field(default_factory=Counter[str])
    acted_on_words: int = 0
    """Requests the model answered in words where plain code would have acted."""
    skipped: Counter[str] = field(default_factory=Counter[str])
    tokens_estimated: bool = False
    models: Counter[str] = field(default_factory=Counter[str])
    examples: dict[str, list[Replayed]] = field(default_factory=dict[str, list[Replayed]])
    values: dict[str, list[int]] = field(default_factory=dict[str, list[int]])
    """By kind (``enum``, ``number``, ``date``...): ``[agreed, filled]``, the values plain code
    filled on covered calls of the logged tool, and how many the logged call holds too."""
    by_source: dict[str, list[int]] = field(default_factory=dict[str, list[int]])
    """The same values by where they came from (``kernel.ledger.ValueSource``)."""
    undated: int = 0
    """Requests whose log gives no time: no reference date, so no relative date read in them."""

    def add(self, item: Replayed | SkippedLine) -> None:
        """Count one replayed request, or one line left out."""
        if not isinstance(item, Replayed):
            self.skipped[str(item.reason)] += 1
            return
        self.requests += 1
        self.kinds[str(item.kind)] += 1
        if item.model:
            self.models[item.model] += 1
        self.tokens_estimated |= item.tokens_estimated
        if item.kind is Kind.FOLLOW_UP:
            return
        self.undated += item.reference is None
        for _, kind, agreed, source in item.values:
            for tally in (
                self.values.setdefault(str(kind), [0, 0]),
                self.by_source.setdefault(str(source), [0, 0]),
            ):
                tally[0] += bool(agreed)
                tally[1] += 1
        cost = self._cost(item) if item.covered and item.agreed else None
        self.total.add(item, cost)
        if item.kind is Kind.CALL and item.tool is not None:
            self.by_tool.setdefault(item.tool, Tally()).add(item, cost)
        if item.kind is Kind.WORDS and item.covered:
            self.acted_on_words += 1
        if item.cause is not None:
            kept = self.examples.setdefault(str(item.cause), [])
            if len(kept) < EXAMPLES_PER_CAUSE:
                kept.append(item)

    def _cost(self, item: Replayed) -> Decimal | None:
        if self.prices is None:
            return None
        return self.prices.cost(item.model, item.prompt_tokens, item.completion_tokens)

    def merge(self, other: ShadowFigures) -> None:
        """Add the figures of another part of the logs (another process, another file)."""
        self.total.merge(other.total)
        for tool, tally in other.by_tool.items():
            self.by_tool.setdefault(tool, Tally()).merge(tally)
        self.requests += other.requests
        self.kinds.update(other.kinds)
        self.acted_on_words += other.acted_on_words
        self.undated += other.undated
        for mine, theirs in ((self.values, other.values), (self.by_source, other.by_source)):
            for key, (agreed, filled) in theirs.items():
                tally = mine.setdefault(key, [0, 0])
                tally[0] += agreed
                tally[1] += filled
        self.skipped.update(other.skipped)
        self.tokens_estimated |= other.tokens_estimated
        self.models.update(other.models)
        for cause, items in other.examples.items():
            kept = self.examples.setdefault(cause, [])
            kept.extend(items[: EXAMPLES_PER_CAUSE - len(kept)])

    def switch_first(self, min_agreement: float) -> list[str]:
        """Tools whose agreement clears ``min_agreement`` at its lower bound, most saved first."""
        worth = [
            (tool, tally)
            for tool, tally in self.by_tool.items()
            if tally.covered and wilson(tally.agreed, tally.covered)[0] >= min_agreement
        ]
        worth.sort(key=lambda pair: (-pair[1].cost, -pair[1].saved_requests, pair[0]))
        return [tool for tool, _ in worth]

    def as_json(
        self, *, min_agreement: float = DEFAULT_MIN_AGREEMENT, redact: bool = False
    ) -> JSONObject:
        """The ``--json`` document (its shape: docs/shadow.md).

        ``redact`` keeps what users wrote out of it: the examples' text, and their
        argument values (their names stay).
        """
        return {
            "measures": "agreement with the logged model, not accuracy",
            "requests": self.requests,
            "follow_ups": self.kinds[str(Kind.FOLLOW_UP)],
            "answered_in_words": self.kinds[str(Kind.WORDS)],
            "acted_where_the_model_answered_in_words": self.acted_on_words,
            **self.total.figures_json(),
            "by_tool": {
                tool: {**tally.figures_json(), "saved": tally.saved_json()}
                for tool, tally in sorted(self.by_tool.items())
            },
            "saved": self.total.saved_json(),
            "tokens_estimated": self.tokens_estimated,
            "min_agreement": min_agreement,
            "switch_first": cast("list[JSONValue]", self.switch_first(min_agreement)),
            "disagreements": {
                cause: self._disagreements(cause, redact=redact) for cause in sorted(self.examples)
            },
            "skipped": dict(sorted(self.skipped.items())),
            "values_by_kind": {
                kind: rate(agreed, filled) for kind, (agreed, filled) in sorted(self.values.items())
            },
            "values_by_source": {
                source: rate(agreed, filled)
                for source, (agreed, filled) in sorted(self.by_source.items())
            },
            "reference_date": {
                "read_against": "each request's own time, as its log gives it",
                "requests_without_one": self.undated,
            },
        }

    def _disagreements(self, cause: str, *, redact: bool) -> JSONObject:
        return {
            "examples": [
                {
                    "where": item.where,
                    "text": REDACTED if redact else item.text,
                    "tool": item.tool,
                    "produced_tool": item.produced_tool,
                    "expected": _redacted(item.expected) if redact else item.expected,
                    "produced": _redacted(item.produced) if redact else item.produced,
                    "sources": cast("JSONValue", item.sources),
                }
                for item in self.examples[cause]
            ]
        }


REDACTED = "[redacted]"


def _redacted(arguments: JSONObject | None) -> JSONObject | None:
    # The names say which argument differed; the values are the user's.
    return None if arguments is None else dict.fromkeys(arguments, REDACTED)
