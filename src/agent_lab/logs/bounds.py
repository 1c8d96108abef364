"""The most of one request that log replay and the gateway decide on.

A request past a bound is not decided: the gateway forwards it undecided
(counted in ``/metrics``), log replay skips it as ``too_large`` (counted, or
refused with its line). The bounds keep the work per request bounded
whatever a client or a log holds; they sit far above what an assistant
sends (the Chat Completions API itself takes at most 128 tools).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent_lab.strict_json import JSONValue

__all__ = [
    "MAX_MESSAGES",
    "MAX_SCHEMA_VALUES",
    "MAX_TOOLS",
    "MAX_USER_TEXT",
    "schema_values_over",
    "user_text_over",
]

MAX_TOOLS = 128
"""Tools offered in one request: the API's own limit."""
MAX_MESSAGES = 1_000
"""Messages in one request's conversation."""
MAX_SCHEMA_VALUES = 20_000
"""JSON values (objects, arrays, strings, numbers...) in all the offered tools' schemas together."""
MAX_USER_TEXT = 16_384
"""Characters in one user message: what the resolvers read, whose cost grows with the schemas'
(a pasted document is the model's to read)."""


def user_text_over(message: JSONValue, limit: int = MAX_USER_TEXT) -> bool:
    """Whether a user message holds more than ``limit`` characters of text (its parts together)."""
    if not isinstance(message, dict) or message.get("role") != "user":
        return False
    content = message.get("content")
    if isinstance(content, str):
        return len(content) > limit
    if not isinstance(content, list):
        return False
    size = 0
    for part in content:
        text = part.get("text") if isinstance(part, dict) else None
        size += len(text) if isinstance(text, str) else 0
    return size > limit


def schema_values_over(schemas: list[JSONValue], limit: int = MAX_SCHEMA_VALUES) -> bool:
    """Whether ``schemas`` hold more than ``limit`` JSON values; stops counting past it."""
    stack = list(schemas)
    seen = 0
    while stack:
        value = stack.pop()
        seen += 1
        if seen > limit:
            return True
        if isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    return False
