"""No-regret deterministic-first: the smaller of the projected and LLM-always's request is sent."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from agent_lab import Event, EventDefinition, EventRegistry, Resolution, Status
from agent_lab.agents.choice import ToolChooser
from agent_lab.agents.event_agent import EventAgent
from agent_lab.agents.fallback import LLMFallback
from agent_lab.agents.paths import prompt_size
from agent_lab.agents.plugins import PluginSet
from agent_lab.agents.port import ProviderFailure
from agent_lab.kernel.models import FallbackRequest
from agent_lab.providers import ProviderReply, ToolCall
from agent_lab.testing import ScriptedProvider

SMALL = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "guests": {"type": "integer", "minimum": 1}},
    "required": ["city", "guests"],
    "additionalProperties": False,
}
# Many long properties the resolver fills: LLM-always's tool describes them
# all, the projected request only the one that is missing.
PREFERENCES = {f"preference_{i}": "none" for i in range(12)}
LARGE = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "guests": {"type": "integer", "minimum": 1},
        **{name: {"type": "string", "description": "a preference " * 12} for name in PREFERENCES},
    },
    "required": ["city", "guests", *PREFERENCES],
    "additionalProperties": False,
}


def plugins_with(schema: dict[str, Any]) -> PluginSet:
    """One event whose resolver reads everything but the city."""
    known = {name: "none" for name in PREFERENCES if name in schema["properties"]}

    def all_but_the_city(event: Event) -> Resolution:
        return Resolution({"guests": 2, **known}, complete=False)

    definition = EventDefinition(
        "book_table",
        description="Book a table at a restaurant.",
        parameters=schema,
        resolver=all_but_the_city,
        handler=dict,
    )
    return PluginSet("tables", definitions=(definition,))


def agent_for(plugins: PluginSet, provider: ScriptedProvider) -> EventAgent:
    return EventAgent(
        plugins, fallback=LLMFallback(provider), chooser=ToolChooser(provider, plugins.definitions)
    )


def sizes(schema: dict[str, Any], text: str) -> tuple[int, int]:
    """(projected, plain) prompt sizes, built independently of the agent."""
    plugins = plugins_with(schema)
    provider = ScriptedProvider([])
    definition = EventRegistry()
    definition.register(plugins.definitions[0])
    request = FallbackRequest(
        definition=definition.get("book_table"),
        event=Event("book_table", text=text),
        resolved={"guests": 2, **{k: "none" for k in PREFERENCES if k in schema["properties"]}},
        missing=("/city",),
        required=("/city",),
    )
    projected = LLMFallback(provider).request_for(request)
    plain = ToolChooser(provider, plugins.definitions).request_for(text)
    return prompt_size(projected), prompt_size(plain)


def call(arguments: dict[str, Any], name: str = "book_table") -> ToolCall:
    return ToolCall(name=name, arguments_raw=json.dumps(arguments), arguments=arguments)


TEXT = "a table for two in Paris"


def test_the_projected_request_is_sent_when_it_is_the_smaller() -> None:
    projected, plain = sizes(LARGE, TEXT)
    assert projected < plain
    provider = ScriptedProvider([ProviderReply(text='{"city": "Paris"}', parsed={"city": "Paris"})])
    reply = asyncio.run(agent_for(plugins_with(LARGE), provider).respond(TEXT, event="book_table"))
    assert reply.status is Status.SUCCESS
    assert (reply.path, reply.llm_calls) == ("projected", 1)
    assert [r.purpose for r in provider.requests] == ["fallback"]


def test_llm_always_s_request_is_sent_when_the_projected_one_is_longer() -> None:
    projected, plain = sizes(SMALL, TEXT)
    assert plain < projected
    provider = ScriptedProvider([ProviderReply(tool_calls=(call({"city": "Paris", "guests": 2}),))])
    reply = asyncio.run(agent_for(plugins_with(SMALL), provider).respond(TEXT, event="book_table"))
    assert reply.status is Status.SUCCESS
    assert reply.arguments == {"city": "Paris", "guests": 2}
    assert (reply.path, reply.llm_calls) == ("plain", 1)
    (sent,) = provider.requests
    assert sent.purpose == "tool_choice"
    assert prompt_size(sent) == plain


def test_on_the_plain_path_resolved_values_still_win() -> None:
    """K19: the model said 3 guests, the resolver read 2; the resolver's value stands."""
    provider = ScriptedProvider([ProviderReply(tool_calls=(call({"city": "Paris", "guests": 3}),))])
    reply = asyncio.run(agent_for(plugins_with(SMALL), provider).respond(TEXT, event="book_table"))
    assert reply.arguments == {"city": "Paris", "guests": 2}


def test_a_plain_reply_that_asks_leaves_the_gap_missing_and_keeps_the_question() -> None:
    provider = ScriptedProvider([ProviderReply(text="Which city?")])
    reply = asyncio.run(agent_for(plugins_with(SMALL), provider).respond(TEXT, event="book_table"))
    assert reply.status is Status.MISSING_INFORMATION
    assert (reply.path, reply.llm_calls, reply.model_text) == ("plain", 1, "Which city?")


def test_a_plain_reply_with_a_mismatched_parse_is_refused_by_the_audit() -> None:
    """The adapter parsed 2 where the raw text says "2": the kernel's audit still applies."""
    bad = ToolCall(
        name="book_table",
        arguments_raw='{"city": "Paris", "guests": "2"}',
        arguments={"city": "Paris", "guests": 2},
    )
    provider = ScriptedProvider([ProviderReply(tool_calls=(bad,))])
    reply = asyncio.run(agent_for(plugins_with(SMALL), provider).respond(TEXT, event="book_table"))
    assert reply.status is not Status.SUCCESS
    assert reply.llm_calls == 1


def test_a_plain_reply_with_several_calls_dispatches_each_in_one_request() -> None:
    calls = (call({"city": "Paris", "guests": 2}), call({"city": "Rome", "guests": 2}))
    provider = ScriptedProvider([ProviderReply(tool_calls=calls)])
    reply = asyncio.run(agent_for(plugins_with(SMALL), provider).respond(TEXT, event="book_table"))
    assert [c.arguments for c in reply.calls] == [
        {"city": "Paris", "guests": 2},
        {"city": "Rome", "guests": 2},
    ]  # the model's own calls: one message's words cannot be read for several at once
    assert (reply.path, reply.llm_calls) == ("plain", 1)


@pytest.mark.parametrize("schema", [SMALL, LARGE], ids=["plain", "projected"])
def test_a_failed_request_on_either_path_is_fallback_failed(schema: dict[str, Any]) -> None:
    failed = ProviderReply(failure=ProviderFailure(reason="http_5xx", message="busy"))
    provider = ScriptedProvider([failed])
    reply = asyncio.run(agent_for(plugins_with(schema), provider).respond(TEXT, event="book_table"))
    assert reply.status is Status.FALLBACK_FAILED
    assert reply.reason == "http_5xx"
    assert reply.llm_calls == 1


def test_a_fallback_of_the_callers_own_is_used_as_it_is() -> None:
    def fill(request: FallbackRequest) -> Any:
        from agent_lab.kernel.models import FallbackReply

        return FallbackReply('{"city": "Oslo"}', arguments={"city": "Oslo"})

    agent = EventAgent(plugins_with(SMALL), fallback=fill)
    reply = asyncio.run(agent.respond(TEXT, event="book_table"))
    assert reply.arguments == {"city": "Oslo", "guests": 2}
    assert reply.path == "custom"


def test_several_calls_from_the_routing_choice_or_the_tool_agent_name_their_path() -> None:
    """A reply's calls that came from the model's choice are not 'none' (no request)."""
    from agent_lab.agents.tool_agent import ToolAgent

    calls = (call({"city": "Paris", "guests": 2}), call({"city": "Rome", "guests": 2}))
    plugins = plugins_with(SMALL)
    provider = ScriptedProvider([ProviderReply(tool_calls=calls)])
    routed = asyncio.run(agent_for(plugins, provider).respond("dinner", candidates=["book_table"]))
    assert len(routed.calls) == 2
    assert (routed.path, routed.llm_calls) == ("choice", 1)
    provider = ScriptedProvider([ProviderReply(tool_calls=calls)])
    tool = asyncio.run(ToolAgent(plugins, provider).respond("dinner"))
    assert (tool.path, tool.llm_calls) == ("tool", 1)
