"""How often a plugin set's routing decides with no LLM (coverage), and how rightly (precision).

Three ways to ask, by ``mode``:

* ``configured`` (the default): the plugin set's routing as the event agent
  runs it (``DeterministicRouter``): its routes, or, when it has none, the
  lexical router.
* ``lexical-only``: the lexical router whatever routes the plugin set has.
* ``one-event``: each event as a plugin set of its own, with no routes: every
  case is asked of each of its candidates alone (or of every event, when it
  lists none), whether or not the case names its event, and a route is right
  only to the case's own event. This is how a plugin set of one event fares;
  a lone candidate's decision reads nothing of the other events.

In the first two a case is counted when its event is not given. A route to
an event on an out-of-domain case (none expected) is a wrong route. Cases can
be split by the parity of the number ending their id, so that a setting is
chosen on one half and reported on the other.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from agent_lab.agents.lexical_router import (
    DEFAULT_MARGIN,
    DEFAULT_MIN_TERMS,
    DEFAULT_NAME_SHARE,
    LexicalRouter,
)
from agent_lab.agents.routing import DeterministicRouter
from agent_lab.log_replay.intervals import wilson

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from agent_lab.agents.lexical_router import Ranking
    from agent_lab.agents.plugins import PluginSet
    from agent_lab.lab.workload import Workload
    from agent_lab.log_replay.case import Case
    from agent_lab.strict_json import JSONObject

__all__ = ["RoutingFigures", "RoutingMode", "Split", "in_split", "measure_routing"]

Split = Literal["all", "even", "odd"]
RoutingMode = Literal["configured", "lexical-only", "one-event"]
_NUMBER = re.compile(r"(\d+)\D*$")


def in_split(case: Case, split: Split) -> bool:
    """Whether the case belongs to the half (by the parity of the last number in its id)."""
    if split == "all":
        return True
    found = _NUMBER.search(case.id)
    if found is None:
        return False
    return (int(found.group(1)) % 2 == 0) == (split == "even")


@dataclass(frozen=True, slots=True, kw_only=True)
class RoutingFigures:
    """The routing at one setting: questions, routed, right, and what those make."""

    router: Literal["routes", "lexical"]
    """What decided: the plugin set's routes, or the lexical router."""
    margin: float | None
    """The lexical router's settings (``None`` when the routes decided)."""
    min_terms: int | None
    name_share: float | None
    cases: int
    """Questions asked: cases, or (case, event) pairs in ``one-event`` mode."""
    in_domain: int
    """Of them, questions whose answer is an event."""
    routed: int
    right: int
    named_routed: int | None = None
    """Of the lexical routes, those whose best holds ``name_share`` of its name words.

    What the lone-candidate rule would leave if it applied to every set
    (``None`` when the routes decided).
    """
    named_right: int | None = None

    @property
    def precision(self) -> float | None:
        """Right routes over routes (``None`` when nothing was routed)."""
        return self.right / self.routed if self.routed else None

    @property
    def coverage(self) -> float:
        """Routes over in-domain questions: the share that needed no request to choose."""
        return self.routed / self.in_domain if self.in_domain else 0.0

    def as_json(self) -> JSONObject:
        """The figures, with the Wilson interval of the precision."""
        low, high = wilson(self.right, self.routed)
        return {
            "router": self.router,
            "margin": self.margin,
            "min_terms": self.min_terms,
            "name_share": self.name_share,
            "cases": self.cases,
            "in_domain": self.in_domain,
            "routed": self.routed,
            "right": self.right,
            "precision": self.precision,
            "low": low,
            "high": high,
            "coverage": self.coverage,
            "named_routed": self.named_routed,
            "named_right": self.named_right,
        }


def _questions(
    cases: Sequence[Case], plugins: PluginSet, mode: RoutingMode
) -> Iterator[tuple[Case, tuple[str, ...] | None, str | None]]:
    """Each question: the case, the candidates it is asked with, and the right answer."""
    if mode != "one-event":
        for case in cases:
            if not case.event_given:
                yield case, case.candidates, case.event
        return
    every = tuple(d.name for d in plugins.definitions)
    for case in cases:
        for name in dict.fromkeys(case.candidates or every):
            yield case, (name,), name if name == case.event else None


def measure_routing(
    workload: Workload,
    plugins: PluginSet,
    margins: Sequence[float] = (DEFAULT_MARGIN,),
    *,
    name_shares: Sequence[float] = (DEFAULT_NAME_SHARE,),
    min_terms: int = DEFAULT_MIN_TERMS,
    split: Split = "all",
    mode: RoutingMode = "configured",
) -> list[RoutingFigures]:
    """Precision and coverage at each margin and name share, on the chosen half.

    A plugin set routed by its routes (``configured``, with routes) gives one
    row: the lexical settings do not apply to it.
    """
    cases = [case for case in workload.cases if in_split(case, split)]
    questions = list(_questions(cases, plugins, mode))
    answers = [answer for _, _, answer in questions]
    figures: list[RoutingFigures] = []
    for margin in margins:
        for name_share in name_shares:
            if mode == "configured":
                router = DeterministicRouter(
                    plugins, margin=margin, min_terms=min_terms, name_share=name_share
                )
                found = [router.route(c.text, within) for c, within, _ in questions]
                decisions = [(f.event, f.ranking) for f in found]
                lexical = router.lexical
            else:
                lexical = LexicalRouter(
                    plugins.definitions, margin=margin, min_terms=min_terms, name_share=name_share
                )
                rankings = [lexical.rank(c.text, within) for c, within, _ in questions]
                decisions = [(r.best, r) for r in rankings]
            figures.append(_figures(decisions, answers, lexical))
            if lexical is None:
                return figures  # the routes decided: the lexical settings do not apply
    return figures


def _figures(
    decisions: Sequence[tuple[str | None, Ranking | None]],
    answers: Sequence[str | None],
    lexical: LexicalRouter | None,
) -> RoutingFigures:
    """Count the decisions (each event with the lexical ranking behind it, if any)."""
    routes = [(e, r, a) for (e, r), a in zip(decisions, answers, strict=True) if e is not None]
    named = None
    if lexical is not None:
        named = [
            (e, a) for e, r, a in routes if r is not None and r.name_share >= lexical.name_share
        ]
    return RoutingFigures(
        router="routes" if lexical is None else "lexical",
        margin=None if lexical is None else lexical.margin,
        min_terms=None if lexical is None else lexical.min_terms,
        name_share=None if lexical is None else lexical.name_share,
        cases=len(answers),
        in_domain=sum(answer is not None for answer in answers),
        routed=len(routes),
        right=sum(e == a for e, _, a in routes),
        named_routed=None if named is None else len(named),
        named_right=None if named is None else sum(e == a for e, a in named),
    )
