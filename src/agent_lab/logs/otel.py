"""The ``otel`` format: OpenTelemetry GenAI chat spans as OTLP/JSON, one export request a line.

What ``agent-lab run --otel-file`` writes, and what a collector's file
exporter writes for an instrumented app: each line an
``ExportTraceServiceRequest`` (``resourceSpans[].scopeSpans[].spans[]``), or
a single span. Each GenAI chat span (``gen_ai.operation.name`` ``chat``,
``text_completion`` or ``generate_content``; OpenLLMetry's
``llm.request.type``; or a span carrying GenAI content) is one request,
``file:line#n`` for the n-th of the line; every other span is left alone.

The content is read from the current semantic conventions (v1.37.0 and
later): ``gen_ai.input.messages``, ``gen_ai.output.messages`` and
``gen_ai.system_instructions``, whose parts-based messages (``text``,
``tool_call``, ``tool_call_response`` parts) become Chat Completions
messages, and ``gen_ai.tool.definitions`` for the tools. The older forms are
in ``_otel_legacy``. Besides the content: ``gen_ai.response.model`` (else
``gen_ai.request.model``), ``gen_ai.usage.input_tokens``/``output_tokens``
(``prompt_tokens``/``completion_tokens`` before v1.27.0) and
``gen_ai.usage.cache_read.input_tokens``, and the span's start (timestamp) and
length (latency).

Content is opt-in in every convention: a chat span recorded without it is
``no_content``, and one whose model called tools without the tools offered
recorded is ``no_tools``. Neither is guessed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_lab.logs._otel_legacy import (
    from_content_events,
    from_events,
    from_indexed,
    indexed_tools,
)
from agent_lab.logs._otlp import Span, spans_of
from agent_lab.logs._values import (
    as_list,
    as_object,
    fail,
    iso_from_unix,
    json_text,
    parse,
    token_count,
)
from agent_lab.logs.chat_completions import calls_of, checked_messages, checked_tools, reply_text
from agent_lab.logs.record import (
    LogError,
    LogFormat,
    LoggedRequest,
    LoggedUsage,
    SkippedLine,
    SkipReason,
)
from agent_lab.strict_json import JSONValue

if TYPE_CHECKING:
    from agent_lab.logs._otel_legacy import Content
    from agent_lab.strict_json import JSONObject

__all__ = ["otel_requests"]

_CHAT_OPERATIONS = frozenset({"chat", "text_completion", "generate_content"})
_CONTENT_KEYS = ("gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.prompt.0.role")
_CONTENT_EVENTS = frozenset(
    {
        "gen_ai.system.message",
        "gen_ai.user.message",
        "gen_ai.assistant.message",
        "gen_ai.tool.message",
        "gen_ai.choice",
        "gen_ai.content.prompt",
        "gen_ai.content.completion",
    }
)


def _is_chat(span: Span) -> bool:
    attributes = span.attributes
    operation = attributes.get("gen_ai.operation.name")
    if operation is not None:
        return operation in _CHAT_OPERATIONS
    if attributes.get("llm.request.type") in ("chat", "completion"):
        return True
    return any(key in attributes for key in _CONTENT_KEYS) or any(
        event.name in _CONTENT_EVENTS for event in span.events
    )


def _structured(value: JSONValue | None, where: str, what: str) -> JSONValue | None:
    # The conventions allow the JSON text, or the structure itself as an OTLP value.
    return parse(value, where, what) if isinstance(value, str) else value


def _text_content(texts: list[str]) -> JSONValue:
    if not texts:
        return None
    if len(texts) == 1:
        return texts[0]
    return [{"type": "text", "text": text} for text in texts]


def _call(part: JSONObject) -> JSONObject:
    arguments = part.get("arguments")
    call: JSONObject = {
        "type": "function",
        "function": {"name": part.get("name"), "arguments": arguments},
    }
    if isinstance(part.get("id"), str):
        call["id"] = part.get("id")
    return call


def _chat_messages(message: JSONObject) -> list[JSONObject]:
    """One parts-based message (v1.37.0) as Chat Completions messages: tool results apart."""
    parts = [p for item in as_list(message.get("parts")) or [] if (p := as_object(item))]
    texts = [
        content
        for part in parts
        if part.get("type") == "text" and isinstance(content := part.get("content"), str)
    ]
    calls = [_call(part) for part in parts if part.get("type") == "tool_call"]
    results = [part for part in parts if part.get("type") == "tool_call_response"]
    found: list[JSONObject] = []
    if texts or calls or not results:
        main: JSONObject = {"role": message.get("role"), "content": _text_content(texts)}
        if calls:
            main["tool_calls"] = [*calls]
        found.append(main)
    for result in results:
        response = result.get("response")
        found.append(
            {
                "role": "tool",
                "tool_call_id": result.get("id"),
                "content": response if isinstance(response, str) else json_text(response),
            }
        )
    return found


def _history(messages: list[JSONObject]) -> list[JSONObject]:
    """Calls in messages sent carry their arguments as JSON text, as Chat Completions has them."""
    for message in messages:
        for item in as_list(message.get("tool_calls")) or []:
            function = as_object((as_object(item) or {}).get("function"))
            arguments = function.get("arguments") if function else None
            if function is not None and isinstance(arguments, dict | list):
                function["arguments"] = json_text(arguments)
    return messages


def _current(attributes: JSONObject, where: str) -> Content | None:
    """Messages and answer from v1.37.0 attributes, or ``None`` when the span has neither."""
    if "gen_ai.input.messages" not in attributes and "gen_ai.output.messages" not in attributes:
        return None
    messages: list[JSONObject] = []
    system = as_list(_structured(attributes.get("gen_ai.system_instructions"), where, "system"))
    if system:
        messages += _chat_messages({"role": "system", "parts": system})
    sent = _structured(attributes.get("gen_ai.input.messages"), where, "gen_ai.input.messages")
    for item in as_list(sent) or []:
        found = as_object(item)
        if found is None:
            fail(where, SkipReason.MALFORMED_JSON, "an input message is not an object")
        messages += _chat_messages(found)
    said = _structured(attributes.get("gen_ai.output.messages"), where, "gen_ai.output.messages")
    first = as_object((as_list(said) or [None])[0])
    answer = _chat_messages(first)[0] if first is not None else None
    return _history(messages), answer


def _tools(attributes: JSONObject, where: str) -> tuple[JSONObject, ...]:
    given = _structured(attributes.get("gen_ai.tool.definitions"), where, "the tool definitions")
    if given is None:
        given = indexed_tools(attributes, where)
    specs: list[JSONValue] = []
    for item in as_list(given) or []:
        tool = as_object(item)
        # The conventions' flat form (name, parameters beside type), or OpenAI's nested one.
        if tool is not None and "function" not in tool and "name" in tool:
            nested: JSONObject = {"type": tool.get("type", "function"), "function": tool}
            specs.append(nested)
        else:
            specs.append(item)
    return checked_tools(specs if given is not None else None, where)


def _usage(attributes: JSONObject) -> LoggedUsage | None:
    def first(*keys: str) -> int | None:
        return next((n for k in keys if (n := token_count(attributes.get(k))) is not None), None)

    prompt = first("gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens")
    completion = first("gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens")
    cached = first("gen_ai.usage.cache_read.input_tokens", "gen_ai.usage.cache_read_input_tokens")
    if prompt is None and completion is None and cached is None:
        return None
    return LoggedUsage(prompt_tokens=prompt, completion_tokens=completion, cached_tokens=cached)


def _content(span: Span, where: str) -> tuple[list[JSONObject], JSONObject]:
    content = (
        _current(span.attributes, where)
        or from_indexed(span.attributes)
        or from_events(span.events, where)
        or from_content_events(span.events, where)
    )
    if content is None:
        fail(where, SkipReason.NO_CONTENT, "a chat span recorded without its messages")
    messages, answer = content
    if answer is None:
        if span.failed:
            fail(where, SkipReason.FAILED_REQUEST, "a failed call (span status ERROR)")
        fail(where, SkipReason.NO_CONTENT, "a chat span recorded without the model's answer")
    calls = [as_object(item) or {} for item in as_list(answer.get("tool_calls")) or []]
    if answer.get("content") is None and not calls:
        fail(where, SkipReason.NO_CONTENT, "a chat span whose answer holds no content")
    # Without content capture, v1.36.0's events still name the tools called, not the arguments.
    if any((as_object(call.get("function")) or {}).get("arguments") is None for call in calls):
        fail(where, SkipReason.NO_CONTENT, "a chat span whose tool calls have no arguments")
    return messages, answer


def _request(span: Span, where: str) -> LoggedRequest:
    sent, answer = _content(span, where)
    messages = checked_messages(list[JSONValue](sent), where)
    tools = _tools(span.attributes, where)
    if not tools and as_list(answer.get("tool_calls")):
        fail(
            where,
            SkipReason.NO_TOOLS,
            "the model called tools, but the tools offered are unrecorded",
        )
    model = span.attributes.get("gen_ai.response.model")
    if not isinstance(model, str):
        model = span.attributes.get("gen_ai.request.model")
    start, end = span.start_ns, span.end_ns
    return LoggedRequest(
        where=where,
        format=LogFormat.OTEL,
        messages=messages,
        tools=tools,
        calls=calls_of(answer, where, tools),
        text=reply_text(answer),
        model=model if isinstance(model, str) else None,
        usage=_usage(span.attributes),
        latency_ms=(end - start) / 1e6 if start and end and end >= start else None,
        timestamp=iso_from_unix(start / 1e9) if start else None,
    )


def otel_requests(line: JSONValue, where: str) -> list[LoggedRequest | SkippedLine]:
    """The GenAI chat spans of one OTLP/JSON line, each a request or its skip; other spans ignored.

    Raises:
        LogError: The line is not an OTLP/JSON export request or span.
    """
    fields = as_object(line)
    if fields is None:
        fail(where, SkipReason.MALFORMED_JSON, "the line is not a JSON object")
    if "resourceSpans" not in fields and "spanId" not in fields:
        fail(where, SkipReason.MALFORMED_JSON, "the line is no OTLP/JSON export request or span")
    found: list[LoggedRequest | SkippedLine] = []
    for span in spans_of(fields):
        if not _is_chat(span):
            continue
        here = f"{where}#{len(found) + 1}"
        try:
            found.append(_request(span, here))
        except LogError as err:
            found.append(err.skipped)
    return found
