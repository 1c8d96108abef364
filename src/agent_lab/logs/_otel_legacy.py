"""The older ways GenAI spans carried content: span events, and OpenLLMetry's indexed attributes.

* Span events of the GenAI semantic conventions v1.28.0 to v1.36.0:
  ``gen_ai.system.message``, ``gen_ai.user.message``,
  ``gen_ai.assistant.message`` (``content``, ``tool_calls``),
  ``gen_ai.tool.message`` (``content``, ``id``) and ``gen_ai.choice``
  (``index``, ``message``). The body is read from the event's
  ``gen_ai.event.content`` attribute (JSON text, as the Azure AI SDKs write
  it) or, without one, from the event's own attributes.
* Span events of v1.26.0 and v1.27.0: ``gen_ai.content.prompt`` with the
  ``gen_ai.prompt`` attribute, ``gen_ai.content.completion`` with
  ``gen_ai.completion``, each the messages as JSON text.
* OpenLLMetry's indexed attributes (its own, never in the conventions):
  ``gen_ai.prompt.N.role``/``.content``/``.tool_call_id``/``.tool_calls.M.*``,
  ``gen_ai.completion.N.*`` and ``llm.request.functions.N.name``/
  ``.description``/``.parameters`` for the tools.

Each gives the messages sent and the answer (choice 0) in the Chat
Completions form, or ``None`` when the span holds none of it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_lab.logs._values import as_list, as_object, json_text, parse
from agent_lab.strict_json import JSONObject

if TYPE_CHECKING:
    from agent_lab.logs._otlp import SpanEvent
    from agent_lab.strict_json import JSONValue

__all__ = ["Content", "from_content_events", "from_events", "from_indexed", "indexed_tools"]

Content = tuple[list[JSONObject], JSONObject | None]
"""The messages sent, and the answer (``None`` when the span records none)."""

_EVENT_ROLES = {
    "gen_ai.system.message": "system",
    "gen_ai.user.message": "user",
    "gen_ai.assistant.message": "assistant",
    "gen_ai.tool.message": "tool",
}


def _decoded(value: JSONValue | None, where: str, what: str) -> JSONValue | None:
    return parse(value, where, what) if isinstance(value, str) else value


def _history_calls(value: JSONValue | None, where: str) -> list[JSONValue]:
    """Tool calls as Chat Completions wants them in history: arguments as JSON text."""
    calls: list[JSONValue] = []
    for item in as_list(_decoded(value, where, "tool_calls")) or []:
        call = as_object(item)
        function = as_object(call.get("function")) if call else None
        if call is None or function is None:
            calls.append(item)
            continue
        arguments = function.get("arguments")
        if isinstance(arguments, dict | list):
            function = {**function, "arguments": json_text(arguments)}
        calls.append({**call, "function": function})
    return calls


def _event_body(event: SpanEvent, where: str) -> JSONObject:
    given = event.attributes.get("gen_ai.event.content")
    if given is not None:
        return as_object(_decoded(given, where, f"{event.name}'s content")) or {}
    return event.attributes


def _message(role: str, body: JSONObject, where: str) -> JSONObject:
    message: JSONObject = {"role": body.get("role", role), "content": body.get("content")}
    if "tool_calls" in body:
        message["tool_calls"] = _history_calls(body.get("tool_calls"), where)
    if role == "tool" and "id" in body:
        message["tool_call_id"] = body.get("id")
    return message


def from_events(events: tuple[SpanEvent, ...], where: str) -> Content | None:
    """Messages and answer from v1.28.0 to v1.36.0 span events, or ``None`` without any."""
    messages: list[JSONObject] = []
    answer: JSONObject | None = None
    seen = False
    for event in events:
        if event.name in _EVENT_ROLES:
            seen = True
            body = _event_body(event, where)
            messages.append(_message(_EVENT_ROLES[event.name], body, where))
        elif event.name == "gen_ai.choice":
            seen = True
            body = _event_body(event, where)
            index = body.get("index", 0)
            if answer is None and index in (0, "0"):
                answer = as_object(_decoded(body.get("message"), where, "the choice")) or {}
                answer = {"role": "assistant", **answer}
    return (messages, answer) if seen else None


def from_content_events(events: tuple[SpanEvent, ...], where: str) -> Content | None:
    """Messages and answer from v1.26.0/v1.27.0 ``gen_ai.content.*`` events, or ``None``."""
    prompt = next((e for e in events if e.name == "gen_ai.content.prompt"), None)
    completion = next((e for e in events if e.name == "gen_ai.content.completion"), None)
    if prompt is None and completion is None:
        return None
    sent = prompt.attributes.get("gen_ai.prompt") if prompt else None
    messages = as_list(_decoded(sent, where, "gen_ai.prompt")) or []
    answer: JSONObject | None = None
    if completion is not None:
        said = _decoded(completion.attributes.get("gen_ai.completion"), where, "gen_ai.completion")
        first = (as_list(said) or [None])[0]
        found = as_object(first)
        # A list of messages, or of choices that hold one.
        message = as_object(found.get("message")) if found and "message" in found else found
        answer = {"role": "assistant", **message} if message is not None else None
    return [m for item in messages if (m := as_object(item)) is not None], answer


def _indexed_calls(attributes: JSONObject, prefix: str) -> list[JSONValue]:
    calls: list[JSONValue] = []
    while f"{prefix}.tool_calls.{len(calls)}.name" in attributes:
        at = f"{prefix}.tool_calls.{len(calls)}"
        call: JSONObject = {
            "type": "function",
            "function": {
                "name": attributes.get(f"{at}.name"),
                "arguments": attributes.get(f"{at}.arguments"),
            },
        }
        if f"{at}.id" in attributes:
            call["id"] = attributes.get(f"{at}.id")
        calls.append(call)
    return calls


def _indexed_message(attributes: JSONObject, prefix: str, role: str) -> JSONObject:
    message: JSONObject = {
        "role": attributes.get(f"{prefix}.role", role),
        "content": attributes.get(f"{prefix}.content"),
    }
    calls = _indexed_calls(attributes, prefix)
    if calls:
        message["tool_calls"] = calls
    if f"{prefix}.tool_call_id" in attributes:
        message["tool_call_id"] = attributes.get(f"{prefix}.tool_call_id")
    return message


def _has(attributes: JSONObject, prefix: str) -> bool:
    return any(f"{prefix}.{key}" in attributes for key in ("role", "content", "tool_calls.0.name"))


def from_indexed(attributes: JSONObject) -> Content | None:
    """Messages and answer from OpenLLMetry's ``gen_ai.prompt.N.*`` attributes, or ``None``."""
    messages: list[JSONObject] = []
    while _has(attributes, f"gen_ai.prompt.{len(messages)}"):
        messages.append(_indexed_message(attributes, f"gen_ai.prompt.{len(messages)}", "user"))
    answer = (
        _indexed_message(attributes, "gen_ai.completion.0", "assistant")
        if _has(attributes, "gen_ai.completion.0")
        else None
    )
    if not messages and answer is None:
        return None
    return messages, answer


def indexed_tools(attributes: JSONObject, where: str) -> list[JSONValue] | None:
    """OpenLLMetry's ``llm.request.functions.N.*`` as OpenAI tool specs, or ``None`` without any."""
    tools: list[JSONValue] = []
    while f"llm.request.functions.{len(tools)}.name" in attributes:
        at = f"llm.request.functions.{len(tools)}"
        function: JSONObject = {"name": attributes.get(f"{at}.name")}
        if isinstance(attributes.get(f"{at}.description"), str):
            function["description"] = attributes.get(f"{at}.description")
        parameters = _decoded(attributes.get(f"{at}.parameters"), where, f"{at}.parameters")
        if parameters is not None:
            function["parameters"] = parameters
        tools.append({"type": "function", "function": function})
    return tools or None
