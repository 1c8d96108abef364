"""``structured_output="auto"``: find the format a server accepts, once per provider.

Servers that speak the OpenAI wire differ in how they take a JSON Schema for
the reply: OpenAI and vLLM take ``json_schema``, llama.cpp's own server
answers it with an HTTP 500 and takes ``json_object`` with a schema, some take
only tools, and some ignore ``response_format`` altogether. ``auto`` starts
with ``json_schema`` and moves down ``AUTO_ORDER`` when a server refuses a
format (a 4xx or 5xx whose message names it) or ignores it (a reply that is not
a JSON object). Each step is taken once for the provider's lifetime, so every
later request goes straight to the format that worked.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import TYPE_CHECKING, Final, Literal

from agent_lab.agents.port import (
    FailureReason,
    Message,
    ProviderFailure,
    ProviderReply,
    ProviderRequest,
)
from agent_lab.providers._choice_as_json import as_choice, as_json_request
from agent_lab.usage import Usage

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from agent_lab.providers._openai_wire import StructuredOutput
    from agent_lab.strict_json import JSONObject

__all__ = [
    "AUTO_ORDER",
    "FormatNegotiation",
    "ignored",
    "negotiated",
    "refusal",
    "setup_probes",
]

_log = logging.getLogger(__name__)


AUTO_ORDER: Final[tuple[StructuredOutput, ...]] = (
    "json_schema",
    "json_object",
    "tools",
    "prompted",
)

# Words a server's error names when it is the format it refuses, not the request.
_NAMED_BY: Final[dict[str, tuple[str, ...]]] = {
    "json_schema": ("response_format", "json_schema"),
    "json_object": ("response_format", "json_object"),
    "tools": ("tool_choice", "tools", "function"),
}
_REFUSING = frozenset({FailureReason.HTTP_4XX.value, FailureReason.HTTP_5XX.value})


def refusal(failure: ProviderFailure | None, mode: StructuredOutput) -> str | None:
    """The server's message when ``failure`` is a refusal of ``mode``, else ``None``."""
    if failure is None or failure.reason not in _REFUSING:
        return None
    message = failure.message.lower()
    if any(word in message for word in _NAMED_BY.get(mode, ())):
        return failure.message
    return None


def ignored(reply: ProviderReply, mode: StructuredOutput) -> str | None:
    """Why ``reply`` shows the server ignored ``mode``, else ``None``.

    A reply cut by its token budget is not evidence either way, nor is one
    under ``prompted``, which asks and does not hold.
    """
    if not reply.ok or mode == "prompted" or reply.finish_reason == "length":
        return None
    if reply.tool_calls or isinstance(reply.parsed, dict):
        return None
    return f"the reply ignored it (it is not a JSON object: {(reply.text or '')[:60]!r})"


class FormatNegotiation:
    """Which structured-output mode a provider sends, and how it got there.

    Args:
        configured: The mode asked for; ``auto`` negotiates, any other is fixed.
    """

    def __init__(self, configured: StructuredOutput | Literal["auto"]) -> None:
        self.auto = configured == "auto"
        self.mode: StructuredOutput = "json_schema" if configured == "auto" else configured
        self.confirmed = not self.auto
        """Whether a reply has shown ``mode`` works; a confirmed mode never moves."""
        self.steps: list[str] = []
        """One line per mode given up, with the server's reason."""
        self.tools: Literal["unknown", "native", "as_json"] = "unknown" if self.auto else "native"
        """How tool choice is asked: ``tools`` on the wire, or as structured output
        (``auto``, once a server has shown it ignores ``tools``)."""

    def after(self, tried: StructuredOutput, why: str) -> StructuredOutput | None:
        """The mode to try after ``tried`` was refused or ignored; ``None`` when none is left."""
        if not self.auto or self.confirmed:
            return None
        index = AUTO_ORDER.index(tried)
        if index + 1 >= len(AUTO_ORDER):
            return None
        if AUTO_ORDER.index(self.mode) <= index:
            # The first call to see this refusal moves the mode; concurrent ones follow it.
            self.mode = AUTO_ORDER[index + 1]
            self.steps.append(f"{tried}: {_one_line(why)}")
            _log.info("structured output: %s refused or ignored, now %s", tried, self.mode)
        return self.mode

    def confirm(self, mode: StructuredOutput) -> None:
        """A reply under ``mode`` was what was asked for."""
        if mode == self.mode:
            self.confirmed = True

    def tools_ignored(self, why: str) -> None:
        """The server answered tool calling with text even when a call was required."""
        self.tools = "as_json"
        self.steps.append(f"tools: {_one_line(why)}")
        _log.info("tool choice: the server ignores tools; asking as structured output")

    def note(self) -> str | None:
        """What ``auto`` found, in one line, or ``None`` when nothing was asked of it."""
        if not self.auto:
            return None
        found = f"auto: {self.mode}" + ("" if self.confirmed else " (not yet confirmed)")
        if self.tools == "as_json":
            found += ", tool choice as JSON"
        return found if not self.steps else f"{found}, after " + "; ".join(self.steps)


async def negotiated(
    negotiation: FormatNegotiation,
    request: ProviderRequest,
    send: Callable[[ProviderRequest, StructuredOutput], Awaitable[ProviderReply]],
) -> ProviderReply:
    """``request`` sent in the mode ``negotiation`` holds, moving it on as ``auto`` allows."""
    if negotiation.auto and request.purpose == "tool_choice" and request.tools:
        return await _choice(negotiation, request, send)
    return await _structured(negotiation, request, send)


async def _structured(
    negotiation: FormatNegotiation,
    request: ProviderRequest,
    send: Callable[[ProviderRequest, StructuredOutput], Awaitable[ProviderReply]],
) -> ProviderReply:
    # A refused or ignored format is tried again at once in the next mode.
    mode = negotiation.mode
    spent = Usage.zero()
    while True:
        reply = await send(request, mode)
        if request.response_schema is None or negotiation.confirmed:
            return _spent(spent, reply)
        why = refusal(reply.failure, mode) or ignored(reply, mode)
        following = None if why is None else negotiation.after(mode, why)
        if following is None:
            if reply.ok:
                negotiation.confirm(mode)
            return _spent(spent, reply)
        # A refusal spent no tokens, only requests; an ignored reply spent both.
        spent = (
            spent + reply.usage
            if reply.ok
            else replace(spent, requests=spent.requests + reply.usage.requests)
        )
        mode = following


async def _choice(
    negotiation: FormatNegotiation,
    request: ProviderRequest,
    send: Callable[[ProviderRequest, StructuredOutput], Awaitable[ProviderReply]],
) -> ProviderReply:
    # A text reply to a tool-choice request may be the model declining, or the server
    # ignoring tools (llama-cpp-python's with a plain chat format): one probe with
    # tool_choice="required" tells them apart, once per provider.
    if negotiation.tools == "as_json":
        return as_choice(await _structured(negotiation, as_json_request(request), send))
    reply = await send(request, negotiation.mode)
    if reply.tool_calls:
        negotiation.tools = "native"
    refused = None
    # Only a client error: a 5xx naming tools is an outage as likely as a refusal.
    failure = reply.failure
    if negotiation.tools != "native" and failure is not None and failure.reason == "http_4xx":
        refused = refusal(failure, "tools")
    if refused is not None:
        # A server that refuses tools outright (Ollama's 400 "does not support tools")
        # answers the same choice asked as structured output.
        negotiation.tools_ignored(refused)
        answer = as_choice(await _structured(negotiation, as_json_request(request), send))
        return _spent(reply.usage, answer)
    if negotiation.tools == "native" or not reply.ok or reply.tool_calls:
        return reply
    probe = _spent(reply.usage, await send(replace(request, tool_choice="required"), "tools"))
    if probe.tool_calls:
        negotiation.tools = "native"
        return replace(reply, usage=probe.usage, latency_ns=probe.latency_ns)
    refused = refusal(probe.failure, "tools")
    if not probe.ok and refused is None:
        # A timeout or an outage says nothing about tools: decided by a later request.
        return replace(reply, usage=probe.usage, latency_ns=probe.latency_ns)
    negotiation.tools_ignored(
        refused or "the server answered in text even with tool_choice=required"
    )
    answer = as_choice(await _structured(negotiation, as_json_request(request), send))
    return _spent(probe.usage, answer)


_PROBE_SCHEMA: Final[JSONObject] = {
    "type": "object",
    "properties": {"ok": {"type": "boolean"}},
    "required": ["ok"],
    "additionalProperties": False,
}
_PROBE_TOOL: Final[JSONObject] = {
    "type": "function",
    "function": {
        "name": "ping",
        "description": "Answer a ping.",
        "parameters": {"type": "object", "properties": {}, "additionalProperties": False},
    },
}


def setup_probes() -> tuple[ProviderRequest, ...]:
    """The two small requests that settle ``auto`` before any counted request.

    One asks for JSON that follows a schema (the fallback's kind of request),
    one offers a tool and asks for its call (the tool chooser's): whatever
    refusals, retries in another mode and ``tool_choice="required"`` probes
    they cause are spent on them, once.
    """
    return (
        ProviderRequest(
            purpose="fallback",
            messages=(
                Message("system", "Reply with a JSON object that follows the schema."),
                Message("user", 'Reply {"ok": true}.'),
            ),
            response_schema=_PROBE_SCHEMA,
            schema_name="probe",
            max_tokens=16,
        ),
        ProviderRequest(
            purpose="tool_choice",
            messages=(
                Message("system", "Call the function that answers the user's request."),
                Message("user", "ping"),
            ),
            tools=(_PROBE_TOOL,),
            tool_choice="auto",
            max_tokens=32,
        ),
    )


def _one_line(text: str, limit: int = 160) -> str:
    # Server messages carry newlines and tracebacks; a note is one line.
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def _spent(before: Usage, reply: ProviderReply) -> ProviderReply:
    return reply if before.requests == 0 else replace(reply, usage=before + reply.usage)
