"""Which requests the envelope may see, read from the Chat Completions body alone.

What plain code answers, and every rule about it (the turn after local
calls, ``tool_choice``, ``parallel_tool_calls``, a question for a user-only
value), is ``answering.Answerer``'s, as for the wrappers and log replay.
This module holds only the rules of the wire: the body has been read and its
types checked (``gateway.body``), and a request is forwarded untouched
unless

* every field of the body is one this module understands (``UNDERSTOOD``);
  a ``response_format``, ``logprobs``, ``logit_bias``, audio, ``n`` other
  than 1, legacy ``functions`` or anything newer are forwarded;
* ``tool_choice`` is not ``none`` and, naming a function, names one offered;
* the request is within ``logs.bounds`` (tools, messages, schema values);
* no setting would change the answer (``WritingLimits``, checked on the answer): no
  ``stop`` string occurs in it, and ``max_tokens`` (or
  ``max_completion_tokens``) is at least its length in UTF-8 bytes plus 16
  a call, a bound on its tokens in any byte-level tokenizer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent_lab.answering import Asked
from agent_lab.logs.bounds import MAX_MESSAGES, MAX_TOOLS, schema_values_over, user_text_over
from agent_lab.logs.chat_completions import checked_messages, checked_tools, offered_names
from agent_lab.logs.record import LogError, SkipReason

if TYPE_CHECKING:
    from agent_lab.answering import LocalCall, ToolChoiceMode
    from agent_lab.strict_json import JSONObject, JSONValue

__all__ = ["UNDERSTOOD", "WireRequest", "WritingLimits", "over_bounds", "wire_request"]

UNDERSTOOD = frozenset(
    {
        "model",
        "messages",
        "tools",
        "tool_choice",
        "parallel_tool_calls",
        "stream",
        "stream_options",
        "n",
        # Sampling and bookkeeping: they shape how a model writes, not which call is right.
        "temperature",
        "top_p",
        "seed",
        "stop",
        "presence_penalty",
        "frequency_penalty",
        "max_tokens",
        "max_completion_tokens",
        "user",
        "metadata",
        "store",
        "service_tier",
        "safety_identifier",
        "prompt_cache_key",
    }
)
"""The request fields a local answer can honour; any other field sends the request upstream."""


@dataclass(frozen=True, slots=True, kw_only=True)
class WireRequest:
    """A request that passed the wire's rules: the turn for the envelope, and how to answer it."""

    asked: Asked
    model: str
    stream: bool
    include_usage: bool
    limits: WritingLimits


@dataclass(frozen=True, slots=True, kw_only=True)
class WritingLimits:
    """The request's settings that bound what a model may write: a local answer must fit them."""

    max_tokens: int | None = None
    stop: tuple[str, ...] = ()

    @classmethod
    def of(cls, body: JSONObject) -> WritingLimits:
        """The smaller of ``max_tokens`` and ``max_completion_tokens``, and the ``stop`` strings."""
        given = [
            value
            for key in ("max_tokens", "max_completion_tokens")
            if isinstance(value := body.get(key), int)
        ]
        stop = body.get("stop")
        words = [stop] if isinstance(stop, str) else stop if isinstance(stop, list) else []
        return cls(
            max_tokens=min(given) if given else None,
            stop=tuple(word for word in words if isinstance(word, str) and word),
        )

    def refusal(self, calls: tuple[LocalCall, ...], text: str | None) -> str | None:
        """``stop`` or ``max_tokens`` when the answer would not be written whole, else ``None``."""
        said = [piece for call in calls for piece in (call.name, call.arguments_json)]
        if text is not None:
            said.append(text)
        if any(word in piece for word in self.stop for piece in said):
            return "stop"
        if self.max_tokens is not None:
            needed = sum(len(piece.encode()) for piece in said) + 16 * len(calls)
            if self.max_tokens < needed:
                return "max_tokens"
        return None


def _tool_choice(
    choice: JSONValue | None, offered: frozenset[str]
) -> tuple[ToolChoiceMode, str | None] | None:
    """``tool_choice`` as the envelope takes it, and the function it names.

    ``None``: not one the gateway understands (a function not offered, a newer shape).
    """
    if choice is None or choice == "auto":
        return "auto", None
    if choice in ("required", "none"):
        return ("required" if choice == "required" else "none"), None
    if isinstance(choice, dict) and choice.get("type") == "function":
        function = choice.get("function")
        name = function.get("name") if isinstance(function, dict) else None
        if isinstance(name, str) and (name in offered or not offered):
            return "required", name
    return None


def over_bounds(body: JSONObject) -> bool:
    """Whether the request is past ``logs.bounds``: tools, messages, schema values, user text."""
    messages, tools = body.get("messages"), body.get("tools")
    if isinstance(messages, list) and (
        len(messages) > MAX_MESSAGES or any(user_text_over(message) for message in messages)
    ):
        return True
    if not isinstance(tools, list):
        return False
    if len(tools) > MAX_TOOLS:
        return True
    schemas: list[JSONValue] = []
    for tool in tools:
        function = tool.get("function") if isinstance(tool, dict) else None
        if isinstance(function, dict):
            schemas.append(function.get("parameters"))
    return schema_values_over(schemas)


def _envelope(body: JSONObject) -> str | None:
    if "response_format" in body:
        return "response_format"
    if body.get("tool_choice") == "none":
        return "tool_choice_none"
    if any(key not in UNDERSTOOD for key in body):
        return "not_understood"
    if body.get("n") not in (None, 1) or not isinstance(body.get("stream", False), bool):
        return "not_understood"
    if not isinstance(body.get("parallel_tool_calls", True), bool):
        return "not_understood"
    options = body.get("stream_options")
    if options is not None and not isinstance(options, dict):
        return "not_understood"
    return None


def wire_request(body: JSONValue) -> WireRequest | str:
    """The request as the envelope takes it, or the fixed word of the wire rule that forwards it."""
    if not isinstance(body, dict):
        return "not_understood"
    refused = _envelope(body)
    if refused is not None:
        return refused
    try:
        messages = checked_messages(body.get("messages"), "request")
        tools = checked_tools(body.get("tools"), "request")
    except LogError as err:
        return "over_bounds" if err.skipped.reason is SkipReason.TOO_LARGE else "not_understood"
    choice = _tool_choice(body.get("tool_choice"), offered_names(tools))
    if choice is None:
        return "not_understood"
    model = body.get("model")
    options = body.get("stream_options")
    return WireRequest(
        asked=Asked(
            messages=messages,
            tools=tools,
            tool_choice=choice[0],
            forced=choice[1],
            at_most_one=body.get("parallel_tool_calls") is False,
        ),
        model=model if isinstance(model, str) else "",
        stream=body.get("stream") is True,
        include_usage=isinstance(options, dict) and options.get("include_usage") is True,
        limits=WritingLimits.of(body),
    )
