"""The values a log reader yields: one logged LLM request, or one line it could not use.

Every format (``chat``, ``pairs``, ``otel``) is read into the same
``LoggedRequest``: what the model was sent (the messages and the tools
offered) and what it answered (tool calls, or words), with the usage,
model, latency and time the log recorded. Log replay (``agent-lab shadow``)
and ``agent-lab import logs`` read nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from agent_lab.errors import InputError

if TYPE_CHECKING:
    from agent_lab.strict_json import JSONObject

__all__ = [
    "LogError",
    "LogFormat",
    "LoggedRequest",
    "LoggedToolCall",
    "LoggedUsage",
    "SkipReason",
    "SkippedLine",
]


class LogFormat(StrEnum):
    """How a log file is written."""

    CHAT = "chat"
    """One conversation a line: ``{"messages": [...], "tools": [...]}`` (the fine-tuning format)."""
    PAIRS = "pairs"
    """One LLM call a line: ``{"request": <Chat Completions body>, "response": <its reply>}``."""
    OTEL = "otel"
    """OpenTelemetry GenAI spans as OTLP/JSON, one export request (or span) a line."""


class SkipReason(StrEnum):
    """Why a line (or a request in it) was not used: the ``skipped`` counts of every output."""

    MALFORMED_JSON = "malformed_json"
    """The line is not JSON (or not the format's shape)."""
    NOT_A_CHAT_REQUEST = "not_a_chat_request"
    """JSON, but not a request of the format: no messages, an embeddings call..."""
    UNKNOWN_ROLE = "unknown_role"
    """A message whose role is none of system, developer, user, assistant, tool."""
    TOOL_NOT_OFFERED = "tool_not_offered"
    """The model called a tool the request did not offer."""
    ARGUMENTS_NOT_JSON = "arguments_not_json"
    """A tool call whose arguments are not a JSON object."""
    BAD_TOOLS = "bad_tools"
    """The offered tools are not function tools with a name and a schema the registry takes."""
    NO_CONTENT = "no_content"
    """An OTel span recorded without message content: nothing to replay, never guessed."""
    TOO_LARGE = "too_large"
    """A line over the reader's size bound, or a request past ``logs.bounds``."""
    FAILED_REQUEST = "failed_request"
    """A logged attempt that failed (an ``error`` and no response): the model answered nothing."""
    NO_TOOLS = "no_tools"
    """An OTel span with tool calls but no record of the tools offered (opt-in to capture)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class LoggedToolCall:
    """One tool call a logged model made."""

    name: str
    arguments: JSONObject
    """The arguments, parsed strictly (``strict_json.loads``)."""
    raw: str
    """The arguments as logged."""


@dataclass(frozen=True, slots=True, kw_only=True)
class LoggedUsage:
    """What the log says a request used; a figure it does not give is ``None``, never 0."""

    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cached_tokens: int | None = None
    estimated: bool = False
    """The figures are an estimate (a rendered test log), not what a provider billed."""


@dataclass(frozen=True, slots=True, kw_only=True)
class LoggedRequest:
    """One LLM request a log holds: what the model was sent, and what it answered."""

    where: str
    """``file:line``, and ``#n`` for the n-th request of a conversation line (from 1)."""
    format: LogFormat
    messages: tuple[JSONObject, ...]
    """What the model was sent, in the Chat Completions form (content as a string, or parts)."""
    tools: tuple[JSONObject, ...]
    """The tools offered, as OpenAI function tool specs."""
    calls: tuple[LoggedToolCall, ...]
    """The tool calls it answered with; empty when it answered in words."""
    text: str | None = None
    """What it wrote, when it wrote anything."""
    model: str | None = None
    """The model that answered (the response's, else the request's)."""
    usage: LoggedUsage | None = None
    latency_ms: float | None = None
    timestamp: str | None = None
    """When the request was made, ISO 8601, when the log says."""
    reference_date: str | None = None
    """The date its relative dates are read against, when the log names one apart from
    ``timestamp`` (a gateway's ``--reference-date`` or header); else ``timestamp``."""
    forwarded: str | None = None
    """Why the request is the model's whatever plain code decides, when its log says:
    ``tool_choice_none`` (the request forbade calls), or the rule a gateway stored beside it
    (``logs.exchanges``); ``None`` when nothing forbids a local answer."""
    forced: str | None = None
    """The function ``tool_choice`` named: a local answer must call it and nothing else."""
    at_most_one: bool = False
    """``parallel_tool_calls: false``: a local answer of several calls is the model's."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SkippedLine:
    """A line, or a request in one, left out: where, why, and the problem in words."""

    where: str
    reason: SkipReason
    message: str
    counted: bool = False
    """No fault of whoever reads the log: counted, never an error, whatever its reason (a
    client's request a gateway stored). ``reader.COUNTED`` reasons are counted either way."""


class LogError(InputError):
    """A log line that cannot be used, without ``--skip-bad-lines``: where, and why.

    Attributes:
        skipped: The line as ``--skip-bad-lines`` would count it.
        where: ``file:line`` (and ``#n``).
        reason: The ``SkipReason`` it would be counted under.
    """

    def __init__(self, skipped: SkippedLine) -> None:
        super().__init__(f"{skipped.where}: {skipped.message}")
        self.skipped = skipped
        self.where = skipped.where
        self.reason = skipped.reason
