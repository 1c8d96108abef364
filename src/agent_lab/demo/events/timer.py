"""``set_timer``: a countdown of so many seconds, maybe with a label."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from agent_lab.agents.plugins import Route
from agent_lab.demo.events._common import closed_object
from agent_lab.kernel.models import EventDefinition, Resolution
from agent_lab.resolvers.english import NUMBER, find_duration_seconds

if TYPE_CHECKING:
    from collections.abc import Mapping

    from agent_lab.kernel.models import Event
    from agent_lab.strict_json import JSONObject, JSONValue

__all__ = ["EVENT", "ROUTE", "read_timer", "start_timer"]

_LABEL = re.compile(
    r"\bfor (?:the |my )?([a-z]+(?: [a-z]+)?)\s*$|\b(?:the |my |a |an )?([a-z]+) timer\b", re.I
)
_NOT_LABELS = {"a", "an", "the", "my", "set", "start", "new", "one", "two", "three", "five", "ten", "minute", "hour", "second"}  # fmt: skip


def read_timer(event: Event) -> Resolution:
    """``set a 10 minute timer for the pasta`` -> 600 seconds, label ``pasta``."""
    arguments: JSONObject = {}
    seconds = find_duration_seconds(event.text)
    if seconds is not None:
        arguments["duration_seconds"] = seconds
    for match in _LABEL.finditer(event.text):
        label = (match.group(1) or match.group(2) or "").lower()
        if (
            label
            and label.split()[-1] not in _NOT_LABELS
            and not re.fullmatch(NUMBER, label.split()[0])
            and not re.search(r"\d|minutes?|hours?|seconds?", label)
        ):
            arguments["label"] = label
            break
    return Resolution(arguments)


def start_timer(arguments: Mapping[str, JSONValue]) -> JSONValue:
    """Confirms the countdown."""
    return {
        "started": True,
        "seconds": arguments["duration_seconds"],
        "label": arguments.get("label"),
    }


EVENT = EventDefinition(
    "set_timer",
    description="Start a countdown timer.",
    parameters=closed_object(
        {
            "duration_seconds": {"type": "integer", "minimum": 1, "maximum": 86400},
            "label": {"type": "string", "minLength": 1, "maxLength": 40},
        },
        required=["duration_seconds"],
    ),
    resolver=read_timer,
    handler=start_timer,
)
ROUTE = Route("set_timer", patterns=(r"\btimer\b", r"\bcount ?down\b"))
