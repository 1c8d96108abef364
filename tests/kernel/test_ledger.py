"""The decision ledger: a dispatch per path, each field checked, its JSON against the docs."""

# Resolvers here are one-line lambdas over an untyped event: their types say nothing.
# pyright: reportUnknownLambdaType=false, reportUnknownVariableType=false
# pyright: reportUnknownArgumentType=false

from __future__ import annotations

import asyncio
import json
from decimal import Decimal
from typing import Any

import jsonschema_rs
import pytest

from agent_lab import (
    Event,
    EventDefinition,
    EventKernel,
    EventRegistry,
    FallbackReply,
    ProviderError,
    Resolution,
    Status,
    Usage,
)
from agent_lab.agents.choice import ToolChooser
from agent_lab.agents.event_agent import EventAgent
from agent_lab.agents.fallback import LLMFallback
from agent_lab.agents.plugins import PluginSet, Route
from agent_lab.agents.tool_agent import ToolAgent
from agent_lab.kernel.ledger import DecisionLedger, LLMReason, RouteKind
from agent_lab.providers import ProviderReply, ToolCall
from agent_lab.testing import FakeClock, ScriptedProvider
from tests.conftest import REPO_ROOT, RecordingFallback

SCHEMA_FILE = REPO_ROOT / "docs" / "ledger.schema.json"
LEDGER_SCHEMA = jsonschema_rs.validator_for(json.loads(SCHEMA_FILE.read_text()))

TIMER: dict[str, Any] = {
    "type": "object",
    "properties": {
        "duration_seconds": {"type": "integer", "minimum": 1},
        "label": {"type": "string"},
    },
    "required": ["duration_seconds"],
    "additionalProperties": False,
}


def kernel(resolver: Any, fallback: Any = None, **options: Any) -> EventKernel:
    registry = EventRegistry()
    registry.register(EventDefinition("set_timer", parameters=TIMER, resolver=resolver))
    return EventKernel(registry, fallback, clock=FakeClock(tick_ns=10), **options)


def ledger_of(result: Any) -> DecisionLedger:
    ledger: DecisionLedger = result.ledger
    data = ledger.as_json()
    errors = [error.message for error in LEDGER_SCHEMA.iter_errors(data)]
    assert errors == [], errors
    # JSON data through and through: it survives a round trip unchanged.
    assert json.loads(json.dumps(data)) == data
    return ledger


def test_the_deterministic_path_records_the_resolver_and_no_llm() -> None:
    result = kernel(lambda e: {"duration_seconds": 600, "label": "tea"}).dispatch(
        Event("set_timer", text="10 minutes for tea")
    )
    ledger = ledger_of(result)
    assert ledger.route.by is RouteKind.GIVEN
    assert ledger.resolver is not None
    assert ledger.resolver.set == ("/duration_seconds", "/label")
    assert (ledger.resolver.declared_missing, ledger.resolver.complete) == ((), None)
    assert ledger.missing == ()
    assert ledger.fallback.called is False
    assert ledger.fallback.reason is None
    assert ledger.attempts == ()
    assert ledger.audit is None
    assert ledger.llm_reason is None
    assert ledger.as_json()["llm_reason"] is None
    assert ledger.timings == result.timings


def test_missing_required_calls_the_fallback_and_says_so() -> None:
    fallback = RecordingFallback(
        FallbackReply(
            '{"duration_seconds": 300}',
            arguments={"duration_seconds": 300},
            usage=Usage(prompt_tokens=40, completion_tokens=6, cost=Decimal("0.0001")),
        )
    )
    result = kernel(lambda e: {"label": "eggs"}, fallback).dispatch(Event("set_timer"))
    assert result.status is Status.SUCCESS
    ledger = ledger_of(result)
    assert ledger.missing == ("/duration_seconds",)
    assert ledger.fallback.called is True
    assert ledger.fallback.reason is LLMReason.MISSING_REQUIRED
    data: Any = ledger.as_json()
    assert data["fallback"]["reason"] == "missing_required"
    assert ledger.as_json()["llm_reason"] == "missing_required"
    assert (ledger.fallback.asked, ledger.fallback.required) == (
        ("/duration_seconds",),
        ("/duration_seconds",),
    )
    [attempt] = ledger.attempts
    assert (attempt.number, attempt.outcome, attempt.reason) == (1, "reply", "completed")
    assert attempt.usage.prompt_tokens == 40
    assert attempt.usage.succeeded == 1
    assert attempt.duration_ns > 0
    assert attempt.started_ns > 0
    assert data["attempts"][0]["usage"]["cost"] == "0.0001"
    assert ledger.audit is not None
    assert ledger.audit.raw_matches_parsed is True
    assert ledger.audit.filled == ("/duration_seconds",)


def test_an_incomplete_resolution_asks_for_every_absent_property() -> None:
    fallback = RecordingFallback(FallbackReply('{"label": "pasta"}'))
    resolver = lambda e: Resolution({"duration_seconds": 60}, complete=False)  # noqa: E731
    result = kernel(resolver, fallback).dispatch(Event("set_timer"))
    assert result.status is Status.SUCCESS
    ledger = ledger_of(result)
    assert ledger.resolver is not None
    assert ledger.resolver.complete is False
    assert ledger.fallback.reason is LLMReason.RESOLVER_INCOMPLETE
    assert ledger.fallback.asked == ("/label",)
    assert ledger.fallback.required == ()
    assert ledger.audit is not None
    # No adapter form came with the reply: nothing to compare the raw text with.
    assert ledger.audit.raw_matches_parsed is None
    assert ledger.audit.filled == ("/label",)


def test_a_declared_missing_name_is_its_own_reason() -> None:
    fallback = RecordingFallback(FallbackReply('{"label": "tea"}'))
    resolver = lambda e: Resolution({"duration_seconds": 60}, missing=["label"])  # noqa: E731
    ledger = ledger_of(kernel(resolver, fallback).dispatch(Event("set_timer")))
    assert ledger.resolver is not None
    assert ledger.resolver.declared_missing == ("/label",)
    assert ledger.fallback.reason is LLMReason.DECLARED_MISSING
    assert ledger.missing == ("/label",)


def test_invalid_arguments_are_located_and_never_sent_to_the_llm() -> None:
    fallback = RecordingFallback()
    result = kernel(lambda e: {"duration_seconds": -5}, fallback).dispatch(Event("set_timer"))
    assert result.status is Status.INVALID_ARGUMENTS
    ledger = ledger_of(result)
    assert ledger.invalid == ("/duration_seconds",)
    assert ledger.fallback.called is False
    assert ledger.attempts == ()
    assert fallback.calls == 0


def test_a_retry_then_a_reply_keeps_both_attempts_and_splits_their_usage() -> None:
    fallback = RecordingFallback(
        TimeoutError("slow"),
        FallbackReply(
            '{"duration_seconds": 60}', usage=Usage(prompt_tokens=9, completion_tokens=3)
        ),
    )
    result = kernel(lambda e: {}, fallback).dispatch(Event("set_timer"))
    assert result.status is Status.SUCCESS
    ledger = ledger_of(result)
    first, second = ledger.attempts
    assert (first.number, first.outcome, first.reason) == (1, "retryable_error", "timeout")
    assert (first.usage.requests, first.usage.succeeded) == (1, 0)
    assert first.usage.prompt_tokens is None  # a timeout's tokens are unknown, never zero
    assert (second.number, second.outcome) == (2, "reply")
    assert second.started_ns >= first.started_ns + first.duration_ns
    assert ledger.llm_requests == 2
    # The result's usage counts both requests, one of them failed.
    assert (result.usage.requests, result.usage.succeeded, result.usage.failed) == (2, 1, 1)


def test_a_failed_fallback_records_every_attempt_and_the_provider_reason() -> None:
    fallback = RecordingFallback(
        ProviderError("rate_limited", "busy", retryable=True, attempts=2),
        ProviderError("rate_limited", "still busy", retryable=False),
    )
    result = kernel(lambda e: {}, fallback).dispatch(Event("set_timer"))
    assert (result.status, result.reason) == (Status.FALLBACK_FAILED, "rate_limited")
    ledger = ledger_of(result)
    assert [(a.outcome, a.reason, a.usage.requests) for a in ledger.attempts] == [
        ("retryable_error", "rate_limited", 2),
        ("error", "rate_limited", 1),
    ]
    assert ledger.audit is None
    assert (result.usage.requests, result.usage.succeeded) == (3, 0)


def test_a_reply_that_contradicts_its_parse_is_audited_as_a_mismatch() -> None:
    fallback = RecordingFallback(
        FallbackReply('{"duration_seconds": 60}', arguments={"duration_seconds": True})
    )
    result = kernel(lambda e: {}, fallback).dispatch(Event("set_timer"))
    assert result.reason == "fallback_mismatch"
    ledger = ledger_of(result)
    assert ledger.audit is not None
    assert ledger.audit.raw_matches_parsed is False


def test_conflicts_and_unrequested_values_are_named() -> None:
    fallback = RecordingFallback(
        FallbackReply('{"duration_seconds": 60, "label": "other", "extra": 1}')
    )
    resolver = lambda e: Resolution({"label": "tea"}, complete=True)  # noqa: E731
    registry = EventRegistry()
    loose = {**TIMER, "additionalProperties": True}
    registry.register(EventDefinition("set_timer", parameters=loose, resolver=resolver))
    result = EventKernel(registry, fallback).dispatch(Event("set_timer"))
    ledger = ledger_of(result)
    assert ledger.audit is not None
    assert ledger.audit.conflicts == ("/label",)
    assert ledger.audit.unrequested == ("/extra",)
    assert ledger.audit.filled == ("/duration_seconds",)


@pytest.mark.parametrize(
    ("kernel_options", "skipped"),
    [({}, "no_fallback"), ({"allow_fallback": False}, "fallback_disabled")],
)
def test_a_needed_but_absent_fallback_is_named(
    kernel_options: dict[str, Any], skipped: str
) -> None:
    fallback = None if not kernel_options else RecordingFallback()
    result = kernel(lambda e: {}, fallback, **kernel_options).dispatch(Event("set_timer"))
    ledger = ledger_of(result)
    assert ledger.fallback.called is False
    assert ledger.fallback.reason is LLMReason.MISSING_REQUIRED
    assert ledger.fallback.skipped == skipped
    assert ledger.llm_reason is None


def test_a_lookup_failure_has_no_resolver_output() -> None:
    ledger = ledger_of(kernel(lambda e: {}).dispatch(Event("nope")))
    assert (ledger.status, ledger.resolver) == ("unknown_event", None)


def _tied_plugins() -> PluginSet:
    definitions = (
        EventDefinition("set_timer", parameters=TIMER, resolver=lambda e: {}),
        EventDefinition(
            "set_alarm",
            parameters={"type": "object", "properties": {}},
            resolver=lambda e: {},
        ),
    )
    routes = (
        Route("set_timer", keywords=("wake",)),
        Route("set_alarm", keywords=("wake",)),
        Route("set_timer", patterns=(r"\btimer\b",)),
        Route("set_alarm", keywords=("alarm",)),
    )
    return PluginSet("tied", definitions, routes)


def test_a_routing_tie_is_the_reason_the_model_chose() -> None:
    raw = '{"duration_seconds": 420}'
    provider = ScriptedProvider(
        [ProviderReply(tool_calls=(ToolCall(name="set_timer", arguments_raw=raw, arguments=None),))]
    )
    plugins = _tied_plugins()
    agent = EventAgent(
        plugins, fallback=LLMFallback(provider), chooser=ToolChooser(provider, plugins.definitions)
    )
    reply = asyncio.run(agent.respond("wake me"))
    assert reply.status is Status.SUCCESS
    ledger = ledger_of(reply)
    assert ledger.route.by is RouteKind.LLM_CHOICE
    assert ledger.route.tied == ("set_alarm", "set_timer")
    assert ledger.route.llm_reason is LLMReason.ROUTING_TIE
    assert ledger.llm_reason is LLMReason.ROUTING_TIE
    assert ledger.as_json()["llm_reason"] == "routing_tie"
    # The choice's arguments were the fallback's reply: it was called, to fill the gap.
    assert ledger.fallback.reason is LLMReason.MISSING_REQUIRED


@pytest.mark.parametrize(("text", "by"), [("a timer please", "pattern"), ("alarm", "keyword")])
def test_plain_code_routes_say_whether_a_pattern_or_keywords_chose(text: str, by: str) -> None:
    reply = asyncio.run(EventAgent(_tied_plugins()).respond(text))
    ledger = ledger_of(reply)
    assert ledger.route.by == by
    assert ledger.route.llm_reason is None


def test_a_message_that_reaches_no_event_still_has_a_ledger() -> None:
    provider = ScriptedProvider([ProviderReply(text="I cannot help with that.")])
    plugins = _tied_plugins()
    agent = EventAgent(plugins, chooser=ToolChooser(provider, plugins.definitions))
    reply = asyncio.run(agent.respond("tell me a joke"))
    assert reply.result is None
    ledger = ledger_of(reply)
    assert (ledger.route.by, ledger.route.llm_reason) == ("none", "no_route")
    assert ledger.llm_reason is LLMReason.NO_ROUTE


def test_llm_always_says_the_model_resolves_every_message() -> None:
    raw = '{"duration_seconds": 60}'
    provider = ScriptedProvider(
        [ProviderReply(tool_calls=(ToolCall(name="set_timer", arguments_raw=raw),))]
    )
    reply = asyncio.run(ToolAgent(_tied_plugins(), provider).respond("a timer for a minute"))
    ledger = ledger_of(reply)
    assert ledger.route.by is RouteKind.LLM_CHOICE
    assert ledger.llm_reason is LLMReason.MODEL_RESOLVES


def test_the_ledger_is_built_once_and_only_when_read() -> None:
    result = kernel(lambda e: {"duration_seconds": 1}).dispatch(Event("set_timer"))
    assert "ledger" not in result.__dict__
    assert result.ledger is result.ledger
