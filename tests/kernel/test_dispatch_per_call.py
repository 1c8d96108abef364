"""The fallback per dispatch, a model's call as its reply, and a failure as a value (K16-K18)."""

from __future__ import annotations

import asyncio
from typing import Any

from agent_lab import (
    Event,
    EventDefinition,
    EventKernel,
    EventRegistry,
    Failure,
    FallbackReply,
    Status,
    Usage,
)
from tests.conftest import RecordingFallback

TIMER: dict[str, Any] = {
    "type": "object",
    "properties": {"seconds": {"type": "integer", "minimum": 1}, "label": {"type": "string"}},
    "required": ["seconds"],
}


def kernel(fallback: Any = None) -> EventKernel:
    registry = EventRegistry()
    registry.register(
        EventDefinition("timer", parameters=TIMER, resolver=lambda event: {"label": "tea"})
    )
    return EventKernel(registry, fallback)


def test_a_dispatch_takes_its_own_fallback_in_place_of_the_kernels() -> None:
    own = RecordingFallback()
    given = RecordingFallback(FallbackReply('{"seconds": 60}'))
    result = kernel(own).dispatch(Event("timer"), fallback=given)
    assert result.arguments == {"label": "tea", "seconds": 60}
    assert (own.calls, given.calls) == (0, 1)


def test_none_for_one_dispatch_means_no_fallback_for_it() -> None:
    own = RecordingFallback()
    result = kernel(own).dispatch(Event("timer"), fallback=None)
    assert (result.status, result.reason, own.calls) == (
        Status.MISSING_INFORMATION,
        "no_fallback",
        0,
    )


def test_without_the_argument_the_kernels_own_fallback_serves() -> None:
    own = RecordingFallback(FallbackReply('{"seconds": 5}'))
    assert asyncio.run(kernel(own).adispatch(Event("timer"))).ok
    assert own.calls == 1


def test_a_failed_reply_is_a_failure_with_its_reason_never_a_raise() -> None:
    """FallbackReply.failed: the kernel reads it as it reads a raised ProviderError."""
    failure = Failure(reason="rate_limited", message="slow down", retryable=False)
    used = Usage(requests=3, succeeded=0)
    fallback = RecordingFallback(FallbackReply.failed(failure, usage=used, note="noted"))
    result = kernel(fallback).dispatch(Event("timer"))
    assert (result.status, result.reason, result.message) == (
        Status.FALLBACK_FAILED,
        "rate_limited",
        "slow down",
    )
    assert result.llm_calls == 3
    assert result.usage.failed == 3
    assert result.fallback_note == "noted"
    [attempt] = result.ledger.attempts
    assert (attempt.outcome, attempt.reason) == ("error", "rate_limited")


def test_a_retryable_failed_reply_is_tried_again_within_the_bound() -> None:
    retry = FallbackReply.failed(Failure(reason="timeout", message="t", retryable=True))
    fallback = RecordingFallback(retry, FallbackReply('{"seconds": 9}'))
    result = kernel(fallback).dispatch(Event("timer"))
    assert result.ok
    assert (fallback.calls, result.llm_calls) == (2, 2)


def test_what_the_fallback_hands_back_is_kept_on_the_result() -> None:
    fallback = RecordingFallback(FallbackReply('{"seconds": 9}', note={"path": "projected"}))
    assert kernel(fallback).dispatch(Event("timer")).fallback_note == {"path": "projected"}
    assert kernel(RecordingFallback()).dispatch(Event("timer"), fallback=None).fallback_note is None


def test_a_models_call_is_dispatched_as_its_reply_with_no_resolver() -> None:
    """dispatch_reply: the reply stands for every property; the resolver's label is not added."""
    reply = FallbackReply('{"seconds": 30}', arguments={"seconds": 30}, usage=Usage())
    result = kernel().dispatch_reply(Event("timer"), reply)
    assert result.ok
    assert result.arguments == {"seconds": 30}
    assert result.llm_calls == 1


def test_a_replys_request_is_counted_as_its_usage_says_even_none() -> None:
    """The second call of one reply cost no request of its own."""
    reply = FallbackReply('{"seconds": 30}', usage=Usage.zero())
    assert kernel().dispatch_reply(Event("timer"), reply).llm_calls == 0


def test_a_models_call_still_meets_the_audit_and_the_schema() -> None:
    """K17, K18: strict parse, raw against parsed; the schema; no retry."""
    mismatched = FallbackReply('{"seconds": 1.0}', arguments={"seconds": 1})
    assert kernel().dispatch_reply(Event("timer"), mismatched).reason == "fallback_mismatch"
    invalid = FallbackReply('{"seconds": 0}')
    result = asyncio.run(kernel().adispatch_reply(Event("timer"), invalid))
    assert result.status is Status.INVALID_ARGUMENTS
