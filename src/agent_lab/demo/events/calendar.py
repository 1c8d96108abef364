"""``create_event``: a calendar entry's title, date, time and length."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from agent_lab.agents.plugins import Route
from agent_lab.demo.events._common import DATE, TIME, closed_object, now_of
from agent_lab.kernel.models import EventDefinition, Resolution
from agent_lab.resolvers.english import NUMBER, find_duration_seconds, find_time, relative_date

if TYPE_CHECKING:
    from collections.abc import Mapping

    from agent_lab.kernel.models import Event
    from agent_lab.strict_json import JSONObject, JSONValue

__all__ = ["EVENT", "ROUTE", "add_to_calendar", "read_calendar"]

_TITLE = re.compile(
    r"(?:schedule|add|book|put|create)(?: me)? (?:a |an |the |my )?(.+?)"
    r"(?=\s+(?:on|for|at|tomorrow|today|tonight|in \w+ days?|next|this)\b|[.?!]?$)",
    re.I,
)
_EVENT_LENGTH = re.compile(rf"\bfor ({NUMBER}|an|a) (minutes?|hours?)\b", re.I)


def read_calendar(event: Event) -> Resolution:
    """``schedule a dentist appointment next monday at 10am for 45 minutes``."""
    now = now_of(event)
    arguments: JSONObject = {}
    title = _TITLE.search(event.text)
    if title:
        words = re.sub(
            r"\s+(?:in|on)\s+(?:my|the)\s+calendar$", "", title.group(1).strip(), flags=re.I
        )
        arguments["title"] = words
    day = relative_date(event.text, now)
    if day is not None:
        arguments["date"] = day.isoformat()
    time = find_time(event.text)
    if time is not None:
        arguments["time"] = time
    length = _EVENT_LENGTH.search(event.text)
    if length:
        seconds = find_duration_seconds(length.group(0).removeprefix("for "))
        if seconds:
            arguments["duration_minutes"] = seconds // 60
    return Resolution(arguments)


def add_to_calendar(arguments: Mapping[str, JSONValue]) -> JSONValue:
    """Confirms the calendar entry."""
    return {
        "created": True,
        "title": arguments["title"],
        "start": f"{arguments['date']}T{arguments['time']}",
    }


EVENT = EventDefinition(
    "create_event",
    description="Add an event to the calendar.",
    parameters=closed_object(
        {
            "title": {"type": "string", "minLength": 1},
            "date": DATE,
            "time": TIME,
            "duration_minutes": {"type": "integer", "minimum": 5, "maximum": 480},
        },
        required=["title", "date", "time"],
    ),
    resolver=read_calendar,
    handler=add_to_calendar,
)
ROUTE = Route("create_event", patterns=(r"\b(?:schedule|calendar|appointment|meeting)\b",), keywords=("book",))  # fmt: skip
