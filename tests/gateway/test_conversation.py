"""Through the official ``openai`` SDK against the gateway in enforce mode: the whole
conversation is read, and the model is not asked.

A lone ``get_weather(city)`` answers "What's the weather in Paris right now?"; a
booking the user confirms after the assistant summarised it is made with the
confirmed values; a correction of that summary goes to the model.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("prometheus_client", reason="the gateway extra is not installed")

import openai

from agent_lab.gateway import Gateway, GatewaySettings, Mode
from agent_lab.gateway.wire import ANSWERED_HEADER
from tests.gateway.running import serving
from tests.openai_server import Behavior, OpenAIServer
from tests.openai_server import serving as upstream_serving

WEATHER: Any = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Get the current weather for a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string", "description": "The city"}},
            "required": ["city"],
        },
    },
}
FIND: Any = {
    "type": "function",
    "function": {
        "name": "find_tables",
        "description": "Find restaurants with a free table in a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string", "description": "The city"}},
            "required": ["city"],
        },
    },
}
RESERVE: Any = {
    "type": "function",
    "function": {
        "name": "reserve_table",
        "description": "Reserve a table at a restaurant.",
        "parameters": {
            "type": "object",
            "properties": {
                "restaurant": {"type": "string", "description": "The restaurant's name"},
                "city": {"type": "string", "description": "The city"},
                "guests": {"type": "integer", "minimum": 1, "description": "Guests at the table"},
                "day": {"type": "string", "format": "date", "description": "The day"},
                "time": {"type": "string", "format": "time", "description": "The time"},
            },
            "required": ["restaurant", "city", "guests", "day", "time"],
        },
    },
}
BOOKING: Any = [
    {"role": "user", "content": "Could you find a restaurant in Ghent for Friday?"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "find_tables", "arguments": '{"city": "Ghent"}'},
            }
        ],
    },
    {
        "role": "tool",
        "tool_call_id": "c1",
        "content": json.dumps([{"restaurant": "De Vitrine"}, {"restaurant": "Pakhuis"}]),
    },
    {"role": "assistant", "content": "De Vitrine or Pakhuis have tables. Which one?"},
    {"role": "user", "content": "Pakhuis, for four of us at half past seven in the evening."},
    {
        "role": "assistant",
        "content": "Please confirm: a table for 4 at Pakhuis in Ghent on Friday, "
        "April 3rd, at 7:30 pm. Is that right?",
    },
]


@pytest.fixture
def upstream() -> Iterator[OpenAIServer]:
    for server in upstream_serving():
        server.default = Behavior(message={"content": "the model's words"})
        yield server


def settings(upstream: OpenAIServer, tmp_path: Path, *tools: str) -> GatewaySettings:
    return GatewaySettings(
        upstream=upstream.url,
        mode=Mode.ENFORCE,
        enforce=tools,
        db=str(tmp_path / "gateway.sqlite"),
        reference_date="2026-04-01T09:00",
    )


def asked(url: str, messages: Any, tools: Any) -> tuple[list[tuple[str, Any]], str | None]:
    """The calls the gateway answered with, and whether it answered locally (its header)."""
    client = openai.OpenAI(base_url=url, api_key="sk-conversation", max_retries=0)
    try:
        raw = client.chat.completions.with_raw_response.create(
            model="gpt-4o-mini", messages=messages, tools=tools
        )
    finally:
        client.close()
    answer = raw.parse()
    calls = [
        (call.function.name, json.loads(call.function.arguments))
        for call in answer.choices[0].message.tool_calls or []
        if call.type == "function"
    ]
    return calls, raw.headers.get(ANSWERED_HEADER)


def test_the_weather_in_paris_is_answered_locally(upstream: OpenAIServer, tmp_path: Path) -> None:
    told = settings(upstream, tmp_path, "get_weather")
    said = [{"role": "user", "content": "What's the weather in Paris right now?"}]
    with serving(told, gateway=Gateway(told)) as served:
        calls, answered = asked(served.url, said, [WEATHER])
    assert calls == [("get_weather", {"city": "Paris"})]
    assert answered is not None
    assert upstream.requests == []


def test_a_confirmed_booking_is_made_with_the_confirmed_values(
    upstream: OpenAIServer, tmp_path: Path
) -> None:
    told = settings(upstream, tmp_path, "find_tables", "reserve_table")
    messages = [*BOOKING, {"role": "user", "content": "Yes, that's right."}]
    with serving(told, gateway=Gateway(told)) as served:
        calls, answered = asked(served.url, messages, [FIND, RESERVE])
    assert calls == [
        (
            "reserve_table",
            {"restaurant": "Pakhuis", "city": "Ghent", "guests": 4, "day": "2026-04-03",
             "time": "19:30"},
        )
    ]  # fmt: skip
    assert answered is not None
    assert upstream.requests == []


def test_a_corrected_summary_goes_to_the_model(upstream: OpenAIServer, tmp_path: Path) -> None:
    told = settings(upstream, tmp_path, "find_tables", "reserve_table")
    messages = [*BOOKING, {"role": "user", "content": "No, make it five of us."}]
    with serving(told, gateway=Gateway(told)) as served:
        calls, answered = asked(served.url, messages, [FIND, RESERVE])
    assert calls == []
    assert answered is None
    assert len(upstream.requests) == 1
