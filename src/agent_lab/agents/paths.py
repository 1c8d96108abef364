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
schema, ``INVALID_ARGUMENTS`` without a retry. Which request was sent, and
what else the model said, travels back on the reply (``PathTaken``, which the
kernel keeps as the result's ``fallback_note``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from agent_lab.agents.choice import ChoiceOutcome, ToolChoice, choice_reply
from agent_lab.agents.decision import FallbackPath
from agent_lab.agents.port import ProviderFailure, tools_json
from agent_lab.kernel.models import FallbackReply

if TYPE_CHECKING:
    from collections.abc import Mapping

    from agent_lab.agents.choice import ToolChooser
    from agent_lab.agents.fallback import LLMFallback
    from agent_lab.agents.port import ProviderRequest
    from agent_lab.kernel.models import FallbackRequest
    from agent_lab.strict_json import JSONValue

__all__ = ["NoRegretFallback", "PathTaken", "prompt_size"]


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


@dataclass(frozen=True, slots=True, kw_only=True)
class PathTaken:
    """Which request filled the gaps, and what else its reply said (a fallback's note)."""

    path: FallbackPath
    followed: ToolChoice | None = None
    """The model answered with another offered tool, or several calls: they are the answer,
    each dispatched as it was made (LLM-always's would be), the routed event's not."""
    question: str | None = None
    """The model called no tool: what it wrote instead (its question, or why it declined)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class NoRegretFallback:
    """One message's fallback: the smaller of the projected and the plain request.

    Built per message (it carries the message's words) and handed to that
    message's dispatch.
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

    async def __call__(self, request: FallbackRequest) -> FallbackReply:
        """Send the smaller request; the model's arguments as the kernel takes them."""
        projected = self.projected.request_for(request)
        plain = self.plain.request_for(self.text, payload=self.payload, context=self.context)
        if self.projected_allowed and prompt_size(projected) <= prompt_size(plain):
            reply = await self.projected.send(projected)
            return replace(reply, note=PathTaken(path=FallbackPath.PROJECTED))
        choice = await self.plain.send(plain)
        return self._reply(choice, request.definition.name)

    def _reply(self, choice: ToolChoice, event: str) -> FallbackReply:
        if choice.outcome is ChoiceOutcome.FAILED:
            failure = ProviderFailure(reason=choice.reason or "failed", message=choice.message)
            return FallbackReply.failed(
                failure, usage=choice.usage, note=PathTaken(path=FallbackPath.PLAIN)
            )
        if choice.outcome is ChoiceOutcome.CHOSEN and choice.name == event:
            return replace(choice_reply(choice), note=PathTaken(path=FallbackPath.PLAIN))
        offered = self.plain.names
        followed = (choice.outcome is ChoiceOutcome.CHOSEN and choice.name in offered) or (
            choice.outcome is ChoiceOutcome.MULTIPLE_TOOL_CALLS
            and all(call.name in offered for call in choice.calls)
        )
        question = choice.message if choice.outcome is ChoiceOutcome.NO_TOOL_CALL else None
        # The model supplied nothing for this event itself ("{}" says so, for the kernel's
        # parse): it asked, called something not offered, or answered with other calls.
        return FallbackReply(
            "{}",
            arguments={},
            usage=choice.usage,
            note=PathTaken(
                path=FallbackPath.PLAIN, followed=choice if followed else None, question=question
            ),
        )
