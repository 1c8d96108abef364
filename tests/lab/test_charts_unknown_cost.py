"""Unknown cost is never drawn as zero: a cost chart with nothing to show says so."""

from __future__ import annotations

from decimal import Decimal

from agent_lab.lab.charts import NO_COST, charts
from agent_lab.lab.columns import cost_cell
from agent_lab.lab.metrics import summarize
from agent_lab.lab.records import TrialRecord
from tests.lab.factories import trial


def test_with_no_known_cost_the_cost_charts_say_so_instead_of_drawing_zero() -> None:
    trials = [trial(f"c{i}", policy, cost=None, llm_calls=1) for i in range(6) for policy in "ab"]
    drawn = charts(trials, summarize(trials))
    assert drawn["accuracy-vs-cost"][1] == NO_COST
    assert "no known value above zero" in drawn["llm-calls-and-cost"][1]


def test_a_known_cost_is_drawn_and_an_unknown_one_left_out() -> None:
    trials = [
        trial(f"c{i}", policy, cost=Decimal("0.001") if policy == "a" else None, llm_calls=1)
        for i in range(6)
        for policy in "ab"
    ]
    drawn = charts(trials, summarize(trials))
    svg = drawn["accuracy-vs-cost"][1]
    assert svg.startswith("<svg")
    assert "no known value above zero" not in drawn["llm-calls-and-cost"][1]


def partly_known() -> list[TrialRecord]:
    # Policy a: the trials that called no model cost 0, the ones that did are unknown.
    return [
        trial(f"c{i}", "a", cost=Decimal(0) if i < 4 else None, llm_calls=0 if i < 4 else 1)
        for i in range(6)
    ]


def test_a_mean_over_a_partly_known_cost_says_how_many_were_known() -> None:
    (metrics,) = summarize(partly_known())
    assert metrics.cost_known == 4
    assert cost_cell(metrics) == "0.000000 [0.000000, 0.000000] (4/6 known)"
    assert metrics.total_cost is None


def test_no_known_cost_is_n_a_in_the_table() -> None:
    trials = [trial(f"c{i}", "a", cost=None, llm_calls=1) for i in range(3)]
    (metrics,) = summarize(trials)
    assert cost_cell(metrics) == "n/a"


def test_a_partly_known_cost_is_not_drawn_as_a_free_policy() -> None:
    drawn = charts(partly_known(), summarize(partly_known()))
    assert drawn["accuracy-vs-cost"][1] == NO_COST
    assert "no known value above zero" in drawn["llm-calls-and-cost"][1]
