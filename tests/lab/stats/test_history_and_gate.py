"""Runs over time and the gate, in words a user reads: no change, both 0, free to paid, no case."""

from __future__ import annotations

from decimal import Decimal

import pytest

from agent_lab.lab.results.records import TrialRecord
from agent_lab.lab.stats.gate import Limits, gate
from agent_lab.lab.stats.history import compare_runs
from tests.lab.factories import trial

CASES = [f"c{i}" for i in range(6)]


Trials = list[TrialRecord]


def runs(
    *, calls: tuple[int, int] = (0, 0), cost: tuple[str, str] = ("0", "0")
) -> tuple[Trials, Trials]:
    before = [trial(c, llm_calls=calls[0], cost=Decimal(cost[0])) for c in CASES]
    after = [trial(c, llm_calls=calls[1], cost=Decimal(cost[1])) for c in CASES]
    return before, after


def sentences(before: Trials, after: Trials) -> dict[str, str]:
    return {c.comparison.metric: c.sentence() for c in compare_runs(before, after)}


def test_zero_against_zero_is_unchanged_not_incomparable() -> None:
    said = sentences(*runs())
    assert said["llm_calls"] == "p llm_calls: unchanged (both 0) (6 shared cases)"


def test_equal_values_are_no_change_not_a_ratio() -> None:
    said = sentences(*runs(calls=(1, 1)))
    assert said["llm_calls"] == "p llm_calls: no change (6 shared cases)"


def test_from_zero_to_more_is_a_real_change() -> None:
    changes = {c.comparison.metric: c for c in compare_runs(*runs(calls=(0, 1)))}
    change = changes["llm_calls"]
    assert change.significant
    assert change.sentence() == "p llm_calls: from 0 to 1, a real change (6 shared cases)"


def test_one_shared_case_is_one_case() -> None:
    before, after = [trial("c0", llm_calls=1)], [trial("c0", llm_calls=1)]
    assert "(1 shared case)" in sentences(before, after)["llm_calls"]


def test_the_gate_compares_a_known_zero_cost_and_passes_it() -> None:
    checks = {c.metric: c for c in gate(*runs(), Limits())}
    cost = checks["cost"]
    assert cost.verdict == "pass"
    assert cost.change.value == 0.0
    assert "not comparable" not in cost.sentence()


def test_the_gate_fails_a_run_that_went_from_free_to_paid() -> None:
    checks = {c.metric: c for c in gate(*runs(cost=("0", "0.01")), Limits())}
    assert checks["cost"].verdict == "fail"
    assert checks["cost"].sentence() == "p cost per trial: from 0 to 0.01 per trial: FAIL"


def test_the_gate_refuses_runs_that_share_no_case() -> None:
    """It used to print 'gate passed' with exit 0: nothing paired is nothing gated."""
    before = [trial(c) for c in CASES]
    after = [trial(c + "-other") for c in CASES]
    with pytest.raises(ValueError, match="share no case of p"):
        gate(before, after, Limits())
