"""Providers without a network: the simulated model, the doubles, pricing, the schema projection."""

from __future__ import annotations

import asyncio
import json
import statistics
from decimal import Decimal
from pathlib import Path
from typing import Any, cast

import genai_prices
import pytest

from agent_lab import Event, EventDefinition, EventKernel, EventRegistry, Status
from agent_lab.agents.choice import ChoiceOutcome, ToolChooser
from agent_lab.agents.fallback import LLMFallback
from agent_lab.agents.prompts import project_schema
from agent_lab.providers import (
    ErrorProfile,
    Expected,
    LatencyModel,
    Message,
    Price,
    PriceTable,
    ProviderReply,
    ProviderRequest,
    SimulatedProvider,
)
from agent_lab.providers.simulated import estimate_tokens
from agent_lab.testing import FunctionProvider, ScriptedProvider, ScriptExhaustedError

SCHEMA = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "days": {"type": "integer", "minimum": 1, "maximum": 7},
        "metric": {"type": "boolean"},
    },
    "required": ["city", "days", "metric"],
    "additionalProperties": False,
}
TRUTH = {"city": "Oslo", "days": 3, "metric": True}


def oracle(request: ProviderRequest) -> Expected | None:
    if "nowhere" in str(request.context.get("text")):
        return None
    if request.context.get("event") is None and request.purpose == "tool_choice":
        return (
            Expected("weather", dict(TRUTH))
            if "weather" in str(request.context["text"])
            else Expected(None)
        )
    return Expected("weather", dict(TRUTH))


def kernel_with(provider: Any) -> EventKernel:
    registry = EventRegistry()
    registry.register(
        EventDefinition("weather", parameters=SCHEMA, resolver=lambda event: {"city": "Oslo"})
    )
    return EventKernel(registry, LLMFallback(provider))


def simulated(**errors: float) -> SimulatedProvider:
    """The oracle (it reads the answer key), with these error rates."""
    profile: Any = ErrorProfile(**errors)  # pyright: ignore[reportArgumentType]
    return SimulatedProvider(oracle, sighted=False, profile=profile, wait=False, seed=7)


# The simulated model ---------------------------------------------------------


def test_simulated_answers_only_the_missing_fields_from_ground_truth() -> None:
    """With no errors, the simulated fallback fills exactly what is missing, from the truth."""
    result = kernel_with(simulated()).dispatch(Event("weather", text="weather in Oslo"))
    assert result.status is Status.SUCCESS
    assert result.arguments == TRUTH
    assert json.loads(result.fallback_raw or "") == {"days": 3, "metric": True}
    assert result.usage.estimated
    assert result.usage.model == "oracle(custom, priced as gpt-4o-mini)"
    assert result.usage.cost is not None
    assert result.usage.cost > 0


@pytest.mark.parametrize(
    ("kind", "status", "reason"),
    [
        ("drop_field", Status.MISSING_INFORMATION, "missing_after_fallback"),
        ("wrong_type", Status.INVALID_ARGUMENTS, "invalid_after_fallback"),
        ("invalid_json", Status.FALLBACK_FAILED, "fallback_invalid_json"),
        ("nan", Status.FALLBACK_FAILED, "fallback_invalid_json"),
        ("mismatch", Status.FALLBACK_FAILED, "fallback_mismatch"),
    ],
)
def test_each_simulated_error_reaches_the_kernel_as_its_status(
    kind: str, status: Status, reason: str
) -> None:
    """Every error of the model, at rate 1, shows up as the kernel status it should cause."""
    result = kernel_with(simulated(**{kind: 1.0})).dispatch(Event("weather", text="weather"))
    assert (result.status, result.reason) == (status, reason)
    assert result.llm_calls == 1


def test_wrong_values_pass_validation_but_are_wrong() -> None:
    """A wrong value of the right type passes the schema: correctness is the lab's to judge."""
    result = kernel_with(simulated(wrong_value=1.0)).dispatch(Event("weather", text="weather"))
    assert result.status in (Status.SUCCESS, Status.INVALID_ARGUMENTS)
    assert result.arguments != TRUTH


def test_simulated_errors_follow_their_rates_and_are_reproducible() -> None:
    """About the configured share of replies is wrong; the same seed gives the same replies."""

    def outcomes(seed: int) -> list[Status]:
        provider = SimulatedProvider(
            oracle, sighted=False, profile=ErrorProfile(invalid_json=0.3), wait=False, seed=seed
        )
        kernel = kernel_with(provider)
        return [kernel.dispatch(Event("weather", text=f"weather {n}")).status for n in range(400)]

    first = outcomes(1)
    assert first == outcomes(1)
    assert first != outcomes(2)
    share = first.count(Status.FALLBACK_FAILED) / len(first)
    assert 0.22 < share < 0.38


def test_latency_model_matches_its_median_and_p95() -> None:
    """Log-normal draws have the configured median and 95th percentile."""
    import random

    model = LatencyModel(median_ms=400, p95_ms=1200)
    rng = random.Random(3)
    draws = sorted(model.sample_ms(rng) for _ in range(20_000))
    assert statistics.median(draws) == pytest.approx(400, rel=0.05)
    assert draws[int(0.95 * len(draws))] == pytest.approx(1200, rel=0.07)


def test_simulated_provider_waits_for_its_latency_through_the_injected_sleep() -> None:
    """wait=True sleeps for the drawn latency (here an injected sleep records it)."""
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    provider = SimulatedProvider(oracle, latency=LatencyModel(median_ms=50, p95_ms=60), sleep=sleep)
    request = ProviderRequest(purpose="fallback", messages=(Message("user", "x"),))
    reply = asyncio.run(provider.complete(request))
    assert slept == [pytest.approx(reply.latency_ns / 1e9)]


@pytest.mark.parametrize(
    ("text", "outcome"),
    [("weather please", ChoiceOutcome.CHOSEN), ("tell me a joke", ChoiceOutcome.NO_TOOL_CALL)],
)
def test_simulated_tool_choice(text: str, outcome: ChoiceOutcome) -> None:
    """In domain: the right tool with the true arguments; out of domain: no tool call."""
    registry = EventRegistry()
    registry.register(EventDefinition("weather", parameters=SCHEMA))
    choice = asyncio.run(ToolChooser(simulated(), registry).choose(text))
    assert choice.outcome is outcome
    if outcome is ChoiceOutcome.CHOSEN:
        assert (choice.name, choice.arguments) == ("weather", TRUTH)


def test_token_estimate_is_documented_rule() -> None:
    """Four characters per token, rounded up."""
    assert [estimate_tokens(t) for t in ("", "a", "abcd", "abcde")] == [0, 1, 1, 2]


def test_error_rates_must_be_probabilities() -> None:
    """A rate outside [0, 1], or a derived factor below 1, is refused."""
    with pytest.raises(ValueError, match="nan must be a number in"):
        ErrorProfile(nan=1.5)
    with pytest.raises(ValueError, match="derived_factor"):
        ErrorProfile(derived_factor=0.5)
    with pytest.raises(ValueError, match="latency"):
        LatencyModel(median_ms=100, p95_ms=50)


# The doubles ------------------------------------------------------------------


def test_scripted_provider_replies_in_order_and_fails_loudly_when_empty() -> None:
    """ScriptedProvider records requests and raises once its script runs out."""
    provider = ScriptedProvider([ProviderReply(text='{"days": 1, "metric": false}')])
    kernel = kernel_with(provider)
    assert kernel.dispatch(Event("weather")).status is Status.SUCCESS
    assert len(provider.requests) == 1
    with pytest.raises(ScriptExhaustedError):
        asyncio.run(provider.complete(provider.requests[0]))


def test_a_provider_that_raises_is_fallback_failed_not_a_crash() -> None:
    """Even a provider that breaks its contract (raises) cannot crash dispatch: a failure."""
    result = kernel_with(ScriptedProvider([RuntimeError("bug")])).dispatch(Event("weather"))
    assert (result.status, result.reason) == (Status.FALLBACK_FAILED, "provider_error")
    assert result.llm_calls == 1


def test_function_provider_builds_replies_from_the_request() -> None:
    """FunctionProvider answers through a function, sync or async, and records requests."""

    async def answer(request: ProviderRequest) -> ProviderReply:
        missing = request.context["missing"]
        assert isinstance(missing, list)
        names = [str(pointer).lstrip("/") for pointer in missing]
        return ProviderReply(text=json.dumps({name: TRUTH[name] for name in names}))

    provider = FunctionProvider(answer)
    result = kernel_with(provider).dispatch(Event("weather"))
    assert result.arguments == TRUTH
    assert provider.requests[0].purpose == "fallback"


# Pricing ------------------------------------------------------------------------


def test_prices_come_from_genai_prices_and_unknown_models_cost_none() -> None:
    """A known model is priced from maintained data; an unknown one is None, never 0."""
    table = PriceTable()
    assert table.cost("gpt-4o-mini", 1_000_000, 0) == Decimal("0.15")
    assert table.cost("a-model-nobody-prices", 10, 10) is None
    assert table.cost("gpt-4o-mini", None, 10) is None


def test_a_model_genai_prices_does_not_know_is_looked_up_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Its table is walked once for a model it lacks, not for every pair of token counts."""
    looked_up: list[str] = []
    real = genai_prices.calc_price

    def counting(*args: Any, **kwargs: Any) -> Any:
        looked_up.append(args[1])
        return real(*args, **kwargs)

    monkeypatch.setattr(genai_prices, "calc_price", counting)
    table = PriceTable()
    costs = [table.cost("a-model-nobody-prices-twice", n, n) for n in range(1, 50)]
    assert costs == [None] * 49
    assert looked_up == ["a-model-nobody-prices-twice"]
    # A model it knows is still priced for each new pair of counts.
    assert table.cost("gpt-4o-mini", 2_000_000, 0) == Decimal("0.30")


def test_price_overrides_from_a_file_win(tmp_path: Path) -> None:
    """The user's price file overrides the maintained data; malformed files are refused."""
    path = tmp_path / "prices.json"
    path.write_text(json.dumps({"gpt-4o-mini": {"input_per_mtok": "1", "output_per_mtok": 2}}))
    table = PriceTable.from_file(path)
    assert table.cost("gpt-4o-mini", 1_000_000, 1_000_000) == Decimal(3)
    assert table.price("gpt-4o-mini") == Price(Decimal(1), Decimal(2))
    path.write_text(json.dumps({"m": {"input": 1}}))
    with pytest.raises(ValueError, match="input_per_mtok"):
        PriceTable.from_file(path)


# The projected schema --------------------------------------------------------


def test_projection_keeps_only_missing_fields_and_their_definitions() -> None:
    """The model sees a schema of just what is missing, nested parents and $defs included."""
    schema = {
        "type": "object",
        "$defs": {"day": {"type": "string", "format": "date"}},
        "properties": {
            "city": {"type": "string"},
            "when": {
                "type": "object",
                "properties": {"date": {"$ref": "#/$defs/day"}, "time": {"type": "string"}},
            },
        },
        "required": ["city", "when"],
    }
    optional = project_schema(schema, ["/city", "/when/date"], ["/city"])
    assert optional["required"] == ["city"]
    assert cast("Any", optional)["properties"]["when"]["required"] == []
    projected = project_schema(schema, ["/when/date"])
    assert projected == {
        "type": "object",
        "properties": {
            "when": {
                "type": "object",
                "properties": {"date": {"$ref": "#/$defs/day"}},
                "required": ["date"],
                "additionalProperties": False,
            }
        },
        "required": ["when"],
        "additionalProperties": False,
        "$defs": {"day": {"type": "string", "format": "date"}},
    }


# The sighted simulated model ---------------------------------------------------------

TIMER = {
    "type": "object",
    "properties": {
        "duration_seconds": {"type": "integer"},
        "label": {"type": "string"},
        "kind": {"enum": ["egg", "tea"]},
    },
    "required": ["duration_seconds", "label"],
}


def sighted_choice(
    text: str, truth: dict[str, Any], payload: dict[str, Any] | None = None, **rates: Any
) -> Any:
    registry = EventRegistry()
    registry.register(EventDefinition("timer", parameters=TIMER))
    registry.register(EventDefinition("alarm", parameters={"type": "object"}))
    provider = SimulatedProvider(
        lambda request: Expected("timer", dict(truth)),
        profile=ErrorProfile(**rates),
        wait=False,
    )
    chooser = ToolChooser(provider, registry)
    return asyncio.run(chooser.choose(text, payload=payload))


def test_the_sighted_model_answers_what_it_reads_and_works_out() -> None:
    """A label in the words is read; a duration said in words is worked out."""
    choice = sighted_choice("a ten minute timer for tea", {"duration_seconds": 600, "label": "tea"})
    assert choice.outcome is ChoiceOutcome.CHOSEN
    assert choice.arguments == {"duration_seconds": 600, "label": "tea"}


def test_the_sighted_model_asks_for_a_required_value_it_cannot_see() -> None:
    """The truth's label is nowhere in the request: it asks, it does not read the answer key."""
    choice = sighted_choice("a ten minute timer", {"duration_seconds": 600, "label": "pasta"})
    assert choice.outcome is ChoiceOutcome.NO_TOOL_CALL
    assert "label" in choice.message
    invented = sighted_choice(
        "a ten minute timer", {"duration_seconds": 600, "label": "pasta"}, invent=1.0
    )
    assert invented.outcome is ChoiceOutcome.CHOSEN
    assert invented.arguments["label"] != "pasta"


def test_the_payload_is_seen_and_an_optional_unseen_value_is_left_out() -> None:
    choice = sighted_choice(
        "start it", {"duration_seconds": 600, "label": "pasta"}, payload={"label": "pasta"}
    )
    assert choice.arguments == {"duration_seconds": 600, "label": "pasta"}


@pytest.mark.parametrize(
    ("rates", "outcome", "name"),
    [
        ({"no_call": 1.0}, ChoiceOutcome.NO_TOOL_CALL, None),
        ({"wrong_tool": 1.0}, ChoiceOutcome.CHOSEN, "alarm"),
    ],
    ids=["no-call", "wrong-tool"],
)
def test_tool_choice_errors(rates: dict[str, Any], outcome: ChoiceOutcome, name: str) -> None:
    choice = sighted_choice(
        "a 10 minute timer for tea", {"duration_seconds": 600, "label": "tea"}, **rates
    )
    assert choice.outcome is outcome
    assert choice.name == name


def test_one_simulated_model_reads_the_tools_each_request_offers() -> None:
    """Its map of the tools is kept per tools tuple: a chooser offering other tools is
    answered from its own, in any order of requests."""
    provider = SimulatedProvider(
        lambda request: Expected("timer", {"duration_seconds": 600, "label": "tea"}), wait=False
    )
    both, alarm_only = EventRegistry(), EventRegistry()
    both.register(EventDefinition("timer", parameters=TIMER))
    for registry in (both, alarm_only):
        registry.register(EventDefinition("alarm", parameters={"type": "object"}))
    choosers = (ToolChooser(provider, both), ToolChooser(provider, alarm_only))
    names = [
        asyncio.run(chooser.choose("a 600 second timer for tea")).name
        for _ in range(2)
        for chooser in choosers
    ]
    assert names == ["timer", None, "timer", None]


def test_a_spurious_call_out_of_domain() -> None:
    registry = EventRegistry()
    registry.register(EventDefinition("timer", parameters=TIMER))
    provider = SimulatedProvider(
        lambda request: Expected(None), profile=ErrorProfile(spurious_call=1.0), wait=False
    )
    choice = asyncio.run(ToolChooser(provider, registry).choose("tell me a joke"))
    assert (choice.outcome, choice.name) == (ChoiceOutcome.CHOSEN, "timer")


def test_a_value_not_verbatim_errs_derived_factor_times_as_often() -> None:
    """wrong_value 0.2 with factor 4: about 20% wrong when verbatim, 80% when worked out."""

    def wrong_share(text: str) -> float:
        wrong = 0
        for seed in range(300):
            provider = SimulatedProvider(
                lambda request: Expected("timer", {"duration_seconds": 600, "label": "tea"}),
                profile=ErrorProfile(wrong_value=0.2, derived_factor=4.0),
                wait=False,
                seed=seed,
            )
            registry = EventRegistry()
            registry.register(EventDefinition("timer", parameters=TIMER))
            choice = asyncio.run(ToolChooser(provider, registry).choose(text))
            arguments: Any = choice.arguments
            wrong += arguments["duration_seconds"] != 600
        return wrong / 300

    assert 0.12 < wrong_share("600 seconds for tea") < 0.28
    assert 0.7 < wrong_share("ten minutes for tea") < 0.9


def test_profiles_load_by_name_or_file_and_take_overrides(tmp_path: Path) -> None:
    from agent_lab.providers import PROFILES, ProfileError, load_profile

    assert load_profile("typical") is PROFILES["typical"]
    custom = tmp_path / "mine.json"
    custom.write_text('{"wrong_value": 0.07, "source": "measured on my model"}')
    mine = load_profile(str(custom))
    assert (mine.name, mine.wrong_value, mine.source) == ("mine", 0.07, "measured on my model")
    assert mine.with_overrides(["no_call=0.5"]).no_call == 0.5
    for bad in ("nope", '{"wrong_value": 2}', '{"colour": 1}', "[1]"):
        path = tmp_path / "bad.json"
        path.write_text(bad)
        with pytest.raises(ProfileError):
            load_profile(str(path) if bad != "nope" else "nope")
    with pytest.raises(ProfileError, match="KEY=RATE"):
        PROFILES["ideal"].with_overrides(["colour=0.1"])


def test_a_bad_override_names_the_field_llm_error_not_a_flag() -> None:
    """Below the CLI the override's error names its field; the CLI words it as its flag."""
    from agent_lab.providers import PROFILES, ProfileError

    with pytest.raises(ProfileError) as refused:
        PROFILES["ideal"].with_overrides(["wrong_value=x"])
    assert refused.value.setting == "llm_error"
    assert str(refused.value) == "llm_error 'wrong_value=x': 'x' is not a number"


def test_a_latency_draw_is_at_most_ten_times_the_95th_percentile() -> None:
    """A log-normal tail is unbounded: a wide spread once drew sleeps that never ended."""
    import random

    from agent_lab.providers.simulated import LatencyModel

    model = LatencyModel(median_ms=0.001, p95_ms=600_000)
    rng = random.Random(0)
    draws = [model.sample_ms(rng) for _ in range(10_000)]
    assert max(draws) == 6_000_000
    assert min(draws) > 0
