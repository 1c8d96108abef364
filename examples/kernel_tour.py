"""A five-minute tour of the event kernel: run it with `uv run python examples/kernel_tour.py`.

One event (set a timer), a deterministic resolver that reads "10 minutes" or
"half an hour", and a stand-in for an LLM fallback. Watch which requests reach
the fallback: only the one whose information is really missing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from agent_lab import (
    Event,
    EventDefinition,
    EventKernel,
    EventRegistry,
    FallbackReply,
    FallbackRequest,
    Resolution,
    Status,
    openai_tool,
    to_tool_result,
)
from agent_lab.strict_json import JSONValue

UNITS = {"second": 1, "minute": 60, "hour": 3600, "day": 86_400}
WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "five": 5, "ten": 10, "half an": 0.5}


def read_timer(event: Event) -> Resolution:
    """Deterministic resolver: reads durations written as digits or words."""
    arguments: dict[str, JSONValue] = {}
    match = re.search(
        r"(\d+|half an|an?|one|two|five|ten)\s+(second|minute|hour|day)s?", event.text
    )
    if match:
        amount, unit = match.groups()
        count = float(amount) if amount.isdigit() else WORDS[amount]
        arguments["duration_seconds"] = int(count * UNITS[unit])
    label = re.search(r"for (?:the )?(\w+)$", event.text)
    if label and label.group(1) not in UNITS:
        arguments["label"] = label.group(1)
    return Resolution(arguments)


def start_timer(arguments: Mapping[str, JSONValue]) -> JSONValue:
    """The handler: runs only on complete, valid arguments."""
    return {"started": True, "seconds": arguments["duration_seconds"]}


def pretend_llm(request: FallbackRequest) -> FallbackReply:
    """A stand-in for a real model: asked only for what is missing."""
    print(f"    fallback asked for {list(request.missing)}, knowing {dict(request.resolved)}")
    return FallbackReply('{"duration_seconds": 240}', arguments={"duration_seconds": 240})


registry = EventRegistry()
registry.register(
    EventDefinition(
        "set_timer",
        description="Start a countdown timer.",
        parameters={
            "type": "object",
            "properties": {
                "duration_seconds": {"type": "integer", "minimum": 1, "maximum": 86_400},
                "label": {"type": "string", "maxLength": 40},
            },
            "required": ["duration_seconds"],
            "additionalProperties": False,
        },
        resolver=read_timer,
        handler=start_timer,
    )
)
kernel = EventKernel(registry, fallback=pretend_llm)

for text in (
    "set a timer for 10 minutes",
    "half an hour timer for the pasta",
    "set a timer for 2 days",
    "start a timer for the eggs",
):
    print(f"{text!r}")
    result = kernel.dispatch(Event("set_timer", text=text))
    print(f"    {result.status.value}: {result.arguments or result.errors[0].message}")
    print(f"    LLM calls: {result.llm_calls}, total {result.timings.total_ns / 1000:.0f} us")
    assert result.status in (Status.SUCCESS, Status.INVALID_ARGUMENTS)

print("\nThe same event as an OpenAI tool, and a result as the tool's answer:")
print("   ", openai_tool(registry.get("set_timer"))["function"]["name"])
print("   ", to_tool_result(kernel.dispatch(Event("set_timer", text="5 minutes"))).content)
