"""The ``pairs`` format: one LLM call a line, the Chat Completions request beside its response.

Read from a line (the wrapper's other fields are left alone):

==========================  ====================================================
field                       read as
==========================  ====================================================
``request``                 the Chat Completions request body (an object, or
                            its JSON text); ``request_body`` (Helicone exports)
``response``                the ``chat.completion`` body; ``response_body``
``model``                   the response's, else the request's
``response.usage``          ``prompt_tokens``, ``completion_tokens``,
                            ``prompt_tokens_details.cached_tokens``
``metadata.estimated``      ``true``: the usage is an estimate, not a bill
``metadata.reference_``     the date relative dates are read against, when not
``date``                    the request's time (a gateway's ``--reference-date``)
``request.tool_choice``     ``none``: the request forbade calls, so it is the
                            model's whatever plain code decides (never covered);
                            a function named: every call must be it
``request.parallel_tool_``  ``false``: an answer of several calls is the
``calls``                   model's
``timestamp``               the wrapper's (``timestamp``, ``created_at``,
                            ``request_created_at``, ``startTime``: ISO 8601 or
                            unix seconds), else ``response.created``
latency                     ``latency_ms``, ``duration_ms``, ``delay_ms``;
                            ``duration``, ``response_time`` in seconds
==========================  ====================================================

LiteLLM's ``StandardLoggingPayload`` (a logging callback's
``standard_logging_object``) is read too: its ``messages``, ``model``,
``model_parameters.tools`` (and ``tool_choice``) and ``response``, with
``startTime``/``endTime``.

A response with several choices is read at choice 0, the one a client
without ``n`` uses. A line with an ``error`` and no response, a LiteLLM
payload with ``status: failure``, or an error body as the response is a failed
attempt (``failed_request``): nothing was answered.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_lab.logs._values import (
    as_list,
    as_object,
    fail,
    is_estimated,
    iso_timestamp,
    milliseconds,
    parse,
    usage_from,
)
from agent_lab.logs.chat_completions import calls_of, checked_messages, checked_tools, reply_text
from agent_lab.logs.record import LogFormat, LoggedRequest, SkipReason

if TYPE_CHECKING:
    from agent_lab.strict_json import JSONObject, JSONValue

__all__ = ["pair_request"]

_TIMESTAMPS = ("timestamp", "created_at", "request_created_at", "startTime")


def _body(value: JSONValue | None, where: str, what: str) -> JSONObject | None:
    # Some proxies log the bodies as the JSON text they sent.
    if isinstance(value, str):
        value = parse(value, where, f"the {what}")
    return as_object(value)


def _litellm(fields: JSONObject) -> tuple[JSONValue | None, JSONValue | None]:
    """A LiteLLM ``StandardLoggingPayload`` as a (request, response) pair."""
    request: JSONObject = {"messages": fields.get("messages")}
    if isinstance(fields.get("model"), str):
        request["model"] = fields.get("model")
    parameters = as_object(fields.get("model_parameters")) or {}
    for key in ("tools", "functions", "tool_choice"):
        if key in parameters:
            request[key] = parameters[key]
    return request, fields.get("response")


def _halves(fields: JSONObject, where: str) -> tuple[JSONObject, JSONObject]:
    if "request" in fields or "request_body" in fields:
        request_value = fields.get("request", fields.get("request_body"))
        response_value = fields.get("response", fields.get("response_body"))
    elif "messages" in fields and ("call_type" in fields or "response" in fields):
        if fields.get("status") == "failure":
            fail(where, SkipReason.FAILED_REQUEST, f"a failed call: {fields.get('error_str')!r}")
        request_value, response_value = _litellm(fields)
    else:
        fail(where, SkipReason.MALFORMED_JSON, "the line has no request")
    if response_value is None and fields.get("error") is not None:
        fail(where, SkipReason.FAILED_REQUEST, f"a failed attempt: {fields.get('error')!r:.200}")
    request = _body(request_value, where, "request")
    if request is None:
        fail(where, SkipReason.MALFORMED_JSON, "the request is not a JSON object")
    if "messages" not in request:
        what = "a Responses API request" if "input" in request else "a request without messages"
        fail(where, SkipReason.NOT_A_CHAT_REQUEST, f"{what}, not a Chat Completions one")
    response = _body(response_value, where, "response")
    if response is None:
        fail(where, SkipReason.MALFORMED_JSON, "the line has no response object")
    if response.get("error") is not None and "choices" not in response:
        fail(where, SkipReason.FAILED_REQUEST, "the response is an error")
    return request, response


def _choice(response: JSONObject, where: str) -> JSONObject:
    choices = as_list(response.get("choices"))
    if not choices:
        fail(where, SkipReason.MALFORMED_JSON, "the response has no choices")
    first = as_object(choices[0])
    message = as_object(first.get("message")) if first else None
    if message is None:
        streamed = first is not None and "delta" in first
        problem = (
            "a streamed chunk, not a whole response" if streamed else "choice 0 has no message"
        )
        fail(where, SkipReason.MALFORMED_JSON, problem)
    return message


def pair_request(line: JSONValue, where: str) -> LoggedRequest:
    """The request one ``pairs`` line holds.

    Raises:
        LogError: The line cannot be used; its reason says why.
    """
    fields = as_object(line)
    if fields is None:
        fail(where, SkipReason.MALFORMED_JSON, "the line is not a JSON object")
    request, response = _halves(fields, where)
    messages = checked_messages(request.get("messages"), where)
    tools = checked_tools(request.get("tools"), where, functions=request.get("functions"))
    message = _choice(response, where)
    model = response.get("model")
    if not isinstance(model, str):
        model = request.get("model")
    timestamp = next(
        (found for key in _TIMESTAMPS if (found := iso_timestamp(fields.get(key))) is not None),
        None,
    )
    return LoggedRequest(
        where=where,
        format=LogFormat.PAIRS,
        messages=messages,
        tools=tools,
        calls=calls_of(message, where, tools),
        text=reply_text(message),
        model=model if isinstance(model, str) else None,
        usage=usage_from(response.get("usage"), estimated=is_estimated(fields.get("metadata"))),
        latency_ms=milliseconds(fields),
        timestamp=timestamp or iso_timestamp(response.get("created")),
        # The gateway's word for it (gateway.rules), so a store and a log say the same.
        forwarded="tool_choice_none" if request.get("tool_choice") == "none" else None,
        forced=_forced(request.get("tool_choice")),
        reference_date=_reference_date(fields.get("metadata")),
        at_most_one=request.get("parallel_tool_calls") is False,
    )


def _forced(choice: JSONValue | None) -> str | None:
    """The function a ``tool_choice`` names, if it names one."""
    if isinstance(choice, dict) and choice.get("type") == "function":
        function = choice.get("function")
        name = function.get("name") if isinstance(function, dict) else None
        return name if isinstance(name, str) else None
    return None


def _reference_date(metadata: JSONValue | None) -> str | None:
    """``metadata.reference_date``: the date a gateway read relative dates against, if named."""
    found = metadata.get("reference_date") if isinstance(metadata, dict) else None
    return iso_timestamp(found) if isinstance(found, str) else None
