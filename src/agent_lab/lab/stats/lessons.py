"""Cases to learn from: what each policy got wrong that another policy got right (L12).

Shown with the case's own words, what was expected and what came out, and
grouped by the reason the trial ended, so that a failure can be read and
fixed without writing SQL against the store.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

    from agent_lab.lab.results.records import TrialRecord
    from agent_lab.strict_json import JSONObject

__all__ = ["PER_GROUP", "Lesson", "LessonGroup", "lessons"]

PER_GROUP = 5
"""Cases shown per policy and reason; the rest are counted."""


@dataclass(frozen=True, slots=True)
class Lesson:
    """One case a policy got wrong, and who got it right."""

    case_id: str
    text: str
    category: str
    expected_event: str | None
    expected: JSONObject | None
    event: str | None
    arguments: JSONObject | None
    status: str
    reason: str
    right_by: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class LessonGroup:
    """A policy's lessons for one reason: the first few, and how many more."""

    policy: str
    reason: str
    shown: tuple[Lesson, ...]
    more: int


def lessons(trials: Sequence[TrialRecord], *, per_group: int = PER_GROUP) -> list[LessonGroup]:
    """Per policy and reason, the cases the policy always got wrong and another got right.

    Groups come largest first; within a group, cases in id order.
    """
    counted = [t for t in trials if not t.warmup]
    right_by: dict[str, set[str]] = {}
    wrong: dict[tuple[str, str], list[TrialRecord]] = {}
    for trial in counted:
        if trial.correct:
            right_by.setdefault(trial.case_id, set()).add(trial.policy)
        else:
            wrong.setdefault((trial.policy, trial.case_id), []).append(trial)
    grouped: dict[tuple[str, str], list[Lesson]] = {}
    for (policy, case_id), failures in sorted(wrong.items()):
        others = right_by.get(case_id, set()) - {policy}
        if policy in right_by.get(case_id, set()) or not others:
            continue  # right in some repeat, or nobody got it right: no lesson to draw
        first = failures[0]
        grouped.setdefault((policy, str(first.reason)), []).append(
            Lesson(
                case_id=case_id,
                text=first.text,
                category=first.category,
                expected_event=first.expected_event,
                expected=first.expected,
                event=first.event,
                arguments=first.arguments,
                status=str(first.status),
                reason=str(first.reason),
                right_by=tuple(sorted(others)),
            )
        )
    ordered = sorted(grouped.items(), key=lambda item: (-len(item[1]), item[0]))
    return [
        LessonGroup(
            policy=policy,
            reason=reason,
            shown=tuple(found[:per_group]),
            more=max(0, len(found) - per_group),
        )
        for (policy, reason), found in ordered
    ]
