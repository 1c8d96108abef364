"""Hand-written log lines of every format, for the reader's tests."""

from __future__ import annotations

import json
from typing import Any, cast

WEATHER: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The weather in a city",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}
ASKED: list[dict[str, Any]] = [
    {"role": "system", "content": "You help with the weather."},
    {"role": "user", "content": "Weather in Paris?"},
]


def call(name: str = "get_weather", arguments: str = '{"city": "Paris"}') -> dict[str, Any]:
    """An OpenAI tool call."""
    return {"id": "call_1", "type": "function", "function": {"name": name, "arguments": arguments}}


def chat_line(**changes: Any) -> dict[str, Any]:
    """A conversation: a tool call, its result, then words."""
    line: dict[str, Any] = {
        "messages": [
            *ASKED,
            {"role": "assistant", "content": None, "tool_calls": [call()]},
            {"role": "tool", "tool_call_id": "call_1", "content": "sunny"},
            {"role": "assistant", "content": "It is sunny in Paris."},
        ],
        "tools": [WEATHER],
    }
    line.update(changes)
    return line


def pair_line(message: dict[str, Any] | None = None, **changes: Any) -> dict[str, Any]:
    """One call: the request and its chat.completion, with a wrapper's latency and metadata."""
    line: dict[str, Any] = {
        "request": {"model": "gpt-4o-mini", "messages": ASKED, "tools": [WEATHER]},
        "response": {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 1_700_000_000,
            "model": "gpt-4o-mini-2024-07-18",
            "choices": [
                {
                    "index": 0,
                    "message": message
                    or {"role": "assistant", "content": None, "tool_calls": [call()]},
                    "finish_reason": "tool_calls",
                }
            ],
            "usage": {
                "prompt_tokens": 80,
                "completion_tokens": 17,
                "prompt_tokens_details": {"cached_tokens": 64},
            },
        },
        "latency_ms": 412.5,
        "metadata": {"user": "u1"},
    }
    line.update(changes)
    return line


def attribute(key: str, value: Any) -> dict[str, Any]:
    """An OTLP/JSON ``KeyValue``."""
    if isinstance(value, bool):
        wrapped: dict[str, Any] = {"boolValue": value}
    elif isinstance(value, int):
        wrapped = {"intValue": str(value)}
    elif isinstance(value, float):
        wrapped = {"doubleValue": value}
    elif isinstance(value, list):
        items = cast("list[Any]", value)
        wrapped = {"arrayValue": {"values": [attribute("", v)["value"] for v in items]}}
    else:
        wrapped = {"stringValue": value}
    return {"key": key, "value": wrapped}


def span(
    attributes: dict[str, Any],
    events: list[tuple[str, dict[str, Any]]] = (),  # type: ignore[assignment]
    **changes: Any,
) -> dict[str, Any]:
    """An OTLP/JSON span starting at 2023-11-14T22:13:20Z and lasting 250 ms."""
    found: dict[str, Any] = {
        "traceId": "5b8efff798038103d269b633813fc60c",
        "spanId": "eee19b7ec3c1b174",
        "name": "chat gpt-4o-mini",
        "kind": 3,
        "startTimeUnixNano": "1700000000000000000",
        "endTimeUnixNano": "1700000000250000000",
        "attributes": [attribute(k, v) for k, v in attributes.items()],
        "events": [
            {
                "timeUnixNano": "1700000000000000000",
                "name": name,
                "attributes": [attribute(k, v) for k, v in event.items()],
            }
            for name, event in events
        ],
        "status": {},
    }
    found.update(changes)
    return found


def export(*spans: dict[str, Any]) -> dict[str, Any]:
    """An ``ExportTraceServiceRequest`` holding ``spans``."""
    return {
        "resourceSpans": [
            {
                "resource": {"attributes": [attribute("service.name", "app")]},
                "scopeSpans": [{"scope": {"name": "openai"}, "spans": list(spans)}],
            }
        ]
    }


CURRENT: dict[str, Any] = {
    "gen_ai.operation.name": "chat",
    "gen_ai.provider.name": "openai",
    "gen_ai.request.model": "gpt-4o-mini",
    "gen_ai.response.model": "gpt-4o-mini-2024-07-18",
    "gen_ai.usage.input_tokens": 80,
    "gen_ai.usage.output_tokens": 17,
    "gen_ai.system_instructions": json.dumps(
        [{"type": "text", "content": "You help with the weather."}]
    ),
    "gen_ai.input.messages": json.dumps(
        [{"role": "user", "parts": [{"type": "text", "content": "Weather in Paris?"}]}]
    ),
    "gen_ai.output.messages": json.dumps(
        [
            {
                "role": "assistant",
                "parts": [
                    {
                        "type": "tool_call",
                        "id": "call_1",
                        "name": "get_weather",
                        "arguments": {"city": "Paris"},
                    }
                ],
                "finish_reason": "tool_call",
            }
        ]
    ),
    "gen_ai.tool.definitions": json.dumps(
        [
            {
                "type": "function",
                "name": "get_weather",
                "description": "The weather in a city",
                "parameters": WEATHER["function"]["parameters"],
            }
        ]
    ),
}


def jsonl(*lines: Any) -> str:
    """Lines as JSONL text."""
    return "".join(json.dumps(line) + "\n" for line in lines)
