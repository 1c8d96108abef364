"""Runs over time: what a store holds, and one run against another on the cases they share.

A user who changes a prompt, a model or a resolver runs the workload again
into the same store; ``compare_runs`` pairs the two runs case by case, per
policy, with the same ratio-of-means bootstrap as a comparison inside one
run, and says in words which changes are beyond the noise.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent_lab.errors import ComparisonError
from agent_lab.lab.report.wording import counted
from agent_lab.lab.stats.metrics import Comparison, compare

if TYPE_CHECKING:
    from collections.abc import Sequence

    from agent_lab.lab.results.records import RunRecord, TrialRecord
    from agent_lab.strict_json import JSONObject

__all__ = ["RunChange", "compare_runs", "run_summary"]

_BEFORE = " (before)"


def run_summary(run: RunRecord, trials: int) -> JSONObject:
    """One run as a line of ``agent-lab runs``: what it ran, on what, and how far it got."""
    settings = run.config.get("provider_settings")
    profile = settings.get("profile") if isinstance(settings, dict) else None
    return {
        "run_id": run.run_id,
        "started_at": run.started_at,
        "finished_at": run.finished_at,
        "state": str(run.state),
        "workload": run.workload,
        "plugins": run.plugins,
        "policies": run.config.get("policies"),
        "provider": run.provider,
        "model": run.model,
        "profile": profile.get("name") if isinstance(profile, dict) else None,
        "trials": trials,
    }


@dataclass(frozen=True, slots=True)
class RunChange:
    """One policy and metric: the new run's mean over the old run's, on the shared cases."""

    comparison: Comparison
    cases: int

    @property
    def significant(self) -> bool:
        """Whether the change is beyond the noise.

        The ratio's 95% interval leaves out 1, or a mean of 0 became another (a
        ratio to 0 has no interval, but is no noise either).
        """
        c = self.comparison
        if c.baseline_mean == 0 and c.policy_mean is not None and c.policy_mean != 0:
            return True
        return c.ratio.excludes(1.0)

    @property
    def unchanged(self) -> bool:
        """Whether both runs measured the very same mean (0 against 0 included)."""
        c = self.comparison
        return c.policy_mean is not None and c.policy_mean == c.baseline_mean

    def sentence(self) -> str:
        """The change in words, as a user reads it."""
        c, ratio = self.comparison, self.comparison.ratio
        shared = counted(self.cases, "shared case")
        if self.unchanged:
            # A ratio of 0 to 0 is undefined, and 1x [1, 1] says "no change" the long way.
            said = "unchanged (both 0)" if c.policy_mean == 0 else "no change"
            return f"{c.policy} {c.metric}: {said} ({shared})"
        if c.baseline_mean == 0 and c.policy_mean is not None:
            return f"{c.policy} {c.metric}: from 0 to {c.policy_mean:.3g}, a real change ({shared})"
        if ratio.value is None:
            return f"{c.policy} {c.metric}: not comparable (no shared case with a known value)"
        change = "higher" if ratio.value > 1 else "lower"
        verdict = "a real change" if self.significant else "within the noise"
        return (
            f"{c.policy} {c.metric}: {ratio.value:.3g}x [{ratio.low:.3g}, {ratio.high:.3g}] "
            f"of the earlier run, {change}, {verdict} ({shared})"
        )


def compare_runs(
    before: Sequence[TrialRecord], after: Sequence[TrialRecord], *, seed: int = 0
) -> list[RunChange]:
    """Each policy both runs have, ``after`` against ``before``, paired by case.

    Raises:
        ComparisonError: The runs share no policy.
    """
    shared = sorted({t.policy for t in before} & {t.policy for t in after})
    if not shared:
        raise ComparisonError("the two runs share no policy")
    changes: list[RunChange] = []
    for policy in shared:
        # The earlier run's trials become a baseline policy of their own, so the
        # pairing and the bootstrap are those of a comparison inside one run.
        old = [
            dataclasses.replace(t, policy=policy + _BEFORE) for t in before if t.policy == policy
        ]
        new = [t for t in after if t.policy == policy]
        cases = len({t.case_id for t in old} & {t.case_id for t in new})
        changes.extend(
            RunChange(dataclasses.replace(comparison, baseline=policy), cases=cases)
            for comparison in compare([*old, *new], policy + _BEFORE, seed=seed)
        )
    return changes
