"""Unknown cost is never drawn as zero: with no known cost, no cost axis; the title says why."""

from __future__ import annotations

from decimal import Decimal

from agent_lab.lab.report.charts import charts
from agent_lab.lab.report.columns import cost_cell
from agent_lab.lab.report.tradeoff_charts import tradeoff_chart
from agent_lab.lab.results.records import TrialRecord
from agent_lab.lab.stats.metrics import summarize
from tests.lab.factories import trial


def test_with_no_known_cost_the_cost_panel_is_left_out_and_the_title_says_why() -> None:
    trials = [trial(f"c{i}", policy, cost=None, llm_calls=1) for i in range(6) for policy in "ab"]
    metrics = summarize(trials)
    drawn = charts(trials, metrics)["llm-calls-and-cost"]
    assert "cost left out: no policy has a known cost above zero" in drawn.title
    assert len(drawn.panels) == 1
    # The trade-off always has data: against mean latency when cost is not known.
    tradeoff = tradeoff_chart(metrics, [])
    assert "mean latency per trial" in tradeoff.panels[1]
    assert "cost is not known for every trial" in tradeoff.title
    assert not any("cost per trial" in panel for panel in tradeoff.panels)


def test_a_known_cost_is_drawn_on_a_cost_axis() -> None:
    trials = [trial(f"c{i}", policy, cost=Decimal("0.001"), llm_calls=1) for i in range(6)
              for policy in "ab"]  # fmt: skip
    metrics = summarize(trials)
    drawn = charts(trials, metrics)["llm-calls-and-cost"]
    assert drawn.title == "LLM calls and cost per policy"
    assert all(panel.startswith("<svg") for panel in drawn.panels)
    assert "cost per trial ($)" in drawn.panels[1]
    assert "cost per trial ($)" in tradeoff_chart(metrics, []).panels[1]


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
    metrics = summarize(partly_known())
    assert "cost left out" in charts(partly_known(), metrics)["llm-calls-and-cost"].title
    assert not any("cost per trial" in panel for panel in tradeoff_chart(metrics, []).panels)
