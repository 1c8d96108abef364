"""The model port the agents own and the providers implement: one async method, failures as data."""

from __future__ import annotations

import functools
import hashlib
import json
from dataclasses import KW_ONLY, dataclass, field, replace
from enum import StrEnum
from types import MappingProxyType
from typing import TYPE_CHECKING, Literal, Protocol, TypeAlias, runtime_checkable

from agent_lab.kernel.models import Failure
from agent_lab.strict_json import JSONObject, JSONValue, canonical_dumps
from agent_lab.usage import Usage

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Mapping

__all__ = [
    "FailureReason",
    "Message",
    "Provider",
    "ProviderFailure",
    "ProviderReply",
    "ProviderRequest",
    "ProviderSetup",
    "ToolCall",
    "prepare",
    "tools_json",
]


class FailureReason(StrEnum):
    """Why a provider produced no usable reply; copied to ``EventResult.reason``."""

    TIMEOUT = "timeout"
    CONNECTION_ERROR = "connection_error"
    RATE_LIMITED = "rate_limited"
    HTTP_5XX = "http_5xx"
    HTTP_4XX = "http_4xx"
    INVALID_RESPONSE = "invalid_response"
    """The body was not a chat completion (not JSON, or missing its choices)."""
    NO_CONTENT = "no_content"
    """A completion with neither text nor a tool call."""
    NO_TOOL_CALL = "no_tool_call"
    """A forced tool call that did not come."""
    NOT_IN_CASSETTE = "not_in_cassette"
    MODEL_ERROR = "model_error"
    """An embedded model failed to run."""
    PROVIDER_ERROR = "provider_error"
    """The provider raised instead of returning a reply (a bug in a provider's code)."""


@dataclass(frozen=True, slots=True)
class Message:
    """One chat message."""

    role: Literal["system", "user", "assistant"]
    content: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ProviderRequest:
    """What is sent to a model. Everything here is part of the fingerprint, except ``context``."""

    purpose: Literal["fallback", "tool_choice"]
    """Which of the two uses the request serves."""
    messages: tuple[Message, ...]
    model: str | None = None
    """The model to ask; ``None`` lets the provider use its configured default."""
    tools: tuple[JSONObject, ...] = ()
    """OpenAI-format tool specs, for tool calling."""
    tool_choice: str | None = None
    """``"auto"``, ``"required"``, or a tool name to force."""
    response_schema: JSONObject | None = None
    """A JSON Schema the reply must follow (structured output)."""
    schema_name: str = "arguments"
    max_tokens: int = 256
    temperature: float = 0.0
    seed: int | None = None
    context: Mapping[str, JSONValue] = field(default_factory=lambda: MappingProxyType({}))
    """Not sent: what the lab knows about the request (event name, case id) for
    simulated and scripted providers. Excluded from the fingerprint."""

    def wire(self) -> JSONObject:
        """The request as JSON data: what a provider sends, credentials excluded."""
        return {
            "purpose": self.purpose,
            "model": self.model,
            "messages": [{"role": m.role, "content": m.content} for m in self.messages],
            "tools": list(self.tools),
            "tool_choice": self.tool_choice,
            "response_schema": self.response_schema,
            "schema_name": self.schema_name,
            "max_tokens": self.max_tokens,
            "temperature": self.temperature,
            "seed": self.seed,
        }

    def with_model(self, model: str | None) -> ProviderRequest:
        """The request with ``model`` filled in, when it names none."""
        return self if self.model is not None or model is None else replace(self, model=model)

    def fingerprint(self) -> str:
        """sha256 of the canonical JSON of what is sent: equal requests, equal fingerprints.

        The tools' canonical text is computed once per tools tuple (the same
        tuple serves every request of a tool chooser).
        """
        wire = self.wire()
        del wire["tools"]
        text = canonical_dumps(wire) + "\n" + tools_json(self.tools)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCall:
    """One tool call in a reply: the raw argument text exactly as it came, and its parse."""

    name: str
    arguments_raw: str
    """The argument JSON text, untouched (audited by the kernel, K17)."""
    arguments: JSONValue | None = None
    """The adapter's parse of it (audited against the raw text, K18); ``None`` if unparsable."""


ProviderFailure: TypeAlias = Failure
"""Why there is no usable reply: the kernel's ``Failure``, under the port's name.

One value carries a failure from the provider through the fallback to the
result: ``reason`` (a ``FailureReason`` value or a provider's own code),
``message``, and ``retryable``.
"""


@dataclass(frozen=True, slots=True)
class ProviderReply:
    """What came back: text and/or tool calls, or a failure; always with usage and latency."""

    _: KW_ONLY
    text: str | None = None
    """The message content, untouched."""
    parsed: JSONValue | None = None
    """The adapter's parse of ``text`` (or the server's own, when it sends one)."""
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage = field(default_factory=Usage)
    """Tokens, cost, model, requests sent (retries included)."""
    latency_ns: int = 0
    """Wall time around the request(s), retries and backoff included."""
    failure: ProviderFailure | None = None
    finish_reason: str | None = None

    def __post_init__(self) -> None:
        """A failed reply's requests all failed: none of them is counted as succeeded."""
        usage = self.usage
        if self.failure is not None and isinstance(usage, Usage) and usage.succeeded:
            object.__setattr__(self, "usage", usage.as_failed())

    @property
    def ok(self) -> bool:
        """Whether the reply carries something to use."""
        return self.failure is None


@dataclass(frozen=True, slots=True, kw_only=True)
class ProviderSetup:
    """What a provider spent once, before its first counted request (``prepare()``).

    A lab run calls it before the first trial, so that one-time costs (finding
    the structured-output format a server takes) land in the run's metadata,
    never in a trial's figures.
    """

    usage: Usage
    """The set-up requests, their tokens and cost (``Usage.zero()`` when none were sent)."""
    note: str | None = None
    """What the set-up found, in one line (e.g. ``auto: json_object``), if anything."""


async def prepare(provider: object) -> ProviderSetup | None:
    """Run ``provider.prepare()`` when it has one; ``None`` when it needs no set-up.

    Providers with one-time work (format negotiation) offer an async
    ``prepare() -> ProviderSetup``; the port does not require it.
    """
    method: Callable[[], Awaitable[object]] | None = getattr(provider, "prepare", None)
    if method is None or not callable(method):
        return None
    setup = await method()
    return setup if isinstance(setup, ProviderSetup) else None


def tools_json(tools: tuple[JSONObject, ...]) -> str:
    """The canonical JSON of a tools tuple, computed once per distinct set of tools.

    The canonical writer is pure Python (milliseconds for a handful of tools) and
    a chooser sends the same tools with every request: the standard library's
    sorted dump (C, a fiftieth of the cost) finds the canonical text again.
    """
    try:
        key = json.dumps(tools, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError):
        return canonical_dumps(list(tools))  # not plain data: the canonical writer says why
    return _canonical_text(key)


@functools.lru_cache(maxsize=256)
def _canonical_text(key: str) -> str:
    return canonical_dumps(json.loads(key))


@runtime_checkable
class Provider(Protocol):
    """An LLM behind one narrow method. It never raises for what the remote side does.

    ``name`` and ``model`` are read-only here, so a plain class attribute
    (``model = "my-model"``) satisfies the protocol under a strict checker.
    """

    @property
    def name(self) -> str:
        """Short name, e.g. ``openai``, ``local``, ``replay``, ``simulated``."""
        ...

    @property
    def model(self) -> str | None:
        """The model asked when a request names none."""
        ...

    async def complete(self, request: ProviderRequest) -> ProviderReply:
        """Send one request (with the provider's own bounded retries) and return the reply."""
        ...

    async def aclose(self) -> None:
        """Release what the provider keeps open (connections, files); a no-op if nothing."""
        ...
