"""Pydantic AI's message history and tool definitions, as Chat Completions messages and tool specs.

What ``decide`` and log replay read: the words of each part, the tool calls
with their ids, the tool results, in the order the model is sent them. Parts
with no words for it (thinking, files, native tools, the framework's own
bookkeeping) are left out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from pydantic_ai.messages import (
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from agent_lab.chat_completions import (
    FunctionCall,
    assistant_message,
    joined_text,
    text_part,
    tool_spec,
)

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage
    from pydantic_ai.models import ModelRequestParameters

    from agent_lab.strict_json import JSONObject, JSONValue

__all__ = ["Exchange", "chat_messages", "exchange_of", "tool_specs"]

_RETRIES = frozenset({"retry-prompt", "retry-feedback"})
"""Parts that ask the model to try again: the model's turn, never plain code's."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Exchange:
    """The request as Chat Completions sees it, and what kind of turn it ends with."""

    messages: tuple[JSONObject, ...]
    tools: tuple[JSONObject, ...]
    """The function tools as OpenAI tool specs (output tools are not among them)."""
    user_turn: bool
    """The last request holds the user's new words (not a retry, not tool results)."""
    follow_up: bool
    """The last request holds only tool results, every one a success."""
    retry: bool
    """The last request asks the model to try again (a failed tool, invalid output)."""


def exchange_of(messages: Sequence[ModelMessage], parameters: ModelRequestParameters) -> Exchange:
    """The converted request, and whether plain code may answer it (a user turn or a follow-up)."""
    chat = chat_messages(messages)
    tools = tool_specs(parameters)
    last = messages[-1] if messages else None
    if not isinstance(last, ModelRequest):
        return Exchange(messages=chat, tools=tools, user_turn=False, follow_up=False, retry=False)
    kinds = [part.part_kind for part in last.parts]
    returns = [part for part in last.parts if isinstance(part, ToolReturnPart)]
    retry = any(kind in _RETRIES for kind in kinds) or any(
        getattr(part, "outcome", "success") != "success" for part in returns
    )
    follow_up = bool(returns) and not retry and "user-prompt" not in kinds
    user_turn = (
        "user-prompt" in kinds and not returns and not retry and not _answers_own_run(messages)
    )
    return Exchange(
        messages=chat, tools=tools, user_turn=user_turn, follow_up=follow_up, retry=retry
    )


def _answers_own_run(messages: Sequence[ModelMessage]) -> bool:
    # Within one run, a request after a response is tool results or the framework's
    # retry feedback (sent in the user's voice once prepared): never new words of the user.
    if len(messages) < 2:
        return False
    request, response = messages[-1], messages[-2]
    run = getattr(request, "run_id", None)
    return (
        isinstance(response, ModelResponse)
        and run is not None
        and getattr(response, "run_id", None) == run
    )


def tool_specs(parameters: ModelRequestParameters) -> tuple[JSONObject, ...]:
    """The request's function tools as OpenAI tool specs; output tools are never among them."""
    return tuple(
        tool_spec(
            tool.name,
            cast("JSONObject", dict(tool.parameters_json_schema)),
            tool.description or None,
        )
        for tool in parameters.function_tools
    )


def chat_messages(messages: Sequence[ModelMessage]) -> tuple[JSONObject, ...]:
    """The history as Chat Completions messages: system, user, assistant (with calls), tool."""
    chat: list[JSONObject] = []
    instructions = next(
        (m.instructions for m in reversed(messages) if isinstance(m, ModelRequest)), None
    )
    if instructions:
        chat.append({"role": "system", "content": instructions})
    for message in messages:
        if isinstance(message, ModelRequest):
            chat.extend(_request(message))
        else:
            chat.extend(_response(message))
    return tuple(chat)


def _request(message: ModelRequest) -> list[JSONObject]:
    converted: list[JSONObject] = []
    for part in message.parts:
        if isinstance(part, SystemPromptPart):
            converted.append({"role": "system", "content": part.content})
        elif isinstance(part, UserPromptPart):
            converted.append({"role": "user", "content": _user_content(part.content)})
        elif isinstance(part, ToolReturnPart):
            converted.append(
                {
                    "role": "tool",
                    "tool_call_id": part.tool_call_id,
                    "content": part.model_response_str(),
                }
            )
        elif part.part_kind in _RETRIES:
            converted.append(_retry(part))
    return converted


def _retry(part: object) -> JSONObject:
    words = getattr(part, "model_response", None)
    text = words() if callable(words) else ""
    call_id = getattr(part, "tool_call_id", None)
    if getattr(part, "tool_name", None) and isinstance(call_id, str):
        return {"role": "tool", "tool_call_id": call_id, "content": str(text)}
    return {"role": "user", "content": str(text)}


def _user_content(content: object) -> JSONValue:
    if isinstance(content, str):
        return content
    items: list[JSONValue] = []
    for item in cast("Sequence[object]", content) if isinstance(content, Sequence) else ():
        if not isinstance(item, str) and getattr(item, "kind", None) != "text-content":
            # An image, a file, audio, a cache point: the resolvers read words only.
            continue
        text = item if isinstance(item, str) else getattr(item, "content", None)
        if isinstance(text, str):
            items.append(text_part(text))
    return items


def _response(message: ModelResponse) -> list[JSONObject]:
    texts = [part.content for part in message.parts if isinstance(part, TextPart)]
    calls = [
        FunctionCall(id=part.tool_call_id, name=part.tool_name, arguments=part.args_as_json_str())
        for part in message.parts
        if isinstance(part, ToolCallPart)
    ]
    if not texts and not calls:
        return []
    return [assistant_message(joined_text(texts), calls)]
