"""A tool whose argument only a learned rule can read, for every wrapper's ``rules=`` tests.

``get_weather(city)``: "get the weather in the big apple" names the tool, but
no city the schema-driven resolver reads; the alias ``agent-lab learn`` would
keep ("big apple" -> "New York") completes the call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_lab.resolvers.learned import Evidence, LearnedRule, RuleBook

if TYPE_CHECKING:
    from pathlib import Path

WEATHER_TEXT = "get the weather in the big apple"
"""Words that name the tool and hold the city only as an alias."""
CITY = "New York"
"""The value the alias stands for."""


def big_apple() -> RuleBook:
    """One alias rule: "big apple" -> "New York" for ``get_weather``'s ``city``."""
    rule = LearnedRule(
        kind="alias",
        tool="get_weather",
        parameter="city",
        value=CITY,
        phrase="big apple",
        evidence=Evidence(support=9, right=40, wrong=0, low=0.91),
    )
    return RuleBook(rules=(rule,))


def rules_file(folder: Path) -> Path:
    """``big_apple`` as the rules file ``agent-lab learn`` writes."""
    path = folder / "rules.json"
    path.write_text(big_apple().dumps(), encoding="utf-8")
    return path
