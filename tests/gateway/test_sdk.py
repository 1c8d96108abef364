"""The official ``openai`` SDK, sync and async, streamed and not, against ``agent-lab serve``.

The upstream is the scripted OpenAI-compatible server on loopback. In shadow
mode the client gets the upstream's answer unchanged; in enforce mode a
covered request for a trusted tool is answered locally, in the reference
API's shapes, which the SDK parses into its own types.
"""

from __future__ import annotations

import pytest

pytest.importorskip("prometheus_client", reason="the gateway extra is not installed")

import asyncio
import json
import urllib.error
import urllib.request
from pathlib import Path

import openai

from agent_lab.gateway import GatewaySettings, Mode
from tests.gateway.conftest import COVERED, KEY, SDK, TOOLS, user
from tests.gateway.running import serving
from tests.openai_server import OpenAIServer, content, tool_calls

PARIS = tool_calls(("get_weather", '{"city": "Paris"}'))


def enforce(upstream: OpenAIServer, tmp_path: Path) -> GatewaySettings:
    return GatewaySettings(
        upstream=upstream.url,
        mode=Mode.ENFORCE,
        enforce=("get_weather",),
        db=str(tmp_path / "gateway.sqlite"),
    )


def shadow(upstream: OpenAIServer, tmp_path: Path) -> GatewaySettings:
    return GatewaySettings(upstream=upstream.url, db=str(tmp_path / "gateway.sqlite"))


def test_shadow_gives_the_sync_client_the_upstreams_answer_unchanged(
    sdk: SDK, upstream: OpenAIServer, tmp_path: Path
) -> None:
    """Shadow is the default mode: every request goes upstream, the answer comes back as sent."""
    upstream.default = PARIS
    with serving(shadow(upstream, tmp_path)) as gateway:
        client = sdk(gateway.url, KEY)
        raw = client.chat.completions.with_raw_response.create(
            model="gpt-4o-mini", messages=user(COVERED), tools=TOOLS
        )
    assert json.loads(raw.content) == upstream.requests[0].reply
    assert "x-agent-lab-answered" not in raw.headers
    assert len(upstream.requests) == 1
    assert upstream.requests[0].headers["Authorization"] == f"Bearer {KEY}"


def test_shadow_relays_a_stream_chunk_for_chunk(
    sdk: SDK, upstream: OpenAIServer, tmp_path: Path
) -> None:
    """A streamed answer reaches the SDK as the upstream streamed it: content and call deltas."""
    upstream.default = tool_calls(("get_weather", '{"city": "Paris"}'))
    upstream.default.finish_reason = "tool_calls"
    with serving(shadow(upstream, tmp_path)) as gateway:
        client = sdk(gateway.url, KEY)
        stream = client.chat.completions.create(
            model="gpt-4o-mini", messages=user(COVERED), tools=TOOLS, stream=True
        )
        chunks = list(stream)
    arguments = "".join(
        call.function.arguments or ""
        for chunk in chunks
        if chunk.choices
        for call in chunk.choices[0].delta.tool_calls or []
        if call.function is not None
    )
    assert arguments == '{"city": "Paris"}'
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "tool_calls"
    assert chunks[-1].usage is not None
    assert chunks[-1].usage.prompt_tokens == 120


def test_enforce_answers_a_covered_request_locally_for_the_sync_client(
    sdk: SDK, upstream: OpenAIServer, tmp_path: Path
) -> None:
    """A trusted tool, covered: the call, ``finish_reason: tool_calls``, zero usage, the header."""
    with serving(enforce(upstream, tmp_path)) as gateway:
        client = sdk(gateway.url, KEY)
        raw = client.chat.completions.with_raw_response.create(
            model="gpt-4o-mini", messages=user(COVERED), tools=TOOLS
        )
    answer = raw.parse()
    assert raw.headers["x-agent-lab-answered"] == "local"
    assert upstream.requests == []
    choice = answer.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.role == "assistant"
    assert choice.message.content is None
    calls = choice.message.tool_calls or []
    assert [
        (c.function.name, json.loads(c.function.arguments)) for c in calls if c.type == "function"
    ] == [("get_weather", {"city": "Paris"})]
    assert calls[0].id.startswith("call_")
    assert calls[0].type == "function"
    assert answer.object == "chat.completion"
    assert answer.model == "gpt-4o-mini"
    assert answer.usage is not None
    assert (answer.usage.prompt_tokens, answer.usage.completion_tokens) == (0, 0)


def test_enforce_streams_a_local_answer_in_the_reference_chunks(
    sdk: SDK, upstream: OpenAIServer, tmp_path: Path
) -> None:
    """Role first, the call's id and name, its arguments, ``finish_reason``, usage, ``[DONE]``."""
    with serving(enforce(upstream, tmp_path)) as gateway:
        client = sdk(gateway.url, KEY)
        stream = client.chat.completions.create(
            model="gpt-4o-mini",
            messages=user(COVERED),
            tools=TOOLS,
            stream=True,
            stream_options={"include_usage": True},
        )
        chunks = list(stream)
        request = urllib.request.Request(
            f"{gateway.url}/chat/completions",
            data=json.dumps(
                {"model": "m", "messages": user(COVERED), "tools": TOOLS, "stream": True}
            ).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            text = response.read().decode()
            kind = response.headers["Content-Type"]
    assert upstream.requests == []
    assert chunks[0].choices[0].delta.role == "assistant"
    start = chunks[1].choices[0].delta.tool_calls
    assert start is not None
    assert start[0].index == 0
    assert start[0].id is not None
    assert start[0].function is not None
    assert start[0].function.name == "get_weather"
    pieces = chunks[2].choices[0].delta.tool_calls
    assert pieces is not None
    assert pieces[0].function is not None
    assert json.loads(pieces[0].function.arguments or "") == {"city": "Paris"}
    assert chunks[3].choices[0].finish_reason == "tool_calls"
    assert chunks[-1].choices == []
    assert chunks[-1].usage is not None
    assert chunks[-1].usage.total_tokens == 0
    assert len({chunk.id for chunk in chunks}) == 1
    assert kind.startswith("text/event-stream")
    assert text.endswith("data: [DONE]\n\n")


def test_the_async_client_in_both_modes_streamed_and_not(
    upstream: OpenAIServer, tmp_path: Path
) -> None:
    """``AsyncOpenAI``: shadow forwards (the upstream's words), enforce answers locally."""
    upstream.default = content("Sunny in Paris.")

    async def ask(url: str) -> tuple[str | None, str]:
        client = openai.AsyncOpenAI(base_url=url, api_key=KEY, max_retries=0)
        whole = await client.chat.completions.create(
            model="gpt-4o-mini", messages=user(COVERED), tools=TOOLS
        )
        stream = await client.chat.completions.create(
            model="gpt-4o-mini", messages=user(COVERED), tools=TOOLS, stream=True
        )
        said: list[str] = []
        async for chunk in stream:
            delta = chunk.choices[0].delta if chunk.choices else None
            if delta is not None and delta.content:
                said.append(delta.content)
            calls = (delta.tool_calls or []) if delta is not None else []
            said.extend(c.function.name for c in calls if c.function and c.function.name)
        await client.close()
        message = whole.choices[0].message
        named = [c.function.name for c in message.tool_calls or [] if c.type == "function"]
        return (named[0] if named else message.content), "".join(said)

    with serving(shadow(upstream, tmp_path)) as gateway:
        assert asyncio.run(ask(gateway.url)) == ("Sunny in Paris.", "Sunny in Paris.")
    assert len(upstream.requests) == 2
    with serving(enforce(upstream, tmp_path)) as gateway:
        assert asyncio.run(ask(gateway.url)) == ("get_weather", "get_weather")
    assert len(upstream.requests) == 2


def test_models_are_passed_through_and_the_gateway_answers_health_and_metrics(
    sdk: SDK, upstream: OpenAIServer, tmp_path: Path
) -> None:
    """``GET /v1/models`` is the upstream's; ``/healthz`` and ``/metrics`` are the gateway's."""
    with serving(shadow(upstream, tmp_path)) as gateway:
        client = sdk(gateway.url, KEY)
        assert [model.id for model in client.models.list()] == ["gpt-4o-mini"]
        with urllib.request.urlopen(f"{gateway.root}/healthz", timeout=5) as response:
            assert json.loads(response.read()) == {"status": "ok"}
        with urllib.request.urlopen(f"{gateway.root}/metrics", timeout=5) as response:
            metrics = response.read().decode()
    assert upstream.requests[0].headers["Authorization"] == f"Bearer {KEY}"
    for name in (
        "agent_lab_gateway_requests_total 1.0",
        "agent_lab_gateway_forwarded_total 1.0",
        "agent_lab_gateway_answered_locally_total 0.0",
        "agent_lab_gateway_added_latency_seconds_bucket",
    ):
        assert name in metrics


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [("GET", "/v2/models", 404), ("POST", "/", 404), ("GET", "/v1/chat/completions", 405)],
    ids=["unknown-prefix", "root", "wrong-method"],
)
def test_anything_else_is_refused_with_the_api_error_shape(
    upstream: OpenAIServer, tmp_path: Path, method: str, path: str, status: int
) -> None:
    """Outside the routes: the API's error object, with the right status."""
    with serving(shadow(upstream, tmp_path)) as gateway:
        request = urllib.request.Request(f"{gateway.root}{path}", method=method, data=None)
        with pytest.raises(urllib.error.HTTPError) as caught:
            urllib.request.urlopen(request, timeout=5)
    assert caught.value.code == status
    error = json.loads(caught.value.read())["error"]
    assert set(error) == {"message", "type", "param", "code"}
