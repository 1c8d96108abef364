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

__all__ = ["MAX_MESSAGES", "MAX_SCHEMA_VALUES", "MAX_TOOLS", "schema_values_over"]

MAX_TOOLS = 128
"""Tools offered in one request: the API's own limit."""
MAX_MESSAGES = 1_000
"""Messages in one request's conversation."""
MAX_SCHEMA_VALUES = 20_000
"""JSON values (objects, arrays, strings, numbers...) in all the offered tools' schemas together."""


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
