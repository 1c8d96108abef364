"""The Chat Completions shape written: messages, a completion, its stream, a ``pairs`` line.

The one home of what agent-lab writes in the shape of OpenAI's Chat
Completions API (the ``openai`` SDK's ``ChatCompletion`` and
``ChatCompletionChunk`` types): the messages and tool specs the framework
wrappers convert to, the gateway's own answers and error objects, a stream
put back into the completion it spells, and the ``pairs`` log line that the
request log, the gateway's store and the wrappers' shadow mode each write.
Reading the shape back, each part checked, is ``logs.chat_completions``: a
part that cannot be used is a log line's ``LogError`` there, a floor above.

A streamed answer is ``chat.completion.chunk`` events: the role first, then
each call's ``tool_calls`` delta (``index``, ``id``, ``type``,
``function.name``, then ``function.arguments``) or the words' ``content``
delta, then a chunk with ``finish_reason``, then ``data: [DONE]``. An error
is always ``{"error": {"message", "type", "param", "code"}}``.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from agent_lab.errors import StrictJSONError
from agent_lab.strict_json import loads

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from agent_lab.strict_json import JSONObject, JSONValue

__all__ = [
    "FunctionCall",
    "assembled",
    "assistant_message",
    "completion",
    "content_text",
    "error_body",
    "joined_text",
    "logged_completion",
    "pairs_line",
    "stream_chunks",
    "text_part",
    "tool_spec",
]

_MAX_DEPTH = 128
"""Deeper than the strict parser's default: a chunk may carry a tool's arguments nested deep."""


@dataclass(frozen=True, slots=True, kw_only=True)
class FunctionCall:
    """One tool call of an assistant message, as the wire carries it."""

    id: str | None
    """What the tool message answering it names; ``None`` when its maker gave it none."""
    name: str
    arguments: str
    """The arguments as JSON text, as the model wrote them."""

    def as_json(self) -> JSONObject:
        """``{"id", "type": "function", "function": {"name", "arguments"}}``."""
        function: JSONObject = {"name": self.name, "arguments": self.arguments}
        return {"id": self.id, "type": "function", "function": function}


def joined_text(texts: Iterable[str]) -> str | None:
    """Text parts as one text, nothing put between them; ``None`` when there are none.

    The one rule for text given in pieces: a message's text parts, a stream's
    ``content`` deltas, a framework's text parts. The reference API cuts one
    text into deltas anywhere, even inside a word, so a separator would be
    words it never wrote; the ``openai`` SDK's stream accumulator, LangChain's
    ``.text`` and the Agents SDK's ``ItemHelpers`` join with nothing too.
    """
    pieces = list(texts)
    return "".join(pieces) if pieces else None


def content_text(content: JSONValue | None) -> str | None:
    """What a message's ``content`` says: the string, or its parts' ``text`` (``joined_text``).

    ``None`` when it says nothing in words: no content, or parts without text (an image).
    """
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return None
    return joined_text(
        text
        for part in content
        if isinstance(part, dict) and isinstance(text := part.get("text"), str)
    )


def text_part(text: str) -> JSONObject:
    """One text part of a message's content: ``{"type": "text", "text"}``."""
    return {"type": "text", "text": text}


def tool_spec(name: str, parameters: JSONValue, description: str | None = None) -> JSONObject:
    """An OpenAI function tool spec; ``description`` left out when there is none."""
    function: JSONObject = {"name": name, "parameters": parameters}
    if description is not None:
        function["description"] = description
    return {"type": "function", "function": function}


def _tool_calls(calls: Sequence[FunctionCall]) -> JSONObject:
    return {"tool_calls": [call.as_json() for call in calls]} if calls else {}


def assistant_message(text: str | None, calls: Sequence[FunctionCall] = ()) -> JSONObject:
    """An assistant message: its words (``content``, ``None`` for none), and its calls if any."""
    return {"role": "assistant", "content": text} | _tool_calls(calls)


def logged_completion(
    message: JSONObject,
    *,
    finish_reason: JSONValue = None,
    ident: JSONValue = None,
    created: JSONValue = None,
    model: JSONValue = None,
    usage: JSONValue = None,
) -> JSONObject:
    """A ``chat.completion`` as a log line holds it: one choice, ``message``, and what is known.

    A field given ``None`` (unknown) is left out, never made up; the keys are in
    the reference API's order.
    """
    choice: JSONObject = {"index": 0, "message": message}
    if finish_reason is not None:
        choice["finish_reason"] = finish_reason
    fields: dict[str, JSONValue] = {
        "id": ident,
        "object": "chat.completion",
        "created": created,
        "model": model,
        "choices": [choice],
        "usage": usage,
    }
    return {key: value for key, value in fields.items() if value is not None}


def _finish(calls: Sequence[FunctionCall]) -> str:
    return "tool_calls" if calls else "stop"


def _zero_usage() -> JSONObject:
    return {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}


def completion(
    calls: Sequence[FunctionCall], *, model: str, created: int, text: str | None = None
) -> bytes:
    """An answer made without a model: its calls (or ``text``), zero usage, as JSON bytes."""
    # Every field the reference API writes, null where there is nothing to say.
    message: JSONObject = {"role": "assistant", "content": text, "refusal": None}
    choice: JSONObject = {
        "index": 0,
        "message": message | _tool_calls(calls),
        "logprobs": None,
        "finish_reason": _finish(calls),
    }
    body: JSONObject = {
        "id": f"chatcmpl-{uuid.uuid4().hex}",
        "object": "chat.completion",
        "created": created,
        "model": model,
        "choices": [choice],
        "usage": _zero_usage(),
    }
    return json.dumps(body).encode()


def _deltas(calls: Sequence[FunctionCall], text: str | None) -> list[tuple[JSONObject, str | None]]:
    """Each chunk's delta and ``finish_reason``: the role, each call in two, the words, the end."""
    deltas: list[tuple[JSONObject, str | None]] = [
        ({"role": "assistant", "content": None, "refusal": None}, None)
    ]
    for index, call in enumerate(calls):
        start: JSONObject = {
            "index": index,
            "id": call.id,
            "type": "function",
            "function": {"name": call.name, "arguments": ""},
        }
        deltas.append(({"tool_calls": [start]}, None))
        piece: JSONObject = {"index": index, "function": {"arguments": call.arguments}}
        deltas.append(({"tool_calls": [piece]}, None))
    if text is not None:
        deltas.append(({"content": text}, None))
    deltas.append(({}, _finish(calls)))
    return deltas


def stream_chunks(
    calls: Sequence[FunctionCall],
    *,
    model: str,
    created: int,
    include_usage: bool,
    text: str | None = None,
) -> bytes:
    """The whole SSE stream of an answer made without a model, ``data: [DONE]`` last."""
    head: JSONObject = {
        "id": f"chatcmpl-{uuid.uuid4().hex}",
        "object": "chat.completion.chunk",
        "created": created,
        "model": model,
    }
    events: list[JSONObject] = []
    for delta, finish in _deltas(calls, text):
        choice: JSONObject = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        chunk: JSONObject = {**head, "choices": [choice]}
        if include_usage:
            chunk["usage"] = None
        events.append(chunk)
    if include_usage:
        events.append({**head, "choices": [], "usage": _zero_usage()})
    said = "".join(f"data: {json.dumps(event)}\n\n" for event in events)
    return (said + "data: [DONE]\n\n").encode()


def _chunk(data: bytes) -> JSONValue | None:
    try:
        return loads(data, max_depth=_MAX_DEPTH)
    except (StrictJSONError, UnicodeDecodeError):
        return None


def _merge_call(calls: dict[int, JSONObject], delta: JSONValue) -> None:
    if not isinstance(delta, dict) or not isinstance(index := delta.get("index"), int):
        return
    call = calls.setdefault(index, {"id": None, "name": "", "arguments": ""})
    if isinstance(delta.get("id"), str):
        call["id"] = delta["id"]
    function = delta.get("function")
    if isinstance(function, dict):
        for key in ("name", "arguments"):
            piece = function.get(key)
            if isinstance(piece, str):
                call[key] = f"{call[key]}{piece}"


def assembled(stream: bytes) -> JSONObject | None:
    """The ``chat.completion`` a stream of chunks spells (choice 0), or ``None`` for no stream."""
    head: JSONObject | None = None
    texts: list[str] = []
    calls: dict[int, JSONObject] = {}
    finish: JSONValue = None
    usage: JSONValue = None
    for line in stream.split(b"\n"):
        if not line.startswith(b"data:") or line[5:].strip() == b"[DONE]":
            continue
        chunk = _chunk(line[5:])
        if not isinstance(chunk, dict) or "error" in chunk:
            return None
        head = head or chunk
        usage = chunk.get("usage") or usage
        choices = chunk.get("choices")
        choice = choices[0] if isinstance(choices, list) and choices else None
        if not isinstance(choice, dict):
            continue
        finish = choice.get("finish_reason") or finish
        delta = choice.get("delta")
        if not isinstance(delta, dict):
            continue
        if isinstance(content := delta.get("content"), str):
            texts.append(content)
        pieces = delta.get("tool_calls")
        for item in pieces if isinstance(pieces, list) else []:
            _merge_call(calls, item)
    if head is None:
        return None
    merged = [
        FunctionCall(
            id=cast("str | None", call["id"]),
            name=cast("str", call["name"]),
            arguments=cast("str", call["arguments"]),
        )
        for _, call in sorted(calls.items())
    ]
    return logged_completion(
        assistant_message(joined_text(texts), merged),
        finish_reason=finish,
        ident=head.get("id"),
        created=head.get("created"),
        model=head.get("model"),
        usage=usage,
    )


def error_body(
    message: str, *, type: str, code: str | None = None, param: str | None = None
) -> bytes:
    """The API's error object, as bytes (``param``: the request field it is about)."""
    error: JSONObject = {"message": message, "type": type, "param": param, "code": code}
    return json.dumps({"error": error}).encode()


def pairs_line(
    request: JSONValue,
    *,
    response: JSONValue | None = None,
    error: JSONValue | None = None,
    response_error: JSONValue | None = None,
    latency_ms: float | None = None,
    timestamp: str | None = None,
    status: int | None = None,
    streamed: bool | None = None,
    metadata: Mapping[str, JSONValue] | None = None,
) -> JSONObject:
    """One ``pairs`` log line: the request body beside the ``chat.completion`` it got.

    A field given ``None`` is left out: a line holds what its writer knows.
    ``error`` (the provider's ``{"type", "message", "status"}``, the gateway's
    phrase) marks an attempt that brought no completion, which log readers
    count as ``failed_request``; ``response_error`` is the error body the
    server answered with, when it sent one. ``latency_ms`` is kept to the
    microsecond.
    """
    fields: tuple[tuple[str, JSONValue | None], ...] = (
        ("response", response),
        ("error", error),
        ("response_error", response_error),
        ("latency_ms", None if latency_ms is None else round(latency_ms, 3)),
        ("timestamp", timestamp),
        ("status", status),
        ("streamed", streamed),
        ("metadata", None if metadata is None else dict(metadata)),
    )
    line: JSONObject = {"request": request}
    line.update((key, value) for key, value in fields if value is not None)
    return line
