"""Parameters only the user can supply: never asked of a model, never taken from one."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from pydantic import BaseModel, Field

from agent_lab import (
    DefinitionError,
    Event,
    EventDefinition,
    EventKernel,
    EventRegistry,
    FallbackReply,
    Resolution,
    Status,
)
from agent_lab.kernel.tools import USER_ONLY_NOTE, openai_tool
from tests.conftest import RecordingFallback

BOOKING: dict[str, Any] = {
    "type": "object",
    "properties": {
        "restaurant": {"type": "string"},
        "date": {"type": "string"},
        "party_size": {"type": "integer", "minimum": 1, "maximum": 20, "x-user-only": True},
        "note": {"type": "string"},
    },
    "required": ["restaurant", "date", "party_size"],
}


def resolved(**values: object) -> Any:
    def resolve(event: Event) -> dict[str, object]:
        return dict(values)

    return resolve


def kernel(
    resolver: Any, fallback: RecordingFallback | None = None, **definition: Any
) -> EventKernel:
    registry = EventRegistry()
    parameters = definition.pop("parameters", BOOKING)
    registry.register(
        EventDefinition("book", parameters=parameters, resolver=resolver, **definition)
    )
    return EventKernel(registry, fallback)


def test_a_missing_user_only_parameter_asks_the_user_and_never_the_fallback() -> None:
    """Luigi's, tomorrow, no party size: missing_information naming it, zero LLM calls."""
    fallback = RecordingFallback()
    result = kernel(resolved(restaurant="Luigi's"), fallback).dispatch(Event("book"))
    assert result.status is Status.MISSING_INFORMATION
    assert result.reason == "user_only_missing"
    assert result.missing == ("/date", "/party_size")
    assert "only the user can say /party_size" in result.message
    assert (result.llm_calls, fallback.calls) == (0, 0)
    ledger = result.ledger
    assert ledger.fallback.called is False
    assert ledger.fallback.skipped == "user_only_missing"


def test_the_fallback_fills_the_rest_and_its_value_for_a_user_only_one_is_dropped() -> None:
    """Asked for /note only (complete=False), the reply invents a party size: dropped, noted."""
    fallback = RecordingFallback(FallbackReply('{"note": "window seat", "party_size": 10}'))

    def incomplete(event: Event) -> Resolution:
        return Resolution({"restaurant": "Luigi's", "date": "2026-12-04", "party_size": 2},
                          complete=False)  # fmt: skip

    result = kernel(incomplete, fallback).dispatch(Event("book"))
    assert result.status is Status.SUCCESS
    assert fallback.requests[0].missing == ("/note",)
    assert result.arguments is not None
    assert result.arguments["party_size"] == 2
    assert result.arguments["note"] == "window seat"
    audit = result.ledger.audit
    assert audit is not None
    assert audit.user_only == ()  # a resolved value won; the reply's is a conflict
    assert [c.pointer for c in result.conflicts] == ["/party_size"]


def test_a_user_only_value_the_model_adds_unasked_is_noted_as_user_only() -> None:
    fallback = RecordingFallback(FallbackReply('{"note": "window seat", "party_size": 10}'))

    def incomplete(event: Event) -> Resolution:
        return Resolution({"restaurant": "Luigi's", "date": "2026-12-04"}, complete=False,
                          missing=("note",))  # fmt: skip

    schema = {**BOOKING, "required": ["restaurant", "date"]}
    result = kernel(incomplete, fallback, parameters=schema).dispatch(Event("book"))
    assert fallback.requests[0].missing == ("/note",)
    assert result.arguments is not None
    assert "party_size" not in result.arguments
    audit = result.ledger.audit
    assert audit is not None
    assert audit.user_only == ("/party_size",)
    assert result.ledger.as_json()["audit"]["user_only"] == ["/party_size"]  # type: ignore[index,call-overload]


def test_user_only_may_be_named_on_the_definition() -> None:
    schema = {**BOOKING, "properties": {**BOOKING["properties"], "party_size": {"type": "integer"}}}
    fallback = RecordingFallback()
    result = kernel(
        resolved(restaurant="Luigi's", date="2026-12-04"),
        fallback,
        parameters=schema,
        user_only=("party_size",),
    ).dispatch(Event("book"))
    assert (result.reason, fallback.calls) == ("user_only_missing", 0)


def test_a_pydantic_field_marks_it_with_json_schema_extra() -> None:
    class Booking(BaseModel):
        restaurant: str
        party_size: int = Field(json_schema_extra={"x-user-only": True})

    fallback = RecordingFallback()
    result = kernel(resolved(restaurant="Luigi's"), fallback, parameters=Booking).dispatch(
        Event("book")
    )
    assert (result.status, result.reason, fallback.calls) == (
        Status.MISSING_INFORMATION,
        "user_only_missing",
        0,
    )


def test_a_reply_a_model_made_keeps_its_value() -> None:
    """dispatch_reply (LLM-always): the model read the words, so its value is its reading."""
    registry = EventRegistry()
    registry.register(
        EventDefinition("book", parameters=BOOKING, resolver=resolved(restaurant="Luigi's"))
    )
    raw = '{"restaurant": "Luigi\'s", "date": "2026-12-04", "party_size": 4}'
    result = EventKernel(registry).dispatch_reply(Event("book"), FallbackReply(raw))
    assert result.status is Status.SUCCESS
    assert result.arguments == {"restaurant": "Luigi's", "date": "2026-12-04", "party_size": 4}


@pytest.mark.parametrize("marks", ["party_size", ["party_size", 3], ("",)], ids=str)
def test_a_malformed_user_only_is_a_definition_error(marks: Any) -> None:
    with pytest.raises(DefinitionError, match="user_only"):
        EventRegistry().register(EventDefinition("book", parameters=BOOKING, user_only=marks))


def test_the_tool_a_model_sees_says_to_ask() -> None:
    registered = EventRegistry().register(EventDefinition("book", parameters=BOOKING))
    tool: Any = openai_tool(registered)
    party = tool["function"]["parameters"]["properties"]["party_size"]
    assert party["description"] == USER_ONLY_NOTE
    assert party["x-user-only"] is True
    assert "description" not in tool["function"]["parameters"]["properties"]["date"]


def test_async_dispatch_asks_the_user_too() -> None:
    fallback = RecordingFallback()
    result = asyncio.run(
        kernel(resolved(restaurant="Luigi's", date="d"), fallback).adispatch(Event("book"))
    )
    assert (result.reason, fallback.calls) == ("user_only_missing", 0)
