"""The openai provider against a real OpenAI-compatible server on 127.0.0.1, faults included."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest

from agent_lab import Event, EventDefinition, EventKernel, EventRegistry, Status
from agent_lab.agents.choice import ChoiceOutcome, ToolChooser
from agent_lab.agents.fallback import LLMFallback
from agent_lab.providers import FailureReason, Message, OpenAIProvider, ProviderRequest
from tests.openai_server import Behavior, OpenAIServer, content, serving, status, tool_calls

KEY = "sk-test-DO-NOT-LEAK-1234567890"
TIMER = {
    "type": "object",
    "properties": {
        "duration_seconds": {"type": "integer", "minimum": 1},
        "label": {"type": "string"},
        "loud": {"type": "boolean"},
    },
    "required": ["duration_seconds"],
    "additionalProperties": False,
}


@pytest.fixture(scope="module")
def server() -> Iterator[OpenAIServer]:
    yield from serving()


def provider(server: OpenAIServer, **options: Any) -> OpenAIProvider:
    settings: dict[str, Any] = {
        "model": "gpt-4o-mini",
        "base_url": server.url,
        "api_key": KEY,
        "timeout": 2.0,
        "backoff_base": 0.01,
        "backoff_max": 0.05,
    } | options
    return OpenAIProvider(**settings)


def kernel(server: OpenAIServer, **options: Any) -> EventKernel:
    registry = EventRegistry()
    registry.register(
        EventDefinition(
            "set_timer",
            description="Start a countdown timer.",
            parameters=TIMER,
            resolver=lambda event: {"label": "tea"},
        )
    )
    mode = options.pop("mode", "json_schema")
    return EventKernel(registry, LLMFallback(provider(server, **options), mode=mode))


def dispatch(server: OpenAIServer, *behaviors: Behavior, **options: Any) -> tuple[Any, float]:
    server.play(*behaviors)
    started = time.monotonic()
    result = kernel(server, **options).dispatch(Event("set_timer", text="tea timer, four minutes"))
    return result, time.monotonic() - started


def test_fallback_asks_only_for_missing_fields_with_structured_output(server: OpenAIServer) -> None:
    """The request carries the user's words, the resolved facts, a schema of the missing field."""
    result, _ = dispatch(server, content('{"duration_seconds": 240}'))
    assert result.status is Status.SUCCESS
    assert result.arguments == {"label": "tea", "duration_seconds": 240}
    assert result.llm_calls == 1
    assert (result.usage.prompt_tokens, result.usage.completion_tokens) == (120, 12)
    assert result.usage.cost == Decimal("0.0000252")  # gpt-4o-mini: 0.15 and 0.60 per Mtok
    assert result.fallback_raw == '{"duration_seconds": 240}'
    sent = server.requests[0]
    assert sent.headers["Authorization"] == f"Bearer {KEY}"
    schema = sent.body["response_format"]["json_schema"]["schema"]
    assert list(schema["properties"]) == ["duration_seconds"]
    assert schema["required"] == ["duration_seconds"]
    prompt = sent.body["messages"][1]["content"]
    assert "tea timer, four minutes" in prompt
    assert '{"label": "tea"}' in prompt


def test_forced_tool_call_mode(server: OpenAIServer) -> None:
    """mode='tool' forces a call to the event's tool and reads its raw arguments."""
    result, _ = dispatch(server, tool_calls(("set_timer", '{"duration_seconds": 60}')), mode="tool")
    assert result.status is Status.SUCCESS
    assert result.arguments == {"label": "tea", "duration_seconds": 60}
    body = server.requests[0].body
    assert body["tool_choice"] == {"type": "function", "function": {"name": "set_timer"}}
    assert "response_format" not in body


def test_rate_limit_honours_retry_after_and_counts_every_attempt(server: OpenAIServer) -> None:
    """429 with retry-after-ms is waited out and retried; both requests are counted."""
    result, elapsed = dispatch(
        server, status(429, **{"retry-after-ms": "300"}), content('{"duration_seconds": 5}')
    )
    assert result.status is Status.SUCCESS
    assert result.llm_calls == 2
    # Sent and succeeded apart: the refused request is counted, as a failure.
    assert (result.usage.requests, result.usage.succeeded, result.usage.failed) == (2, 1, 1)
    [attempt] = result.ledger.attempts  # one fallback call; the provider retried inside it
    assert (attempt.usage.requests, attempt.usage.succeeded) == (2, 1)
    waited = server.requests[1].at - server.requests[0].at
    assert 0.3 <= waited < 2.0
    assert elapsed < 3.0


def test_retry_after_in_seconds(server: OpenAIServer) -> None:
    """The plain Retry-After header (seconds) is honoured too."""
    result, _ = dispatch(
        server, status(429, **{"retry-after": "0.2"}), content('{"duration_seconds": 5}')
    )
    assert result.status is Status.SUCCESS
    assert server.requests[1].at - server.requests[0].at >= 0.2


@pytest.mark.parametrize("code", [500, 502, 503])
def test_server_errors_are_retried_then_reported(code: int, server: OpenAIServer) -> None:
    """5xx is retried up to max_attempts, then FALLBACK_FAILED http_5xx, every attempt counted."""
    result, elapsed = dispatch(server, status(code), status(code), status(code), max_attempts=3)
    assert result.status is Status.FALLBACK_FAILED
    assert result.reason == FailureReason.HTTP_5XX
    assert result.llm_calls == 3
    assert (result.usage.requests, result.usage.succeeded) == (3, 0)
    assert len(server.requests) == 3
    assert elapsed < 2.0


def test_a_5xx_then_success(server: OpenAIServer) -> None:
    """One 503 and then an answer: success, two requests counted."""
    result, _ = dispatch(server, status(503), content('{"duration_seconds": 5}'))
    assert result.status is Status.SUCCESS
    assert result.llm_calls == 2


def test_a_reply_slower_than_the_timeout(server: OpenAIServer) -> None:
    """A request over the timeout is cut off and retried; after the last: timeout."""
    slow = Behavior(message={"role": "assistant", "content": "{}"}, delay=1.5)
    result, elapsed = dispatch(server, slow, slow, timeout=0.3, max_attempts=2)
    assert result.status is Status.FALLBACK_FAILED
    assert result.reason == FailureReason.TIMEOUT
    assert result.llm_calls == 2
    assert 0.6 <= elapsed < 1.5


def test_connection_dropped_mid_body(server: OpenAIServer) -> None:
    """A body cut short is a connection error, retried."""
    result, _ = dispatch(
        server, Behavior(kind="drop", message={"content": "{}"}), content('{"duration_seconds": 7}')
    )
    assert result.status is Status.SUCCESS
    assert result.llm_calls == 2
    result, _ = dispatch(server, *(Behavior(kind="drop") for _ in range(2)), max_attempts=2)
    assert (result.status, result.reason, result.llm_calls) == (
        Status.FALLBACK_FAILED,
        FailureReason.CONNECTION_ERROR,
        2,
    )


def test_malformed_body_is_not_retried(server: OpenAIServer) -> None:
    """A 200 whose body is not a chat completion: FALLBACK_FAILED invalid_response, one request."""
    result, _ = dispatch(server, Behavior(kind="malformed"))
    assert (result.status, result.reason, result.llm_calls) == (
        Status.FALLBACK_FAILED,
        FailureReason.INVALID_RESPONSE,
        1,
    )


def test_other_4xx_is_not_retried(server: OpenAIServer) -> None:
    """400 fails at once: one request."""
    result, _ = dispatch(server, status(400), content("{}"))
    assert (result.status, result.reason, result.llm_calls) == (
        Status.FALLBACK_FAILED,
        FailureReason.HTTP_4XX,
        1,
    )


@pytest.mark.parametrize(
    ("behavior", "reason"),
    [
        (content('{"duration_seconds": NaN}'), "fallback_invalid_json"),
        (content('{"duration_seconds": 5, "duration_seconds": 6}'), "fallback_invalid_json"),
        (
            content(
                '{"duration_seconds": 5, "loud": true}', parsed={"duration_seconds": 5, "loud": 1}
            ),
            "fallback_mismatch",
        ),
        (content("I think four minutes."), "fallback_invalid_json"),
        (Behavior(message={"role": "assistant", "content": None}), FailureReason.NO_CONTENT),
    ],
    ids=["nan", "duplicate-keys", "true-parsed-as-1", "prose", "empty-message"],
)
def test_hostile_replies_are_fallback_failed(
    behavior: Behavior, reason: str, server: OpenAIServer
) -> None:
    """The kernel's audit sees exactly what came over the wire: non-strict JSON is rejected."""
    result, _ = dispatch(server, behavior)
    assert result.status is Status.FALLBACK_FAILED
    assert result.reason == reason
    assert result.llm_calls == 1


def test_a_missing_forced_tool_call_is_fallback_failed(server: OpenAIServer) -> None:
    """mode='tool' and the model answers in prose: no_tool_call, one request."""
    result, _ = dispatch(server, content("Four minutes, I think."), mode="tool")
    assert (result.status, result.reason, result.llm_calls) == (
        Status.FALLBACK_FAILED,
        FailureReason.NO_TOOL_CALL,
        1,
    )


def test_hostile_tool_call_arguments_are_fallback_failed(server: OpenAIServer) -> None:
    """NaN or repeated keys in tool-call arguments are caught the same way."""
    for raw in ('{"duration_seconds": NaN}', '{"duration_seconds": 1, "duration_seconds": 2}'):
        result, _ = dispatch(server, tool_calls(("set_timer", raw)), mode="tool")
        assert (result.status, result.reason) == (Status.FALLBACK_FAILED, "fallback_invalid_json")


def test_the_key_never_leaks(server: OpenAIServer) -> None:
    """An error body that echoes the key is redacted; repr and results never hold it."""
    result, _ = dispatch(server, status(401, json.dumps({"error": {"message": f"bad key {KEY}"}})))
    assert result.status is Status.FALLBACK_FAILED
    assert KEY not in result.message
    assert KEY not in repr(result)
    assert KEY not in repr(provider(server))


# Tool choice --------------------------------------------------------------------


def chooser(server: OpenAIServer) -> ToolChooser:
    registry = EventRegistry()
    registry.register(EventDefinition("set_timer", parameters=TIMER))
    registry.register(
        EventDefinition(
            "weather", parameters={"type": "object", "properties": {"city": {"type": "string"}}}
        )
    )
    return ToolChooser(provider(server), registry)


@pytest.mark.parametrize(
    ("behavior", "outcome"),
    [
        (tool_calls(("weather", '{"city": "Oslo"}')), ChoiceOutcome.CHOSEN),
        (content("Sorry, I cannot help."), ChoiceOutcome.NO_TOOL_CALL),
        (tool_calls(("weather", "{}"), ("set_timer", "{}")), ChoiceOutcome.MULTIPLE_TOOL_CALLS),
        (tool_calls(("launch_rocket", "{}")), ChoiceOutcome.UNKNOWN_TOOL),
        (status(400), ChoiceOutcome.FAILED),
    ],
    ids=["chosen", "no-call", "several-calls", "unknown-tool", "failed"],
)
def test_tool_choice_outcomes(
    behavior: Behavior, outcome: ChoiceOutcome, server: OpenAIServer
) -> None:
    """No call, several calls or an unknown tool are outcomes, not exceptions."""
    import asyncio

    server.play(behavior)
    choice = asyncio.run(chooser(server).choose("weather in Oslo?"))
    assert choice.outcome is outcome
    body = server.requests[0].body
    assert {tool["function"]["name"] for tool in body["tools"]} == {"set_timer", "weather"}
    assert body["tool_choice"] == "auto"
    if outcome is ChoiceOutcome.CHOSEN:
        assert (choice.name, choice.arguments_raw, choice.arguments) == (
            "weather",
            '{"city": "Oslo"}',
            {"city": "Oslo"},
        )


def test_arguments_sent_as_an_object_are_accepted(server: OpenAIServer) -> None:
    """Some servers send tool arguments as an object; its JSON stands for the raw text."""
    import asyncio

    server.play(tool_calls(("weather", {"city": "Oslo"})))
    choice = asyncio.run(chooser(server).choose("weather in Oslo?"))
    assert choice.outcome is ChoiceOutcome.CHOSEN
    assert choice.arguments == {"city": "Oslo"}


def test_no_model_is_a_clear_failure() -> None:
    """Without a model name there is nothing to send: a failure, no request."""
    import asyncio

    bare = OpenAIProvider(base_url="http://127.0.0.1:9/v1", api_key=KEY)
    bare.model = None
    reply = asyncio.run(
        bare.complete(ProviderRequest(purpose="fallback", messages=(Message("user", "hi"),)))
    )
    assert reply.failure is not None
    assert "OPENAI_MODEL" in reply.failure.message


def test_tripwire_refuses_connections_outside_the_allowed_loopback_addresses() -> None:
    """The test-wide tripwire (pytest-socket) refuses any address but 127.0.0.1 and ::1."""
    with pytest.raises(Exception, match=r"blocked|not allowed|A test tried"):
        socket.create_connection(("127.0.0.2", 9), timeout=1)


def test_keep_alive_transport_handles_the_same_faults(server: OpenAIServer) -> None:
    """keep_alive (one aiohttp pool per event loop, as runners use it): same retries, statuses."""
    import asyncio

    slow = Behavior(message={"role": "assistant", "content": "{}"}, delay=1.0)
    server.play(
        status(429, **{"retry-after-ms": "50"}),
        content('{"duration_seconds": 5}'),
        status(503),
        slow,
        Behavior(kind="drop"),
        content('{"duration_seconds": 7}'),
    )
    live = provider(server, keep_alive=True, timeout=0.3, max_attempts=4)
    registry = EventRegistry()
    registry.register(
        EventDefinition("set_timer", parameters=TIMER, resolver=lambda event: {"label": "tea"})
    )
    kernel = EventKernel(registry, LLMFallback(live))

    async def main() -> list[Any]:
        try:
            first = await kernel.adispatch(Event("set_timer"))
            second = await kernel.adispatch(Event("set_timer"))
            return [first, second]
        finally:
            await live.aclose()

    first, second = asyncio.run(main())
    assert (first.status, first.llm_calls) == (Status.SUCCESS, 2)
    assert (second.status, second.llm_calls, second.arguments["duration_seconds"]) == (
        Status.SUCCESS,
        4,
        7,
    )


# Hardening: keys, usage figures, time and size bounds -----------------------------------

LONG_KEY = "sk-proj-" + "".join(chr(ord("a") + (i * 7) % 26) for i in range(152))


def leaks(text: str, key: str) -> bool:
    """Whether ``text`` holds any 12 consecutive characters of ``key`` past its common prefix."""
    return any(key[i : i + 12] in text for i in range(len(key) - 11) if i >= 4)


def complete(server: OpenAIServer, *behaviors: Behavior, **options: Any) -> Any:
    server.play(*behaviors)
    request = ProviderRequest(purpose="fallback", messages=(Message("user", "hi"),))
    return asyncio.run(provider(server, **options).complete(request))


@pytest.mark.parametrize("filler", [0, 150, 180, 199, 250])
def test_a_key_straddling_the_message_cut_is_redacted_first(
    server: OpenAIServer, filler: int
) -> None:
    """The body was cut at 200 characters and then redacted: 158 of 160 characters leaked."""
    body = json.dumps({"error": {"message": "x" * filler + LONG_KEY}})
    reply = complete(server, status(401, body), api_key=LONG_KEY)
    assert reply.failure is not None
    assert not leaks(reply.failure.message, LONG_KEY)


def test_a_long_prefix_of_the_key_is_redacted(server: OpenAIServer) -> None:
    body = json.dumps({"error": {"message": f"key {LONG_KEY[:40]}... is not valid"}})
    reply = complete(server, status(401, body), api_key=LONG_KEY)
    assert reply.failure is not None
    assert not leaks(reply.failure.message, LONG_KEY)
    assert "[redacted]" in reply.failure.message


def test_a_key_echoed_in_a_successful_reply_is_redacted(server: OpenAIServer) -> None:
    reply = complete(server, Behavior(kind="echo_key"), api_key=LONG_KEY)
    assert reply.ok
    assert reply.text is not None
    assert "[redacted]" in reply.text
    for text in (reply.text, reply.usage.model or "", repr(reply)):
        assert not leaks(text, LONG_KEY)


def test_credentials_in_the_base_url_are_removed_never_sent_nor_shown(
    server: OpenAIServer,
) -> None:
    """user:password@ in the URL made aiohttp raise out of complete(); now it is dropped."""
    url = server.url.replace("http://", "http://alice:hunter2-secret@")
    for keep_alive in (False, True):
        made = OpenAIProvider(
            "gpt-4o-mini", base_url=url, api_key=KEY, timeout=2.0, keep_alive=keep_alive
        )
        assert "hunter2" not in repr(made)
        assert made.base_url == server.url
        server.play(content('{"a": 1}'))

        async def one(p: OpenAIProvider = made) -> Any:
            try:
                return await p.complete(
                    ProviderRequest(purpose="fallback", messages=(Message("user", "hi"),))
                )
            finally:
                await p.aclose()

        reply = asyncio.run(one())
        assert reply.ok
        assert "hunter2" not in json.dumps(server.requests[-1].headers)


@pytest.mark.parametrize(
    "usage",
    [
        {"prompt_tokens": 10**30, "completion_tokens": 5},
        {"prompt_tokens": -7, "completion_tokens": 5},
        {"prompt_tokens": True, "completion_tokens": 5},
        {"prompt_tokens": "12", "completion_tokens": 5},
        {"prompt_tokens": 1.5, "completion_tokens": 5},
    ],
    ids=["huge", "negative", "bool", "string", "float"],
)
def test_absurd_usage_figures_are_unknown(server: OpenAIServer, usage: dict[str, Any]) -> None:
    """10**30 crashed the store writer and negative counts made PriceTable.cost raise."""
    reply = complete(server, Behavior(message={"content": '{"a": 1}'}, usage=usage))
    assert reply.ok
    assert reply.usage.prompt_tokens is None
    assert reply.usage.completion_tokens == 5
    assert reply.usage.cost is None
    assert reply.usage.requests == 1


def test_a_trickling_server_cannot_outlast_the_timeout(server: OpenAIServer) -> None:
    """One byte every 50 ms is about 15 s of reply; the 1 s timeout bounds the attempt."""
    started = time.monotonic()
    reply = complete(
        server,
        Behavior(kind="trickle", message={"content": '{"a": 1}'}, delay=0.05),
        timeout=1.0,
        max_attempts=1,
    )
    assert reply.failure is not None
    assert reply.failure.reason == FailureReason.TIMEOUT
    assert time.monotonic() - started < 4.0


@pytest.mark.parametrize("declare_length", [True, False], ids=["content-length", "chunked"])
def test_a_huge_body_is_refused_without_reading_it_all(
    server: OpenAIServer, declare_length: bool
) -> None:
    reply = complete(
        server,
        Behavior(kind="huge", size=64 << 20, declare_length=declare_length),
        max_body_bytes=1 << 20,
        timeout=10.0,
    )
    assert reply.failure is not None
    assert reply.failure.reason == FailureReason.INVALID_RESPONSE
    assert "exceeds" in reply.failure.message
    assert reply.usage.requests == 1  # not retried: the same body would come again


@pytest.mark.parametrize("keep_alive", [False, True], ids=["per-call", "kept-alive"])
def test_a_redirect_to_a_closed_port_is_a_connection_error(
    server: OpenAIServer, keep_alive: bool
) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    server.play(Behavior(kind="redirect", body=f"http://127.0.0.1:{closed}/v1/chat/completions"))
    made = provider(server, max_attempts=1, keep_alive=keep_alive)

    async def one() -> Any:
        try:
            return await made.complete(
                ProviderRequest(purpose="fallback", messages=(Message("user", "hi"),))
            )
        finally:
            await made.aclose()

    reply = asyncio.run(one())
    assert reply.failure is not None
    assert reply.failure.reason == FailureReason.CONNECTION_ERROR


@pytest.mark.parametrize(
    ("details", "cached"),
    [
        ({"cached_tokens": 64}, 64),
        ({"cached_tokens": -1}, None),
        ({"cached_tokens": "64"}, None),
        ("64", None),
        (None, None),
    ],
    ids=["reported", "negative", "string", "not-an-object", "absent"],
)
def test_cached_prompt_tokens_are_recorded_when_the_server_reports_them(
    server: OpenAIServer, details: object, cached: int | None
) -> None:
    usage: dict[str, Any] = {"prompt_tokens": 100, "completion_tokens": 5}
    if details is not None:
        usage["prompt_tokens_details"] = details
    reply = complete(server, Behavior(message={"content": '{"a": 1}'}, usage=usage))
    assert reply.ok
    assert reply.usage.cached_tokens == cached
    assert reply.usage.prompt_tokens == 100
