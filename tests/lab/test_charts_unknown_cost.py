"""Unknown cost is never drawn as zero: a cost chart with nothing to show says so."""

from __future__ import annotations

from decimal import Decimal

from agent_lab.lab.charts import NO_COST, charts
from agent_lab.lab.metrics import summarize
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
