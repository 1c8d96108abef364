"""Everything the report says of a run beyond its tables, computed once (L12).

The headline, the breakdowns by category and by event, and the cases to
learn from: the terminal report, the HTML report and ``report --json`` all
read the same ``Findings``, so they cannot disagree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent_lab.lab.stats.breakdown import Group, breakdown
from agent_lab.lab.stats.headline import headline
from agent_lab.lab.stats.lessons import LessonGroup, lessons
from agent_lab.lab.stats.llm_calls import (
    AvoidableProperty,
    CalledCase,
    PolicyCalls,
    called_cases,
    calls_json,
    policy_calls,
    rank_avoidable,
)

if TYPE_CHECKING:
    from collections.abc import Sequence

    from agent_lab.lab.results.records import TrialRecord
    from agent_lab.lab.stats.metrics import Comparison, PolicyMetrics
    from agent_lab.strict_json import JSONObject, JSONValue

__all__ = ["Findings", "find"]


@dataclass(frozen=True, slots=True)
class Findings:
    """What a run found, in words, by group, and by case."""

    headline: tuple[str, ...]
    categories: tuple[Group, ...]
    events: tuple[Group, ...]
    lessons: tuple[LessonGroup, ...]
    baseline: str | None
    calls: tuple[PolicyCalls, ...] = ()
    """Per policy, its LLM-called trials by avoidability."""
    avoidable: tuple[AvoidableProperty, ...] = ()
    """The properties behind avoidable calls, ranked: the resolvers' to-do list."""
    called: tuple[CalledCase, ...] = ()
    """Every LLM-called or wrong trial, with what was missing and what came back."""

    def as_json(self) -> JSONObject:
        """The findings as JSON data (``report --json``)."""
        return {
            "headline": list(self.headline),
            "baseline": self.baseline,
            "breakdowns": {
                "category": [_group_json(g) for g in self.categories],
                "event": [_group_json(g) for g in self.events],
            },
            "lessons": [
                {
                    "policy": g.policy,
                    "reason": g.reason,
                    "more": g.more,
                    "cases": [
                        {
                            "case_id": lesson.case_id,
                            "text": lesson.text,
                            "category": lesson.category,
                            "expected_event": lesson.expected_event,
                            "expected": lesson.expected,
                            "event": lesson.event,
                            "arguments": lesson.arguments,
                            "status": lesson.status,
                            "right_by": list(lesson.right_by),
                        }
                        for lesson in g.shown
                    ],
                }
                for g in self.lessons
            ],
            "llm_calls": calls_json(self.avoidable, self.calls, self.called),
        }


def find(
    trials: Sequence[TrialRecord],
    metrics: Sequence[PolicyMetrics],
    comparisons: Sequence[Comparison],
    *,
    provenance: str,
) -> Findings:
    """The findings of a run's trials, against the comparisons' baseline."""
    baseline = comparisons[0].baseline if comparisons else None
    categories = breakdown(trials, "category", baseline=baseline)
    return Findings(
        headline=tuple(
            headline(
                trials, metrics, comparisons, categories, baseline=baseline, provenance=provenance
            )
        ),
        categories=tuple(categories),
        events=tuple(breakdown(trials, "event", baseline=baseline)),
        lessons=tuple(lessons(trials)),
        baseline=baseline,
        calls=tuple(policy_calls(trials)),
        avoidable=tuple(rank_avoidable(trials)),
        called=tuple(called_cases(trials)),
    )


def _estimate(value: float | None, low: float | None, high: float | None) -> JSONValue:
    return {"value": value, "low": low, "high": high}


def _group_json(group: Group) -> JSONObject:
    return {
        "name": group.name,
        "cases": group.cases,
        "significant": group.significant,
        "policies": [
            {
                "policy": f.policy,
                "trials": f.trials,
                "accuracy": _estimate(f.accuracy.value, f.accuracy.low, f.accuracy.high),
                "llm_calls_per_trial": _estimate(
                    f.llm_calls.value, f.llm_calls.low, f.llm_calls.high
                ),
                "accuracy_difference": None
                if f.difference is None
                else _estimate(f.difference.value, f.difference.low, f.difference.high),
                "significant": f.significant,
            }
            for f in group.figures
        ],
    }
