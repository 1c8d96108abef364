"""``get_weather``: a city, and how many days ahead."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from agent_lab.agents.plugins import Route
from agent_lab.demo.events._common import closed_object, now_of
from agent_lab.kernel.models import EventDefinition, Resolution
from agent_lab.resolvers.english import WEEKDAYS, relative_date

if TYPE_CHECKING:
    from collections.abc import Mapping

    from agent_lab.kernel.models import Event
    from agent_lab.strict_json import JSONObject, JSONValue

__all__ = ["EVENT", "ROUTE", "forecast", "read_weather"]

_CITY = re.compile(r"\b(?:in|for|at|over) ((?:[A-Z][a-z]+)(?: [A-Z][a-z]+)?)")


def read_weather(event: Event) -> Resolution:
    """``weather in Oslo tomorrow`` -> city, day_offset 1."""
    now = now_of(event)
    arguments: JSONObject = {}
    city = _CITY.search(event.text)
    # "in Friday" names a day, not a city.
    if city and city.group(1).lower() not in WEEKDAYS:
        arguments["city"] = city.group(1)
    day = relative_date(event.text, now)
    if day is not None:
        arguments["day_offset"] = (day - now.date()).days
    return Resolution(arguments)


def forecast(arguments: Mapping[str, JSONValue]) -> JSONValue:
    """A made-up but deterministic forecast."""
    city = str(arguments["city"])
    return {"city": city, "day_offset": arguments.get("day_offset", 0), "high_c": 5 + len(city) % 7}


EVENT = EventDefinition(
    "get_weather",
    description="Weather forecast for a city, today (day_offset 0) or up to 6 days ahead.",
    parameters=closed_object(
        {
            "city": {"type": "string", "minLength": 1},
            "day_offset": {"type": "integer", "minimum": 0, "maximum": 6},
        },
        required=["city"],
    ),
    resolver=read_weather,
    handler=forecast,
)
ROUTE = Route("get_weather", patterns=(r"\bweather\b", r"\bforecast\b"), keywords=("rain", "sunny", "snow", "umbrella"))  # fmt: skip
