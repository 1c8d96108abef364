"""The tool layer: events as LLM tool specs, kernel statuses as tool results (K30)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, TypedDict, assert_never

from agent_lab.errors import WrongTypeError
from agent_lab.kernel.models import EventDefinition, EventResult, Status
from agent_lab.kernel.user_only import USER_ONLY
from agent_lab.strict_json import thaw_json

if TYPE_CHECKING:
    from agent_lab.strict_json import JSONObject, JSONValue

__all__ = [
    "USER_ONLY_NOTE",
    "AnthropicTool",
    "OpenAIFunction",
    "OpenAITool",
    "ToolResult",
    "anthropic_tool",
    "is_retryable",
    "openai_tool",
    "to_tool_result",
    "tool_status",
]


USER_ONLY_NOTE = "Only the user can supply this: if they did not say it, ask them; never guess."
"""Added to the description of a parameter marked ``x-user-only`` in the tool a model sees."""


def _parameters(definition: EventDefinition) -> JSONObject:
    schema = thaw_json(definition.parameters)
    if not isinstance(schema, dict):
        raise WrongTypeError(
            f"event {definition.name!r} has no JSON Schema yet: register it first "
            "(a Pydantic model class is converted at registration)"
        )
    _tell_user_only(schema, 0)
    return schema


def _tell_user_only(schema: JSONObject, depth: int) -> None:
    # The annotation stays (JSON Schema ignores it); a model reads the description.
    properties = schema.get("properties")
    if depth > 32 or not isinstance(properties, dict):
        return
    for sub in properties.values():
        if not isinstance(sub, dict):
            continue
        if sub.get(USER_ONLY) is True:
            said = sub.get("description")
            sub["description"] = (
                f"{said} {USER_ONLY_NOTE}" if isinstance(said, str) else USER_ONLY_NOTE
            )
        _tell_user_only(sub, depth + 1)


class OpenAIFunction(TypedDict):
    """The ``function`` part of an OpenAI tool."""

    name: str
    description: str
    parameters: JSONObject


class OpenAITool(TypedDict):
    """An OpenAI chat-completions tool of type ``function``."""

    type: Literal["function"]
    function: OpenAIFunction


class AnthropicTool(TypedDict):
    """An Anthropic Messages API tool."""

    name: str
    description: str
    input_schema: JSONObject


def openai_tool(definition: EventDefinition) -> OpenAITool:
    """Describe a registered event as an OpenAI function tool (a plain JSON-ready dict)."""
    return {
        "type": "function",
        "function": {
            "name": definition.name,
            "description": definition.description,
            "parameters": _parameters(definition),
        },
    }


def anthropic_tool(definition: EventDefinition) -> AnthropicTool:
    """Describe a registered event as an Anthropic tool (a plain JSON-ready dict)."""
    return {
        "name": definition.name,
        "description": definition.description,
        "input_schema": _parameters(definition),
    }


def tool_status(status: Status) -> str:
    """Map a kernel ``Status`` onto the tool layer's status (total: a new status fails typing)."""
    match status:
        case Status.SUCCESS:
            return "ok"
        case Status.INVALID_ARGUMENTS:
            return "invalid_arguments"
        case Status.MISSING_INFORMATION:
            return "needs_input"
        case Status.FALLBACK_FAILED | Status.DEFINITION_ERROR | Status.HANDLER_ERROR:
            return "error"
        case Status.UNKNOWN_EVENT:
            return "unknown_tool"
        case _:
            assert_never(status)


def is_retryable(status: Status) -> bool:
    """Whether calling the tool again unchanged may succeed: only after a failed LLM fallback."""
    match status:
        case Status.FALLBACK_FAILED:
            return True
        case (
            Status.SUCCESS
            | Status.INVALID_ARGUMENTS
            | Status.MISSING_INFORMATION
            | Status.DEFINITION_ERROR
            | Status.UNKNOWN_EVENT
            | Status.HANDLER_ERROR
        ):
            return False
        case _:
            assert_never(status)


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolResult:
    """A kernel result as an LLM tool layer sees it."""

    status: str
    """``ok``, ``invalid_arguments``, ``needs_input``, ``error`` or ``unknown_tool``."""
    retryable: bool
    """Whether the same call may succeed if repeated."""
    content: str
    """The JSON text the LLM receives as the tool's answer."""


def to_tool_result(result: EventResult) -> ToolResult:
    """Turn a kernel result into the tool's answer.

    A definition error is reported to the model as an internal error without
    detail: the plugin is broken, and nothing the model sends can fix it.
    """
    status = tool_status(result.status)
    body: dict[str, JSONValue] = {"status": status}
    match result.status:
        case Status.SUCCESS:
            body["output"] = result.output
        case Status.INVALID_ARGUMENTS:
            body["errors"] = [
                {"pointer": e.pointer, "keyword": e.keyword, "message": e.message}
                for e in result.errors
            ]
        case Status.MISSING_INFORMATION:
            body["missing"] = list(result.missing)
        case Status.FALLBACK_FAILED | Status.HANDLER_ERROR:
            body["reason"] = result.reason
        case Status.DEFINITION_ERROR:
            body["reason"] = "internal"
        case Status.UNKNOWN_EVENT:
            body["reason"] = f"no tool named {result.event}"
        case _:
            assert_never(result.status)
    return ToolResult(
        status=status,
        retryable=is_retryable(result.status),
        content=json.dumps(body, ensure_ascii=False, separators=(",", ":")),
    )
