"""The embedded model, for real, on a handful of cases (needs `uv sync --extra local`)."""

from __future__ import annotations

import asyncio
from decimal import Decimal

import pytest

from agent_lab import Event, EventDefinition, EventKernel, EventRegistry, Status
from agent_lab.agents.choice import ChoiceOutcome, ToolChooser
from agent_lab.agents.fallback import LLMFallback
from agent_lab.providers import LocalProvider, local_available

pytestmark = pytest.mark.slow

if not local_available():
    pytest.fail(
        "the local model is not installed: run `uv sync --extra local` "
        "(the README's first command)",
        pytrace=False,
    )

WEATHER = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "days": {"type": "integer", "minimum": 1, "maximum": 7},
    },
    "required": ["city", "days"],
    "additionalProperties": False,
}


@pytest.fixture(scope="module")
def smollm2() -> LocalProvider:
    return LocalProvider("smollm2")


def weather_kernel(provider: LocalProvider) -> EventKernel:
    registry = EventRegistry()
    registry.register(
        EventDefinition(
            "weather",
            description="Weather forecast for a city.",
            parameters=WEATHER,
            resolver=lambda event: {"days": 1},
        )
    )
    return EventKernel(registry, LLMFallback(provider, max_tokens=48))


@pytest.mark.parametrize("city", ["Oslo", "Paris", "Tokyo"])
def test_local_model_fills_a_missing_field_through_the_grammar(
    smollm2: LocalProvider, city: str
) -> None:
    """The grammar makes the reply strict JSON of the projected schema; tokens are counted."""
    result = weather_kernel(smollm2).dispatch(
        Event("weather", text=f"what's the weather in {city}?")
    )
    assert result.status is Status.SUCCESS, result
    assert result.llm_calls == 1
    assert isinstance(result.arguments, dict)
    assert isinstance(result.arguments["city"], str)
    assert (result.usage.prompt_tokens or 0) > 0
    assert (result.usage.completion_tokens or 0) > 0
    assert result.usage.estimated is False
    assert result.usage.cost == Decimal(0)
    assert result.usage.model == "SmolLM2-135M-Instruct-Q4_1"


def test_local_model_tool_choice_is_an_outcome(smollm2: LocalProvider) -> None:
    """Tool choice through the grammar: a known tool with JSON arguments, or no call."""
    registry = EventRegistry()
    registry.register(
        EventDefinition("weather", description="Weather forecast.", parameters=WEATHER)
    )
    choice = asyncio.run(ToolChooser(smollm2, registry).choose("weather in Oslo for 2 days"))
    assert choice.outcome in (ChoiceOutcome.CHOSEN, ChoiceOutcome.NO_TOOL_CALL)
    if choice.outcome is ChoiceOutcome.CHOSEN:
        assert choice.name == "weather"
        assert isinstance(choice.arguments, dict)


def test_gemma3_runs_too() -> None:
    """The second packaged model loads (assembled from its chunk packages) and answers."""
    result = weather_kernel(LocalProvider("gemma3")).dispatch(
        Event("weather", text="weather in Rome")
    )
    assert result.llm_calls == 1
    assert result.status is not Status.FALLBACK_FAILED or result.reason != "fallback_invalid_json"


def test_unknown_local_model_is_refused() -> None:
    """Only the packaged models are offered."""
    with pytest.raises(ValueError, match="unknown local model"):
        LocalProvider("gpt-5")


def test_every_demo_schema_and_the_tool_choice_grammar_run_without_crashing(
    smollm2: LocalProvider,
) -> None:
    """Patterns, if/then and anyOf in schemas must not break the grammar (they once crashed)."""
    from agent_lab.demo import plugins

    registry = plugins.registry()
    kernel = EventKernel(registry, LLMFallback(smollm2, max_tokens=32))
    for definition in registry:
        result = kernel.dispatch(Event(definition.name, text="please help"))
        assert result.llm_calls <= 1
        assert result.reason != "model_error", result.message
    choice = asyncio.run(ToolChooser(smollm2, registry, max_tokens=48).choose("remind me at 5pm"))
    assert choice.outcome is not ChoiceOutcome.FAILED, choice.message
