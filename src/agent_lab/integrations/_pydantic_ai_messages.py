"""Pydantic AI's requests and responses, to and from what the envelope and the shadow read.

The history and tool definitions become Chat Completions messages and tool
specs: the words of each part, the tool calls with their ids, the tool
results, in the order the model is sent them. Parts with no words for it
(thinking, files, native tools, the framework's own bookkeeping) are left
out. A request becomes the envelope's ``Asked`` (``asked_of``), or ``None``
when it is the model's whatever plain code decides; a model's response
becomes the ``ModelAnswer`` shadow mode logs (``model_answer``).
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

from agent_lab.agents.tool_specs import tool_name
from agent_lab.answering import Asked
from agent_lab.chat_completions import (
    FunctionCall,
    assistant_message,
    joined_text,
    text_part,
    tool_spec,
)
from agent_lab.integrations._shadow import ModelAnswer

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage
    from pydantic_ai.models import ModelRequestParameters
    from pydantic_ai.settings import ModelSettings

    from agent_lab.answering import ToolChoiceMode
    from agent_lab.strict_json import JSONObject, JSONValue

__all__ = [
    "ChatRequest",
    "asked_of",
    "chat_messages",
    "chat_request_of",
    "model_answer",
    "tool_choice_of",
    "tool_specs",
]

_RETRIES = frozenset({"retry-prompt", "retry-feedback"})
"""Parts that ask the model to try again: the model's turn, never plain code's."""
_TEXT_OUTPUT = frozenset({"text", "tool"})
"""Output modes in which plain text is the run's output (``str``, or ``str`` among tool outputs)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ChatRequest:
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


def chat_request_of(
    messages: Sequence[ModelMessage], parameters: ModelRequestParameters
) -> ChatRequest:
    """The converted request, and whether plain code may answer it (a user turn or a follow-up)."""
    chat = chat_messages(messages)
    tools = tool_specs(parameters)
    last = messages[-1] if messages else None
    if not isinstance(last, ModelRequest):
        return ChatRequest(
            messages=chat, tools=tools, user_turn=False, follow_up=False, retry=False
        )
    kinds = [part.part_kind for part in last.parts]
    returns = [part for part in last.parts if isinstance(part, ToolReturnPart)]
    retry = any(kind in _RETRIES for kind in kinds) or any(
        getattr(part, "outcome", "success") != "success" for part in returns
    )
    follow_up = bool(returns) and not retry and "user-prompt" not in kinds
    user_turn = (
        "user-prompt" in kinds and not returns and not retry and not _answers_own_run(messages)
    )
    return ChatRequest(
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


def tool_choice_of(
    settings: ModelSettings | None, tools: Sequence[JSONObject]
) -> tuple[ToolChoiceMode, str | None] | None:
    """The request's ``tool_choice`` as the envelope reads it, and the one tool it names.

    Unset or ``auto``; ``required``; ``none`` (or ``[]``); a list naming one function
    tool: that tool, ``required``. ``None`` for a choice plain code cannot obey as
    such (several tools named, an output tool named, ``ToolOrOutput``).
    """
    choice = (settings or {}).get("tool_choice")
    if choice is None or choice == "auto":
        return "auto", None
    if choice in ("none", []):
        return "none", None
    if choice == "required":
        return "required", None
    offered = {tool_name(tool) for tool in tools}
    if isinstance(choice, list) and len(choice) == 1 and choice[0] in offered:
        return "required", choice[0]
    return None


def asked_of(
    exchange: ChatRequest, settings: ModelSettings | None, parameters: ModelRequestParameters
) -> Asked | None:
    """The request as the envelope asks it, or ``None``: the model's whatever plain code decides.

    Only the user's new words and the successful results of calls are plain code's
    to answer (a retry, or a request after the run's own response, never is). Words
    may end the turn only when plain text is the run's output: structured output is
    the model's to give.
    """
    if not (exchange.user_turn or exchange.follow_up):
        return None
    chosen = tool_choice_of(settings, exchange.tools)
    if chosen is None:
        return None
    return Asked(
        messages=exchange.messages,
        tools=exchange.tools,
        tool_choice=chosen[0],
        forced=chosen[1],
        at_most_one=(settings or {}).get("parallel_tool_calls") is False,
        words=parameters.allow_text_output and parameters.output_mode in _TEXT_OUTPUT,
    )


def model_answer(response: ModelResponse, tools: Sequence[JSONObject]) -> ModelAnswer:
    """What the wrapped model answered, as shadow mode logs it.

    A call of an output tool is the run's output, not a tool call: no call, for the replay.
    """
    offered = {tool_name(tool) for tool in tools}
    calls = tuple(
        FunctionCall(id=part.tool_call_id, name=part.tool_name, arguments=part.args_as_json_str())
        for part in response.parts
        if isinstance(part, ToolCallPart) and part.tool_name in offered
    )
    usage = response.usage
    return ModelAnswer(
        calls=calls,
        text=joined_text(part.content for part in response.parts if isinstance(part, TextPart)),
        prompt_tokens=usage.input_tokens,
        completion_tokens=usage.output_tokens,
        cached_tokens=usage.cache_read_tokens,
        model=response.model_name,
        timestamp=response.timestamp.isoformat(),
    )
