"""Tool choice asked as structured output, for models and servers without tool calling.

One schema accepts ``{"name": <tool>, "arguments": ...}`` for every tool, or
``{"name": "none"}``; a menu in the prompt says what each tool does. The
embedded model always chooses this way (its grammar enforces the schema); an
OpenAI-compatible server under ``structured_output="auto"`` does when it
ignores ``tools`` (llama-cpp-python's server with a plain chat format).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, cast

from agent_lab.agents.port import Message, ProviderReply, ProviderRequest, ToolCall

if TYPE_CHECKING:
    from agent_lab.strict_json import JSONObject, JSONValue

__all__ = [
    "NONE_TOOL",
    "arguments_text",
    "as_choice",
    "as_json_request",
    "choice_schema",
    "menu",
    "parse_or_none",
]

NONE_TOOL = "none"
"""The name the model picks when no tool fits."""


def menu(tools: tuple[JSONObject, ...]) -> str:
    """The tools by name and description, for the prompt."""
    lines = ['Functions (answer {"name": "none"} if none fits):']
    for tool in tools:
        function: Any = tool.get("function")
        if isinstance(function, dict):
            spec = cast("dict[str, Any]", function)
            lines.append(f"- {spec.get('name')}: {spec.get('description', '')}")
    return "\n".join(lines)


def choice_schema(tools: tuple[JSONObject, ...]) -> JSONObject:
    """The schema of a choice among ``tools``: a name and its arguments, or ``none``."""
    options: list[JSONValue] = []
    for tool in tools:
        function: Any = tool.get("function")
        if not isinstance(function, dict):
            continue
        spec: dict[str, JSONValue] = function  # pyright: ignore[reportUnknownVariableType]
        options.append(
            {
                "type": "object",
                "properties": {
                    "name": {"const": spec.get("name")},
                    "arguments": spec.get("parameters", {"type": "object"}),
                },
                "required": ["name", "arguments"],
                "additionalProperties": False,
            }
        )
    options.append(
        {
            "type": "object",
            "properties": {"name": {"const": NONE_TOOL}},
            "required": ["name"],
            "additionalProperties": False,
        }
    )
    return {"anyOf": options}


def as_json_request(request: ProviderRequest) -> ProviderRequest:
    """A tool-choice request as a structured-output one: the menu after the first message."""
    messages = list(request.messages)
    messages.insert(1, Message("system", menu(request.tools)))
    return ProviderRequest(
        purpose="fallback",
        messages=tuple(messages),
        model=request.model,
        response_schema=choice_schema(request.tools),
        schema_name="tool_choice",
        max_tokens=request.max_tokens,
        temperature=request.temperature,
        seed=request.seed,
        context=request.context,
    )


def as_choice(reply: ProviderReply) -> ProviderReply:
    """A reply to ``as_json_request`` as a tool-choice reply: a call, or text for ``none``."""
    if not reply.ok or reply.text is None:
        return reply
    parsed = reply.parsed
    name = parsed.get("name") if isinstance(parsed, dict) else None
    if not isinstance(name, str) or name == NONE_TOOL:
        return ProviderReply(
            text=reply.text,
            usage=reply.usage,
            latency_ns=reply.latency_ns,
            finish_reason=reply.finish_reason,
        )
    raw_arguments = arguments_text(reply.text) or "{}"
    call = ToolCall(name=name, arguments_raw=raw_arguments, arguments=parse_or_none(raw_arguments))
    return ProviderReply(
        tool_calls=(call,),
        usage=reply.usage,
        latency_ns=reply.latency_ns,
        finish_reason=reply.finish_reason,
    )


def arguments_text(content: str) -> str | None:
    """The raw text of the ``arguments`` value inside ``{"name": ..., "arguments": ...}``.

    Kept raw, not re-serialised, so that the kernel audits what the model wrote (K17).
    """
    decoder = json.JSONDecoder()
    key = content.find('"arguments"')
    if key < 0:
        return None
    colon = content.find(":", key + len('"arguments"'))
    start = colon + 1
    while start < len(content) and content[start] in " \t\r\n":
        start += 1
    try:
        _, end = decoder.raw_decode(content, start)
    except ValueError:
        return None
    return content[start:end]


def parse_or_none(text: str) -> JSONValue | None:
    """``text`` as JSON, or ``None`` when it is not JSON."""
    try:
        value: JSONValue = json.loads(text)
    except ValueError:
        return None
    return value
