"""The two uses of a provider: the kernel's fallback, and tool choice for the LLM-always agent."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import TYPE_CHECKING, Literal, cast

from agent_lab.agents.port import (
    FailureReason,
    Provider,
    ProviderReply,
    ProviderRequest,
    ToolCall,
)
from agent_lab.agents.prompts import fallback_request, tool_choice_request
from agent_lab.application.events.models import FallbackReply, FallbackRequest, Usage
from agent_lab.application.events.registry import EventRegistry
from agent_lab.application.events.validation import describe_error
from agent_lab.application.tools import openai_tool
from agent_lab.errors import ProviderError

if TYPE_CHECKING:
    from collections.abc import Iterable

    from agent_lab.application.events.models import EventDefinition
    from agent_lab.strict_json import JSONObject, JSONValue

__all__ = ["ChoiceOutcome", "LLMFallback", "ToolChoice", "ToolChooser"]


class LLMFallback:
    """A kernel fallback backed by any provider: asks only for the missing fields.

    The prompt carries the user's words and payload, the resolved values as
    fixed facts, and the event's schema projected onto the missing
    properties, sent as structured output (``mode="json_schema"``) or as a
    forced tool call (``mode="tool"``). The model's raw text and the
    adapter's parse both go back to the kernel for its audit (K17, K18).

    A provider failure becomes ``ProviderError`` with the provider's reason,
    which the kernel reports as ``FALLBACK_FAILED``. Transport retries happen
    inside the provider and are counted in ``Usage.requests``; the error is
    marked not retryable so the kernel does not multiply them.
    """

    def __init__(
        self,
        provider: Provider,
        *,
        model: str | None = None,
        mode: Literal["json_schema", "tool"] = "json_schema",
        max_tokens: int = 256,
        temperature: float = 0.0,
        seed: int | None = None,
    ) -> None:
        self.provider = provider
        self.model = model
        self.mode = mode
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.seed = seed

    async def __call__(self, request: FallbackRequest) -> FallbackReply:
        """Ask the provider for the missing fields of ``request``.

        Raises:
            ProviderError: The provider failed or replied with nothing usable.
        """
        return await self.send(self.request_for(request))

    def request_for(self, request: FallbackRequest) -> ProviderRequest:
        """The provider request this fallback would send for ``request`` (nothing is sent)."""
        provider_request = fallback_request(
            request,
            model=self.model,
            max_tokens=self.max_tokens,
            temperature=self.temperature,
            seed=self.seed,
        )
        if self.mode == "tool":
            tool = {
                "type": "function",
                "function": {
                    "name": request.definition.name,
                    "description": "Supply the missing arguments.",
                    "parameters": provider_request.response_schema,
                },
            }
            provider_request = replace(
                provider_request,
                tools=(tool,),
                tool_choice=request.definition.name,
                response_schema=None,
            )
        return provider_request

    async def send(self, provider_request: ProviderRequest) -> FallbackReply:
        """Send a request built by ``request_for``; the reply as the kernel takes it.

        Raises:
            ProviderError: The provider failed or replied with nothing usable.
        """
        reply = await self.provider.complete(provider_request)
        _raise_for_failure(reply)
        if self.mode == "tool":
            if not reply.tool_calls:
                raise ProviderError(
                    FailureReason.NO_TOOL_CALL,
                    "the model was asked to call the tool and did not",
                    attempts=reply.usage.requests,
                    usage=reply.usage,
                )
            call = reply.tool_calls[0]
            parsed = call.arguments if isinstance(call.arguments, dict) else None
            return FallbackReply(call.arguments_raw, arguments=parsed, usage=reply.usage)
        if reply.text is None:
            raise ProviderError(
                FailureReason.NO_CONTENT,
                "the model replied with no text",
                attempts=reply.usage.requests,
                usage=reply.usage,
            )
        parsed = reply.parsed if isinstance(reply.parsed, dict) else None
        return FallbackReply(reply.text, arguments=parsed, usage=reply.usage)


def _raise_for_failure(reply: ProviderReply) -> None:
    if reply.failure is not None:
        raise ProviderError(
            reply.failure.reason,
            reply.failure.message,
            retryable=False,
            attempts=reply.usage.requests,
            usage=reply.usage,
        )


class ChoiceOutcome(StrEnum):
    """What the model did with the tools it was offered."""

    CHOSEN = "chosen"
    NO_TOOL_CALL = "no_tool_call"
    MULTIPLE_TOOL_CALLS = "multiple_tool_calls"
    UNKNOWN_TOOL = "unknown_tool"
    FAILED = "failed"


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolChoice:
    """The model's choice of event and arguments (LLM-always agent)."""

    outcome: ChoiceOutcome
    name: str | None = None
    """The chosen tool, when there is exactly one call."""
    arguments_raw: str | None = None
    """The argument text as it came over the wire."""
    arguments: JSONValue | None = None
    """The adapter's parse of ``arguments_raw``."""
    reason: str | None = None
    """For ``FAILED``: the provider's reason code."""
    calls: tuple[ToolCall, ...] = ()
    """Every call the model made (several for ``MULTIPLE_TOOL_CALLS``)."""
    message: str = ""
    usage: Usage
    latency_ns: int = 0


class ToolChooser:
    """Lets a model pick the event and all its arguments by tool calling."""

    def __init__(
        self,
        provider: Provider,
        definitions: Iterable[EventDefinition],
        *,
        model: str | None = None,
        max_tokens: int = 256,
        temperature: float = 0.0,
        seed: int | None = None,
    ) -> None:
        self.provider = provider
        chosen = _with_schemas(definitions)
        self.tools: tuple[JSONObject, ...] = tuple(
            cast("JSONObject", openai_tool(definition)) for definition in chosen
        )
        self.definitions = chosen
        self.names = frozenset(definition.name for definition in chosen)
        self.model = model
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.seed = seed
        self._narrowed: dict[frozenset[str], ToolChooser] = {}

    def narrowed(self, names: Iterable[str]) -> ToolChooser:
        """The same chooser offering only these events' tools (built once per set).

        A benchmark case may offer the model a few candidate functions (BFCL),
        or name the event and leave only its arguments to fill (SGD).
        """
        wanted = frozenset(names)
        if wanted == self.names:
            return self
        cached = self._narrowed.get(wanted)
        if cached is None:
            cached = ToolChooser(
                self.provider,
                [d for d in self.definitions if d.name in wanted],
                model=self.model,
                max_tokens=self.max_tokens,
                temperature=self.temperature,
                seed=self.seed,
            )
            self._narrowed[wanted] = cached
        return cached

    async def choose(
        self,
        text: str,
        *,
        payload: Mapping[str, JSONValue] | None = None,
        context: Mapping[str, object] | None = None,
    ) -> ToolChoice:
        """Ask the model which event the user means, with which arguments. Never raises."""
        return await self.send(self.request_for(text, payload=payload, context=context))

    def request_for(
        self,
        text: str,
        *,
        payload: Mapping[str, JSONValue] | None = None,
        context: Mapping[str, object] | None = None,
    ) -> ProviderRequest:
        """The tool-calling request ``choose`` would send (nothing is sent)."""
        return tool_choice_request(
            text,
            self.tools,  # one tuple for every request: its canonical JSON is cached
            payload=payload,
            context=context,
            model=self.model,
            max_tokens=self.max_tokens,
            temperature=self.temperature,
            seed=self.seed,
        )

    async def send(self, request: ProviderRequest) -> ToolChoice:
        """Send a request built by ``request_for``; the model's choice. Never raises."""
        try:
            reply = await self.provider.complete(request)
        except Exception as err:  # noqa: BLE001 - the port promises no raise; a provider's bug is a failure
            return ToolChoice(
                outcome=ChoiceOutcome.FAILED,
                reason=FailureReason.PROVIDER_ERROR,
                message=f"the provider raised {describe_error(err)}",
                usage=Usage(requests=1, succeeded=0),
            )
        usage, latency = reply.usage, reply.latency_ns
        if reply.failure is not None:
            return ToolChoice(
                outcome=ChoiceOutcome.FAILED,
                reason=reply.failure.reason,
                message=reply.failure.message,
                usage=usage,
                latency_ns=latency,
            )
        calls = list(reply.tool_calls)
        if not calls:
            return ToolChoice(
                outcome=ChoiceOutcome.NO_TOOL_CALL,
                message=reply.text or "",
                usage=usage,
                latency_ns=latency,
            )
        if len(calls) > 1:
            return ToolChoice(
                outcome=ChoiceOutcome.MULTIPLE_TOOL_CALLS,
                message="called " + ", ".join(call.name for call in calls),
                calls=tuple(calls),
                usage=usage,
                latency_ns=latency,
            )
        call = calls[0]
        return ToolChoice(
            outcome=ChoiceOutcome.CHOSEN if call.name in self.names else ChoiceOutcome.UNKNOWN_TOOL,
            name=call.name,
            arguments_raw=call.arguments_raw,
            arguments=call.arguments,
            usage=usage,
            latency_ns=latency,
        )


def _with_schemas(definitions: Iterable[EventDefinition]) -> tuple[EventDefinition, ...]:
    """The definitions with a JSON Schema each: a Pydantic model class is converted here.

    A plugin set's definitions may hold model classes, which only registration
    turns into a schema; the tools offered to a model need the schema. A
    lazy registry never raises: a broken definition gets an empty schema here,
    and its dispatch reports the ``DEFINITION_ERROR``.
    """
    registry = EventRegistry(check_on_register=False)
    return tuple(
        definition if isinstance(definition.parameters, Mapping) else registry.register(definition)
        for definition in definitions
    )
