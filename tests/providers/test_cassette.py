"""Record a run against the loopback server, replay it offline, and get the identical run."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import re
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import pytest

from agent_lab import Event, EventDefinition, EventKernel, EventRegistry, EventResult, Status
from agent_lab.agents.fallback import LLMFallback
from agent_lab.providers import (
    CassetteError,
    FailureReason,
    Message,
    OpenAIProvider,
    ProviderFailure,
    ProviderReply,
    ProviderRequest,
    RecordingProvider,
    ReplayProvider,
    ToolCall,
)
from agent_lab.providers._cassette_schema import decode_reply, encode_reply
from agent_lab.usage import Usage
from tests.openai_server import OpenAIServer, content, serving, status

KEY = "sk-test-NEVER-IN-A-CASSETTE-42"
SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "days": {"type": "integer", "maximum": 7}},
    "required": ["city", "days"],
}
TEXTS = ["weather in Oslo", "forecast for Bergen", "rain in Tromso?", "Oslo this week"]


@pytest.fixture(scope="module")
def server() -> Iterator[OpenAIServer]:
    yield from serving()


def run(fallback: LLMFallback) -> list[EventResult]:
    registry = EventRegistry()
    registry.register(
        EventDefinition(
            "weather",
            parameters=SCHEMA,
            resolver=lambda event: {"city": "Oslo"} if "Oslo" in event.text else {},
        )
    )
    kernel = EventKernel(registry, fallback)
    return [kernel.dispatch(Event("weather", text=text)) for text in TEXTS]


def summary(results: list[EventResult]) -> list[tuple[object, ...]]:
    return [
        (
            r.status,
            r.reason,
            r.arguments,
            r.llm_calls,
            r.usage,
            r.fallback_raw,
            r.fallback_arguments,
        )
        for r in results
    ]


def test_a_replayed_run_is_identical_in_arguments_statuses_and_usage(
    server: OpenAIServer, tmp_path: Path
) -> None:
    """Record against the real server (faults included), replay offline: the same results."""
    server.play(
        content('{"days": 1}'),
        content('{"city": "Bergen", "days": 3}'),
        status(503),
        content('{"city": "Tromso", "days": 9}'),
        content('{"days": 7}'),
    )
    cassette = tmp_path / "run.jsonl"
    live = OpenAIProvider("gpt-4o-mini", base_url=server.url, api_key=KEY, backoff_base=0.01)
    recorded = run(LLMFallback(RecordingProvider(live, cassette)))
    assert [r.status for r in recorded] == [
        Status.SUCCESS,
        Status.SUCCESS,
        Status.INVALID_ARGUMENTS,
        Status.SUCCESS,
    ]
    assert recorded[2].llm_calls == 2  # the 503 and its retry

    served = len(server.requests)
    replayed = run(LLMFallback(ReplayProvider(cassette)))
    assert len(server.requests) == served  # offline: the server saw nothing more
    assert summary(replayed) == summary(recorded)

    text = cassette.read_text(encoding="utf-8")
    assert KEY not in text
    assert "authorization" not in text.lower()
    lines = [json.loads(line) for line in text.splitlines()]
    assert len(lines) == 4
    assert all(line["request"]["model"] == "gpt-4o-mini" for line in lines)


def test_an_unrecorded_request_is_a_clear_error_naming_its_fingerprint(tmp_path: Path) -> None:
    """A request the cassette does not hold: not_in_cassette, with the fingerprint."""
    cassette = tmp_path / "empty.jsonl"
    cassette.write_text("")
    request = ProviderRequest(purpose="fallback", messages=(Message("user", "hello"),), model="m")
    reply = asyncio.run(ReplayProvider(cassette).complete(request))
    assert reply.failure is not None
    assert reply.failure.reason == FailureReason.NOT_IN_CASSETTE
    assert request.fingerprint() in reply.failure.message
    results = run(LLMFallback(ReplayProvider(cassette)))
    assert {r.reason for r in results if r.status is Status.FALLBACK_FAILED} == {"not_in_cassette"}


def test_a_request_replayed_more_often_than_recorded_is_an_error(
    server: OpenAIServer, tmp_path: Path
) -> None:
    """Identical requests replay in recorded order; one more than recorded is refused."""
    server.play(content("first"), content("second"))
    cassette = tmp_path / "twice.jsonl"
    live = RecordingProvider(OpenAIProvider("m", base_url=server.url, api_key=KEY), cassette)
    request = ProviderRequest(purpose="fallback", messages=(Message("user", "same"),), model="m")
    asyncio.run(live.complete(request))
    asyncio.run(live.complete(request))
    replay = ReplayProvider(cassette)
    texts = [asyncio.run(replay.complete(request)).text for _ in range(2)]
    assert texts == ["first", "second"]
    extra = asyncio.run(replay.complete(request))
    assert extra.failure is not None
    assert "more often" in extra.failure.message


def test_fingerprints_cover_the_model_and_ignore_context() -> None:
    """What is sent decides the fingerprint: the model does, the lab's context does not."""
    base = ProviderRequest(purpose="fallback", messages=(Message("user", "x"),), model="a")
    same = ProviderRequest(
        purpose="fallback", messages=(Message("user", "x"),), model="a", context={"case_id": "c1"}
    )
    other = ProviderRequest(purpose="fallback", messages=(Message("user", "x"),), model="b")
    assert base.fingerprint() == same.fingerprint()
    assert base.fingerprint() != other.fingerprint()


@pytest.mark.parametrize(
    "line",
    ["not json", '{"version": 99, "fingerprint": "x", "reply": {}}', '{"version": 1}'],
    ids=["not-json", "wrong-version", "missing-fields"],
)
def test_a_malformed_cassette_is_refused_with_its_line_number(line: str, tmp_path: Path) -> None:
    """A cassette that is not one is a CassetteError naming the file and line."""
    cassette = tmp_path / "bad.jsonl"
    cassette.write_text("\n" + line + "\n")
    with pytest.raises(CassetteError, match=r"bad\.jsonl:2"):
        ReplayProvider(cassette)


def _every_field_set() -> ProviderReply:
    reply = ProviderReply(
        text='{"days": 2.0}',
        parsed={"days": 2.0, "flag": True, "count": 1, "list": [None, "x"]},
        tool_calls=(ToolCall(name="weather", arguments_raw='{"a": 1}', arguments={"a": 1}),),
        usage=Usage(
            prompt_tokens=12,
            completion_tokens=3,
            cost=Decimal("0.0000123"),
            model="m",
            estimated=True,
            requests=2,
        ),
        latency_ns=123,
        failure=ProviderFailure(reason="timeout", message="slow", retryable=True),
        finish_reason="stop",
    )
    defaults = ProviderReply()
    unset = [
        f.name
        for f in dataclasses.fields(ProviderReply)
        if getattr(reply, f.name) == getattr(defaults, f.name)
    ]
    # A field added to ProviderReply must be set here too, so that its round trip is tested.
    assert unset == []
    return reply


def test_every_field_of_a_reply_round_trips_through_the_cassette_schema() -> None:
    """The cassette reads back exactly what it wrote, types included (1 stays 1, 2.0 stays 2.0)."""
    reply = _every_field_set()
    back = decode_reply(json.loads(json.dumps(encode_reply(reply))))
    assert back == reply
    assert type(back.parsed["days"]) is float  # type: ignore[index]
    assert type(back.parsed["count"]) is int  # type: ignore[index]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"latency_ns": "5"}, "reply.latency_ns"),
        ({"usage": {"cost": 0.5}}, "reply.usage.cost"),
        ({"usage": {"requests": True}}, "reply.usage.requests"),
        ({"tool_calls": [{"name": "f"}]}, "missing field 'arguments_raw'"),
        ({"surprise": 1}, "unknown field 'surprise'"),
        ({"parsed": {"x": [1, {"y": {1, 2}}]}}, "reply.parsed.x[1].y"),
    ],
    ids=["str-for-int", "float-cost", "bool-for-int", "missing-field", "unknown-field", "a-set"],
)
def test_a_reply_off_the_schema_is_a_cassette_error_naming_the_path(
    change: dict[str, object], message: str
) -> None:
    data = encode_reply(ProviderReply(text="x"))
    assert isinstance(data, dict)
    data.update(change)  # type: ignore[arg-type]
    with pytest.raises(CassetteError, match=re.escape(message)):
        decode_reply(data)


def test_a_parse_holding_nan_is_recorded_and_replayed_for_the_audit(tmp_path: Path) -> None:
    """The adapter's permissive parse of NaN is kept in the cassette; the kernel refuses it."""
    reply = ProviderReply(text='{"n": NaN}', parsed={"n": float("nan")})
    back = decode_reply(json.loads(json.dumps(encode_reply(reply))))
    assert back.text == '{"n": NaN}'
    assert isinstance(back.parsed, dict)


def test_a_cassette_nested_100000_deep_is_a_cassette_error(tmp_path: Path) -> None:
    path = tmp_path / "deep.jsonl"
    path.write_text('{"version": 1, "reply": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
    with pytest.raises(CassetteError, match=r"deep\.jsonl:1"):
        ReplayProvider(path)
