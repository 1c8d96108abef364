"""``agent-lab serve --rules``: learned rules decide requests in enforce mode and in the store."""

from __future__ import annotations

import pytest

pytest.importorskip("prometheus_client", reason="the gateway extra is not installed")

import json
import sqlite3
from pathlib import Path
from typing import Any

from agent_lab.gateway import GatewaySettings, Mode
from agent_lab.resolvers.learned import Evidence, LearnedRule, RuleBook
from tests.gateway.conftest import KEY, SDK, user
from tests.gateway.running import serving
from tests.openai_server import OpenAIServer, tool_calls

WEATHER: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The weather forecast for a city",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}
TOOLS: list[Any] = [WEATHER]
"""Typed loosely, so that the SDK takes them as its own TypedDicts."""
TEXT = "get the weather in the big apple"


def rules_file(tmp_path: Path) -> str:
    rule = LearnedRule(
        kind="alias",
        tool="get_weather",
        parameter="city",
        value="New York",
        phrase="big apple",
        evidence=Evidence(support=9, right=40, wrong=0, low=0.91),
    )
    path = tmp_path / "rules.json"
    path.write_text(RuleBook(rules=(rule,)).dumps())
    return str(path)


@pytest.mark.parametrize("rules", [False, True], ids=["without", "with"])
def test_enforce_answers_what_only_a_learned_rule_covers(
    sdk: SDK, upstream: OpenAIServer, tmp_path: Path, rules: bool
) -> None:
    upstream.default = tool_calls(("get_weather", '{"city": "New York"}'))
    settings = GatewaySettings(
        upstream=upstream.url,
        mode=Mode.ENFORCE,
        enforce=("get_weather",),
        db=str(tmp_path / "gateway.sqlite"),
        rules=rules_file(tmp_path) if rules else None,
    )
    with serving(settings) as gateway:
        raw = sdk(gateway.url, KEY).chat.completions.with_raw_response.create(
            model="gpt-4o-mini", messages=user(TEXT), tools=TOOLS
        )
    calls = raw.parse().choices[0].message.tool_calls or []
    assert [json.loads(c.function.arguments) for c in calls if c.type == "function"] == [
        {"city": "New York"}
    ]
    assert (raw.headers.get("x-agent-lab-answered") == "local") is rules
    assert len(upstream.requests) == (0 if rules else 1)


def test_shadow_stores_the_decision_the_rules_make(
    sdk: SDK, upstream: OpenAIServer, tmp_path: Path
) -> None:
    upstream.default = tool_calls(("get_weather", '{"city": "New York"}'))
    settings = GatewaySettings(
        upstream=upstream.url, db=str(tmp_path / "gateway.sqlite"), rules=rules_file(tmp_path)
    )
    with serving(settings) as gateway:
        sdk(gateway.url, KEY).chat.completions.create(
            model="gpt-4o-mini", messages=user(TEXT), tools=TOOLS
        )
        gateway.flush()
    with sqlite3.connect(tmp_path / "gateway.sqlite") as db:
        (decision,) = [json.loads(row[0]) for row in db.execute("SELECT decision FROM exchanges")]
    assert decision["covered"] is True
    assert decision["agreed"] is True
