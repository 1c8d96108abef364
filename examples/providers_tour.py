"""The providers behind the kernel's fallback: `uv run python examples/providers_tour.py`.

One event (weather), one request whose city is missing, answered by:
the simulated model, the embedded local model, a recording of the local model,
and its replay. An OpenAI-compatible endpoint is used too when OPENAI_BASE_URL
(or OPENAI_API_KEY) and OPENAI_MODEL are set.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from agent_lab import (
    ErrorProfile,
    Event,
    EventDefinition,
    EventKernel,
    EventRegistry,
    Expected,
    LLMFallback,
    LocalProvider,
    OpenAIProvider,
    Provider,
    ProviderRequest,
    RecordingProvider,
    ReplayProvider,
    SimulatedProvider,
)

registry = EventRegistry()
registry.register(
    EventDefinition(
        "weather",
        description="Weather forecast for a city.",
        parameters={
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "days": {"type": "integer", "minimum": 1, "maximum": 7},
            },
            "required": ["city", "days"],
            "additionalProperties": False,
        },
        resolver=lambda event: {"days": 2},  # "for two days" was read by code
    )
)
event = Event("weather", text="what's the weather in Lisbon for two days?")


def ground_truth(request: ProviderRequest) -> Expected:
    """What the simulated model knows: in the lab, the workload's expected arguments."""
    return Expected("weather", {"city": "Lisbon", "days": 2})


def show(label: str, provider: Provider) -> None:
    """Dispatch the event with this provider as the fallback, and print what happened."""
    result = EventKernel(registry, LLMFallback(provider)).dispatch(event)
    usage = result.usage
    print(f"{label:<22} {result.status.value:<16} {result.arguments}")
    print(
        f"{'':<22} raw {result.fallback_raw!r}; {result.llm_calls} request(s), "
        f"{usage.prompt_tokens}+{usage.completion_tokens} tokens"
        f"{' (estimated)' if usage.estimated else ''}, cost {usage.cost}, model {usage.model}"
    )


show("simulated", SimulatedProvider(ground_truth, wait=False))
show(
    "simulated, all NaN", SimulatedProvider(ground_truth, profile=ErrorProfile(nan=1.0), wait=False)
)

local = LocalProvider("smollm2")
cassette = Path(tempfile.mkdtemp()) / "weather.jsonl"
show("local (recorded)", RecordingProvider(local, cassette))
show("replay (offline)", ReplayProvider(cassette))

if os.environ.get("OPENAI_MODEL") and (
    os.environ.get("OPENAI_BASE_URL") or os.environ.get("OPENAI_API_KEY")
):
    show("openai-compatible", OpenAIProvider())
else:
    print("openai-compatible      (set OPENAI_BASE_URL or OPENAI_API_KEY, and OPENAI_MODEL)")
