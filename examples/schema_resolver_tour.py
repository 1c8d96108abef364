"""A plugin with no resolver code: the schema-driven resolver reads what it can, and says so.

Run: uv run python examples/schema_resolver_tour.py
"""

from __future__ import annotations

from datetime import datetime

from agent_lab import (
    Event,
    EventDefinition,
    EventKernel,
    EventRegistry,
    FallbackReply,
    FallbackRequest,
    SchemaResolver,
)

SCHEMA = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "description": "Where to pick the car up"},
        "pickup_date": {"type": "string", "format": "date"},
        "car_type": {"type": "string", "enum": ["Compact", "Standard", "Full-size"]},
        "number_of_drivers": {"type": "integer", "minimum": 1},
    },
    "required": ["city", "pickup_date", "car_type"],
    "additionalProperties": False,
}


def fallback(request: FallbackRequest) -> FallbackReply:
    """Stand in for an LLM that understood the user: answer what is asked."""
    print(f"  fallback asked for {list(request.missing)}, must fill {list(request.must_fill)}")
    understood = {"/city": '"Portland"', "/number_of_drivers": "3"}
    fields = [f'"{p[1:]}": {understood[p]}' for p in request.missing if p in understood]
    return FallbackReply("{" + ", ".join(fields) + "}")


registry = EventRegistry()
registry.register(
    EventDefinition(
        "rent_car",
        parameters=SCHEMA,
        resolver=SchemaResolver(SCHEMA, reference=datetime(2019, 3, 1)),
    )
)
kernel = EventKernel(registry, fallback)

for text, payload in [
    ("a full-size car tomorrow, 2 drivers", {"city": "Seattle"}),  # everything readable
    ("a compact on March 5th", {}),  # the city is free text: the fallback fills it
    ("a standard car tomorrow", {"city": "Seattle"}),  # nothing else to read: no LLM
    # Complete, but "3 of us" may set an optional value it cannot read: ask, demand nothing.
    ("a standard car tomorrow for 3 of us", {"city": "Seattle"}),
]:
    print(f"{text!r} + payload {payload}")
    result = kernel.dispatch(Event("rent_car", text=text, payload=payload))
    print(f"  {result.status.value}: {dict(result.arguments or {})}, LLM calls: {result.llm_calls}")
