"""The OpenAI wire format the gateway writes itself: error objects, a local answer, its chunks.

Shapes as the reference API sends them (the ``openai`` SDK's
``ChatCompletion`` and ``ChatCompletionChunk`` types): an error is always
``{"error": {"message", "type", "param", "code"}}``; a streamed answer is
``chat.completion.chunk`` events, the role first, then each call's
``tool_calls`` delta (``index``, ``id``, ``type``, ``function.name``, then
``function.arguments``) or the words' ``content`` delta, then a chunk with
``finish_reason``, then ``data: [DONE]``.
"""

from __future__ import annotations

import json
import uuid
from typing import TYPE_CHECKING

from agent_lab.integrations.seam import LOCAL_CALL_PREFIX

if TYPE_CHECKING:
    from collections.abc import Sequence

    from agent_lab.strict_json import JSONObject, JSONValue

__all__ = [
    "ANSWERED_HEADER",
    "LocalCall",
    "completion",
    "error_body",
    "stream_chunks",
]

ANSWERED_HEADER = "x-agent-lab-answered"
"""Set to ``local`` on an answer the gateway made itself; a forwarded answer is left unchanged."""

LocalCall = tuple[str, str]
"""A tool call answered locally: the tool's name and its arguments as JSON text."""


def error_body(
    message: str, *, type: str, code: str | None = None, param: str | None = None
) -> bytes:
    """The API's error object, as bytes (``param``: the request field it is about)."""
    error: JSONObject = {"message": message, "type": type, "param": param, "code": code}
    return json.dumps({"error": error}).encode()


def _tool_calls(calls: Sequence[LocalCall]) -> list[JSONValue]:
    return [
        {
            # The seam's prefix: the turn after these calls can tell they were the gateway's.
            "id": f"{LOCAL_CALL_PREFIX}{uuid.uuid4().hex[:24]}",
            "type": "function",
            "function": {"name": name, "arguments": arguments},
        }
        for name, arguments in calls
    ]


def _zero_usage() -> JSONObject:
    return {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}


def completion(
    calls: Sequence[LocalCall], *, model: str, created: int, text: str | None = None
) -> bytes:
    """A ``chat.completion`` whose message holds the calls (or ``text``), zero usage (no model)."""
    message: JSONObject = {"role": "assistant", "content": text, "refusal": None}
    if calls:
        message["tool_calls"] = _tool_calls(calls)
    body: JSONObject = {
        "id": f"chatcmpl-{uuid.uuid4().hex}",
        "object": "chat.completion",
        "created": created,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "logprobs": None,
                "finish_reason": "tool_calls" if calls else "stop",
            }
        ],
        "usage": _zero_usage(),
    }
    return json.dumps(body).encode()


def stream_chunks(
    calls: Sequence[LocalCall],
    *,
    model: str,
    created: int,
    include_usage: bool,
    text: str | None = None,
) -> bytes:
    """The whole SSE stream of a local answer (its calls, or ``text``), ``data: [DONE]`` last."""
    ident = f"chatcmpl-{uuid.uuid4().hex}"
    deltas: list[tuple[JSONObject, str | None]] = [
        ({"role": "assistant", "content": None, "refusal": None}, None)
    ]
    for index, call in enumerate(_tool_calls(calls)):
        assert isinstance(call, dict)
        function = call["function"]
        assert isinstance(function, dict)
        start: JSONObject = {
            "index": index,
            "id": call["id"],
            "type": "function",
            "function": {"name": function["name"], "arguments": ""},
        }
        deltas.append(({"tool_calls": [start]}, None))
        piece: JSONObject = {"index": index, "function": {"arguments": function["arguments"]}}
        deltas.append(({"tool_calls": [piece]}, None))
    if text is not None:
        deltas.append(({"content": text}, None))
    deltas.append(({}, "tool_calls" if calls else "stop"))
    events: list[JSONObject] = []
    for delta, finish in deltas:
        chunk: JSONObject = {
            "id": ident,
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
        }
        if include_usage:
            chunk["usage"] = None
        events.append(chunk)
    if include_usage:
        events.append(
            {
                "id": ident,
                "object": "chat.completion.chunk",
                "created": created,
                "model": model,
                "choices": [],
                "usage": _zero_usage(),
            }
        )
    text = "".join(f"data: {json.dumps(event)}\n\n" for event in events)
    return (text + "data: [DONE]\n\n").encode()
