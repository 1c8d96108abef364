"""A gate for CI: does a run send more to the LLM, cost more, or answer worse than a baseline run?

Both runs are paired on the cases they share, policy by policy, and each
change carries its 95% case-bootstrap interval. A check fails only when the
whole interval lies past its limit: a change the noise could explain passes,
and says so, so that a gate never fails a build on chance alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from agent_lab.errors import ComparisonError
from agent_lab.lab.report.wording import counted
from agent_lab.lab.stats.history import RunChange, compare_runs
from agent_lab.lab.stats.metrics import Estimate, case_means, paired_difference, seeded

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    import numpy as np

    from agent_lab.lab.results.records import TrialRecord
    from agent_lab.strict_json import JSONObject

__all__ = ["Check", "Limits", "gate"]

Verdict = Literal["pass", "fail", "not comparable"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Limits:
    """How far a run may move from its baseline before the gate fails it."""

    max_llm_share_increase: float = 0.02
    """Share of trials that call the LLM: at most this many points more (0.02 is 2 points)."""
    max_cost_increase: float = 0.05
    """Mean cost per trial: at most this much more, relatively (0.05 is 5%)."""
    min_accuracy_change: float = -0.01
    """Accuracy: at least this change (-0.01 is at most 1 point worse)."""


@dataclass(frozen=True, slots=True)
class Check:
    """One policy and one limit: the change, its interval, and the verdict."""

    policy: str
    metric: Literal["llm_share", "cost", "accuracy"]
    change: Estimate
    """``llm_share`` and ``accuracy``: the difference in share; ``cost``: the relative change."""
    limit: float
    cases: int
    verdict: Verdict
    note: str | None = None
    """What the change was, when no interval says it (a cost from 0 to more)."""

    def sentence(self) -> str:
        """The check in words."""
        what = {"llm_share": "LLM share", "cost": "cost per trial", "accuracy": "accuracy"}
        if self.note is not None:
            return f"{self.policy} {what[self.metric]}: {self.note}: {self.verdict.upper()}"
        change = self.change.format(1, 100, " points" if self.metric != "cost" else "%",
                                    signed=True)  # fmt: skip
        bound = f"{self.limit * 100:+.1f}{' points' if self.metric != 'cost' else '%'}"
        if self.verdict == "not comparable":
            return f"{self.policy} {what[self.metric]}: not comparable (unknown on shared cases)"
        side = "at least" if self.metric == "accuracy" else "at most"
        if self.verdict == "fail":
            return (
                f"{self.policy} {what[self.metric]}: {change}, wholly past the limit "
                f"({side} {bound}): FAIL"
            )
        return (
            f"{self.policy} {what[self.metric]}: {change}, limit {side} {bound}: pass "
            f"({counted(self.cases, 'shared case')})"
        )

    def as_json(self) -> JSONObject:
        """The check as JSON data."""
        return {
            "policy": self.policy,
            "metric": self.metric,
            "change": self.change.value,
            "low": self.change.low,
            "high": self.change.high,
            "limit": self.limit,
            "cases": self.cases,
            "verdict": self.verdict,
            "note": self.note,
        }


def _difference_check(
    before: Sequence[TrialRecord],
    after: Sequence[TrialRecord],
    policy: str,
    *,
    metric: Literal["llm_share", "accuracy"],
    limit: float,
    rng: np.random.Generator,
) -> Check:
    read: Callable[[TrialRecord], float] = (
        (lambda t: float(t.llm_calls > 0))
        if metric == "llm_share"
        else (lambda t: float(t.correct))
    )
    old = case_means([t for t in before if t.policy == policy and not t.warmup], read)
    new = case_means([t for t in after if t.policy == policy and not t.warmup], read)
    shared = sorted(set(old) & set(new))
    change = paired_difference([new[c] for c in shared], [old[c] for c in shared], rng)
    if change.value is None or change.low is None or change.high is None:
        return Check(policy, metric, change, limit, len(shared), "not comparable")
    # More LLM share is worse (fails above the limit); less accuracy is worse (below it).
    past = change.low > limit if metric == "llm_share" else change.high < limit
    return Check(policy, metric, change, limit, len(shared), "fail" if past else "pass")


def _cost_check(change: RunChange | None, policy: str, limit: float) -> Check:
    ratio = change.comparison.ratio if change is not None else Estimate(None)
    if change is not None and change.unchanged:
        # A known cost that did not move (a free model: 0 against 0) passes: no change.
        return Check(policy, "cost", Estimate(0.0, 0.0, 0.0, change.cases), limit, change.cases,
                     "pass")  # fmt: skip
    if change is not None and change.comparison.baseline_mean == 0:
        # From free to paid: no ratio to 0 exists, and no limit allows it.
        return Check(policy, "cost", Estimate(None), limit, change.cases, "fail",
                     note=f"from 0 to {change.comparison.policy_mean:.3g} per trial")  # fmt: skip
    if change is None or ratio.value is None or ratio.low is None or ratio.high is None:
        # Unknown cost (a free or unpriced model) is not a cost of 0: nothing to gate on.
        return Check(policy, "cost", Estimate(None), limit, 0, "not comparable")
    relative = Estimate(ratio.value - 1, ratio.low - 1, ratio.high - 1, ratio.n)
    verdict: Verdict = "fail" if ratio.low - 1 > limit else "pass"
    return Check(policy, "cost", relative, limit, change.cases, verdict)


def gate(
    before: Sequence[TrialRecord],
    after: Sequence[TrialRecord],
    limits: Limits,
    *,
    policies: Sequence[str] = (),
    seed: int = 0,
) -> list[Check]:
    """Every check of ``after`` against ``before``, for ``policies`` (default: all they share).

    Raises:
        ComparisonError: The runs share no policy, or not one named in ``policies``, or a
            chosen policy has no case in both runs.
    """
    shared = sorted({t.policy for t in before} & {t.policy for t in after})
    chosen = [p for p in shared if not policies or p in policies]
    if not chosen:
        wanted = ", ".join(policies) if policies else "any policy"
        raise ComparisonError(f"the two runs share no trials of {wanted}")
    for policy in chosen:
        old = {t.case_id for t in before if t.policy == policy and not t.warmup}
        if not old & {t.case_id for t in after if t.policy == policy and not t.warmup}:
            # Nothing paired is nothing gated: passing would wave any run through.
            raise ComparisonError(f"the two runs share no case of {policy}: nothing to compare")
    costs = {
        change.comparison.policy: change
        for change in compare_runs(before, after, seed=seed)
        if change.comparison.metric == "cost"
    }
    checks: list[Check] = []
    for policy in chosen:
        checks.append(
            _difference_check(
                before, after, policy, metric="llm_share",
                limit=limits.max_llm_share_increase, rng=seeded(seed, policy, "llm_share"),
            )
        )  # fmt: skip
        checks.append(_cost_check(costs.get(policy), policy, limits.max_cost_increase))
        checks.append(
            _difference_check(
                before, after, policy, metric="accuracy", limit=limits.min_accuracy_change,
                rng=seeded(seed, policy, "accuracy"),
            )
        )  # fmt: skip
    return checks
