"""LangChain's messages, to and from what the seam reads: Chat Completions messages and answers.

Each way across: the messages a chat model is called with become Chat
Completions messages (LangChain's own ``convert_to_openai_messages``); the
tool results they end with are found; a model's ``AIMessage`` becomes the
``ModelAnswer`` shadow mode logs; and a local answer becomes the
``AIMessage`` (or, streamed, the one ``AIMessageChunk``) a model would have
returned, with zero usage and its ledger in ``response_metadata``.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    ToolCall,
    ToolCallChunk,
    ToolMessage,
    convert_to_openai_messages,
)

from agent_lab.chat_completions import FunctionCall, content_text
from agent_lab.integrations._shadow import ModelAnswer

if TYPE_CHECKING:
    from collections.abc import Sequence

    from langchain_core.messages import BaseMessage
    from langchain_core.messages.ai import UsageMetadata

    from agent_lab.integrations.seam import LocalAnswer

__all__ = [
    "LOCAL_MODEL",
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
