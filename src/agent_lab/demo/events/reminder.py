"""``set_reminder``: a task, a date and a time, read against the clock the case injects."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import TYPE_CHECKING

from agent_lab.agents.plugins import Route
from agent_lab.demo.events._common import DATE, TIME, closed_object, now_of
from agent_lab.kernel.models import EventDefinition, Resolution
from agent_lab.resolvers.english import NUMBER, find_duration_seconds, find_time, relative_date

if TYPE_CHECKING:
    from collections.abc import Mapping

    from agent_lab.kernel.models import Event
    from agent_lab.strict_json import JSONObject, JSONValue

__all__ = ["EVENT", "ROUTE", "read_reminder", "save_reminder"]

_TASK = re.compile(
    r"remind me (?:to |that i need to |that i have to )(.+?)"
    r"(?=\s+(?:at|on|tomorrow|the day after tomorrow|today|tonight|in (?:\w+ ){1,2}(?:minutes?|hours?|days?)|next|this)\b|[.?!]?$)",
    re.I,
)


def read_reminder(event: Event) -> Resolution:
    """``remind me to call mom tomorrow at 5pm`` -> task, date, time (dates against context['now'])."""
    now = now_of(event)
    arguments: JSONObject = {}
    task = _TASK.search(event.text)
    if task:
        arguments["task"] = task.group(1).strip()
    offset = re.search(rf"\bin ({NUMBER}) (minutes?|hours?)\b", event.text, re.I)
    if offset:
        seconds = find_duration_seconds(offset.group(0))
        if seconds:
            moment = now + timedelta(seconds=seconds)
            arguments["date"] = moment.date().isoformat()
            arguments["time"] = moment.strftime("%H:%M")
            return Resolution(arguments)
    day = relative_date(event.text, now)
    time = find_time(event.text)
    if time is not None:
        arguments["time"] = time
        arguments["date"] = (day or now.date()).isoformat()
    elif day is not None:
        arguments["date"] = day.isoformat()
    return Resolution(arguments)


def save_reminder(arguments: Mapping[str, JSONValue]) -> JSONValue:
    """Confirms the reminder."""
    return {"saved": True, "when": f"{arguments['date']}T{arguments['time']}"}


EVENT = EventDefinition(
    "set_reminder",
    description="Remind the user of a task at a date and time.",
    parameters=closed_object(
        {"task": {"type": "string", "minLength": 1}, "date": DATE, "time": TIME},
        required=["task", "date", "time"],
    ),
    resolver=read_reminder,
    handler=save_reminder,
)
ROUTE = Route("set_reminder", patterns=(r"\bremind(?:er)?\b", r"^remind me\b"))
