"""How often the lexical router routes (coverage) and how often it is right (precision), no LLM.

A case is counted when its event is not given and it offers two candidates
or more (or none listed: the whole plugin set). A route to an event on an
out-of-domain case (none expected) is a wrong route. Cases can be split by
the parity of the number ending their id, so that the margin is chosen on
one half and reported on the other.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from agent_lab.application.lexical_router import DEFAULT_MIN_TERMS, LexicalRouter
from agent_lab.lab.intervals import wilson

if TYPE_CHECKING:
    from collections.abc import Sequence

    from agent_lab.application.plugins import PluginSet
    from agent_lab.lab.workload import Case, Workload
    from agent_lab.strict_json import JSONObject

__all__ = ["RoutingFigures", "Split", "in_split", "measure_routing"]

Split = Literal["all", "even", "odd"]
_NUMBER = re.compile(r"(\d+)\D*$")


def in_split(case: Case, split: Split) -> bool:
    """Whether the case belongs to the half (by the parity of the last number in its id)."""
    if split == "all":
        return True
    found = _NUMBER.search(case.id)
    if found is None:
        return False
    return (int(found.group(1)) % 2 == 0) == (split == "even")


@dataclass(frozen=True, slots=True)
class RoutingFigures:
    """The router at one margin: cases, routed, right, and what those make."""

    margin: float
    min_terms: int
    cases: int
    """Cases the router was asked about."""
    in_domain: int
    """Of them, cases that expect an event."""
    routed: int
    right: int

    @property
    def precision(self) -> float | None:
        """Right routes over routes (``None`` when nothing was routed)."""
        return self.right / self.routed if self.routed else None

    @property
    def coverage(self) -> float:
        """Routes over in-domain cases: the share that needed no request to choose."""
        return self.routed / self.in_domain if self.in_domain else 0.0

    def as_json(self) -> JSONObject:
        """The figures, with the Wilson interval of the precision."""
        low, high = wilson(self.right, self.routed)
        return {
            "margin": self.margin,
            "min_terms": self.min_terms,
            "cases": self.cases,
            "in_domain": self.in_domain,
            "routed": self.routed,
            "right": self.right,
            "precision": self.precision,
            "low": low,
            "high": high,
            "coverage": self.coverage,
        }


def measure_routing(
    workload: Workload,
    plugins: PluginSet,
    margins: Sequence[float],
    *,
    min_terms: int = DEFAULT_MIN_TERMS,
    split: Split = "all",
) -> list[RoutingFigures]:
    """The lexical router's precision and coverage at each margin, on the chosen half."""
    cases = [
        case
        for case in workload.cases
        if not case.event_given
        and (case.candidates is None or len(case.candidates) > 1)
        and in_split(case, split)
    ]
    figures: list[RoutingFigures] = []
    for margin in margins:
        router = LexicalRouter(plugins.definitions, margin=margin, min_terms=min_terms)
        routed = right = 0
        for case in cases:
            best = router.rank(case.text, case.candidates).best
            if best is not None:
                routed += 1
                right += best == case.event
        figures.append(
            RoutingFigures(
                margin=margin,
                min_terms=min_terms,
                cases=len(cases),
                in_domain=sum(case.event is not None for case in cases),
                routed=routed,
                right=right,
            )
        )
    return figures
