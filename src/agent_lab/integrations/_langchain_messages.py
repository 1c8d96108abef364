"""LangChain's messages, to and from what the envelope reads: Chat Completions messages and answers.

Each way across: the messages a chat model is called with become Chat
Completions messages (LangChain's own ``convert_to_openai_messages``) and,
with what ``bind_tools`` bound (``binding_choice``), the envelope's ``Asked``
(``asked_of``); a model's ``AIMessage`` becomes the ``ModelAnswer`` shadow
mode logs; and a local answer becomes the ``AIMessage`` (or, streamed, the
one ``AIMessageChunk``) a model would have returned, with zero usage and its
ledger in ``response_metadata``.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, cast

from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    ToolCall,
    ToolCallChunk,
    ToolMessage,
    convert_to_openai_messages,
)

from agent_lab.agents.tool_specs import tool_name
from agent_lab.answering import Asked
from agent_lab.chat_completions import FunctionCall, content_text
from agent_lab.integrations._shadow import ModelAnswer

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from langchain_core.messages import BaseMessage
    from langchain_core.messages.ai import UsageMetadata

    from agent_lab.answering import LocalAnswer, ToolChoiceMode

__all__ = [
    "LOCAL_MODEL",
    "asked_of",
    "binding_choice",
    "chat_messages",
    "local_chunk",
    "local_message",
    "model_answer",
    "tool_results",
]

LOCAL_MODEL = "agent-lab"
"""``response_metadata["model_name"]`` of a local answer: plain code, not a model."""


def chat_messages(messages: Sequence[BaseMessage]) -> list[dict[str, Any]]:
    """The messages as Chat Completions messages: a string content a string, parts kept as parts.

    LangChain's converter would join a list of text parts with line breaks; kept
    apart, they are read by the one rule (``chat_completions.content_text``).
    """
    converted: list[dict[str, Any]] = []
    for message in messages:
        kept = "string" if isinstance(message.content, str) else "block"
        converted.extend(convert_to_openai_messages([message], text_format=kept))
    return converted


def binding_choice(
    tool_choice: object, specs: Sequence[Mapping[str, object]]
) -> tuple[ToolChoiceMode, str | None] | None:
    """``bind_tools``' ``tool_choice`` as the envelope reads it, and the one tool it names.

    Unset, ``False`` or ``auto``; ``any``, ``required`` or ``True``: ``required``;
    ``none``; a function tool's name (or ``{"type": "function", "function": {"name"}}``):
    that tool, ``required``. ``None`` when the binding leaves every turn to the model:
    a tool that is not a function (a provider's own), a choice naming no tool bound.
    """
    names = {tool_name(spec) for spec in specs}
    if None in names:
        return None
    if tool_choice is None or tool_choice is False or tool_choice == "auto":
        return "auto", None
    if tool_choice is True or tool_choice in ("any", "required"):
        return "required", None
    if tool_choice == "none":
        return "none", None
    named = tool_choice if isinstance(tool_choice, str) else _function_named(tool_choice)
    return ("required", named) if named is not None and named in names else None


def _function_named(choice: object) -> str | None:
    if not isinstance(choice, dict):
        return None
    function = cast("dict[str, object]", choice).get("function")
    name = cast("dict[str, object]", function).get("name") if isinstance(function, dict) else None
    return name if isinstance(name, str) else None


def asked_of(
    messages: Sequence[BaseMessage],
    tools: Sequence[Mapping[str, object]],
    choice: tuple[ToolChoiceMode, str | None] | None,
    *,
    at_most_one: bool,
    words: bool,
) -> Asked | None:
    """The call as the envelope asks it, or ``None``: the model's whatever plain code decides.

    ``None`` with no tools bound, a binding the envelope cannot obey (``binding_choice``),
    or a tool result that reports an error (``status="error"``): the model explains it.
    """
    if choice is None or not tools:
        return None
    if any(result.status != "success" for result in tool_results(messages)):
        return None
    return Asked(
        messages=chat_messages(messages),
        tools=tools,
        tool_choice=choice[0],
        forced=choice[1],
        at_most_one=at_most_one,
        words=words,
    )


def tool_results(messages: Sequence[BaseMessage]) -> list[ToolMessage]:
    """The tool results the messages end with (none when they end otherwise)."""
    results: list[ToolMessage] = []
    for message in reversed(messages):
        if not isinstance(message, ToolMessage):
            break
        results.append(message)
    return results


def model_answer(message: BaseMessage, model: object) -> ModelAnswer:
    """What the wrapped model answered, as shadow mode logs it; ``model``: the wrapped model's."""
    calls = tuple(
        FunctionCall(id=call["id"], name=call["name"], arguments=json.dumps(call["args"]))
        for call in (message.tool_calls if isinstance(message, AIMessage) else [])
    )
    usage = message.usage_metadata if isinstance(message, AIMessage) else None
    name = message.response_metadata.get("model_name")
    # Its content as parts (an empty one as none), read by the one rule.
    parts = convert_to_openai_messages(message, text_format="block")["content"]
    return ModelAnswer(
        calls=calls,
        text=content_text(parts),
        prompt_tokens=None if usage is None else usage["input_tokens"],
        completion_tokens=None if usage is None else usage["output_tokens"],
        model=name if isinstance(name, str) else model if isinstance(model, str) else None,
    )


def _zero() -> UsageMetadata:
    return {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0}


def _ledger(answer: LocalAnswer) -> dict[str, Any]:
    decision = answer.decision
    return {
        "model_name": LOCAL_MODEL,
        "agent_lab": {"reason": str(decision.reason), "ledger": decision.ledger.as_json()},
    }


def local_message(answer: LocalAnswer) -> AIMessage:
    """The local answer as a model's ``AIMessage``: its words, or its tool calls."""
    if answer.text is not None:
        return AIMessage(
            content=answer.text, usage_metadata=_zero(), response_metadata=_ledger(answer)
        )
    calls = [
        ToolCall(name=call.name, args=dict(call.arguments), id=call.id, type="tool_call")
        for call in answer.calls
    ]
    return AIMessage(
        content="", tool_calls=calls, usage_metadata=_zero(), response_metadata=_ledger(answer)
    )


def local_chunk(answer: LocalAnswer) -> AIMessageChunk:
    """The local answer as the one (last) chunk of a stream."""
    if answer.text is not None:
        return AIMessageChunk(
            content=answer.text,
            usage_metadata=_zero(),
            response_metadata=_ledger(answer),
            chunk_position="last",
        )
    pieces = [
        ToolCallChunk(
            name=call.name,
            args=call.arguments_json,
            id=call.id,
            index=index,
            type="tool_call_chunk",
        )
        for index, call in enumerate(answer.calls)
    ]
    return AIMessageChunk(
        content="",
        tool_call_chunks=pieces,
        usage_metadata=_zero(),
        response_metadata=_ledger(answer),
        chunk_position="last",
    )
