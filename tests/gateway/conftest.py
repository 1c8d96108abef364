"""Fixtures of the gateway's tests: the scripted upstream on loopback, requests that decide."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import openai
import pytest

from tests.openai_server import OpenAIServer, serving

WEATHER: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The weather forecast for a city.",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "enum": ["Paris", "Oslo", "Rome"]},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius"},
            },
            "required": ["city"],
        },
    },
}
TIMER: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "set_timer",
        "description": "Set a timer.",
        "parameters": {
            "type": "object",
            "properties": {"minutes": {"type": "integer", "minimum": 1}},
            "required": ["minutes"],
        },
    },
}
TOOLS: list[Any] = [WEATHER, TIMER]
"""Typed loosely, so that the SDK takes them as its own TypedDicts."""
COVERED = "get the weather forecast in Paris"
"""Plain code decides it: get_weather(city=Paris)."""
KEY = "sk-test-" + "0123456789abcdefghijKLMNOPQRSTUV"
"""A client's key, long enough to be redacted wherever it shows."""


SDK = Callable[..., openai.OpenAI]
"""The ``sdk`` fixture's type."""


def user(text: str) -> list[Any]:
    return [{"role": "system", "content": "You help."}, {"role": "user", "content": text}]


@pytest.fixture
def sdk() -> Iterator[SDK]:
    """Makes ``openai.OpenAI`` clients (retries off), each closed when the test ends."""
    made: list[openai.OpenAI] = []

    def make(url: str, key: str = KEY) -> openai.OpenAI:
        client = openai.OpenAI(base_url=url, api_key=key, max_retries=0)
        made.append(client)
        return client

    yield make
    for client in made:
        client.close()


@pytest.fixture
def upstream() -> Iterator[OpenAIServer]:
    yield from serving()
