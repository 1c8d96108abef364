"""OTel GenAI spans as logs: the current conventions, the older forms, and agent-lab's own file."""

from __future__ import annotations

import asyncio
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from agent_lab.logs import (
    LogFormat,
    LoggedRequest,
    LoggedUsage,
    SkippedLine,
    SkipReason,
    read_line,
    read_logs,
)
from tests.logs.lines import ASKED, CURRENT, WEATHER, export, span

PARIS = {"city": "Paris"}


def read(*spans: dict[str, Any]) -> list[LoggedRequest | SkippedLine]:
    return read_line(json.dumps(export(*spans)), where="t:1", format=LogFormat.OTEL)


def test_the_current_conventions_are_read_into_chat_completions_messages() -> None:
    """v1.37.0: system instructions, parts-based messages, tool definitions, usage and times."""
    [found] = read(span(CURRENT))
    assert isinstance(found, LoggedRequest)
    assert found.where == "t:1#1"
    assert found.messages == tuple(ASKED)
    assert found.tools == (WEATHER,)
    assert [(c.name, c.arguments) for c in found.calls] == [("get_weather", PARIS)]
    assert found.model == "gpt-4o-mini-2024-07-18"
    assert found.usage == LoggedUsage(prompt_tokens=80, completion_tokens=17)
    assert found.latency_ms == 250.0
    assert found.timestamp == "2023-11-14T22:13:20+00:00"


def test_tool_calls_and_results_in_history_become_assistant_and_tool_messages() -> None:
    """A tool_call part is an assistant's call (arguments as text); a response, a tool message."""
    history = [
        {"role": "user", "parts": [{"type": "text", "content": "Weather in Paris?"}]},
        {
            "role": "assistant",
            "parts": [{"type": "tool_call", "id": "c1", "name": "get_weather", "arguments": PARIS}],
        },
        {"role": "tool", "parts": [{"type": "tool_call_response", "id": "c1", "response": "sun"}]},
    ]
    output = [{"role": "assistant", "parts": [{"type": "text", "content": "Sunny."}]}]
    attributes = {
        **CURRENT,
        "gen_ai.input.messages": json.dumps(history),
        "gen_ai.output.messages": json.dumps(output),
    }
    [found] = read(span(attributes))
    assert isinstance(found, LoggedRequest)
    assert found.messages[2:] == (
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
                    "id": "c1",
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "sun"},
    )
    assert (found.calls, found.text) == ((), "Sunny.")


EVENTS_V136: list[tuple[str, dict[str, Any]]] = [
    ("gen_ai.system.message", {"content": "You help with the weather."}),
    ("gen_ai.user.message", {"content": "Weather in Paris?"}),
    (
        "gen_ai.choice",
        {
            "gen_ai.event.content": json.dumps(
                {
                    "index": 0,
                    "finish_reason": "tool_calls",
                    "message": {
                        "tool_calls": [
                            {
                                "id": "c1",
                                "type": "function",
                                "function": {
                                    "name": "get_weather",
                                    "arguments": '{"city":"Paris"}',
                                },
                            }
                        ]
                    },
                }
            )
        },
    ),
]
TOOLS_INDEXED = {
    "llm.request.functions.0.name": "get_weather",
    "llm.request.functions.0.description": "The weather in a city",
    "llm.request.functions.0.parameters": json.dumps(WEATHER["function"]["parameters"]),
}
OPENLLMETRY = {
    "llm.request.type": "chat",
    "gen_ai.system": "openai",
    "gen_ai.request.model": "gpt-4o-mini",
    "gen_ai.usage.prompt_tokens": 80,
    "gen_ai.usage.completion_tokens": 17,
    "gen_ai.prompt.0.role": "system",
    "gen_ai.prompt.0.content": "You help with the weather.",
    "gen_ai.prompt.1.role": "user",
    "gen_ai.prompt.1.content": "Weather in Paris?",
    "gen_ai.completion.0.role": "assistant",
    "gen_ai.completion.0.finish_reason": "tool_calls",
    "gen_ai.completion.0.tool_calls.0.id": "c1",
    "gen_ai.completion.0.tool_calls.0.name": "get_weather",
    "gen_ai.completion.0.tool_calls.0.arguments": '{"city": "Paris"}',
    **TOOLS_INDEXED,
}
CONTENT_EVENTS_V127: list[tuple[str, dict[str, Any]]] = [
    ("gen_ai.content.prompt", {"gen_ai.prompt": json.dumps(ASKED)}),
    (
        "gen_ai.content.completion",
        {
            "gen_ai.completion": json.dumps(
                [
                    {
                        "role": "assistant",
                        "tool_calls": [
                            {"function": {"name": "get_weather", "arguments": '{"city":"Paris"}'}}
                        ],
                    }
                ]
            )
        },
    ),
]


@pytest.mark.parametrize(
    ("attributes", "events"),
    [
        ({"gen_ai.operation.name": "chat", **TOOLS_INDEXED}, EVENTS_V136),
        (OPENLLMETRY, []),
        ({"gen_ai.operation.name": "chat", **TOOLS_INDEXED}, CONTENT_EVENTS_V127),
    ],
    ids=["events-v1.28-v1.36", "openllmetry-indexed", "content-events-v1.26"],
)
def test_the_older_forms_read_the_same_request(
    attributes: dict[str, Any], events: list[tuple[str, dict[str, Any]]]
) -> None:
    """Span events, OpenLLMetry's indexed attributes and v1.26's content events: one request."""
    [found] = read(span(attributes, events))
    assert isinstance(found, LoggedRequest)
    assert found.messages == tuple(ASKED)
    assert found.tools == (WEATHER,)
    assert [(c.name, c.arguments) for c in found.calls] == [("get_weather", PARIS)]


NOT_ENOUGH: list[tuple[dict[str, Any], list[tuple[str, dict[str, Any]]], str]] = [
    ({"gen_ai.operation.name": "chat", "gen_ai.request.model": "m"}, [], "no_content"),
    (
        {"gen_ai.operation.name": "chat"},
        [("gen_ai.user.message", {}), ("gen_ai.choice", {"index": 0})],
        "no_content",
    ),
    ({k: v for k, v in CURRENT.items() if k != "gen_ai.tool.definitions"}, [], "no_tools"),
    (
        {k: v for k, v in CURRENT.items() if k != "gen_ai.output.messages"},
        [],
        "failed_request",
    ),
]


@pytest.mark.parametrize(
    ("attributes", "events", "reason"),
    NOT_ENOUGH,
    ids=["no-content", "events-without-content", "calls-without-tools", "failed"],
)
def test_a_chat_span_without_what_replay_needs_is_skipped_never_guessed(
    attributes: dict[str, Any], events: list[tuple[str, dict[str, Any]]], reason: str
) -> None:
    """Content capture is opt-in: without it, or without the tools, the span is a skip."""
    failed = {"status": {"code": 2}} if reason == "failed_request" else {}
    [found] = read(span(attributes, events, **failed))
    assert isinstance(found, SkippedLine)
    assert (found.where, found.reason) == ("t:1#1", SkipReason(reason))


def test_spans_that_are_no_chat_are_ignored_silently() -> None:
    """HTTP spans, tool executions and embeddings are not LLM requests: not counted at all."""
    others = [
        span({"http.method": "GET"}),
        span({"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather"}),
        span({"gen_ai.operation.name": "embeddings", "gen_ai.request.model": "e"}),
    ]
    assert read(*others) == []
    found = read(others[0], span(CURRENT), others[1], span(CURRENT))
    assert [r.where for r in found] == ["t:1#1", "t:1#2"]


def test_a_file_agent_lab_wrote_through_a_real_run_reads_back(tmp_path: Path) -> None:
    """agent_lab.otel's own OTLP/JSON file: with content captured, requests; without, no_content."""
    pytest.importorskip("opentelemetry.sdk", reason="the otel extra is not installed")
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor

    from agent_lab import Event, EventDefinition, EventKernel, EventRegistry
    from agent_lab.agents.fallback import LLMFallback
    from agent_lab.otel import Tracing
    from agent_lab.otel.file_exporter import OTLPJsonFileExporter
    from agent_lab.providers import ProviderReply
    from agent_lab.testing import ScriptedProvider
    from agent_lab.usage import Usage

    schema = {
        "type": "object",
        "properties": {"minutes": {"type": "integer"}},
        "required": ["minutes"],
    }
    for capture in (True, False):
        path = tmp_path / f"spans-{capture}.jsonl"
        exporter = OTLPJsonFileExporter(path)
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        tracing = Tracing(provider, capture_content=capture)
        usage = Usage(prompt_tokens=50, completion_tokens=6, cost=Decimal("0.00001"), model="m-1")
        reply = ProviderReply(text='{"minutes": 4}', parsed={"minutes": 4}, usage=usage)
        registry = EventRegistry()
        registry.register(EventDefinition("set_timer", parameters=schema))
        kernel = EventKernel(
            registry, LLMFallback(tracing.provider(ScriptedProvider([reply], model="m")))
        )
        tracing.dispatch(kernel, Event("set_timer", text="four minutes"))
        provider.shutdown()
        [found] = list(read_logs([path], on_error="skip"))
        if capture:
            assert isinstance(found, LoggedRequest), found
            assert found.text == '{"minutes": 4}'
            assert found.usage == LoggedUsage(prompt_tokens=50, completion_tokens=6)
            assert any("four minutes" in str(m.get("content")) for m in found.messages)
        else:
            assert isinstance(found, SkippedLine)
            assert found.reason is SkipReason.NO_CONTENT


def test_a_tool_choice_agent_lab_traced_reads_back_with_its_tools(tmp_path: Path) -> None:
    """The tools offered are recorded (``gen_ai.tool.definitions``): a traced tool choice
    replays as a request with its tools and its call, not as ``no_tools``."""
    pytest.importorskip("opentelemetry.sdk", reason="the otel extra is not installed")
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor

    from agent_lab import EventDefinition, PluginSet, ProviderReply, ToolAgent, ToolCall
    from agent_lab.otel import Tracing
    from agent_lab.otel.file_exporter import OTLPJsonFileExporter
    from agent_lab.testing import ScriptedProvider

    path = tmp_path / "spans.jsonl"
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(OTLPJsonFileExporter(path)))
    tracing = Tracing(provider, capture_content=True)
    schema = {"type": "object", "properties": {"minutes": {"type": "integer"}},
              "required": ["minutes"]}  # fmt: skip
    plugins = PluginSet("t", (EventDefinition("set_timer", parameters=schema),))
    reply = ProviderReply(
        tool_calls=(
            ToolCall(name="set_timer", arguments_raw='{"minutes": 4}', arguments={"minutes": 4}),
        )
    )
    agent = ToolAgent(plugins, tracing.provider(ScriptedProvider([reply], model="m")))
    asyncio.run(agent.respond("set a timer for four minutes"))
    provider.shutdown()
    [found] = list(read_logs([path]))
    assert isinstance(found, LoggedRequest), found
    assert [tool["function"]["name"] for tool in found.tools] == ["set_timer"]  # type: ignore[index,call-overload]
    assert [(c.name, c.arguments) for c in found.calls] == [("set_timer", {"minutes": 4})]
