"""Nothing a resolver, a handler or an LLM reply contains makes dispatch raise."""

from __future__ import annotations

import asyncio
import math
from typing import TYPE_CHECKING, Any, cast

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_lab import (
    Event,
    EventDefinition,
    EventKernel,
    EventRegistry,
    EventResult,
    FallbackReply,
    FallbackRequest,
    Resolution,
    Status,
    Usage,
)
from agent_lab.errors import DefinitionError, ProviderError, StrictJSONError
from agent_lab.strict_json import canonical_dumps, ensure_json_data, same_json

if TYPE_CHECKING:
    from collections.abc import Mapping

SCHEMA = {
    "type": "object",
    "properties": {"n": {"type": "integer"}, "s": {"type": "string"}, "o": {"type": "object"}},
    "required": ["n", "s"],
}

anything = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()  # NaN and infinities included
    | st.text()
    | st.binary()
    | st.sampled_from([object(), math.nan, ("t",), frozenset({1}), Status.SUCCESS]),
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(st.text(max_size=3) | st.integers(), children, max_size=3)
        | st.tuples(children)
    ),
    max_leaves=8,
)
raw_texts = st.text(max_size=60) | st.sampled_from(
    ['{"n": 1, "s": "x"}', '{"n": NaN}', '{"n": 1, "n": 2}', "[", '{"n": 1e999, "s": ""}', "{}"]
)


def check(result: EventResult) -> None:
    assert isinstance(result, EventResult)
    assert isinstance(result.status, Status)
    assert isinstance(result.reason, str)
    assert result.llm_calls >= 0


@given(resolved=anything, raw=raw_texts, parsed=anything, output=anything)
@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
def test_dispatch_never_raises(resolved: Any, raw: str, parsed: Any, output: Any) -> None:
    """Hostile resolver output, fallback replies and handler output give results, not exceptions."""

    def fallback(request: FallbackRequest) -> FallbackReply:
        return FallbackReply(raw, arguments=parsed, usage=Usage(prompt_tokens=1))

    def handler(arguments: Mapping[str, Any]) -> Any:
        return output

    def plain(event: Event) -> Any:
        return resolved

    partial: dict[str, Any] = {}
    if isinstance(resolved, dict):
        partial = cast("dict[str, Any]", resolved)
    registry = EventRegistry()
    registry.register(EventDefinition("plain", parameters=SCHEMA, resolver=plain, handler=handler))
    registry.register(
        EventDefinition(
            "structured",
            parameters=SCHEMA,
            resolver=lambda e: Resolution(partial, complete=False),
            handler=handler,
        )
    )
    kernel = EventKernel(registry, fallback)
    for name in ("plain", "structured"):
        check(kernel.dispatch(Event(name)))
        check(asyncio.run(kernel.adispatch(Event(name))))


# Deep, cyclic and raising values (hardening, items 4 and 5) ------------------------------


def nested(depth: int, kind: str = "list") -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value] if kind == "list" else {"a": value}
    return value


def cyclic() -> Any:
    loop: dict[str, Any] = {"n": 1}
    loop["self"] = loop
    return loop


class RaisingMapping(dict[str, Any]):
    """A Mapping whose every method raises (a dict subclass, so it passes isinstance checks)."""

    def keys(self) -> Any:
        raise RuntimeError("keys() is broken")

    def __iter__(self) -> Any:
        raise RuntimeError("iteration is broken")

    def __len__(self) -> int:
        raise RuntimeError("len() is broken")

    def __getitem__(self, key: str) -> Any:
        raise RuntimeError("getitem is broken")

    def items(self) -> Any:
        raise RuntimeError("items() is broken")


class Unprintable(Exception):  # noqa: N818 - it is what it is
    def __str__(self) -> str:
        raise RuntimeError("no message for you")


hostile_values = st.sampled_from(
    [
        nested(1000),
        nested(2000, "object"),
        nested(65),
        cyclic(),
        RaisingMapping(n=1),
        {"n": 1, "s": "x", "o": RaisingMapping()},
        {"n": 10**5000, "s": "x"},
        [cyclic()],
    ]
)
hostile_usages = st.sampled_from(
    [
        Usage(requests="x"),  # type: ignore[arg-type]
        Usage(requests=-3),
        Usage(requests=True),
        Usage(prompt_tokens=10**30, completion_tokens=-1),
        Usage(prompt_tokens="12"),  # type: ignore[arg-type]
        Usage(cost=float("nan")),  # type: ignore[arg-type]
        Usage(model=3),  # type: ignore[arg-type]
        "not a usage",
        None,
    ]
)


@given(
    resolved=hostile_values | anything,
    parsed=hostile_values | anything,
    output=hostile_values | anything,
    usage=hostile_usages,
)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_dispatch_never_raises_on_deep_cyclic_raising_values_or_absurd_usage(
    resolved: Any, parsed: Any, output: Any, usage: Any
) -> None:
    """K11/K18/K21: each becomes a result with a status and a reason, never an exception."""

    def fallback(request: FallbackRequest) -> FallbackReply:
        return FallbackReply('{"n": 1, "s": "x"}', arguments=parsed, usage=usage)

    registry = EventRegistry()
    registry.register(
        EventDefinition(
            "e", parameters=SCHEMA, resolver=lambda e: resolved, handler=lambda a: output
        )
    )
    kernel = EventKernel(registry, fallback)
    result = kernel.dispatch(Event("e"))
    check(result)
    assert result.usage.requests >= 0
    assert result.usage.prompt_tokens is None or 0 <= result.usage.prompt_tokens < 2**63
    check(asyncio.run(kernel.adispatch(Event("e"))))


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        (nested(1000), "resolver_output_not_json"),
        (cyclic(), "resolver_output_not_json"),
        (RaisingMapping(n=1), "resolver_output_not_json"),
    ],
    ids=["1000-deep", "self-referencing", "raising-mapping"],
)
def test_a_deep_cyclic_or_raising_resolver_output_is_a_definition_error(
    value: Any, reason: str
) -> None:
    registry = EventRegistry()
    registry.register(EventDefinition("e", parameters=SCHEMA, resolver=lambda e: {"o": value}))
    result = EventKernel(registry).dispatch(Event("e"))
    assert (result.status, result.reason) == (Status.DEFINITION_ERROR, reason)


def test_a_deep_handler_output_is_a_handler_error() -> None:
    registry = EventRegistry()
    registry.register(
        EventDefinition(
            "e",
            parameters=SCHEMA,
            resolver=lambda e: {"n": 1, "s": "x"},
            handler=lambda a: nested(2000, "object"),
        )
    )
    result = EventKernel(registry).dispatch(Event("e"))
    assert (result.status, result.reason) == (Status.HANDLER_ERROR, "handler_output_not_json")


@pytest.mark.parametrize(
    "usage",
    [
        Usage(requests="x"),  # type: ignore[arg-type]
        Usage(prompt_tokens=10**30),
        Usage(prompt_tokens=-5, completion_tokens=True),
    ],
    ids=["requests-str", "huge", "negative-and-bool"],
)
def test_absurd_usage_figures_from_a_fallback_are_unknown_not_a_crash(usage: Usage) -> None:
    registry = EventRegistry()
    registry.register(EventDefinition("e", parameters=SCHEMA, resolver=lambda e: {"s": "x"}))
    kernel = EventKernel(registry, lambda r: FallbackReply('{"n": 1}', usage=usage))
    result = kernel.dispatch(Event("e"))
    assert result.status is Status.SUCCESS
    assert result.llm_calls >= 1
    for figure in (result.usage.prompt_tokens, result.usage.completion_tokens):
        assert figure is None or (type(figure) is int and 0 <= figure < 2**63)


def test_a_provider_error_with_absurd_fields_and_an_unprintable_exception_are_statuses() -> None:
    """The kernel reads plugin-built exceptions defensively: fields and __str__ included."""
    broken = ProviderError("rate_limited", "x", attempts=2, usage=Usage(requests="x"))  # type: ignore[arg-type]
    broken.reason = 42  # type: ignore[assignment]
    broken.attempts = "many"  # type: ignore[assignment]

    def raise_it(error: Exception) -> Any:
        def fallback(request: FallbackRequest) -> FallbackReply:
            raise error

        return fallback

    registry = EventRegistry()
    registry.register(EventDefinition("e", parameters=SCHEMA, resolver=lambda e: {"s": "x"}))
    for error in (broken, Unprintable()):
        result = EventKernel(registry, raise_it(error), max_attempts=1).dispatch(Event("e"))
        assert result.status is Status.FALLBACK_FAILED
        assert isinstance(result.reason, str)
        assert result.llm_calls >= 1
    resolver_error = EventKernel(registry).dispatch
    registry.register(EventDefinition("r", parameters=SCHEMA, resolver=raise_it(Unprintable())))
    assert resolver_error(Event("r")).status is Status.DEFINITION_ERROR


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"o": nested(300, "object")}},
        {"type": "object", "properties": {"a": {"const": 10**5000}}},
        {"type": "object", "properties": {"o": {"type": "object", "x-deep": nested(2000)}}},
        {"type": "object", "properties": RaisingMapping()},
    ],
    ids=["300-deep", "5000-digit-integer", "2000-deep-list", "raising-mapping"],
)
def test_an_absurd_schema_is_a_definition_error_eager_and_lazy(schema: dict[str, Any]) -> None:
    """K2/K5: DefinitionError at register, or DEFINITION_ERROR at dispatch; never a crash."""
    with pytest.raises(DefinitionError):
        EventRegistry().register(EventDefinition("e", parameters=schema))
    lazy = EventRegistry(check_on_register=False)
    lazy.register(EventDefinition("e", parameters=schema))
    assert EventKernel(lazy).dispatch(Event("e")).status is Status.DEFINITION_ERROR


def test_canonical_dumps_same_json_and_ensure_json_data_raise_only_strict_json_errors() -> None:
    for value in (nested(2000), cyclic(), RaisingMapping(a=1), 10**5000):
        with pytest.raises(StrictJSONError):
            canonical_dumps(value)
    with pytest.raises(StrictJSONError):
        same_json(nested(2000), nested(2000))
    with pytest.raises(StrictJSONError):
        ensure_json_data(cyclic())
    assert same_json(nested(64), nested(64))
    assert ensure_json_data(nested(63)) == nested(63)


@given(
    depth=st.integers(min_value=0, max_value=400),
    digits=st.integers(min_value=1, max_value=6000),
    kind=st.sampled_from(["object", "list"]),
    eager=st.booleans(),
)
@settings(max_examples=60, deadline=None)
def test_any_schema_depth_or_integer_size_gives_a_definition_error_or_a_result(
    depth: int, digits: int, kind: str, eager: bool
) -> None:
    """K2/K5 with items 4-5 of the hardening issue: register raises only DefinitionError,
    and dispatch on a lazy registry only returns results."""
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"deep": nested(depth, kind), "big": {"const": 10**digits - 1}},
    }
    registry = EventRegistry(check_on_register=eager)
    try:
        registry.register(EventDefinition("e", parameters=schema, resolver=lambda e: {}))
    except DefinitionError:
        assert eager
        return
    kernel = EventKernel(registry)
    check(kernel.dispatch(Event("e")))
    check(asyncio.run(kernel.adispatch(Event("e"))))
