"""The LLM-free routing decision: routes, else the events' own words, else learned routes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent_lab.agents.lexical_router import (
    DEFAULT_MARGIN,
    DEFAULT_MIN_TERMS,
    DEFAULT_NAME_SHARE,
    LexicalRouter,
    Ranking,
)
from agent_lab.agents.plugins import PluginSet

if TYPE_CHECKING:
    from collections.abc import Collection

    from agent_lab.agents.plugins import RouteMatch

__all__ = ["DeterministicRoute", "DeterministicRouter"]


@dataclass(frozen=True, slots=True, kw_only=True)
class DeterministicRoute:
    """What plain code decided for one message: an event, or none (then the LLM may choose)."""

    event: str | None
    """The event chosen with no LLM, within the candidates; ``None`` when undecided."""
    match: RouteMatch
    """What the plugin set's routes said, before the candidates narrowed it (ties included)."""
    ranking: Ranking | None = None
    """The lexical router's ranking, when it was asked (the routes left no event)."""
    learned: bool = False
    """Whether a learned route decided (the routes and the lexical router left no event)."""

    @property
    def lexical(self) -> bool:
        """Whether the lexical router decided."""
        return self.ranking is not None


class DeterministicRouter:
    """A plugin set's routing without an LLM, as the event agent and the lab both run it.

    A plugin set with routes is routed by them; one without any (imported,
    or a user's that lists none) by its events' own words, on measured
    evidence (``LexicalRouter``).

    Args:
        plugins: Definitions and routes.
        lexical: Build the lexical router for a plugin set with no routes
            (``False``: such messages stay undecided).
        margin: The lexical router's margin (``DEFAULT_MARGIN``).
        min_terms: The lexical router's shared words (``DEFAULT_MIN_TERMS``).
        name_share: The lexical router's share of a lone candidate's name
            words (``DEFAULT_NAME_SHARE``).
    """

    def __init__(
        self,
        plugins: PluginSet,
        *,
        lexical: bool = True,
        margin: float = DEFAULT_MARGIN,
        min_terms: int = DEFAULT_MIN_TERMS,
        name_share: float = DEFAULT_NAME_SHARE,
    ) -> None:
        self.plugins = plugins
        self.learned = (
            PluginSet(plugins.name, (), plugins.learned_routes) if plugins.learned_routes else None
        )
        self.lexical = (
            LexicalRouter(
                plugins.definitions, margin=margin, min_terms=min_terms, name_share=name_share
            )
            if lexical and not plugins.routes
            else None
        )

    def route(self, text: str, candidates: Collection[str] | None = None) -> DeterministicRoute:
        """Decide ``text``'s event with no LLM; a pick outside ``candidates`` is no decision."""
        match = self.plugins.route(text)
        event = match.event
        if candidates is not None and event not in candidates:
            event = None
        ranking = None
        if event is None and self.lexical is not None:
            ranking = self.lexical.rank(text, candidates)
            event = ranking.best
        if event is None and self.learned is not None:
            learned = self._learned(text, candidates)
            if learned is not None:
                return DeterministicRoute(event=learned, match=match, learned=True)
        return DeterministicRoute(event=event, match=match, ranking=ranking)

    def _learned(self, text: str, candidates: Collection[str] | None) -> str | None:
        """The one offered event the learned routes point at most strongly; ``None`` on a tie."""
        assert self.learned is not None
        among = self.plugins.learned_among
        offered = (
            candidates
            if candidates is not None
            else [definition.name for definition in self.plugins.definitions]
        )
        if among and not set(offered) <= set(among):
            return None  # a tool the routes were not learned among may be the one meant
        scores: dict[str, int] = {}
        for route in self.learned.routes:
            if candidates is not None and route.event not in candidates:
                continue
            score = route.score(text)
            if score:
                scores[route.event] = scores.get(route.event, 0) + score
        if not scores:
            return None
        best = max(scores.values())
        winners = [event for event, score in scores.items() if score == best]
        return winners[0] if len(winners) == 1 else None
