"""The agents' plumbing: the fallback each message installs, and model-made calls dispatched."""

from __future__ import annotations

import dataclasses
import inspect
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING

from agent_lab.agents.llm import ChoiceOutcome, ToolChoice
from agent_lab.agents.replies import AgentReply, DispatchedCall, FallbackPath, Routing
from agent_lab.application.events.kernel import EventKernel
from agent_lab.application.events.ledger import (
    Attempt,
    AttemptOutcome,
    LLMReason,
    RouteDecision,
    RouteKind,
)
from agent_lab.application.events.models import (
    Event,
    EventResult,
    FallbackReply,
    FallbackRequest,
    Resolution,
    Status,
)
from agent_lab.application.events.registry import EventRegistry
from agent_lab.usage import Usage

if TYPE_CHECKING:
    from collections.abc import Collection, Generator, Mapping
    from concurrent.futures import Executor

    from agent_lab.agents.plugins import PluginSet
    from agent_lab.application.events.models import Fallback
    from agent_lab.clock import Clock
    from agent_lab.strict_json import JSONValue

__all__ = [
    "BY_KEYWORD",
    "BY_MODEL",
    "BY_PATTERN",
    "LEXICAL",
    "answers_with_several",
    "as_mapping",
    "chose_by_model",
    "dispatch_call",
    "dispatch_calls",
    "failed_choice",
    "installed",
    "message_fallback",
    "model_kernel",
    "model_outcome",
    "outcome",
    "reply_from",
    "routed",
    "said",
]

# Each agent builds its kernel once, with one fallback callable, but what the
# fallback should answer belongs to one message: the model's tool choice made
# while routing it. So ``respond`` installs the message's own fallback here for
# the length of its dispatch, and the kernel's fallback (``message_fallback``)
# calls whatever is installed. A ContextVar is task-local (asyncio gives every
# task a copy of the context), so concurrent messages on one agent never see
# each other's fallback, and nothing of the agent's travels in, or is written
# back through, ``Event.context``, which resolvers and handlers see too.
_FALLBACK: ContextVar[Fallback] = ContextVar("agent_lab.message_fallback")


async def message_fallback(request: FallbackRequest) -> FallbackReply:
    """The kernel's fallback for both agents: the one the message being handled installed."""
    reply = _FALLBACK.get()(request)
    return await reply if inspect.isawaitable(reply) else reply


@contextmanager
def installed(fallback: Fallback | None) -> Generator[None]:
    """Make ``fallback`` the kernel's fallback for the message being handled."""
    if fallback is None:  # the kernel was built without one and never asks
        yield
        return
    token = _FALLBACK.set(fallback)
    try:
        yield
    finally:
        _FALLBACK.reset(token)


async def dispatch_call(
    kernel: EventKernel,
    choice: ToolChoice,
    *,
    text: str,
    payload: Mapping[str, JSONValue] | None,
    context: Mapping[str, object] | None,
) -> EventResult:
    """The model's one call through the kernel's rules: its arguments are the only reply."""
    name = choice.name or ""  # a chosen call always names its tool; "" would be unknown_event
    with installed(lambda request: reply_from(choice)):
        return await kernel.adispatch(
            Event(name, text=text, payload=dict(payload or {}), context=dict(context or {}))
        )


async def dispatch_calls(
    kernel: EventKernel,
    choice: ToolChoice,
    *,
    text: str,
    payload: Mapping[str, JSONValue] | None,
    context: Mapping[str, object] | None,
) -> AgentReply:
    """Several tool calls in one reply, each through the kernel's rules (parse, audit, schema).

    The reply was one request: it is counted once, whatever the number of calls.
    """
    dispatched: list[DispatchedCall] = []
    first: EventResult | None = None
    for call in choice.calls:
        reply = FallbackReply(
            call.arguments_raw,
            arguments=as_mapping(call.arguments),
            usage=Usage(requests=0, prompt_tokens=0, completion_tokens=0),
        )
        with installed(lambda request, reply=reply: reply):
            result = await kernel.adispatch(
                Event(
                    call.name, text=text, payload=dict(payload or {}), context=dict(context or {})
                )
            )
        first = first or result
        dispatched.append(
            DispatchedCall(event=call.name, status=result.status, arguments=result.arguments)
        )
    failed = next((c for c in dispatched if c.status is not Status.SUCCESS), None)
    ending = failed or dispatched[0]
    return AgentReply(
        status=ending.status,
        reason="several_calls" if failed is None else f"a call ended {failed.status}",
        event=dispatched[0].event,
        arguments=dispatched[0].arguments,
        routed_by=Routing.LLM,
        llm_calls=choice.usage.requests,
        usage=choice.usage,
        result=first,
        message=choice.message,
        calls=tuple(dispatched),
    )


def chose_by_model(route: RouteDecision, choice: ToolChoice) -> RouteDecision:
    """``route`` as decided by a model's tool choice, with that request as its attempt."""
    failed = choice.outcome is ChoiceOutcome.FAILED
    attempt = Attempt(
        number=1,
        outcome=AttemptOutcome.ERROR if failed else AttemptOutcome.REPLY,
        reason=(choice.reason or "failed") if failed else "completed",
        usage=choice.usage,
        started_ns=0,
        duration_ns=choice.latency_ns,
    )
    return dataclasses.replace(route, by=RouteKind.LLM_CHOICE, attempts=(attempt,))


def failed_choice(route: RouteDecision, choice: ToolChoice) -> AgentReply:
    """A tool-choice request that got no usable reply: a failure, whoever sent it.

    Never ``unknown_event``: a message the model could not be asked about was
    not declined, and scoring it as a decline would turn an outage into right
    answers on every out-of-domain case.
    """
    return AgentReply(
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


def answers_with_several(choice: ToolChoice, known: Collection[str]) -> bool:
    return choice.outcome is ChoiceOutcome.MULTIPLE_TOOL_CALLS and all(
        call.name in known for call in choice.calls
    )


def said(choice: ToolChoice | None) -> str | None:
    # A reply that called no tool: its text is the model's question or refusal.
    if choice is None or choice.outcome is not ChoiceOutcome.NO_TOOL_CALL:
        return None
    return choice.message


def model_kernel(
    plugins: PluginSet, clock: Clock | None, offload: Executor | None = None
) -> EventKernel:
    """A kernel whose every argument comes from the model (the tool agent, several calls)."""
    registry = EventRegistry()
    for definition in plugins.definitions:
        registry.register(dataclasses.replace(definition, resolver=_incomplete))
    # The model read the user's words: its values are its reading, not a gap filled in.
    return EventKernel(
        registry,
        message_fallback,
        clock=clock,
        max_attempts=1,
        offload=offload,
        enforce_user_only=False,
    )


def _incomplete(event: Event) -> Resolution:
    # The tool agent resolves nothing itself: every argument comes from the model.
    return Resolution({}, complete=False)


def reply_from(choice: ToolChoice) -> FallbackReply:
    """A tool call's arguments as a fallback reply, for the kernel's parse and audit."""
    return FallbackReply(
        choice.arguments_raw or "", arguments=as_mapping(choice.arguments), usage=choice.usage
    )


def as_mapping(value: object) -> Mapping[str, object] | None:
    return value if isinstance(value, dict) else None  # pyright: ignore[reportUnknownVariableType]


BY_MODEL = RouteDecision(by=RouteKind.LLM_CHOICE, llm_reason=LLMReason.MODEL_RESOLVES)
"""LLM-always's route: the model chooses for every message."""
LEXICAL = RouteDecision(by=RouteKind.LEXICAL)
BY_PATTERN = RouteDecision(by=RouteKind.PATTERN)
BY_KEYWORD = RouteDecision(by=RouteKind.KEYWORD)


def routed(route: RouteDecision, reply: AgentReply) -> AgentReply:
    """``reply`` with its route on the reply and on the kernel's result (for the ledger)."""
    result = reply.result
    if result is not None and result.route is not route:
        result = dataclasses.replace(result, route=route)
    return dataclasses.replace(reply, route=route, result=result)


def outcome(
    result: EventResult,
    *,
    route: RouteDecision,
    routed_by: Routing,
    extra_calls: int,
    extra_usage: Usage,
    path: FallbackPath,
    model_text: str | None = None,
) -> AgentReply:
    if result.route is not route:
        result = dataclasses.replace(result, route=route)
    return AgentReply(
        route=route,
        status=result.status,
        reason=result.reason,
        event=result.event,
        arguments=result.arguments,
        routed_by=routed_by,
        llm_calls=result.llm_calls + extra_calls,
        usage=extra_usage + result.usage if extra_calls else result.usage,
        result=result,
        message=result.message,
        model_text=model_text,
        path=path,
    )


def model_outcome(result: EventResult, path: FallbackPath) -> AgentReply:
    """A reply whose event and arguments the model chose (its one request counted by the kernel)."""
    return outcome(
        result,
        route=BY_MODEL,
        routed_by=Routing.LLM,
        extra_calls=0,
        extra_usage=Usage.zero(),
        path=path,
    )
