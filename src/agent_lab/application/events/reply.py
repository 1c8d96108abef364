"""An event's words for its result, said with no model: a template or a function of the result."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TypeAlias

from agent_lab.strict_json import JSONValue

__all__ = ["Reply", "say"]

Reply: TypeAlias = str | Callable[[JSONValue], str]
"""How an event's result is said: a ``str.format`` template over the result (a JSON
object, its keys the template's fields), or a function of the result."""


def say(reply: Reply | None, result: JSONValue) -> str | None:
    """The words ``reply`` makes of ``result``, or ``None`` when it cannot say it.

    ``None`` for no reply, a template whose fields the result does not hold (or a
    result that is not a JSON object), a function that raises or returns no
    string, and for empty words: the model then phrases the result. Never raises,
    as a resolver's failure is a value, never a crash (K11).
    """
    if reply is None:
        return None
    try:
        if isinstance(reply, str):
            if not isinstance(result, Mapping):
                return None
            said: object = reply.format_map(dict(result))
        else:
            said = reply(result)
    except Exception:  # noqa: BLE001 - a plugin's template or function, whatever it raises
        return None
    return said if isinstance(said, str) and said.strip() else None
