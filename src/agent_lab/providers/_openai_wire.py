"""The OpenAI chat-completions wire format: the request body, and what a reply body holds."""

from __future__ import annotations

import email.utils
import json
import re
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, cast

from agent_lab.agents.port import FailureReason, ProviderRequest, ToolCall
from agent_lab.errors import ProviderError
from agent_lab.providers._grammar_schema import grammar_safe
from agent_lab.usage import checked_count

if TYPE_CHECKING:
    from collections.abc import Mapping

    from agent_lab.strict_json import JSONValue

__all__ = [
    "FORMAT_TOOL_DESCRIPTION",
    "Completion",
    "StructuredOutput",
    "body_text",
    "format_tool_name",
    "read_completion",
    "request_body",
    "retry_after",
]

StructuredOutput = Literal["json_schema", "json_object", "tools", "prompted"]
"""How a request asks for a reply that follows a JSON Schema.

- ``json_schema``: OpenAI's ``response_format: {"type": "json_schema", ...}``
  (OpenAI, vLLM, Ollama, LM Studio).
- ``json_object``: ``{"type": "json_object", "schema": ...}`` (llama.cpp's own
  server, which constrains the reply to the schema this way).
- ``tools``: one forced function whose parameters are the schema; its call's
  arguments are the reply (servers with tool calling but no response format).
- ``prompted``: the schema in the system message and nothing on the wire;
  the model is only asked, not held, so its reply is parsed as strictly as ever.
"""

FORMAT_TOOL_DESCRIPTION = "Give the reply as this function's arguments."
_PROMPTED = "Reply with one JSON object and nothing else; it must follow this JSON Schema:\n"

_NAME_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def permissive_parse(text: str) -> JSONValue | None:
    """The adapter's own parse, as a typical client does it (NaN and repeated keys pass).

    The kernel audits it against its strict parse of the same text (K18).
    """
    try:
        value: JSONValue = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return value


def request_body(
    request: ProviderRequest,
    model: str,
    *,
    structured_output: StructuredOutput,
    strict: bool,
    token_limit: str,
) -> dict[str, Any]:
    """The JSON body of ``POST /chat/completions`` for ``request``."""
    messages = [{"role": m.role, "content": m.content} for m in request.messages]
    schema = request.response_schema
    if schema is not None and structured_output == "prompted":
        messages = _with_schema_prompt(messages, schema)
    body: dict[str, Any] = {
        "model": model,
        "messages": messages,
        "temperature": request.temperature,
        token_limit: request.max_tokens,
    }
    if request.seed is not None:
        body["seed"] = request.seed
    if request.tools:
        body["tools"] = list(request.tools)
        if request.tool_choice in (None, "auto", "required", "none"):
            body["tool_choice"] = request.tool_choice or "auto"
        else:
            body["tool_choice"] = {"type": "function", "function": {"name": request.tool_choice}}
    if schema is None or structured_output == "prompted":
        return body
    name = format_tool_name(request)
    if structured_output == "json_object":
        # llama.cpp's dialect: its server turns the schema into a grammar, and dies
        # on keywords its converter cannot take, so they are left out (the kernel
        # validates the reply against the whole schema).
        body["response_format"] = {"type": "json_object", "schema": grammar_safe(schema)}
    elif structured_output == "tools" and not request.tools:
        body["tools"] = [
            {
                "type": "function",
                "function": {
                    "name": name,
                    "description": FORMAT_TOOL_DESCRIPTION,
                    "parameters": schema,
                },
            }
        ]
        body["tool_choice"] = {"type": "function", "function": {"name": name}}
    else:
        body["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": name, "schema": schema, "strict": strict},
        }
    return body


def format_tool_name(request: ProviderRequest) -> str:
    """The schema's name as the wire allows it (``[A-Za-z0-9_-]``, 64 characters)."""
    return _NAME_UNSAFE.sub("_", request.schema_name)[:64] or "arguments"


def _with_schema_prompt(messages: list[dict[str, str]], schema: JSONValue) -> list[dict[str, str]]:
    instruction = _PROMPTED + json.dumps(schema, ensure_ascii=False, separators=(",", ":"))
    if messages and messages[0]["role"] == "system":
        first = {"role": "system", "content": f"{messages[0]['content']}\n\n{instruction}"}
        return [first, *messages[1:]]
    return [{"role": "system", "content": instruction}, *messages]


@dataclass(frozen=True, slots=True, kw_only=True)
class Completion:
    """What one chat-completion body holds."""

    text: str | None
    parsed: JSONValue | None
    tool_calls: tuple[ToolCall, ...]
    prompt_tokens: int | None
    """The server's count, when it is a plausible one (``checked_count``), else unknown."""
    completion_tokens: int | None
    cached_tokens: int | None
    """``usage.prompt_tokens_details.cached_tokens``, when the server reports it."""
    model: str
    """The model the server says answered (the one asked, when it says none)."""
    finish_reason: str | None


def read_completion(data: Any, model: str) -> Completion:
    """The parts of a chat-completion body.

    Raises:
        Exception: Any, for a body that is not a chat completion; the caller
            turns it into an ``invalid_response`` failure.
    """
    choices: Any = data["choices"]
    if not isinstance(choices, list) or not choices:
        raise ProviderError(FailureReason.INVALID_RESPONSE, "no choices in the body")
    choice: dict[str, Any] = cast("list[Any]", choices)[0]
    message: dict[str, Any] = choice.get("message") or {}
    content = message.get("content")
    text = content if isinstance(content, str) else None
    # A server's own parse (some send one) is audited like the adapter's would be (K18).
    server_parsed = message.get("parsed")
    parsed = (
        server_parsed
        if server_parsed is not None
        else (permissive_parse(text) if text is not None else None)
    )
    calls = tuple(_tool_call(call) for call in (message.get("tool_calls") or ()))
    usage: Mapping[str, Any] = data.get("usage") or {}
    finish = choice.get("finish_reason")
    answered_by = data.get("model")
    return Completion(
        text=text,
        parsed=parsed,
        tool_calls=calls,
        prompt_tokens=checked_count(usage.get("prompt_tokens")),
        completion_tokens=checked_count(usage.get("completion_tokens")),
        cached_tokens=_cached(usage),
        model=answered_by if isinstance(answered_by, str) and answered_by else model,
        finish_reason=finish if isinstance(finish, str) else None,
    )


def _cached(usage: Mapping[str, Any]) -> int | None:
    details: object = usage.get("prompt_tokens_details")
    if not isinstance(details, dict):
        return None
    return checked_count(cast("dict[str, object]", details).get("cached_tokens"))


def _tool_call(call: Any) -> ToolCall:
    function: dict[str, Any] = call["function"]
    arguments: object = function.get("arguments")
    if isinstance(arguments, str):
        return ToolCall(
            name=str(function.get("name")),
            arguments_raw=arguments,
            arguments=permissive_parse(arguments),
        )
    # Some servers send the arguments as an object, not as JSON text; there is
    # no raw text then, so the object's JSON serves as both forms.
    return ToolCall(
        name=str(function.get("name")),
        arguments_raw=json.dumps(arguments),
        arguments=arguments,  # type: ignore[arg-type]
    )


def retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds a 429 asks to wait (``retry-after-ms``, then ``Retry-After``), or ``None``."""
    milliseconds = headers.get("retry-after-ms")
    if milliseconds is not None:
        try:
            return max(0.0, float(milliseconds) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        moment = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    # An HTTP date is wall-clock time, so this one reading is of the wall clock.
    return max(0.0, moment.timestamp() - time.time())


def body_text(body: object) -> str:
    """An error body as text: as it came, or its JSON."""
    if isinstance(body, str):
        return body
    try:
        return json.dumps(body, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(body)
