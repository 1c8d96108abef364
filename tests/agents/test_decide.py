"""``decide``: one function from a conversation and its tools to a decision, for every caller."""

from __future__ import annotations

import ast
import asyncio
from typing import Any

from agent_lab import (
    Decider,
    Decision,
    Event,
    EventAgent,
    LLMFallback,
    Status,
    ToolChooser,
    Turn,
    adecide,
    decide,
)
from agent_lab.agents.decide import decider_for
from agent_lab.answering import Answerer
from agent_lab.demo import plugins as demo
from agent_lab.testing import ScriptedProvider
from tests.conftest import REPO_ROOT

WEATHER: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The weather forecast for a city.",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "enum": ["Paris", "Oslo"]},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            },
            "required": ["city"],
        },
    },
}


def user(text: str) -> list[dict[str, object]]:
    return [{"role": "system", "content": "You help."}, {"role": "user", "content": text}]


def test_a_conversation_and_its_tool_specs_are_decided_by_plain_code() -> None:
    """The gateway's and the wrappers' case: no plugin set, no model; a complete call."""
    decision = decide(user("get the weather forecast in Oslo"), [WEATHER])
    assert decision.local
    assert (decision.event, decision.arguments) == ("get_weather", {"city": "Oslo"})
    assert decision.ledger.route.by == "lexical"


def test_without_a_model_a_decision_says_why_it_needs_one() -> None:
    missing = decide(user("get me the weather forecast"), [WEATHER])
    assert not missing.local
    assert (missing.status, missing.reason) == (Status.MISSING_INFORMATION, "no_fallback")
    assert missing.result is not None
    assert missing.result.missing == ("/city",)
    unrouted = decide(user("tell me a joke"), [WEATHER])
    assert (unrouted.status, unrouted.reason, unrouted.llm_calls) == (
        Status.UNKNOWN_EVENT,
        "no_route",
        0,
    )


def test_a_conversation_that_does_not_end_with_the_user_is_not_decided() -> None:
    tool_result = [*user("weather in Oslo"), {"role": "tool", "content": "sunny"}]
    decision = decide(tool_result, [WEATHER])
    assert (decision.status, decision.reason) == (Status.UNKNOWN_EVENT, "not_a_user_turn")


def test_text_parts_are_read_and_images_are_not_words() -> None:
    parts = [{"role": "user", "content": [
        {"type": "image_url", "image_url": {"url": "data:,"}},
        {"type": "text", "text": "get the weather forecast in Paris"},
    ]}]  # fmt: skip
    assert decide(parts, [WEATHER]).arguments == {"city": "Paris"}
    assert Turn.from_messages([{"role": "user", "content": [{"type": "image_url"}]}]) is None


def test_the_resolvers_read_the_last_user_message_or_every_one_when_asked() -> None:
    """``read="user_turns"``: a value said in an earlier turn is read too; by default it is not."""
    talk = [
        {"role": "user", "content": "get the weather forecast"},
        {"role": "assistant", "content": "Where?"},
        {"role": "user", "content": "in Paris"},
    ]
    assert decide(talk, [WEATHER]).arguments is None  # "in Paris" alone names no tool
    assert Turn.from_messages(talk) == Turn(text="in Paris")
    assert Turn.from_messages(talk, read="user_turns") == Turn(
        text="get the weather forecast in Paris"
    )
    assert decide(talk, [WEATHER], read="user_turns").arguments == {"city": "Paris"}


def test_sync_and_async_decide_alike() -> None:
    event = Event("set_timer", text="set a timer for 10 minutes", context={"now": "2026-12-01"})
    sync = decide(event, demo)
    awaited = asyncio.run(adecide(event, demo))
    assert sync.local
    assert (sync.status, sync.arguments) == (awaited.status, awaited.arguments)


def test_the_agent_and_decide_are_one_decision() -> None:
    """EventAgent.respond is the Decider's: same route, same arguments, same ledger."""
    provider = ScriptedProvider([])
    agent = EventAgent(
        demo, fallback=LLMFallback(provider), chooser=ToolChooser(provider, demo.definitions)
    )
    text = "set a timer for 10 minutes for the pasta"
    by_agent = asyncio.run(agent.respond(text, context={"now": "2026-12-01T09:00"}))
    by_function = decide(Turn(text=text, context={"now": "2026-12-01T09:00"}), demo)
    assert isinstance(by_agent, Decision)
    assert (by_agent.event, by_agent.arguments) == (by_function.event, by_function.arguments)
    assert by_agent.ledger.as_json()["route"] == by_function.ledger.as_json()["route"]


def test_an_answerer_prepares_a_decider_once_per_set_of_tools_and_decide_keeps_none() -> None:
    answerer = Answerer()
    assert answerer.decider([WEATHER]) is answerer.decider([dict(WEATHER)])
    assert Answerer().decider([WEATHER]) is not answerer.decider([WEATHER])
    assert decider_for(demo) is not decider_for(demo)
    assert isinstance(decider_for(demo), Decider)


def test_the_user_s_plugins_supply_their_own_resolver_for_a_tool_they_name() -> None:
    timer_spec = {"type": "function", "function": {"name": "set_timer", "parameters": {
        "type": "object", "properties": {"duration_seconds": {"type": "integer"}}}}}  # fmt: skip
    decision = decide(
        user("set a timer for ten minutes"),
        [timer_spec],
        plugins=demo,
        context={"now": "2026-12-01T09:00"},
    )
    assert decision.local
    assert decision.arguments == {"duration_seconds": 600}


def test_no_fallback_is_installed_anywhere_and_no_second_kernel_is_built() -> None:
    """The kernel and the agents hold no ContextVar: what a call needs is its argument."""
    for package in ("kernel", "agents"):
        for path in (REPO_ROOT / "src" / "agent_lab" / package).rglob("*.py"):
            tree = ast.parse(path.read_text("utf-8"))
            names = {
                node.attr if isinstance(node, ast.Attribute) else node.id
                for node in ast.walk(tree)
                if isinstance(node, ast.Name | ast.Attribute)
            }
            assert "ContextVar" not in names, path
    kernels = [
        path
        for path in (REPO_ROOT / "src" / "agent_lab" / "agents").rglob("*.py")
        if "EventKernel(" in path.read_text("utf-8")
    ]
    assert [path.name for path in kernels] == ["decider.py"]
