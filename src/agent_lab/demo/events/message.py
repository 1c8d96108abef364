"""``send_message``: a recipient, the words to send, and the channel the verb names."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from agent_lab.agents.plugins import Route
from agent_lab.demo.events._common import closed_object
from agent_lab.kernel.models import EventDefinition, Resolution

if TYPE_CHECKING:
    from collections.abc import Mapping

    from agent_lab.kernel.models import Event
    from agent_lab.strict_json import JSONObject, JSONValue

__all__ = ["EVENT", "ROUTE", "read_message", "send"]

_MESSAGE = re.compile(
    r"^(?:please )?(?P<verb>text|sms|email|e-mail|message|tell|fax|whatsapp)\s+"
    r"(?P<to>[A-Z][a-z]+)(?:\s+(?:that|saying|to say)|:)\s+(?P<body>.+?)[.!]?$",
)
_CHANNELS = {"text": "sms", "sms": "sms", "email": "email", "e-mail": "email", "message": "chat",
             "tell": "chat", "fax": "fax", "whatsapp": "whatsapp"}  # fmt: skip
_RECIPIENT = re.compile(
    r"^(?:please )?(?:text|sms|email|message|tell|send (?:a message|a text|an email) to)\s+([A-Z][a-z]+)\b"
)


def read_message(event: Event) -> Resolution:
    """``text Anna that I'm running late`` -> to Anna, body, channel sms."""
    arguments: JSONObject = {}
    match = _MESSAGE.search(event.text)
    if match:
        arguments["to"] = match.group("to")
        arguments["body"] = match.group("body")
        arguments["channel"] = _CHANNELS[match.group("verb").lower()]
        return Resolution(arguments)
    recipient = _RECIPIENT.search(event.text)
    if recipient:
        arguments["to"] = recipient.group(1)
    return Resolution(arguments)


def send(arguments: Mapping[str, JSONValue]) -> JSONValue:
    """Confirms the message."""
    return {"sent": True, "to": arguments["to"], "channel": arguments.get("channel", "chat")}


EVENT = EventDefinition(
    "send_message",
    description="Send a message to a contact by sms, email or chat.",
    parameters=closed_object(
        {
            "to": {"type": "string", "minLength": 1},
            "body": {"type": "string", "minLength": 1},
            "channel": {"enum": ["sms", "email", "chat"]},
        },
        required=["to", "body"],
    ),
    resolver=read_message,
    handler=send,
)
ROUTE = Route(
    "send_message",
    patterns=(
        r"^(?:please )?(?:text|sms|email|e-mail|message|fax|whatsapp)\b",
        r"^(?:please )?(?:text|sms|email|e-mail|message|fax|whatsapp|tell) [A-Z][a-z]+(?::| that\b| saying\b)",
        r"^(?:please )?tell (?!me\b)[A-Z]",
        r"\bsend (?:a |an )?(?:message|text|email)\b",
        r"^let [A-Z][a-z]+ know\b",
    ),
)
