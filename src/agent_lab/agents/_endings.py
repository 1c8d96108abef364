"""How a decision ends: a failed request, a decline, the model's call or none, a dispatch."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from agent_lab.agents.choice import ChoiceOutcome, choice_attempt
from agent_lab.agents.decision import Decision, FallbackPath, Routing
from agent_lab.kernel.ledger import LLMReason, RouteDecision, RouteKind
from agent_lab.kernel.models import Status
from agent_lab.usage import Usage

if TYPE_CHECKING:
    from collections.abc import Collection

    from agent_lab.agents.choice import ToolChoice
    from agent_lab.kernel.models import EventResult

__all__ = [
    "BY_MODEL",
    "chose_by_model",
    "declined",
    "failed",
    "from_result",
    "several_known",
    "unanswered",
]

BY_MODEL = RouteDecision(by=RouteKind.LLM_CHOICE, llm_reason=LLMReason.MODEL_RESOLVES)
"""LLM-always's route: the model chooses for every message."""


def several_known(choice: ToolChoice, known: Collection[str]) -> bool:
    """Whether the model made several calls, each of a tool it was offered."""
    return choice.outcome is ChoiceOutcome.MULTIPLE_TOOL_CALLS and all(
        call.name in known for call in choice.calls
    )


def chose_by_model(route: RouteDecision, choice: ToolChoice) -> RouteDecision:
    """``route`` as decided by a model's tool choice, with that request as its attempt."""
    return dataclasses.replace(route, by=RouteKind.LLM_CHOICE, attempts=(choice_attempt(choice),))


def _said(choice: ToolChoice | None) -> str | None:
    # A reply that called no tool: its text is the model's question or refusal.
    if choice is None or choice.outcome is not ChoiceOutcome.NO_TOOL_CALL:
        return None
    return choice.message


def failed(route: RouteDecision, choice: ToolChoice) -> Decision:
    """A tool-choice request that got no usable reply: a failure, whoever sent it.

    Never ``unknown_event``: a message the model could not be asked about was
    not declined, and scoring it as a decline would turn an outage into right
    answers on every out-of-domain case.
    """
    return Decision(
        route=route,
        status=Status.FALLBACK_FAILED,
        reason=choice.reason or "failed",
        event=None,
        arguments=None,
        routed_by=Routing.NONE,
        llm_calls=choice.usage.requests,
        usage=choice.usage,
        message=choice.message,
    )


def declined(route: RouteDecision, choice: ToolChoice | None) -> Decision:
    """No event: no route decided, and the model (if asked) called none it was offered."""
    return Decision(
        route=route,
        status=Status.UNKNOWN_EVENT,
        reason="no_route",
        event=None,
        arguments=None,
        routed_by=Routing.NONE,
        llm_calls=0 if choice is None else choice.usage.requests,
        usage=Usage.zero() if choice is None else choice.usage,
        message="" if choice is None else choice.message,
        model_text=_said(choice),
    )


def unanswered(choice: ToolChoice) -> Decision:
    """LLM-always's model called no tool it was offered, or its request failed."""
    declined = choice.outcome in (ChoiceOutcome.NO_TOOL_CALL, ChoiceOutcome.UNKNOWN_TOOL)
    return Decision(
        route=chose_by_model(BY_MODEL, choice),
        status=Status.UNKNOWN_EVENT if declined else Status.FALLBACK_FAILED,
        reason=choice.reason or choice.outcome.value,
        event=None,
        arguments=None,
        routed_by=Routing.LLM,
        llm_calls=choice.usage.requests,
        usage=choice.usage,
        message=choice.message,
        model_text=_said(choice),
    )


def from_result(
    result: EventResult,
    route: RouteDecision,
    routed_by: Routing,
    routing: Usage,
    *,
    path: FallbackPath,
    model_text: str | None = None,
) -> Decision:
    """The decision a dispatch ended, with the requests routing it took beside the kernel's."""
    return Decision(
        route=route,
        status=result.status,
        reason=result.reason,
        event=result.event,
        arguments=result.arguments,
        routed_by=routed_by,
        llm_calls=result.llm_calls + routing.requests,
        usage=routing + result.usage if routing.requests else result.usage,
        result=result,
        message=result.message,
        model_text=model_text,
        path=path,
    )
