"""Pydantic models as parameters: their own validation after the schema's, instances on opt-in."""

from __future__ import annotations

import asyncio
import datetime
import enum
from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Annotated, Any

import pytest
from pydantic import AfterValidator, BaseModel, Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

from agent_lab import (
    DefinitionError,
    Event,
    EventDefinition,
    EventKernel,
    EventRegistry,
    EventResult,
    FallbackReply,
    Reason,
    Resolution,
    Status,
)
from agent_lab.agents.fallback import LLMFallback
from agent_lab.providers import ProviderReply
from agent_lab.testing import ScriptedProvider
from tests.conftest import RecordingFallback

if TYPE_CHECKING:
    from collections.abc import Callable

    from agent_lab.kernel.models import Fallback, Resolver

DRIVERS = ["dispatch", "adispatch"]


class Payment(BaseModel):
    """A payment in a currency."""

    currency: str = Field(description="ISO 4217 code")
    amount_cents: int = Field(ge=1)
    note: str = ""

    @field_validator("currency")
    @classmethod
    def iso_4217(cls, value: str) -> str:
        if len(value) != 3 or not value.isalpha():
            raise ValueError("currency must be a 3-letter ISO 4217 code")
        return value.upper()

    @model_validator(mode="after")
    def no_cents_in_yen(self) -> Payment:
        if self.currency == "JPY" and self.amount_cents % 100:
            raise ValueError("JPY has no cents")
        return self


def run(kernel: EventKernel, event: Event, driver: str) -> EventResult:
    if driver == "adispatch":
        return asyncio.run(kernel.adispatch(event))
    return kernel.dispatch(event)


def payload_resolver(event: Event) -> Mapping[str, object]:
    return dict(event.payload)


class Recorder:
    """A handler that records what it was given."""

    def __init__(self) -> None:
        self.given: list[object] = []

    def __call__(self, given: object) -> dict[str, bool]:
        self.given.append(given)
        return {"paid": True}


def kernel_for(
    model: type[BaseModel] = Payment,
    *,
    handler: Callable[[Any], object] | None = None,
    pass_model: bool = False,
    resolver: Resolver = payload_resolver,
    fallback: Fallback | None = None,
) -> EventKernel:
    registry = EventRegistry()
    registry.register(
        EventDefinition(
            "pay", parameters=model, resolver=resolver, handler=handler, pass_model=pass_model
        )
    )
    return EventKernel(registry, fallback)


def pay(**payload: Any) -> Event:
    return Event("pay", payload=payload)


# Rejections ----------------------------------------------------------------------------


@pytest.mark.parametrize("driver", DRIVERS)
def test_field_validator_rejection_is_invalid_arguments_with_message_and_pointer(
    driver: str,
) -> None:
    """The JSON Schema accepts "euro"; the model's field_validator does not."""
    handler = Recorder()
    result = run(kernel_for(handler=handler), pay(currency="euro", amount_cents=500), driver)
    assert (result.status, result.reason) == (Status.INVALID_ARGUMENTS, Reason.INVALID_ARGUMENTS)
    assert "currency must be a 3-letter ISO 4217 code" in result.message
    [issue] = result.errors
    assert (issue.pointer, issue.keyword, issue.source) == ("/currency", "value_error", "resolver")
    assert issue.message == result.message
    assert result.llm_calls == 0
    assert handler.given == []


@pytest.mark.parametrize("driver", DRIVERS)
def test_model_validator_across_two_fields_points_at_the_root(driver: str) -> None:
    result = run(kernel_for(), pay(currency="JPY", amount_cents=150), driver)
    assert result.status is Status.INVALID_ARGUMENTS
    [issue] = result.errors
    assert issue.pointer == ""
    assert "JPY has no cents" in issue.message
    assert run(kernel_for(), pay(currency="JPY", amount_cents=200), driver).ok


def test_schema_errors_come_first_and_the_model_never_sees_them() -> None:
    """A value the schema rejects is reported with the schema's keyword, not the model's."""
    result = kernel_for().dispatch(pay(currency="euro", amount_cents=0))
    assert [(issue.pointer, issue.keyword) for issue in result.errors] == [
        ("/amount_cents", "minimum")
    ]


class Line(BaseModel):
    currency: str

    @field_validator("currency")
    @classmethod
    def known(cls, value: str) -> str:
        assert value in {"EUR", "USD"}, f"{value} is not accepted"
        return value


def at_most_five(value: int) -> int:
    if value > 5:
        raise ValueError("at most 5")
    return value


class Order(BaseModel):
    lines: list[Line] = []
    quantity: Annotated[int, AfterValidator(at_most_five)] | str = 1
    tags: list[str] = []

    @field_validator("tags")
    @classmethod
    def few(cls, value: list[str]) -> list[str]:
        if len(value) > 2:
            raise PydanticCustomError("too_many_tags", "at most {limit} tags", {"limit": 2})
        return value


@pytest.mark.parametrize(
    ("payload", "pointer", "keyword", "message"),
    [
        (
            {"lines": [{"currency": "EUR"}, {"currency": "GBP"}]},
            "/lines/1/currency",
            "assertion_error",
            "GBP is not accepted",
        ),
        ({"quantity": 9}, "/quantity", "value_error", "at most 5"),
        ({"tags": ["a", "b", "c"]}, "/tags", "too_many_tags", "at most 2 tags"),
    ],
    ids=["nested-assertion", "union-member", "custom-error"],
)
def test_every_rejection_kind_points_into_the_arguments(
    payload: dict[str, Any], pointer: str, keyword: str, message: str
) -> None:
    """AssertionError and PydanticCustomError too; a union member's tag is not part of the path."""
    result = kernel_for(Order).dispatch(Event("pay", payload=payload))
    assert result.status is Status.INVALID_ARGUMENTS
    issue = result.errors[0]
    assert (issue.pointer, issue.keyword) == (pointer, keyword)
    assert message in issue.message
    assert all(other.pointer == pointer for other in result.errors)


class Count(BaseModel):
    n: int


def test_strict_mode_refuses_a_float_for_an_int_that_the_schema_accepts() -> None:
    """JSON Schema counts 5.0 as an integer; the model, validated strictly, does not."""
    result = kernel_for(Count).dispatch(Event("pay", payload={"n": 5.0}))
    assert result.status is Status.INVALID_ARGUMENTS
    assert (result.errors[0].pointer, result.errors[0].keyword) == ("/n", "int_type")
    assert kernel_for(Count).dispatch(Event("pay", payload={"n": 5})).ok


class Currency(enum.Enum):
    EUR = "EUR"
    USD = "USD"


class Booking(BaseModel):
    currency: Currency
    day: datetime.date
    seats: tuple[int, int]


def test_json_forms_of_enums_dates_and_tuples_are_accepted() -> None:
    """JSON mode: Python's strict mode would refuse "EUR" for an Enum and a string for a date."""
    handler = Recorder()
    kernel = kernel_for(Booking, handler=handler, pass_model=True)
    result = kernel.dispatch(
        Event("pay", payload={"currency": "EUR", "day": "2024-02-29", "seats": [3, 4]})
    )
    assert result.ok, result.message
    assert handler.given == [
        Booking(currency=Currency.EUR, day=datetime.date(2024, 2, 29), seats=(3, 4))
    ]
    assert result.arguments == {"currency": "EUR", "day": "2024-02-29", "seats": [3, 4]}


def test_an_integer_too_long_to_write_is_invalid_arguments() -> None:
    result = kernel_for(Count).dispatch(Event("pay", payload={"n": 10**5000}))
    assert result.status is Status.INVALID_ARGUMENTS
    assert result.errors[0].keyword == "number_too_long"


# Validators that raise -----------------------------------------------------------------


class Broken(BaseModel):
    n: int

    @field_validator("n")
    @classmethod
    def buggy(cls, value: int) -> int:
        return value // 0


class UnreadableError(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no message")


class RaisesOnPurpose(BaseModel):
    n: int

    @model_validator(mode="after")
    def refuse(self) -> RaisesOnPurpose:
        raise UnreadableError


class RaisesKeyError(BaseModel):
    n: int

    @model_validator(mode="before")
    @classmethod
    def peek(cls, data: dict[str, Any]) -> dict[str, Any]:
        return {"n": data["not there"]}


@pytest.mark.parametrize("driver", DRIVERS)
@pytest.mark.parametrize(
    ("model", "cause"),
    [
        (Broken, "ZeroDivisionError"),
        (RaisesOnPurpose, "UnreadableError"),
        (RaisesKeyError, "KeyError"),
    ],
    ids=["bug", "unreadable-message", "before-validator"],
)
def test_a_validator_that_raises_is_a_definition_error_not_a_crash(
    model: type[BaseModel], cause: str, driver: str
) -> None:
    """Like a raising resolver: the plugin is broken, not the user."""
    handler = Recorder()
    result = run(kernel_for(model, handler=handler), Event("pay", payload={"n": 1}), driver)
    assert (result.status, result.reason) == (Status.DEFINITION_ERROR, Reason.VALIDATOR_ERROR)
    assert result.message.startswith(f"the model's validation raised {cause}")
    assert result.errors == ()
    assert handler.given == []


# What the handler gets -----------------------------------------------------------------


@pytest.mark.parametrize("driver", DRIVERS)
def test_the_handler_gets_the_instance_with_pass_model_and_a_mapping_without(
    driver: str,
) -> None:
    with_model, without = Recorder(), Recorder()
    event = pay(currency="eur", amount_cents=500)
    first = run(kernel_for(handler=with_model, pass_model=True), event, driver)
    second = run(kernel_for(handler=without), event, driver)
    assert first.ok
    assert second.ok
    assert with_model.given == [Payment(currency="EUR", amount_cents=500, note="")]
    [mapping] = without.given
    assert isinstance(mapping, MappingProxyType)
    assert mapping == {"currency": "eur", "amount_cents": 500}
    # The result holds the JSON the schema checked, not the model's dump, either way.
    for result in (first, second):
        assert type(result.arguments) is dict
        assert result.arguments == {"currency": "eur", "amount_cents": 500}


def test_an_async_handler_gets_the_instance_too() -> None:
    given: list[Payment] = []

    async def handler(payment: Payment) -> dict[str, str]:
        given.append(payment)
        return {"currency": payment.currency}

    kernel = kernel_for(handler=handler, pass_model=True)
    result = asyncio.run(kernel.adispatch(pay(currency="usd", amount_cents=100)))
    assert result.output == {"currency": "USD"}
    assert given == [Payment(currency="USD", amount_cents=100)]
    assert kernel.dispatch(pay(currency="usd", amount_cents=100)).output == {"currency": "USD"}


def test_a_handler_that_changes_the_instance_cannot_change_the_result() -> None:
    """K21 holds with instances: the model is parsed from private JSON text."""

    def handler(payment: Payment) -> None:
        payment.currency = "XXX"

    result = kernel_for(handler=handler, pass_model=True).dispatch(
        pay(currency="EUR", amount_cents=100)
    )
    assert result.ok
    assert result.arguments == {"currency": "EUR", "amount_cents": 100}


def test_pass_model_needs_a_model_class_even_in_a_lazy_registry() -> None:
    class OnlyDescribes:
        @classmethod
        def model_json_schema(cls) -> dict[str, Any]:
            return {"type": "object"}

    for parameters in ({"type": "object"}, OnlyDescribes):
        for registry in (EventRegistry(), EventRegistry(check_on_register=False)):
            with pytest.raises(DefinitionError, match="pass_model"):
                registry.register(EventDefinition("x", parameters=parameters, pass_model=True))
    # A registered copy carries the schema only, so it cannot opt in elsewhere.
    registered = EventRegistry().register(
        EventDefinition("pay", parameters=Payment, pass_model=True)
    )
    with pytest.raises(DefinitionError, match="pass_model"):
        EventRegistry().register(registered)


def test_a_class_that_only_describes_itself_keeps_the_schema_check_only() -> None:
    class OnlyDescribes:
        @classmethod
        def model_json_schema(cls) -> dict[str, Any]:
            return {"type": "object", "properties": {"n": {"type": "integer"}}}

    registry = EventRegistry()
    registry.register(EventDefinition("x", parameters=OnlyDescribes, resolver=payload_resolver))
    kernel = EventKernel(registry)
    assert kernel.dispatch(Event("x", payload={"n": 5.0})).ok
    assert kernel.dispatch(Event("x", payload={"n": "5"})).status is Status.INVALID_ARGUMENTS


# The fallback --------------------------------------------------------------------------


def amount_only(event: Event) -> Mapping[str, object]:
    return {"amount_cents": 500}


@pytest.mark.parametrize("driver", DRIVERS)
def test_a_fallback_value_the_validator_rejects_is_invalid_after_fallback(driver: str) -> None:
    fallback = RecordingFallback(FallbackReply('{"currency": "euro"}'))
    handler = Recorder()
    kernel = kernel_for(handler=handler, resolver=amount_only, fallback=fallback)
    result = run(kernel, Event("pay"), driver)
    assert (result.status, result.reason) == (
        Status.INVALID_ARGUMENTS,
        Reason.INVALID_AFTER_FALLBACK,
    )
    [issue] = result.errors
    assert (issue.pointer, issue.source) == ("/currency", "fallback")
    assert fallback.calls == 1
    assert result.llm_calls == 1
    assert handler.given == []


@pytest.mark.parametrize("driver", DRIVERS)
def test_a_scripted_llm_fallback_feeds_the_model_too(driver: str) -> None:
    """Through LLMFallback and a provider double: rejected, then accepted with an instance."""
    provider = ScriptedProvider(
        [ProviderReply(text='{"currency": "euros"}'), ProviderReply(text='{"currency": "eur"}')]
    )
    handler = Recorder()
    kernel = kernel_for(
        handler=handler, pass_model=True, resolver=amount_only, fallback=LLMFallback(provider)
    )
    rejected = run(kernel, Event("pay"), driver)
    assert rejected.status is Status.INVALID_ARGUMENTS
    assert rejected.errors[0].pointer == "/currency"
    accepted = run(kernel, Event("pay"), driver)
    assert accepted.ok, accepted.message
    assert accepted.arguments == {"amount_cents": 500, "currency": "eur"}
    assert handler.given == [Payment(currency="EUR", amount_cents=500)]
    assert len(provider.requests) == 2


VALIDATED: list[dict[str, Any]] = []


class Transfer(BaseModel):
    currency: str
    iban: str | None = None

    @model_validator(mode="after")
    def needs_iban(self) -> Transfer:
        VALIDATED.append(self.model_dump())
        if self.iban is None:
            raise ValueError("an iban is needed")
        return self


def test_the_model_judges_only_settled_arguments_once() -> None:
    """An incomplete resolution is not judged before the fallback fills it."""
    VALIDATED.clear()
    fallback = RecordingFallback(FallbackReply('{"iban": "DE02"}'))
    kernel = kernel_for(
        Transfer,
        resolver=lambda event: Resolution({"currency": "EUR"}, complete=False),
        fallback=fallback,
    )
    result = kernel.dispatch(Event("pay"))
    assert result.ok, result.message
    assert fallback.calls == 1
    assert VALIDATED == [{"currency": "EUR", "iban": "DE02"}]
    # Without a fallback the incomplete resolution stays missing information, unjudged.
    VALIDATED.clear()
    unfilled = kernel_for(
        Transfer, resolver=lambda event: Resolution({"currency": "EUR"}, complete=False)
    ).dispatch(Event("pay"))
    assert unfilled.status is Status.MISSING_INFORMATION
    assert VALIDATED == []


def test_a_models_docstring_describes_its_event_and_its_tool() -> None:
    """An event with no description of its own takes its model's docstring, tool included."""
    from agent_lab.kernel.tools import openai_tool

    registry = EventRegistry()
    registered = registry.register(EventDefinition("pay", parameters=Payment))
    assert registered.description == "A payment in a currency."
    assert openai_tool(registered)["function"]["description"] == "A payment in a currency."
    own = EventRegistry().register(
        EventDefinition("pay", description="Pay someone.", parameters=Payment)
    )
    assert own.description == "Pay someone."


def test_a_pydantic_plugin_set_runs_under_every_llm_policy() -> None:
    """The tool chooser converts a model class as registration does (it used to raise)."""
    from agent_lab.agents.plugins import PluginSet
    from agent_lab.lab.run.policies import DeterministicFirst, LLMAlways
    from agent_lab.log_replay.case import Case, Expectation
    from agent_lab.providers import ToolCall

    plugins = PluginSet("payments", (EventDefinition("pay", parameters=Payment),))
    raw = '{"currency": "eur", "amount_cents": 500}'
    call = ProviderReply(tool_calls=(ToolCall(name="pay", arguments_raw=raw, arguments={
        "currency": "eur", "amount_cents": 500}),))  # fmt: skip
    case = Case(
        id="c",
        event="pay",
        text="pay 5 euros",
        expected=Expectation(Status.SUCCESS, {"currency": "eur", "amount_cents": 500}),
        tags=("complete",),
    )
    for policy in (
        LLMAlways(plugins, ScriptedProvider([call])),
        DeterministicFirst(plugins, ScriptedProvider([call])),
    ):
        reply = asyncio.run(policy.run(case))
        assert reply.status is Status.SUCCESS, (policy.name, reply)
        assert reply.arguments == {"currency": "eur", "amount_cents": 500}
