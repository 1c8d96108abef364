"""Tool choice: a model offered the events as tools picks one, with its arguments, or none."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, cast

from agent_lab.agents.fallback import ask_model
from agent_lab.agents.prompts import tool_choice_request
from agent_lab.kernel.ledger import Attempt, AttemptOutcome
from agent_lab.kernel.models import FallbackReply
from agent_lab.kernel.registry import EventRegistry
from agent_lab.kernel.tools import openai_tool
from agent_lab.usage import Usage

if TYPE_CHECKING:
    from collections.abc import Iterable

    from agent_lab.agents.port import Provider, ProviderRequest, ToolCall
    from agent_lab.kernel.models import EventDefinition
    from agent_lab.strict_json import JSONObject, JSONValue

__all__ = [
    "ChoiceOutcome",
    "ToolChoice",
    "ToolChooser",
    "choice_attempt",
    "choice_reply",
]


class ChoiceOutcome(StrEnum):
    """What the model did with the tools it was offered."""

    CHOSEN = "chosen"
    NO_TOOL_CALL = "no_tool_call"
    MULTIPLE_TOOL_CALLS = "multiple_tool_calls"
    UNKNOWN_TOOL = "unknown_tool"
    FAILED = "failed"


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolChoice:
    """The model's choice of event and arguments, or what it did instead."""

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
        self.tools: tuple[JSONObject, ...] = tool_specs(chosen)
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
        reply = await ask_model(self.provider, request)
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


def tool_specs(definitions: Iterable[EventDefinition]) -> tuple[JSONObject, ...]:
    """The events as a model is offered them: an OpenAI function tool spec each."""
    return tuple(
        cast("JSONObject", openai_tool(definition)) for definition in _with_schemas(definitions)
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


def choice_reply(choice: ToolChoice, call: ToolCall | None = None) -> FallbackReply:
    """A tool call's arguments as a reply for the kernel's parse and audit (``dispatch_reply``).

    ``call``: one of several calls the reply made; it cost nothing of its own
    (the one request is counted once, on the decision).
    """
    if call is not None:
        arguments = call.arguments if isinstance(call.arguments, dict) else None
        return FallbackReply(call.arguments_raw, arguments=arguments, usage=Usage.zero())
    arguments = choice.arguments if isinstance(choice.arguments, dict) else None
    return FallbackReply(choice.arguments_raw or "", arguments=arguments, usage=choice.usage)


def choice_attempt(choice: ToolChoice) -> Attempt:
    """The tool-choice request as one attempt of the ledger's route."""
    failed = choice.outcome is ChoiceOutcome.FAILED
    return Attempt(
        number=1,
        outcome=AttemptOutcome.ERROR if failed else AttemptOutcome.REPLY,
        reason=(choice.reason or "failed") if failed else "completed",
        usage=choice.usage,
        started_ns=0,
        duration_ns=choice.latency_ns,
    )
