"""The Chat Completions shape read: messages, the tools offered, a reply's calls and its words.

Every log format ends in this shape, and the gateway reads a client's
request with the same functions. Each part is checked as it is read: one
that cannot be used is a ``LogError`` whose reason a log reader counts (a
gateway forwards the request). Writing the shape, and the one rule that
joins text parts, is ``agent_lab.chat_completions``, on the ground floor.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_lab.chat_completions import content_text, tool_spec
from agent_lab.errors import StrictJSONError
from agent_lab.logs._values import as_list, as_object, fail, json_text
from agent_lab.logs.bounds import (
    MAX_MESSAGES,
    MAX_SCHEMA_VALUES,
    MAX_TOOLS,
    MAX_USER_TEXT,
    schema_values_over,
    user_text_over,
)
from agent_lab.logs.record import LoggedToolCall, SkipReason
from agent_lab.strict_json import loads

if TYPE_CHECKING:
    from agent_lab.strict_json import JSONObject, JSONValue

__all__ = [
    "ROLES",
    "calls_of",
    "checked_call",
    "checked_messages",
    "checked_tools",
    "offered_names",
    "reply_text",
]

ROLES = frozenset({"system", "developer", "user", "assistant", "tool", "function"})
"""The roles a Chat Completions message may have; ``function`` is the legacy tool result."""

_MAX_ARGUMENT_BYTES = 16 << 20


def checked_messages(value: JSONValue | None, where: str) -> tuple[JSONObject, ...]:
    """The messages of a request, each an object with a known role; content a string, parts or null.

    Raises:
        LogError: ``malformed_json`` for a shape that is no list of messages,
            ``unknown_role`` for a role none of ``ROLES``, ``too_large`` for more
            than ``MAX_MESSAGES``.
    """
    messages = as_list(value)
    if messages is None:
        fail(where, SkipReason.MALFORMED_JSON, "messages is not a list")
    if len(messages) > MAX_MESSAGES:
        fail(
            where,
            SkipReason.TOO_LARGE,
            f"too large: {len(messages):,} messages; a request is decided"
            f" on {MAX_MESSAGES:,} at most",
        )
    checked: list[JSONObject] = []
    for index, item in enumerate(messages):
        message = as_object(item)
        if message is None:
            fail(where, SkipReason.MALFORMED_JSON, f"message {index} is not an object")
        role = message.get("role")
        if not isinstance(role, str):
            fail(where, SkipReason.MALFORMED_JSON, f"message {index} has no role")
        if role not in ROLES:
            fail(where, SkipReason.UNKNOWN_ROLE, f"message {index} has the unknown role {role!r}")
        content = message.get("content")
        if content is not None and not isinstance(content, str | list):
            fail(where, SkipReason.MALFORMED_JSON, f"message {index}'s content is {content!r}")
        if user_text_over(message):
            fail(
                where,
                SkipReason.TOO_LARGE,
                f"too large: user message {index} holds more than {MAX_USER_TEXT:,} characters; "
                "a request is decided on shorter ones",
            )
        checked.append(message)
    return tuple(checked)


def _tool(item: JSONValue, index: int, where: str, *, legacy: bool) -> JSONObject:
    tool = as_object(item)
    if tool is None:
        fail(where, SkipReason.BAD_TOOLS, f"tool {index} is not an object")
    if legacy:
        # A legacy ``functions`` entry is the function itself.
        function: JSONObject | None = tool
    else:
        if tool.get("type", "function") != "function":
            fail(where, SkipReason.BAD_TOOLS, f"tool {index} is a {tool.get('type')!r} tool")
        function = as_object(tool.get("function"))
    if function is None:
        fail(where, SkipReason.BAD_TOOLS, f"tool {index} has no function")
    name = function.get("name")
    if not isinstance(name, str) or not name:
        fail(where, SkipReason.BAD_TOOLS, f"tool {index} has no name")
    parameters = function.get("parameters", {"type": "object"})
    if as_object(parameters) is None:
        fail(
            where,
            SkipReason.BAD_TOOLS,
            f"the parameters of tool {name!r} are not a JSON Schema object",
        )
    description = function.get("description")
    return tool_spec(name, parameters, description if isinstance(description, str) else None)


def checked_tools(
    tools: JSONValue | None, where: str, *, functions: JSONValue | None = None
) -> tuple[JSONObject, ...]:
    """The tools offered, as OpenAI function tool specs; the legacy ``functions`` form converted.

    Raises:
        LogError: ``bad_tools`` for a tool that is no function with a name and
            an object schema, or a name offered twice; ``too_large`` past ``MAX_TOOLS``
            tools or ``MAX_SCHEMA_VALUES`` values in their schemas.
    """
    legacy = tools is None and functions is not None
    given = functions if legacy else tools
    if given is None:
        return ()
    items = as_list(given)
    if items is None:
        fail(where, SkipReason.BAD_TOOLS, "the tools are not a list")
    if len(items) > MAX_TOOLS:
        fail(
            where,
            SkipReason.TOO_LARGE,
            f"too large: {len(items):,} tools offered; a request is decided"
            f" on {MAX_TOOLS:,} at most",
        )
    specs = tuple(_tool(item, index, where, legacy=legacy) for index, item in enumerate(items))
    if schema_values_over([_parameters(spec) for spec in specs]):
        fail(
            where,
            SkipReason.TOO_LARGE,
            f"too large: the tools' schemas hold more than {MAX_SCHEMA_VALUES:,} JSON values;"
            " a request is decided on that many at most",
        )
    names = [_name(spec) for spec in specs]
    seen: set[str] = set()
    repeated: set[str] = set()
    for name in names:  # a set, not names.count: 20,000 tools cost 15 s quadratically
        (repeated if name in seen else seen).add(name)
    twice = sorted(repeated)
    if twice:
        fail(where, SkipReason.BAD_TOOLS, f"tools offered twice: {twice}")
    return specs


def _parameters(spec: JSONObject) -> JSONValue:
    function = as_object(spec.get("function"))
    return function.get("parameters") if function else None


def _name(spec: JSONObject) -> str:
    function = as_object(spec.get("function"))
    name = function.get("name") if function else None
    return name if isinstance(name, str) else ""


def checked_call(
    name: JSONValue | None, arguments: JSONValue | None, where: str, offered: frozenset[str]
) -> LoggedToolCall:
    """One call: its name offered, its arguments a JSON object (text parsed strictly, or an object).

    Raises:
        LogError: ``malformed_json`` without a name, ``tool_not_offered``,
            ``arguments_not_json``.
    """
    if not isinstance(name, str) or not name:
        fail(where, SkipReason.MALFORMED_JSON, "a tool call has no function name")
    if name not in offered:
        fail(where, SkipReason.TOOL_NOT_OFFERED, f"the model called {name!r}, not offered")
    if isinstance(arguments, dict):
        return LoggedToolCall(name=name, arguments=arguments, raw=json_text(arguments))
    if not isinstance(arguments, str):
        fail(where, SkipReason.ARGUMENTS_NOT_JSON, f"{name}'s arguments are {arguments!r}")
    try:
        parsed = loads(arguments, max_bytes=_MAX_ARGUMENT_BYTES)
    except StrictJSONError as err:
        fail(where, SkipReason.ARGUMENTS_NOT_JSON, f"{name}'s arguments are not JSON ({err})")
    if not isinstance(parsed, dict):
        fail(where, SkipReason.ARGUMENTS_NOT_JSON, f"{name}'s arguments are not a JSON object")
    return LoggedToolCall(name=name, arguments=parsed, raw=arguments)


def offered_names(tools: tuple[JSONObject, ...]) -> frozenset[str]:
    """The names of the tools offered."""
    return frozenset(_name(spec) for spec in tools)


def calls_of(
    message: JSONObject, where: str, tools: tuple[JSONObject, ...]
) -> tuple[LoggedToolCall, ...]:
    """The calls of an assistant message: its ``tool_calls``, or a legacy ``function_call``.

    Raises:
        LogError: As ``checked_call`` does, and ``malformed_json`` for calls that
            are not a list of function calls.
    """
    offered = offered_names(tools)
    legacy = as_object(message.get("function_call"))
    if legacy is not None and message.get("tool_calls") is None:
        return (checked_call(legacy.get("name"), legacy.get("arguments"), where, offered),)
    given = message.get("tool_calls")
    if given is None:
        return ()
    items = as_list(given)
    if items is None:
        fail(where, SkipReason.MALFORMED_JSON, "tool_calls is not a list")
    calls: list[LoggedToolCall] = []
    for item in items:
        call = as_object(item)
        function = as_object(call.get("function")) if call else None
        if function is None:
            fail(where, SkipReason.MALFORMED_JSON, "a tool call has no function")
        calls.append(checked_call(function.get("name"), function.get("arguments"), where, offered))
    return tuple(calls)


def reply_text(message: JSONObject) -> str | None:
    """What an assistant message wrote: its content as text (``content_text``), if any."""
    return content_text(message.get("content"))
