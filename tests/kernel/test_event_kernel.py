"""The dispatch pipeline, clause by clause (K10-K22), and the seed plan's regression cases."""

from __future__ import annotations

import asyncio
import contextvars
import enum
import gc
import math
import threading
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import pytest

from agent_lab import (
    DefinitionError,
    Event,
    EventDefinition,
    EventKernel,
    EventRegistry,
    EventResult,
    FallbackReply,
    FallbackRequest,
    ProviderError,
    Reason,
    Resolution,
    Status,
    Usage,
)
from agent_lab.testing import FakeClock
from tests.conftest import RecordingFallback

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from agent_lab.kernel.models import Fallback, Handler, Resolver
    from agent_lab.strict_json import JSONValue

TIMER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "duration_seconds": {"type": "integer", "minimum": 1},
        "label": {"type": "string"},
        "unit": {"enum": ["s", "min"]},
    },
    "required": ["duration_seconds"],
    "additionalProperties": False,
}


def make_kernel(
    resolver: Resolver | None = None,
    *,
    schema: Mapping[str, Any] | None = None,
    fallback: Fallback | None = None,
    handler: Handler | None = None,
    **kernel_options: Any,
) -> EventKernel:
    registry = EventRegistry()
    registry.register(
        EventDefinition(
            "set_timer",
            parameters=schema if schema is not None else TIMER_SCHEMA,
            resolver=resolver,
            handler=handler,
        )
    )
    return EventKernel(registry, fallback, **kernel_options)


def reply(raw: str, arguments: Mapping[str, object] | None = None, **usage: Any) -> FallbackReply:
    return FallbackReply(raw, arguments=arguments, usage=Usage(**usage) if usage else None)


def dispatch(kernel: EventKernel, text: str = "") -> EventResult:
    return kernel.dispatch(Event("set_timer", text=text))


# K10 ------------------------------------------------------------------------


def test_unknown_event_gives_unknown_event_and_no_llm_call() -> None:
    """K10: an unknown name is UNKNOWN_EVENT and never reaches the fallback."""
    fallback = RecordingFallback()
    kernel = make_kernel(fallback=fallback)
    result = kernel.dispatch(Event("no_such_event"))
    assert result.status is Status.UNKNOWN_EVENT
    assert result.reason == Reason.UNKNOWN_EVENT
    assert result.llm_calls == 0
    assert fallback.calls == 0


@pytest.mark.parametrize("name", [None, 3, ["set_timer"], ""], ids=["none", "int", "list", "empty"])
def test_event_name_that_is_not_a_string_is_an_unknown_event(name: Any) -> None:
    """K10: a malformed name is a result, not a crash."""
    assert make_kernel().dispatch(Event(name)).status is Status.UNKNOWN_EVENT


# K11 ------------------------------------------------------------------------


def test_plain_mapping_resolver_is_supported() -> None:
    """K11: the legacy plain-mapping form still works."""
    result = dispatch(make_kernel(lambda event: {"duration_seconds": 600}))
    assert result.status is Status.SUCCESS
    assert result.arguments == {"duration_seconds": 600}
    assert result.resolved == {"duration_seconds": 600}


def test_missing_resolver_means_empty_arguments() -> None:
    """K11: no resolver resolves nothing, so required fields are missing."""
    result = dispatch(make_kernel(None))
    assert result.status is Status.MISSING_INFORMATION
    assert result.resolved == {}
    assert result.missing == ("/duration_seconds",)


def test_raising_resolver_is_a_definition_error_without_llm_call() -> None:
    """K11: a resolver crash is the plugin's fault."""

    def broken(event: Event) -> dict[str, JSONValue]:
        raise ZeroDivisionError("boom")

    fallback = RecordingFallback()
    result = dispatch(make_kernel(broken, fallback=fallback))
    assert result.status is Status.DEFINITION_ERROR
    assert result.reason == Reason.RESOLVER_ERROR
    assert "ZeroDivisionError" in result.message
    assert fallback.calls == 0


class Color(enum.Enum):
    RED = "red"


class StrColor(enum.StrEnum):
    RED = "red"


@pytest.mark.parametrize(
    "output",
    [
        {"duration_seconds": math.nan},
        {"duration_seconds": math.inf},
        {"duration_seconds": -math.inf},
        {"duration_seconds": (1, 2)},
        {"duration_seconds": {1, 2}},
        {"duration_seconds": b"600"},
        {1: 600},
        {"duration_seconds": object()},
        {"label": Color.RED},
        {"label": StrColor.RED},
        {"nested": {"deep": [1, {"x": math.nan}]}},
        {"label": "\ud800"},
        [("duration_seconds", 600)],
        None,
        "duration_seconds=600",
        Resolution({"duration_seconds": math.nan}),
    ],
    ids=[
        "nan",
        "inf",
        "-inf",
        "tuple",
        "set",
        "bytes",
        "int-key",
        "object",
        "enum",
        "str-enum",
        "nested-nan",
        "lone-surrogate",
        "list-not-mapping",
        "none",
        "str",
        "resolution-with-nan",
    ],
)
def test_resolver_output_that_is_not_json_data_is_a_definition_error(output: Any) -> None:
    """K11: NaN, infinities, tuples, sets, bytes, non-string keys and objects are not JSON."""
    fallback = RecordingFallback()
    result = dispatch(make_kernel(lambda event: output, fallback=fallback))
    assert result.status is Status.DEFINITION_ERROR
    assert result.reason == Reason.RESOLVER_OUTPUT_NOT_JSON
    assert fallback.calls == 0


def test_resolution_with_bad_missing_field_is_a_definition_error() -> None:
    """K11: a Resolution the resolver cannot even build is a resolver crash."""
    result = dispatch(make_kernel(lambda event: Resolution({}, missing=[3])))  # type: ignore[list-item]
    assert result.status is Status.DEFINITION_ERROR
    assert result.reason == Reason.RESOLVER_ERROR


def test_async_resolver_handler_and_fallback_work_in_both_drivers() -> None:
    """Callables may be coroutine functions; dispatch runs them, adispatch awaits them."""

    async def resolver(event: Event) -> Resolution:
        await asyncio.sleep(0)
        return Resolution({"label": "tea"})

    async def fallback(request: FallbackRequest) -> FallbackReply:
        await asyncio.sleep(0)
        return FallbackReply('{"duration_seconds": 180}')

    async def handler(arguments: Mapping[str, JSONValue]) -> JSONValue:
        await asyncio.sleep(0)
        return {"started": arguments["duration_seconds"]}

    kernel = make_kernel(resolver, fallback=fallback, handler=handler)
    for result in (dispatch(kernel), asyncio.run(kernel.adispatch(Event("set_timer")))):
        assert result.status is Status.SUCCESS
        assert result.arguments == {"label": "tea", "duration_seconds": 180}
        assert result.output == {"started": 180}
        assert result.llm_calls == 1


def test_sync_dispatch_of_async_plugins_enters_one_event_loop() -> None:
    """dispatch() runs the rest of the pipeline in one loop from the first awaitable on.

    A loop per awaitable cost about 200 us each; every async plugin of a
    dispatch must see the same running loop, and a raising one still gives
    its status."""
    loops: list[int] = []

    async def resolver(event: Event) -> Resolution:
        loops.append(id(asyncio.get_running_loop()))
        return Resolution({"label": "tea"})

    async def fallback(request: FallbackRequest) -> FallbackReply:
        loops.append(id(asyncio.get_running_loop()))
        if request.attempt == 1:
            raise TimeoutError("slow")
        return FallbackReply('{"duration_seconds": 180}')

    async def handler(arguments: Mapping[str, JSONValue]) -> JSONValue:
        loops.append(id(asyncio.get_running_loop()))
        raise RuntimeError("device offline")

    result = dispatch(make_kernel(resolver, fallback=fallback, handler=handler))
    assert (result.status, result.llm_calls) == (Status.HANDLER_ERROR, 2)
    assert len(loops) == 4
    assert len(set(loops)) == 1


def test_sync_dispatch_keeps_one_loop_per_thread_and_closes_it_with_the_thread() -> None:
    """Dispatches in one thread share its kept loop; the loop closes when the thread ends."""
    seen: list[asyncio.AbstractEventLoop] = []

    async def resolver(event: Event) -> dict[str, JSONValue]:
        seen.append(asyncio.get_running_loop())
        return {"duration_seconds": 5}

    kernel = make_kernel(resolver)

    def twice() -> None:
        for _ in range(2):
            assert kernel.dispatch(Event("set_timer")).status is Status.SUCCESS

    worker = threading.Thread(target=twice)
    worker.start()
    worker.join()
    del worker
    gc.collect()
    assert len(seen) == 2
    assert seen[0] is seen[1]
    assert seen[0].is_closed()


def test_sync_dispatch_calls_sync_plugins_after_an_async_one() -> None:
    """A sync handler after an async resolver runs in the same dispatch, with its outcome kept."""

    async def resolver(event: Event) -> dict[str, JSONValue]:
        return {"duration_seconds": 5}

    result = dispatch(make_kernel(resolver, handler=lambda arguments: {"ok": True}))
    assert (result.status, result.output) == (Status.SUCCESS, {"ok": True})


def test_sync_dispatch_of_async_plugin_inside_a_running_loop() -> None:
    """dispatch() called from async code still completes an async resolver (helper thread)."""

    async def resolver(event: Event) -> dict[str, JSONValue]:
        await asyncio.sleep(0)
        return {"duration_seconds": 5}

    kernel = make_kernel(resolver)

    async def main() -> EventResult:
        return kernel.dispatch(Event("set_timer"))

    assert asyncio.run(main()).status is Status.SUCCESS


# K12 ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "resolved",
    [
        {"duration_seconds": "600"},
        {"duration_seconds": 600, "unit": "hours"},
        {"duration_seconds": 600, "colour": "red"},
        {"duration_seconds": 0},
        {"duration_seconds": 600.5},
        {"duration_seconds": True},
    ],
    ids=["wrong-type", "bad-enum", "additional-property", "below-minimum", "float", "bool"],
)
def test_regression_1_complete_invalid_arguments_never_call_the_fallback(
    resolved: dict[str, JSONValue],
) -> None:
    """Regression 1 (K12): wrong type, bad enum, extra property: INVALID_ARGUMENTS, 0 calls."""
    fallback = RecordingFallback()
    result = dispatch(make_kernel(lambda event: resolved, fallback=fallback))
    assert result.status is Status.INVALID_ARGUMENTS
    assert result.llm_calls == 0
    assert fallback.calls == 0
    assert result.errors
    assert result.arguments is None
    assert result.resolved == resolved


def test_invalid_and_missing_together_is_invalid_with_zero_calls() -> None:
    """K12: any invalid error wins over missing; the LLM cannot repair resolved values."""
    fallback = RecordingFallback()
    result = dispatch(make_kernel(lambda event: {"unit": "hours"}, fallback=fallback))
    assert result.status is Status.INVALID_ARGUMENTS
    assert fallback.calls == 0
    assert result.missing == ("/duration_seconds",)
    assert [(e.pointer, e.keyword, e.source) for e in result.errors] == [
        ("/unit", "enum", "resolver")
    ]


NESTED: dict[str, Any] = {
    "type": "object",
    "$defs": {"address": {"type": "object", "required": ["city"]}},
    "properties": {
        "address": {"$ref": "#/$defs/address"},
        "then": {"type": "object", "required": ["x"]},
        "items": {"type": "array", "items": {"type": "object", "required": ["id"]}},
        "kind": {},
    },
}


CLASSIFICATION: list[tuple[dict[str, Any], dict[str, Any], tuple[str, ...], tuple[str, ...]]] = [
    ({"required": ["a"]}, {}, ("/a",), ()),
    ({"allOf": [{"required": ["a"]}]}, {}, ("/a",), ()),
    ({"$defs": {"r": {"required": ["a"]}}, "$ref": "#/$defs/r"}, {}, ("/a",), ()),
    (NESTED, {"address": {}}, ("/address/city",), ()),
    (NESTED, {"then": {}}, ("/then/x",), ()),
    (NESTED, {"items": [{"id": 1}, {}]}, ("/items/1/id",), ()),
    ({"dependentRequired": {"a": ["b"]}}, {"a": 1}, ("/b",), ()),
    ({"dependentSchemas": {"a": {"required": ["b"]}}}, {"a": 1}, ("/b",), ()),
    ({"anyOf": [{"required": ["a"]}, {"required": ["b"]}]}, {}, (), ("anyOf",)),
    ({"oneOf": [{"required": ["a"]}, {"required": ["b"]}]}, {}, (), ("oneOf",)),
    ({"not": {"required": ["a"]}}, {"a": 1}, (), ("not",)),
    (
        {"if": {"required": ["k"]}, "then": {"required": ["a"]}, "else": {"required": ["b"]}},
        {"k": 1},
        (),
        ("required",),
    ),
    ({"if": {"required": ["k"]}, "else": {"required": ["b"]}}, {}, (), ("required",)),
    (
        {"properties": {"l": {"contains": {"required": ["a"]}}}},
        {"l": [{}]},
        (),
        ("contains",),
    ),
    ({"required": ["a~b/c"]}, {}, ("/a~0b~1c",), ()),
]


@pytest.mark.parametrize(
    ("schema", "resolved", "missing", "invalid"),
    CLASSIFICATION,
    ids=[
        "top-level",
        "allOf",
        "ref",
        "nested-object-through-ref",
        "property-named-then",
        "array-item",
        "dependentRequired",
        "dependentSchemas",
        "anyOf",
        "oneOf",
        "not",
        "then",
        "else",
        "contains",
        "pointer-escaping",
    ],
)
def test_required_failures_are_missing_only_when_unconditional(
    schema: dict[str, Any],
    resolved: dict[str, JSONValue],
    missing: tuple[str, ...],
    invalid: tuple[str, ...],
) -> None:
    """K12: required counts as missing at the top level, in present objects, via $ref/allOf."""
    result = dispatch(make_kernel(lambda event: resolved, schema=schema))
    assert result.missing == missing
    assert tuple(e.keyword for e in result.errors) == invalid
    expected = Status.INVALID_ARGUMENTS if invalid else Status.MISSING_INFORMATION
    assert result.status is expected


# K13 ------------------------------------------------------------------------


def test_complete_valid_arguments_make_no_llm_call() -> None:
    """K13: nothing missing, nothing invalid: the fallback is not called."""
    fallback = RecordingFallback()
    result = dispatch(make_kernel(lambda event: {"duration_seconds": 60}, fallback=fallback))
    assert result.status is Status.SUCCESS
    assert result.llm_calls == 0
    assert result.fallback_used is False
    assert fallback.calls == 0


def test_regression_2_missing_required_field_calls_the_fallback_exactly_once() -> None:
    """Regression 2 (K13): a missing required field: exactly one fallback call."""
    fallback = RecordingFallback(reply('{"duration_seconds": 300}'))
    result = dispatch(make_kernel(lambda event: {"label": "tea"}, fallback=fallback), "tea timer")
    assert result.status is Status.SUCCESS
    assert fallback.calls == 1
    assert result.llm_calls == 1
    assert result.fallback_used is True
    assert result.arguments == {"label": "tea", "duration_seconds": 300}
    request = fallback.requests[0]
    assert request.missing == ("/duration_seconds",)
    assert dict(request.resolved) == {"label": "tea"}
    assert request.event.text == "tea timer"
    assert request.definition.name == "set_timer"
    assert request.attempt == 1


def test_regression_6_plain_dict_works_and_complete_false_calls_fallback_once() -> None:
    """Regression 6 (K13): Resolution(complete=False) on a schema without required fields."""
    schema = {"type": "object", "properties": {"city": {"type": "string"}, "days": {}}}
    fallback = RecordingFallback(reply('{"city": "Oslo"}'))
    registry = EventRegistry()
    registry.register(
        EventDefinition(
            "weather",
            parameters=schema,
            resolver=lambda event: Resolution({"days": 2}, complete=False),
        )
    )
    registry.register(
        EventDefinition("weather_plain", parameters=schema, resolver=lambda e: {"days": 2})
    )
    kernel = EventKernel(registry, fallback)
    result = kernel.dispatch(Event("weather"))
    assert result.status is Status.SUCCESS
    assert result.llm_calls == 1
    assert fallback.calls == 1
    assert fallback.requests[0].missing == ("/city",)
    assert result.arguments == {"days": 2, "city": "Oslo"}
    plain = kernel.dispatch(Event("weather_plain"))
    assert plain.status is Status.SUCCESS
    assert plain.llm_calls == 0
    assert fallback.calls == 1


def test_complete_false_with_a_required_gap_asks_for_everything_absent_demands_only_it() -> None:
    """K13: optional properties the resolver suspects are asked for, and may stay absent."""
    schema = {
        "type": "object",
        "properties": {"city": {"type": "string"}, "days": {}, "units": {"type": "string"}},
        "required": ["city"],
    }
    fallback = RecordingFallback(reply('{"city": "Oslo"}'))
    registry = EventRegistry()
    registry.register(
        EventDefinition(
            "weather",
            parameters=schema,
            resolver=lambda event: Resolution({"days": 2}, complete=False, missing=["city"]),
        )
    )
    result = EventKernel(registry, fallback).dispatch(Event("weather"))
    assert result.status is Status.SUCCESS
    request = fallback.requests[0]
    assert request.missing == ("/city", "/units")
    assert request.must_fill == ("/city",)
    assert result.arguments == {"days": 2, "city": "Oslo"}


def test_resolution_missing_names_trigger_the_fallback() -> None:
    """K13: Resolution.missing non-empty with complete=None means incomplete."""
    schema = {"type": "object", "properties": {"city": {"type": "string"}}}
    fallback = RecordingFallback(reply('{"city": "Oslo"}'))
    kernel = make_kernel(
        lambda event: Resolution({}, missing=["city"]), schema=schema, fallback=fallback
    )
    result = dispatch(kernel)
    assert result.status is Status.SUCCESS
    assert fallback.requests[0].missing == ("/city",)


def test_declared_missing_still_absent_after_fallback_is_missing_information() -> None:
    """K13/K19: a field the resolver declared missing must be filled, or the result says so."""
    schema = {"type": "object", "properties": {"city": {"type": "string"}}}
    fallback = RecordingFallback(reply("{}"))
    kernel = make_kernel(
        lambda event: Resolution({}, missing=["/city"]), schema=schema, fallback=fallback
    )
    result = dispatch(kernel)
    assert result.status is Status.MISSING_INFORMATION
    assert result.reason == Reason.MISSING_AFTER_FALLBACK
    assert result.missing == ("/city",)
    assert result.llm_calls == 1


def test_complete_true_never_hides_a_missing_required_property() -> None:
    """K13: complete=True does not stop the schema from seeing what is missing."""
    fallback = RecordingFallback(reply('{"duration_seconds": 1}'))
    kernel = make_kernel(lambda event: Resolution({}, complete=True), fallback=fallback)
    result = dispatch(kernel)
    assert fallback.calls == 1
    assert result.status is Status.SUCCESS


# K14 ------------------------------------------------------------------------


def test_validator_failure_at_dispatch_is_a_definition_error() -> None:
    """K14: when the engine cannot decide (regex backtracking limit), it is not the user's fault."""
    schema = {
        "type": "object",
        "properties": {"text": {"type": "string", "pattern": "^(a|a)*\\1$"}},
        "required": ["text"],
    }
    fallback = RecordingFallback()
    kernel = make_kernel(lambda event: {"text": "a" * 40 + "b"}, schema=schema, fallback=fallback)
    result = dispatch(kernel)
    assert result.status is Status.DEFINITION_ERROR
    assert result.reason == Reason.VALIDATOR_ERROR
    assert fallback.calls == 0


# K15 ------------------------------------------------------------------------


def test_no_fallback_gives_missing_information_listing_pointers() -> None:
    """K15: no fallback configured: MISSING_INFORMATION with the missing pointers."""
    result = dispatch(make_kernel(lambda event: {"label": "x"}))
    assert result.status is Status.MISSING_INFORMATION
    assert result.reason == Reason.NO_FALLBACK
    assert result.missing == ("/duration_seconds",)
    assert result.llm_calls == 0


def test_policy_forbidding_fallback_never_calls_it() -> None:
    """K15: allow_fallback=False is the deterministic-only policy."""
    fallback = RecordingFallback()
    result = dispatch(make_kernel(lambda event: {}, fallback=fallback, allow_fallback=False))
    assert result.status is Status.MISSING_INFORMATION
    assert result.reason == Reason.FALLBACK_DISABLED
    assert fallback.calls == 0


# K16 ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "failure",
    [
        TimeoutError("slow"),
        ConnectionResetError("reset"),
        ProviderError("http_5xx", "503", retryable=True),
    ],
    ids=["timeout", "connection", "retryable-provider-error"],
)
def test_transient_failures_are_retried_and_every_request_counted(failure: Exception) -> None:
    """K16: a retryable failure is retried; llm_calls counts every request sent."""
    fallback = RecordingFallback(failure, reply('{"duration_seconds": 9}'))
    result = dispatch(make_kernel(lambda event: {}, fallback=fallback))
    assert result.status is Status.SUCCESS
    assert result.llm_calls == 2
    assert [r.attempt for r in fallback.requests] == [1, 2]


def test_retries_are_bounded_then_fallback_failed() -> None:
    """K16: after max_attempts retryable failures: FALLBACK_FAILED, each attempt counted."""
    fallback = RecordingFallback(*(TimeoutError("slow") for _ in range(5)))
    result = dispatch(make_kernel(lambda event: {}, fallback=fallback, max_attempts=3))
    assert result.status is Status.FALLBACK_FAILED
    assert result.reason == Reason.TIMEOUT
    assert result.llm_calls == 3
    assert fallback.calls == 3
    assert result.usage.prompt_tokens is None  # unknown, never zero
    assert result.usage.cost is None


@pytest.mark.parametrize(
    ("failure", "reason"),
    [
        (ValueError("bad request"), Reason.FALLBACK_ERROR),
        (ProviderError("http_4xx", "400 bad request"), "http_4xx"),
    ],
    ids=["other-exception", "non-retryable-provider-error"],
)
def test_non_retryable_failures_fail_at_once(failure: Exception, reason: str) -> None:
    """K16: anything not marked retryable fails on the first attempt."""
    fallback = RecordingFallback(failure)
    result = dispatch(make_kernel(lambda event: {}, fallback=fallback))
    assert result.status is Status.FALLBACK_FAILED
    assert result.reason == reason
    assert result.llm_calls == 1
    assert fallback.calls == 1


def test_provider_internal_retries_are_counted() -> None:
    """K16: requests a provider sent on its own (usage.requests, ProviderError.attempts) count."""
    fallback = RecordingFallback(
        ProviderError(
            "rate_limited",
            "429",
            retryable=True,
            attempts=2,
            usage=Usage(prompt_tokens=0, completion_tokens=0, cost=Decimal(0), requests=2),
        ),
        reply(
            '{"duration_seconds": 9}',
            prompt_tokens=50,
            completion_tokens=7,
            cost=Decimal("0.0001"),
            requests=3,
        ),
    )
    result = dispatch(make_kernel(lambda event: {}, fallback=fallback))
    assert result.status is Status.SUCCESS
    assert result.llm_calls == 5
    assert result.usage.prompt_tokens == 50
    assert result.usage.completion_tokens == 7
    assert result.usage.cost == Decimal("0.0001")


def test_bad_reply_object_is_fallback_failed() -> None:
    """K16/K17: a fallback returning something other than a FallbackReply is unusable."""
    fallback = RecordingFallback(lambda request: {"duration_seconds": 1})  # type: ignore[arg-type,return-value]
    result = dispatch(make_kernel(lambda event: {}, fallback=fallback))
    assert result.status is Status.FALLBACK_FAILED
    assert result.reason == Reason.FALLBACK_BAD_REPLY
    assert result.llm_calls == 1


# K17 ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw",
    [
        '{"duration_seconds": NaN}',
        '{"duration_seconds": Infinity}',
        '{"duration_seconds": -Infinity}',
        '{"duration_seconds": 1, "duration_seconds": 2}',
        '{"duration_seconds": 1, "label": "\\ud800"}',
        '{"duration_seconds": 1,}',
        '{"duration_seconds": 1} // done',
        "{'duration_seconds': 1}",
        '{"duration_seconds": 1e999}',
        '{"duration_seconds": 01}',
        "[1]",
        '"duration_seconds"',
        "",
        '```json\n{"duration_seconds": 1}\n```',
        "[" * 100_000,
        '{"a":' * 65 + "1" + "}" * 65,
        '{"label": "' + "x" * (1 << 20) + '"}',
    ],
    ids=[
        "nan",
        "infinity",
        "-infinity",
        "duplicate-key",
        "lone-surrogate",
        "trailing-comma",
        "comment",
        "single-quotes",
        "overflow",
        "leading-zero",
        "top-level-array",
        "top-level-string",
        "empty",
        "markdown-fence",
        "100000-brackets",
        "depth-65",
        "over-1-MiB",
    ],
)
def test_non_strict_or_unbounded_reply_is_fallback_failed(raw: str) -> None:
    """K17: the raw reply is parsed strictly and within bounds; anything else is rejected."""
    fallback = RecordingFallback(reply(raw))
    result = dispatch(make_kernel(lambda event: {}, fallback=fallback))
    assert result.status is Status.FALLBACK_FAILED
    assert result.reason in (Reason.FALLBACK_INVALID_JSON, Reason.FALLBACK_NOT_OBJECT)
    assert result.llm_calls == 1
    assert result.fallback_raw == raw


def test_100_mb_reply_is_rejected_cleanly() -> None:
    """K17: a hostile 100 MB string is a clean rejection by size, not a crash."""
    raw = '{"label": "' + "y" * 100_000_000 + '"}'
    result = dispatch(make_kernel(lambda event: {}, fallback=RecordingFallback(reply(raw))))
    assert result.status is Status.FALLBACK_FAILED
    assert "too_large" in result.message


def test_reply_bounds_are_configurable() -> None:
    """K17: the size and depth bounds are the kernel's options."""
    fallback = RecordingFallback(reply('{"duration_seconds": 1, "label": "0123456789"}'))
    kernel = make_kernel(lambda event: {}, fallback=fallback, max_reply_bytes=20)
    assert dispatch(kernel).status is Status.FALLBACK_FAILED


# K18 ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "parsed"),
    [
        ('{"duration_seconds": 1, "loud": true}', {"duration_seconds": 1, "loud": 1}),
        ('{"duration_seconds": 1}', {"duration_seconds": 1.0}),
        ('{"duration_seconds": 1.0}', {"duration_seconds": 1}),
        ('{"duration_seconds": 1, "n": {"x": [true]}}', {"duration_seconds": 1, "n": {"x": [1]}}),
        ('{"duration_seconds": 1, "n": {"x": [1]}}', {"duration_seconds": 1, "n": {"x": [1.0]}}),
        ('{"duration_seconds": 1}', {"duration_seconds": 1, "extra": None}),
        ('{"duration_seconds": 1, "l": [1, 2]}', {"duration_seconds": 1, "l": [2, 1]}),
        ('{"duration_seconds": 0}', {"duration_seconds": False}),
        ('{"duration_seconds": null}', {"duration_seconds": "null"}),
    ],
    ids=[
        "true-vs-1",
        "1-vs-1.0",
        "1.0-vs-1",
        "nested-true-vs-1",
        "nested-1-vs-1.0",
        "key-set",
        "list-order",
        "0-vs-false",
        "null-vs-string",
    ],
)
def test_regression_3_raw_and_parsed_must_match_type_sensitively(
    raw: str, parsed: dict[str, JSONValue]
) -> None:
    """Regression 3 (K18): raw true vs parsed 1, raw 1 vs parsed 1.0, nested: rejected."""
    fallback = RecordingFallback(reply(raw, parsed))
    result = dispatch(make_kernel(lambda event: {}, fallback=fallback))
    assert result.status is Status.FALLBACK_FAILED
    assert result.reason == Reason.FALLBACK_MISMATCH
    assert result.fallback_raw == raw
    assert result.fallback_arguments == parsed  # both forms kept for audit
    assert result.llm_calls == 1


@pytest.mark.parametrize(
    "parsed",
    [
        {"duration_seconds": math.nan},
        {"duration_seconds": math.inf},
        {"duration_seconds": (1,)},
        {1: 1},
        {"duration_seconds": Decimal(1)},
    ],
    ids=["nan", "infinity", "tuple", "int-key", "decimal"],
)
def test_regression_3_non_json_parsed_arguments_are_rejected(parsed: dict[Any, Any]) -> None:
    """Regression 3 (K18): NaN, tuples and non-string keys in the parsed form are rejected."""
    fallback = RecordingFallback(reply('{"duration_seconds": 1}', parsed))
    result = dispatch(make_kernel(lambda event: {}, fallback=fallback))
    assert result.status is Status.FALLBACK_FAILED
    assert result.reason == Reason.FALLBACK_ARGUMENTS_NOT_JSON


def test_matching_raw_and_parsed_forms_are_accepted_and_kept() -> None:
    """K18: identical forms pass the audit and both stay on the result."""
    raw = '{"duration_seconds": 5, "label": "x"}'
    fallback = RecordingFallback(reply(raw, {"label": "x", "duration_seconds": 5}))
    result = dispatch(make_kernel(lambda event: {}, fallback=fallback))
    assert result.status is Status.SUCCESS
    assert result.fallback_raw == raw
    assert result.fallback_arguments == {"label": "x", "duration_seconds": 5}


# K19 ------------------------------------------------------------------------


def test_resolved_values_win_and_conflicts_are_recorded() -> None:
    """K19: a fallback value contradicting a resolved one is dropped and recorded."""
    fallback = RecordingFallback(reply('{"duration_seconds": 60, "label": "coffee"}'))
    result = dispatch(make_kernel(lambda event: {"label": "tea"}, fallback=fallback))
    assert result.status is Status.SUCCESS
    assert result.arguments == {"label": "tea", "duration_seconds": 60}
    assert len(result.conflicts) == 1
    conflict = result.conflicts[0]
    assert (conflict.pointer, conflict.resolved, conflict.fallback) == ("/label", "tea", "coffee")


def test_values_the_fallback_was_not_asked_for_are_dropped_and_listed() -> None:
    """K19: the fallback fills what was missing; an unasked-for value is dropped, not merged."""
    fallback = RecordingFallback(reply('{"duration_seconds": 60, "loud": true}'))
    result = dispatch(make_kernel(lambda event: {"label": "tea"}, fallback=fallback))
    assert fallback.requests[0].missing == ("/duration_seconds",)
    assert result.status is Status.SUCCESS
    assert result.arguments == {"label": "tea", "duration_seconds": 60}
    assert [(u.pointer, u.value) for u in result.unrequested] == [("/loud", True)]
    assert result.conflicts == ()


def test_an_incomplete_resolution_asks_for_every_absent_property_so_none_is_unrequested() -> None:
    """K13/K19: Resolution(complete=False) asks for all absent properties; each may be filled."""
    fallback = RecordingFallback(reply('{"duration_seconds": 60, "unit": "s"}'))
    kernel = make_kernel(
        lambda event: Resolution({"label": "tea"}, complete=False), fallback=fallback
    )
    result = dispatch(kernel)
    assert result.arguments == {"label": "tea", "duration_seconds": 60, "unit": "s"}
    assert result.unrequested == ()


def test_merge_is_deep_for_objects() -> None:
    """K19: objects merge at every depth; resolved keys win at every depth."""
    schema = {
        "type": "object",
        "properties": {
            "when": {
                "type": "object",
                "properties": {"date": {"type": "string"}, "time": {"type": "string"}},
                "required": ["date", "time"],
            }
        },
        "required": ["when"],
    }
    fallback = RecordingFallback(
        reply('{"when": {"date": "2026-12-01", "time": "07:00", "tz": "UTC"}}')
    )
    kernel = make_kernel(
        lambda event: {"when": {"time": "08:00"}}, schema=schema, fallback=fallback
    )
    result = dispatch(kernel)
    assert result.status is Status.SUCCESS
    assert fallback.requests[0].missing == ("/when/date",)
    assert result.arguments == {"when": {"time": "08:00", "date": "2026-12-01"}}
    assert [c.pointer for c in result.conflicts] == ["/when/time"]
    assert [u.pointer for u in result.unrequested] == ["/when/tz"]


def test_invalid_fallback_value_is_invalid_arguments_with_call_counted() -> None:
    """K19: merged arguments invalid: INVALID_ARGUMENTS (source: fallback), call counted."""
    fallback = RecordingFallback(reply('{"duration_seconds": "ten"}'))
    result = dispatch(make_kernel(lambda event: {}, fallback=fallback))
    assert result.status is Status.INVALID_ARGUMENTS
    assert result.reason == Reason.INVALID_AFTER_FALLBACK
    assert result.llm_calls == 1
    assert [(e.pointer, e.source) for e in result.errors] == [("/duration_seconds", "fallback")]


def test_fallback_that_supplies_nothing_is_missing_information_with_call_counted() -> None:
    """K19: still missing after the merge: MISSING_INFORMATION, call counted."""
    fallback = RecordingFallback(reply('{"label": "x"}'))
    result = dispatch(make_kernel(lambda event: {}, fallback=fallback))
    assert result.status is Status.MISSING_INFORMATION
    assert result.reason == Reason.MISSING_AFTER_FALLBACK
    assert result.missing == ("/duration_seconds",)
    assert result.llm_calls == 1


# K20 ------------------------------------------------------------------------


def test_result_carries_exact_timings_usage_and_everything_else() -> None:
    """K20: timings per stage from the injected clock; usage summed; all fields set."""
    clock = FakeClock(start_ns=1_000)

    def resolver(event: Event) -> dict[str, JSONValue]:
        clock.advance(1_000)
        return {"label": "tea"}

    def fallback(request: FallbackRequest) -> FallbackReply:
        clock.advance(50_000)
        return FallbackReply(
            '{"duration_seconds": 120}',
            arguments={"duration_seconds": 120},
            usage=Usage(prompt_tokens=80, completion_tokens=9, cost=Decimal("0.002"), model="m"),
        )

    def handler(arguments: Mapping[str, JSONValue]) -> JSONValue:
        clock.advance(300)
        return {"timer_id": 7}

    kernel = make_kernel(resolver, fallback=fallback, handler=handler, clock=clock)
    result = dispatch(kernel)
    assert result.status is Status.SUCCESS
    assert result.reason == Reason.COMPLETED
    assert result.event == "set_timer"
    assert result.timings.resolve_ns == 1_000
    assert result.timings.fallback_ns == 50_000
    assert result.timings.handler_ns == 300
    assert result.timings.validate_ns == 0
    assert result.timings.total_ns == 51_300
    assert result.usage.prompt_tokens == 80
    assert result.usage.completion_tokens == 9
    assert result.usage.cost == Decimal("0.002")
    assert result.usage.model == "m"
    assert result.output == {"timer_id": 7}
    assert result.resolved == {"label": "tea"}
    assert result.fallback_raw == '{"duration_seconds": 120}'
    assert result.fallback_arguments == {"duration_seconds": 120}
    assert result.missing == ()
    assert result.errors == ()
    assert result.ok


def test_no_llm_call_means_zero_usage_known_to_be_zero() -> None:
    """K20: no request sent: tokens and cost are zero, not unknown."""
    result = dispatch(make_kernel(lambda event: {"duration_seconds": 1}))
    assert result.usage == Usage(prompt_tokens=0, completion_tokens=0, cost=Decimal(0), requests=0)


def test_reply_without_usage_leaves_tokens_unknown() -> None:
    """K20: a reply that does not report usage gives None, never zero."""
    result = dispatch(
        make_kernel(lambda event: {}, fallback=RecordingFallback(reply('{"duration_seconds": 1}')))
    )
    assert result.usage.prompt_tokens is None
    assert result.usage.cost is None
    assert result.llm_calls == 1


# K21 ------------------------------------------------------------------------


def test_handler_runs_once_only_on_complete_valid_arguments() -> None:
    """K21: the handler runs once on success and never on invalid or missing arguments."""
    calls: list[dict[str, JSONValue]] = []

    def handler(arguments: Mapping[str, JSONValue]) -> JSONValue:
        calls.append(dict(arguments))
        return None

    for resolved in ({"duration_seconds": "x"}, {}):
        dispatch(make_kernel(lambda event, r=resolved: r, handler=handler))
    assert calls == []
    dispatch(make_kernel(lambda event: {"duration_seconds": 3}, handler=handler))
    assert calls == [{"duration_seconds": 3}]


def test_handler_cannot_change_the_result() -> None:
    """K21: the handler gets a read-only copy; writing to it cannot alter the result."""
    schema = {"type": "object", "properties": {"tags": {"type": "array"}}}

    def handler(arguments: Mapping[str, JSONValue]) -> JSONValue:
        tags = arguments["tags"]
        assert isinstance(tags, list)
        tags.append("sneaky")
        return "done"

    result = dispatch(make_kernel(lambda event: {"tags": ["a"]}, schema=schema, handler=handler))
    assert result.status is Status.SUCCESS
    assert result.arguments == {"tags": ["a"]}

    def writer(arguments: Mapping[str, JSONValue]) -> JSONValue:
        arguments["tags"] = []  # type: ignore[index]
        return None

    result = dispatch(make_kernel(lambda event: {"tags": ["a"]}, schema=schema, handler=writer))
    assert result.status is Status.HANDLER_ERROR
    assert "TypeError" in result.message
    assert result.arguments == {"tags": ["a"]}


def test_raising_handler_is_handler_error() -> None:
    """K21: a raising handler gives HANDLER_ERROR, with the arguments it was given."""

    def handler(arguments: Mapping[str, JSONValue]) -> JSONValue:
        raise RuntimeError("device offline")

    result = dispatch(make_kernel(lambda event: {"duration_seconds": 3}, handler=handler))
    assert result.status is Status.HANDLER_ERROR
    assert result.reason == Reason.HANDLER_ERROR
    assert "device offline" in result.message
    assert result.arguments == {"duration_seconds": 3}


def test_handler_output_that_is_not_json_is_handler_error() -> None:
    """K21: the handler's output must be JSON data."""
    kernel = make_kernel(lambda event: {"duration_seconds": 3}, handler=lambda a: {"t": math.nan})
    result = dispatch(kernel)
    assert result.status is Status.HANDLER_ERROR
    assert result.reason == Reason.HANDLER_OUTPUT_NOT_JSON


# K22 ------------------------------------------------------------------------


def test_kernel_is_safe_to_share_across_threads() -> None:
    """K22: concurrent dispatches from many threads each get their own correct result."""
    registry = EventRegistry()
    registry.register(
        EventDefinition(
            "set_timer",
            parameters=TIMER_SCHEMA,
            resolver=lambda event: {"duration_seconds": int(event.text)} if event.text else {},
            handler=lambda arguments: arguments["duration_seconds"],
        )
    )

    def fallback(request: FallbackRequest) -> FallbackReply:
        return FallbackReply('{"duration_seconds": 1}')

    kernel = EventKernel(registry, fallback)

    def dispatch_text(text: str) -> EventResult:
        return kernel.dispatch(Event("set_timer", text=text))

    texts = [str(n) if n % 3 else "" for n in range(1, 2001)]
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(dispatch_text, texts))
    for text, result in zip(texts, results, strict=True):
        assert result.status is Status.SUCCESS
        assert result.output == (int(text) if text else 1)
        assert result.llm_calls == (0 if text else 1)


def test_kernel_is_safe_to_share_across_asyncio_tasks() -> None:
    """K22: concurrent adispatch calls interleave without sharing state."""

    async def resolver(event: Event) -> dict[str, JSONValue]:
        await asyncio.sleep(0.001 * (int(event.text) % 3))
        return {"duration_seconds": int(event.text)}

    kernel = make_kernel(resolver, handler=lambda a: a["duration_seconds"])

    async def main() -> list[EventResult]:
        return await asyncio.gather(
            *(kernel.adispatch(Event("set_timer", text=str(n))) for n in range(1, 201))
        )

    assert [r.output for r in asyncio.run(main())] == list(range(1, 201))


def test_registering_during_dispatch_leaves_dispatch_consistent() -> None:
    """K22: a dispatch sees a consistent snapshot while other threads register events."""
    registry = EventRegistry()
    registry.register(
        EventDefinition(
            "set_timer", parameters=TIMER_SCHEMA, resolver=lambda e: {"duration_seconds": 1}
        )
    )
    kernel = EventKernel(registry)
    stop = threading.Event()

    def register_many() -> None:
        for n in range(300):
            registry.register(EventDefinition(f"e{n}", parameters={"type": "object"}))
        stop.set()

    writer = threading.Thread(target=register_many)
    writer.start()
    statuses: list[Status] = []
    while not stop.is_set() or len(statuses) < 500:
        statuses.append(kernel.dispatch(Event("set_timer")).status)
    writer.join()
    assert set(statuses) == {Status.SUCCESS}
    assert len(registry) == 301


# Regression 4 and 5 live with the registry tests; this one checks the kernel side of 4.


def test_regression_4_failing_ref_in_lazy_registry_is_definition_error_never_invalid() -> None:
    """Regression 4 (K5, K14): an unresolvable $ref in a lazy registry: DEFINITION_ERROR."""
    registry = EventRegistry(check_on_register=False)
    registry.register(
        EventDefinition(
            "broken",
            parameters={"type": "object", "properties": {"a": {"$ref": "#/$defs/missing"}}},
            resolver=lambda event: {"a": 1},
        )
    )
    fallback = RecordingFallback()
    kernel = EventKernel(registry, fallback)
    for _ in range(2):
        result = kernel.dispatch(Event("broken"))
        assert result.status is Status.DEFINITION_ERROR
        assert result.reason == Reason.SCHEMA_ERROR
        assert "$ref" in result.message
    assert fallback.calls == 0
    with pytest.raises(DefinitionError):
        EventRegistry().register(registry.get("broken"))


# Paths the clauses above reach only through one driver ---------------------------------


def test_adispatch_turns_raising_async_plugins_into_statuses() -> None:
    """K11/K16/K21 through adispatch: async callables that raise give statuses, not exceptions."""

    async def broken_resolver(event: Event) -> dict[str, JSONValue]:
        await asyncio.sleep(0)
        raise KeyError("gone")

    async def timing_out(request: FallbackRequest) -> FallbackReply:
        await asyncio.sleep(0)
        raise TimeoutError("slow")

    async def broken_handler(arguments: Mapping[str, JSONValue]) -> JSONValue:
        await asyncio.sleep(0)
        raise RuntimeError("device offline")

    async def run(kernel: EventKernel) -> EventResult:
        return await kernel.adispatch(Event("set_timer"))

    assert asyncio.run(run(make_kernel(broken_resolver))).status is Status.DEFINITION_ERROR
    failed = asyncio.run(run(make_kernel(lambda e: {}, fallback=timing_out, max_attempts=2)))
    assert (failed.status, failed.llm_calls) == (Status.FALLBACK_FAILED, 2)
    handled = asyncio.run(
        run(make_kernel(lambda e: {"duration_seconds": 1}, handler=broken_handler))
    )
    assert handled.status is Status.HANDLER_ERROR


def test_validator_failure_after_the_merge_is_a_definition_error() -> None:
    """K14 after K19: the engine failing on the merged arguments is the plugin's fault."""
    schema = {
        "type": "object",
        "properties": {"text": {"type": "string", "pattern": "^(a|a)*\\1$"}},
        "required": ["text"],
    }
    fallback = RecordingFallback(reply('{"text": "' + "a" * 40 + 'b"}'))
    result = dispatch(make_kernel(lambda event: {}, schema=schema, fallback=fallback))
    assert result.status is Status.DEFINITION_ERROR
    assert result.reason == Reason.VALIDATOR_ERROR
    assert result.llm_calls == 1


def test_declared_missing_pointer_into_an_array() -> None:
    """K13: Resolution.missing may point into arrays; present items are not missing."""
    schema = {"type": "object", "properties": {"stops": {"type": "array"}}}
    kernel = make_kernel(
        lambda event: Resolution({"stops": ["Oslo"]}, missing=["/stops/0", "/stops/1"]),
        schema=schema,
    )
    assert dispatch(kernel).missing == ("/stops/1",)


MISUSES: list[tuple[Callable[[EventRegistry], object], type[Exception]]] = [
    (lambda registry: EventKernel(registry, max_attempts=0), ValueError),
    (lambda registry: EventKernel(registry, "not callable"), TypeError),  # type: ignore[arg-type]
    (lambda registry: EventKernel(registry).dispatch("set_timer"), TypeError),  # type: ignore[arg-type]
]


@pytest.mark.parametrize(
    ("build", "error"), MISUSES, ids=["max-attempts", "fallback-not-callable", "dispatch-a-string"]
)
def test_programmer_mistakes_raise(build: Any, error: type[Exception]) -> None:
    """Misusing the API (not user input) raises at once, with a clear message."""
    with pytest.raises(error):
        build(EventRegistry())


_CALLER = contextvars.ContextVar[str]("caller")


def test_a_sync_dispatch_inside_a_running_loop_keeps_the_callers_context() -> None:
    """The helper thread that runs the rest of the dispatch sees the caller's context
    (a tracing span, an agent's installed fallback), not an empty one."""

    async def resolver(event: Event) -> dict[str, Any]:
        return {"label": _CALLER.get()}

    kernel = make_kernel(
        resolver,
        schema={"type": "object", "properties": {"label": {"type": "string"}}},
    )

    async def inside_a_loop() -> EventResult:
        _CALLER.set("the caller")
        return kernel.dispatch(Event("set_timer"))

    result = asyncio.run(inside_a_loop())
    assert result.status is Status.SUCCESS, result.message
    assert result.arguments == {"label": "the caller"}


def test_offload_runs_sync_plugin_code_in_the_executors_threads_in_the_callers_context() -> None:
    """adispatch with offload: resolver and handler run off the event loop's thread."""
    import asyncio
    import contextvars
    import threading
    from concurrent.futures import ThreadPoolExecutor

    marker: contextvars.ContextVar[str] = contextvars.ContextVar("marker", default="unset")
    seen: dict[str, tuple[int, str]] = {}

    def resolve(event: Event) -> dict[str, object]:
        seen["resolver"] = (threading.get_ident(), marker.get())
        return {"n": 1}

    def handle(arguments: object) -> str:
        seen["handler"] = (threading.get_ident(), marker.get())
        return "done"

    registry = EventRegistry()
    registry.register(
        EventDefinition(
            "e",
            parameters={"type": "object", "properties": {"n": {"type": "integer"}}},
            resolver=resolve,
            handler=handle,
        )
    )

    async def dispatched() -> tuple[EventResult, int]:
        marker.set("caller")
        with ThreadPoolExecutor(max_workers=1) as pool:
            result = await EventKernel(registry, offload=pool).adispatch(Event("e"))
        return result, threading.get_ident()

    result, loop_thread = asyncio.run(dispatched())
    assert (result.status, result.output) == (Status.SUCCESS, "done")
    assert {thread != loop_thread for thread, _ in seen.values()} == {True}
    assert {value for _, value in seen.values()} == {"caller"}
