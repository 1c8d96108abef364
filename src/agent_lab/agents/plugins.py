"""Plugin sets: event definitions plus the deterministic routes that pick an event from words."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agent_lab.kernel.registry import EventRegistry

if TYPE_CHECKING:
    from agent_lab.kernel.models import EventDefinition

__all__ = ["PluginSet", "Route", "RouteMatch"]


@dataclass(frozen=True, slots=True)
class Route:
    """How plain code recognises an event in a user's words.

    A pattern that matches scores 2, each keyword found scores 1; the best
    score wins, and a tie is no decision (the agent may then ask an LLM).
    """

    event: str
    patterns: tuple[str, ...] = ()
    """Regular expressions, searched case-insensitively."""
    keywords: tuple[str, ...] = ()
    """Whole words, matched case-insensitively."""
    _compiled: tuple[re.Pattern[str], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        """Compile the patterns once."""
        compiled = tuple(re.compile(p, re.IGNORECASE) for p in self.patterns) + tuple(
            re.compile(rf"\b{re.escape(k)}\b", re.IGNORECASE) for k in self.keywords
        )
        object.__setattr__(self, "_compiled", compiled)

    def matches_pattern(self, text: str) -> bool:
        """Whether one of the route's patterns (not only its keywords) matches ``text``."""
        return any(pattern.search(text) for pattern in self._compiled[: len(self.patterns)])

    def score(self, text: str) -> int:
        """How strongly ``text`` points at this route's event (0: not at all)."""
        count = len(self.patterns)
        return sum(
            (2 if index < count else 1)
            for index, pattern in enumerate(self._compiled)
            if pattern.search(text)
        )


@dataclass(frozen=True, slots=True)
class RouteMatch:
    """The router's decision."""

    event: str | None
    """The chosen event, or ``None`` when nothing matched or the best routes tied."""
    candidates: tuple[str, ...] = ()
    """Every event that tied for the best score (more than one: ambiguous)."""
    by_pattern: bool = False
    """Whether a pattern of the chosen event's routes matched (else keywords only)."""

    @property
    def tied(self) -> bool:
        """Whether the best routes tied, so that plain code made no decision."""
        return len(self.candidates) > 1


@dataclass(frozen=True, slots=True)
class PluginSet:
    """Event definitions and their routes, as a workload is run against them (L2)."""

    name: str
    definitions: tuple[EventDefinition, ...]
    routes: tuple[Route, ...] = ()
    learned_routes: tuple[Route, ...] = ()
    """Routes ``agent-lab learn`` kept (``route`` rules): asked only when ``routes`` and the
    lexical router leave a message without an event."""
    learned_among: tuple[str, ...] = ()
    """The tools the learned routes were learned among (``RuleBook.tools_seen``): they pick
    nothing when a message may go to any other. Empty: no such limit."""

    def registry(self, **options: Any) -> EventRegistry:
        """A new registry holding every definition (options as for ``EventRegistry``)."""
        registry = EventRegistry(**options)
        for definition in self.definitions:
            registry.register(definition)
        return registry

    def route(self, text: str) -> RouteMatch:
        """Pick the event that the words point at most strongly, with no LLM."""
        scores: dict[str, int] = {}
        for route in self.routes:
            score = route.score(text)
            if score:
                scores[route.event] = max(scores.get(route.event, 0), score)
        if not scores:
            return RouteMatch(None)
        best = max(scores.values())
        winners = sorted(event for event, score in scores.items() if score == best)
        if len(winners) > 1:
            return RouteMatch(None, tuple(winners))
        chosen = winners[0]
        by_pattern = any(r.event == chosen and r.matches_pattern(text) for r in self.routes)
        return RouteMatch(chosen, (chosen,), by_pattern=by_pattern)
