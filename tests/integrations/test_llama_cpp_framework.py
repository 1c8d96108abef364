"""Pydantic AI's own OpenAI-compatible model, pointed at llama-cpp-python's server, wrapped.

One real run through a framework (the ``local`` extra): a request plain code
completes, with a declared reply, sends the server nothing; one it cannot
complete is the real model's, asked once, and its answer is the run's output.
"""

from __future__ import annotations

import pytest

pytest.importorskip("pydantic_ai", reason="the pydantic-ai extra is not installed")

import asyncio
from collections.abc import Iterator
from typing import Any, Literal

import httpx
from openai import AsyncOpenAI, DefaultAsyncHttpxClient
from pydantic_ai import Agent

from agent_lab.agents.plugins import PluginSet
from agent_lab.integrations.pydantic_ai import DeterministicFirstModel
from agent_lab.kernel.models import EventDefinition
from agent_lab.resolvers.schema import SchemaResolver
from tests.llama_server import ALIAS, NEEDS, llama_cpp_server

pytestmark = [pytest.mark.slow, NEEDS]

WEATHER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"city": {"type": "string", "enum": ["Paris", "Oslo", "Rome"]}},
    "required": ["city"],
}


def weather_plugins() -> PluginSet:
    definition = EventDefinition(
        "get_weather",
        parameters=WEATHER_SCHEMA,
        resolver=SchemaResolver(WEATHER_SCHEMA),
        reply="It is {sky} in {city}.",
    )
    return PluginSet("weather", (definition,))


@pytest.fixture(scope="module")
def llama(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with llama_cpp_server(tmp_path_factory.mktemp("llama") / "server.log") as url:
        yield url


def ask(url: str, text: str, sent: list[str]) -> str:
    """One run of an agent on the server through Pydantic AI's OpenAI model, every HTTP
    request counted; the client is closed inside the run's own event loop (no socket left)."""
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    async def count(request: httpx.Request) -> None:
        sent.append(request.url.path)

    async def run() -> str:
        http = DefaultAsyncHttpxClient(event_hooks={"request": [count]}, timeout=120)
        async with AsyncOpenAI(base_url=url, api_key="sk-local", http_client=http) as client:
            model = OpenAIChatModel(ALIAS, provider=OpenAIProvider(openai_client=client))
            made: Agent[None, str] = Agent(
                DeterministicFirstModel(model, weather_plugins()), model_settings={"max_tokens": 16}
            )

            @made.tool_plain
            def get_weather(city: Literal["Paris", "Oslo", "Rome"]) -> dict[str, str]:
                """The weather forecast for a city."""
                return {"city": city, "sky": "sunny"}

            return (await made.run(text)).output

    return asyncio.run(run())


def test_a_complete_request_with_a_reply_sends_the_server_nothing(llama: str) -> None:
    sent: list[str] = []
    assert ask(llama, "get the weather forecast in Paris", sent) == "It is sunny in Paris."
    assert sent == []


def test_a_request_plain_code_cannot_complete_is_the_real_models(llama: str) -> None:
    """No city named: the wrapped model answers, through the server, and its words end the run."""
    sent: list[str] = []
    output = ask(llama, "what should I wear today?", sent)
    assert sent
    assert all(path.endswith("/chat/completions") for path in sent)
    assert isinstance(output, str)
