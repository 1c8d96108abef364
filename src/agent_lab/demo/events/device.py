"""``control_device``: a smart-home device, on, off or set to a level."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from agent_lab.agents.plugins import Route
from agent_lab.demo.events._common import closed_object
from agent_lab.kernel.models import EventDefinition, Resolution
from agent_lab.resolvers.english import NUMBER, words_to_number

if TYPE_CHECKING:
    from collections.abc import Mapping

    from agent_lab.kernel.models import Event
    from agent_lab.strict_json import JSONObject, JSONValue

__all__ = ["DEVICES", "EVENT", "ROUTE", "operate", "read_device"]

DEVICES = ("living room lights", "bedroom lights", "kitchen lights", "thermostat", "fan", "tv")
"""The devices the assistant controls."""
_DEVICE_WORDS = {
    "living room lights": r"living ?room (?:lights?|lamps?)|lights? in the living ?room",
    "bedroom lights": r"bedroom (?:lights?|lamps?)|lights? in the bedroom",
    "kitchen lights": r"kitchen (?:lights?|lamps?)|lights? in the kitchen",
    "thermostat": r"thermostat|heating",
    "fan": r"\bfan\b",
    "tv": r"\btv\b|\btelevision\b",
}


# The gap between a verb and its particle is bounded (six words, 80 characters):
# an unbounded lazy gap rescanned the rest of the text at every "turn", which was
# quadratic on long text (7.7 s on 160 KiB).
_GAP = r"(?:\w+ ){0,6}?"
_ON = re.compile(rf"\b(?:turn|switch|put) {_GAP}on\b|\bon the\b")
_OFF = re.compile(rf"\b(?:turn|switch|shut) {_GAP}off\b")
_LEVEL = re.compile(rf"\b(?:set|turn|put) .{{0,80}}?\bto ({NUMBER})\b")


def read_device(event: Event) -> Resolution:
    """``turn off the kitchen lights``, ``set the thermostat to 21``."""
    text = event.text.lower()
    arguments: JSONObject = {}
    for device, pattern in _DEVICE_WORDS.items():
        if re.search(pattern, text):
            arguments["device"] = device
            break
    if _ON.search(text) and "set" not in text:
        arguments["action"] = "on"
    if _OFF.search(text):
        arguments["action"] = "off"
    level = _LEVEL.search(text)
    if level:
        value = words_to_number(level.group(1))
        if value is not None:
            arguments["action"] = "set"
            arguments["value"] = int(value) if value == int(value) else value
    return Resolution(arguments)


def operate(arguments: Mapping[str, JSONValue]) -> JSONValue:
    """Confirms the device change."""
    return {"device": arguments["device"], "state": arguments.get("value", arguments["action"])}


EVENT = EventDefinition(
    "control_device",
    description="Turn a smart-home device on or off, or set its level.",
    parameters={
        **closed_object(
            {
                "device": {"enum": list(DEVICES)},
                "action": {"enum": ["on", "off", "set"]},
                "value": {"type": "number"},
            },
            required=["device", "action"],
        ),
        # The thermostat's level is degrees; every other level is a percentage.
        "if": {"properties": {"device": {"const": "thermostat"}}, "required": ["device"]},
        "then": {"properties": {"value": {"minimum": 10, "maximum": 30}}},
        "else": {"properties": {"value": {"minimum": 0, "maximum": 100}}},
    },
    resolver=read_device,
    handler=operate,
)
ROUTE = Route(
    "control_device",
    patterns=(rf"\b(?:turn|switch|shut) {_GAP}(?:on|off)\b", r"\bthermostat\b", r"\blights?\b", r"\btoo (?:dark|bright|hot|cold)\b"),
    keywords=("fan", "tv", "heating"),
)  # fmt: skip
