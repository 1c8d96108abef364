"""Where each policy wins and loses: accuracy and LLM calls by category and by event (L11).

Differences against the baseline are paired by case (the same requests under
both policies) and resampled by case, like every interval of the lab, so a
group's difference is significant only when its 95% interval leaves out 0.
Groups are ordered by how much they matter: their cases times the largest
difference any policy shows in them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from agent_lab.lab.stats.metrics import Estimate, case_mean, case_means, paired_difference, seeded

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    import numpy as np

    from agent_lab.lab.results.records import TrialRecord

__all__ = ["NO_EVENT", "Group", "GroupFigures", "Kind", "accuracy_difference", "breakdown"]

Kind = Literal["category", "event"]
NO_EVENT = "(none: decline)"
"""The event group of the cases no event serves."""


@dataclass(frozen=True, slots=True)
class GroupFigures:
    """One policy in one group."""

    policy: str
    trials: int
    accuracy: Estimate
    llm_calls: Estimate
    """LLM calls per trial."""
    difference: Estimate | None
    """Accuracy minus the baseline's, as a share (0.05 is 5 points), paired by case;
    ``None`` for the baseline itself, or with no baseline."""

    @property
    def significant(self) -> bool:
        """Whether the difference's 95% interval leaves out 0."""
        return self.difference is not None and self.difference.excludes(0.0)


@dataclass(frozen=True, slots=True)
class Group:
    """One category or event, and every policy's figures in it."""

    kind: Kind
    name: str
    cases: int
    figures: tuple[GroupFigures, ...]

    @property
    def weight(self) -> float:
        """Its cases times the largest difference in it: how much it matters."""
        largest = max(
            (abs(f.difference.value) for f in self.figures if f.difference and f.difference.value),
            default=0.0,
        )
        return self.cases * largest

    @property
    def significant(self) -> bool:
        """Whether some policy differs from the baseline here beyond the noise."""
        return any(f.significant for f in self.figures)


def _key(kind: Kind) -> Callable[[TrialRecord], str]:
    if kind == "category":
        return lambda trial: trial.category or "(none)"
    return lambda trial: trial.expected_event or NO_EVENT


def breakdown(
    trials: Sequence[TrialRecord], kind: Kind, *, baseline: str | None, seed: int = 0
) -> list[Group]:
    """The run's (non-warm-up) trials grouped by ``kind``, the groups that matter first."""
    key = _key(kind)
    grouped: dict[str, list[TrialRecord]] = {}
    for trial in trials:
        if not trial.warmup:
            grouped.setdefault(key(trial), []).append(trial)
    policies = list(dict.fromkeys(t.policy for t in trials if not t.warmup))
    groups: list[Group] = []
    for name, rows in grouped.items():
        by_policy = {p: [t for t in rows if t.policy == p] for p in policies}
        reference = by_policy.get(baseline or "", [])
        figures = tuple(
            GroupFigures(
                policy=policy,
                trials=len(own),
                accuracy=case_mean(
                    own, lambda t: float(t.correct), seeded(seed, kind, name, policy, "accuracy"),
                    proportion=True,
                ),
                llm_calls=case_mean(
                    own, lambda t: float(t.llm_calls), seeded(seed, kind, name, policy, "calls")
                ),
                difference=(
                    None
                    if policy == baseline or not reference
                    else _difference(own, reference, seeded(seed, kind, name, policy, "difference"))
                ),
            )
            for policy, own in by_policy.items()
            if own
        )  # fmt: skip
        groups.append(Group(kind, name, len({t.case_id for t in rows}), figures))
    return sorted(groups, key=lambda g: (-g.weight, -g.cases, g.name))


def accuracy_difference(
    trials: Sequence[TrialRecord], policy: str, baseline: str, *, seed: int = 0
) -> Estimate | None:
    """``policy``'s accuracy minus ``baseline``'s over the whole run, paired by case."""
    own = [t for t in trials if t.policy == policy and not t.warmup]
    reference = [t for t in trials if t.policy == baseline and not t.warmup]
    if not own or not reference:
        return None
    return _difference(own, reference, seeded(seed, policy, baseline, "accuracy difference"))


def _difference(
    own: Sequence[TrialRecord], reference: Sequence[TrialRecord], rng: np.random.Generator
) -> Estimate:
    mine = case_means(own, lambda t: float(t.correct))
    theirs = case_means(reference, lambda t: float(t.correct))
    shared = sorted(set(mine) & set(theirs))
    return paired_difference([mine[c] for c in shared], [theirs[c] for c in shared], rng)
