"""Deterministic-first's no-regret fallback: never a longer request than LLM-always's own.

When the resolver leaves gaps, two requests could fill them:

* **projected**: the kernel's fallback prompt, the missing fields only, with
  the resolved values as fixed facts (``LLMFallback``);
* **plain**: the request LLM-always sends for this message, one tool-calling
  request offering the event's tool (``ToolChooser``).

Both are built (building sends nothing) and the smaller is sent. The
projected request asks for fewer fields, so its completion is never the
longer one; when its prompt is not longer either, it costs no more than
LLM-always's request, and otherwise the plain request costs exactly what
LLM-always pays. Either way the reply goes through the kernel's rules:
resolved values win (K19), the strict parse and the raw/parsed audit, the
schema, ``INVALID_ARGUMENTS`` without a retry.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent_lab.agents._dispatching import as_mapping, reply_from
from agent_lab.agents.llm import ChoiceOutcome, ToolChoice
from agent_lab.agents.port import FailureReason, tools_json
from agent_lab.agents.replies import FallbackPath
from agent_lab.application.events.models import FallbackReply
from agent_lab.errors import ProviderError

if TYPE_CHECKING:
    from collections.abc import Mapping

    from agent_lab.agents.llm import LLMFallback, ToolChooser
    from agent_lab.agents.port import ProviderRequest
    from agent_lab.application.events.models import FallbackRequest
    from agent_lab.strict_json import JSONValue

__all__ = ["CheaperPath", "prompt_size"]


def prompt_size(request: ProviderRequest) -> int:
    """Characters the model reads: the messages, the tools and the response schema.

    A stand-in for prompt tokens that needs no tokenizer: both requests go to
    the same model, so only their order matters, and characters order them as
    tokens do to within a few percent on JSON and English.
    """
    schema = request.response_schema
    return (
        sum(len(m.content) for m in request.messages)
        + len(tools_json(request.tools))
        + (len(json.dumps(schema, sort_keys=True)) if schema is not None else 0)
    )


@dataclass(slots=True, kw_only=True)
class CheaperPath:
    """One message's fallback: the smaller of the projected and the plain request.

    Built per message (it carries the message's words), installed for the
    length of its dispatch; afterwards ``path`` says which request was sent,
    ``several`` holds a plain reply that made several calls (the agent
    dispatches each), and ``question`` the text of a plain reply that called
    no tool (the model asked).
    """

    projected: LLMFallback
    plain: ToolChooser
    """LLM-always's chooser, offering what it offers for this message (the event being
    dispatched when it was given or routed by pattern; every candidate otherwise)."""
    text: str
    payload: Mapping[str, JSONValue] | None
    context: Mapping[str, object] | None
    projected_allowed: bool = True
    """``False`` when only LLM-always's own request will do: the event was picked by
    the lexical router among candidates, and the message may need another of them, or
    several (the projected request can ask for one call of one event only)."""
    path: FallbackPath = FallbackPath.NONE
    several: ToolChoice | None = None
    question: str | None = None

    async def __call__(self, request: FallbackRequest) -> FallbackReply:
        """Send the smaller request; the model's arguments as the kernel takes them.

        Raises:
            ProviderError: The provider failed (the kernel reports ``FALLBACK_FAILED``).
        """
        projected = self.projected.request_for(request)
        plain = self.plain.request_for(self.text, payload=self.payload, context=self.context)
        if self.projected_allowed and prompt_size(projected) <= prompt_size(plain):
            self.path = FallbackPath.PROJECTED
            return await self.projected.send(projected)
        self.path = FallbackPath.PLAIN
        choice = await self.plain.send(plain)
        return self._reply(choice, request.definition.name)

    def _reply(self, choice: ToolChoice, event: str) -> FallbackReply:
        if choice.outcome is ChoiceOutcome.FAILED:
            raise ProviderError(
                choice.reason or FailureReason.INVALID_RESPONSE,
                choice.message,
                attempts=choice.usage.requests,
                usage=choice.usage,
                retryable=False,
            )
        if choice.outcome is ChoiceOutcome.CHOSEN and choice.name == event:
            return reply_from(choice)
        offered = self.plain.names
        if choice.outcome is ChoiceOutcome.CHOSEN and choice.name in offered:
            # Another offered tool than the router's pick: the model's call is followed,
            # as LLM-always's would be (the agent dispatches it; nothing here is merged).
            self.several = choice
            return FallbackReply("{}", arguments={}, usage=choice.usage)
        if choice.outcome is ChoiceOutcome.MULTIPLE_TOOL_CALLS and all(
            call.name in offered for call in choice.calls
        ):
            self.several = choice
            first = choice.calls[0]
            return FallbackReply(
                first.arguments_raw, arguments=as_mapping(first.arguments), usage=choice.usage
            )
        # No call (the model asked), or a call of some other tool: the model
        # supplied nothing for this event, so what the resolver left missing
        # stays missing. "{}" is that statement in JSON, for the kernel's parse.
        if choice.outcome is ChoiceOutcome.NO_TOOL_CALL:
            self.question = choice.message
        return FallbackReply("{}", arguments={}, usage=choice.usage)
