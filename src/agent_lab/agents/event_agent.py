"""The agents the lab compares: deterministic-first (event agent), LLM-always (tool agent)."""

from __future__ import annotations

import dataclasses
import inspect
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from agent_lab.agents._dispatching import (
    BY_KEYWORD,
    BY_MODEL,
    BY_PATTERN,
    LEXICAL,
    answers_with_several,
    chose_by_model,
    dispatch_call,
    dispatch_calls,
    failed_choice,
    installed,
    message_fallback,
    model_kernel,
    model_outcome,
    outcome,
    reply_from,
    routed,
    said,
)
from agent_lab.agents.fallback_paths import CheaperPath
from agent_lab.agents.llm import ChoiceOutcome, LLMFallback, ToolChoice, ToolChooser
from agent_lab.agents.replies import AgentReply, DispatchedCall, FallbackPath, Routing
from agent_lab.agents.routing import DeterministicRouter
from agent_lab.application.events.kernel import EventKernel
from agent_lab.application.events.ledger import GIVEN, LLMReason, RouteDecision, RouteKind
from agent_lab.application.events.models import (
    Event,
    FallbackReply,
    FallbackRequest,
    Resolution,
    Status,
)
from agent_lab.application.events.registry import EventRegistry
from agent_lab.usage import Usage

if TYPE_CHECKING:
    from collections.abc import Collection, Mapping
    from concurrent.futures import Executor

    from agent_lab.agents.plugins import PluginSet
    from agent_lab.agents.port import Provider
    from agent_lab.application.events.models import Fallback, Resolver
    from agent_lab.clock import Clock
    from agent_lab.strict_json import JSONObject, JSONValue

__all__ = ["AgentReply", "Conversation", "DispatchedCall", "EventAgent", "Routing", "ToolAgent"]

# The conversation's values from earlier turns reach the resolver in the
# event's context, as any caller-supplied facts do.
_PREFILL = "agent_lab.prefill"


@dataclass(slots=True)
class _ChoiceFirst:
    """One message's fallback when the model chose its event: that tool call's arguments.

    The model that chose the event by tool calling already sent arguments for
    it; asking again would pay a second request where LLM-always pays one, so
    they serve as the fallback reply whatever they cover (what they leave out
    stays missing). They go through the same strict parse and raw/parsed
    audit as any fallback reply, and resolved values still win (K19).
    """

    choice: ToolChoice
    served: bool = False
    """Whether the choice served as the reply: then the kernel counted its request."""

    def __call__(self, request: FallbackRequest) -> FallbackReply:
        self.served = True
        return reply_from(self.choice)


def _with_prefill(resolver: Resolver | None) -> Resolver:
    """Wrap a resolver so values from earlier turns fill what this turn does not say."""

    def merge(found: object, prefill: Mapping[str, Any]) -> object:
        if isinstance(found, Resolution):
            return Resolution(
                {**prefill, **found.arguments}, complete=found.complete, missing=found.missing
            )
        if isinstance(found, dict):
            return {**prefill, **cast("dict[str, Any]", found)}
        return found  # not a mapping: left for the kernel to report (K11)

    def resolve(event: Event) -> Any:
        raw_prefill = event.context.get(_PREFILL)
        prefill: Mapping[str, Any] = (
            cast("dict[str, Any]", raw_prefill) if isinstance(raw_prefill, dict) else {}
        )
        found: Any = resolver(event) if resolver is not None else {}
        if inspect.isawaitable(found):

            async def later() -> object:
                return merge(await found, prefill)

            return later()
        return merge(found, prefill)

    return resolve


class EventAgent:
    """Deterministic first: route and resolve with plain code; ask an LLM only for gaps.

    Args:
        plugins: Definitions and routes.
        fallback: The kernel's fallback for missing fields (``None``: none).
        chooser: Asked to pick the event only when no route matches or the
            best routes tie (``None``: such messages are ``unknown_event``).
        clock: The kernel's clock.
        lexical: Route a plugin set that has no routes with ``LexicalRouter``
            (``False``: such messages go to the chooser, as before).
        offload: Run resolvers and handlers in this executor's threads
            (``EventKernel``'s ``offload``).
    """

    def __init__(
        self,
        plugins: PluginSet,
        *,
        fallback: Fallback | None = None,
        chooser: ToolChooser | None = None,
        clock: Clock | None = None,
        lexical: bool = True,
        offload: Executor | None = None,
    ) -> None:
        self.plugins = plugins
        self.chooser = chooser
        registry = EventRegistry()
        for definition in plugins.definitions:
            registry.register(
                dataclasses.replace(definition, resolver=_with_prefill(definition.resolver))
            )
        self._fallback = fallback
        self.kernel = EventKernel(
            registry, None if fallback is None else message_fallback, clock=clock, offload=offload
        )
        self._calls_kernel = model_kernel(plugins, clock, offload)
        # One copy of the LLM-free routing, shared with the lab's measurement of it.
        self.router = DeterministicRouter(plugins, lexical=lexical)
        self.lexical = self.router.lexical

    async def respond(
        self,
        text: str,
        *,
        event: str | None = None,
        candidates: Collection[str] | None = None,
        payload: Mapping[str, JSONValue] | None = None,
        context: Mapping[str, object] | None = None,
        prefill: Mapping[str, JSONValue] | None = None,
    ) -> AgentReply:
        """Handle one message (or a structured event whose name is known), with no memory.

        ``candidates`` limits the events this message may go to (the router's
        pick outside them counts as no route; the LLM is offered only them).
        """
        routing_calls, routing_usage, routed_by = 0, Usage.zero(), Routing.GIVEN
        decided = GIVEN
        chosen: ToolChoice | None = None
        unchosen: ToolChoice | None = None
        if event is None:
            found = self.router.route(text, candidates)
            route, event = found.match, found.event
            if found.lexical:
                routed_by, decided = Routing.LEXICAL, LEXICAL
            else:
                routed_by = Routing.ROUTER
                decided = BY_PATTERN if route.by_pattern else BY_KEYWORD
            if event is None:
                tie = route.candidates if route.tied else ()
                why = LLMReason.ROUTING_TIE if tie else LLMReason.NO_ROUTE
                decided = RouteDecision(
                    by=RouteKind.NONE, tied=tie, llm_reason=None if self.chooser is None else why
                )
            if event is None and self.chooser is not None:
                chooser = self.chooser if candidates is None else self.chooser.narrowed(candidates)
                choice = await chooser.choose(text, payload=payload, context=context)
                routing_calls, routing_usage = choice.usage.requests, choice.usage
                decided = chose_by_model(decided, choice)
                if choice.outcome is ChoiceOutcome.FAILED:
                    return failed_choice(decided, choice)
                if choice.outcome is ChoiceOutcome.CHOSEN:
                    event, routed_by = choice.name, Routing.LLM
                    chosen = choice
                elif answers_with_several(choice, chooser.names):
                    # Several calls: the model's own arguments for each, under the kernel's
                    # rules; one message's words cannot be read for several calls at once.
                    several = await dispatch_calls(
                        self._calls_kernel, choice, text=text, payload=payload, context=context
                    )
                    return routed(decided, dataclasses.replace(several, path=FallbackPath.CHOICE))
                else:
                    unchosen = choice
                    decided = dataclasses.replace(decided, by=RouteKind.NONE)
        if event is None:
            return AgentReply(
                route=decided,
                status=Status.UNKNOWN_EVENT,
                reason="no_route",
                event=None,
                arguments=None,
                routed_by=Routing.NONE,
                llm_calls=routing_calls,
                usage=routing_usage,
                message=unchosen.message if unchosen is not None else "",
                model_text=said(unchosen),
            )
        full_context = dict(context or {})
        if prefill:
            full_context[_PREFILL] = dict(prefill)
        fallback, choice_first, cheaper = self._message_fallback(
            event,
            chosen,
            lexical=routed_by is Routing.LEXICAL,
            candidates=candidates,
            text=text,
            payload=payload,
            context=context,
        )
        with installed(fallback):
            result = await self.kernel.adispatch(
                Event(event, text=text, payload=dict(payload or {}), context=full_context)
            )
        path = FallbackPath.NONE
        if choice_first is not None and choice_first.served:
            # The choice's own arguments served as the fallback reply: the
            # kernel counted that request already, and its ledger holds it.
            routing_calls, routing_usage, path = 0, Usage.zero(), FallbackPath.CHOICE
            decided = dataclasses.replace(decided, attempts=())
        elif cheaper is not None:
            path = cheaper.path
            if cheaper.several is not None:
                # The plain request was answered with several calls, or with another
                # offered tool: each call goes through the kernel's rules, as LLM-always's
                # would (still one request).
                followed = await self._follow(
                    cheaper.several, text=text, payload=payload, context=context
                )
                return routed(decided, dataclasses.replace(followed, path=path))
        elif result.llm_calls:
            path = FallbackPath.CUSTOM
        return outcome(
            result,
            route=decided,
            routed_by=routed_by,
            extra_calls=routing_calls,
            extra_usage=routing_usage,
            path=path,
            model_text=None if cheaper is None else cheaper.question,
        )

    async def _follow(
        self,
        choice: ToolChoice,
        *,
        text: str,
        payload: Mapping[str, JSONValue] | None,
        context: Mapping[str, object] | None,
    ) -> AgentReply:
        """The model's own call(s), each through the model kernel's rules."""
        if choice.outcome is ChoiceOutcome.MULTIPLE_TOOL_CALLS:
            return await dispatch_calls(
                self._calls_kernel, choice, text=text, payload=payload, context=context
            )
        result = await dispatch_call(
            self._calls_kernel, choice, text=text, payload=payload, context=context
        )
        return model_outcome(result, FallbackPath.PLAIN)

    def _message_fallback(
        self,
        event: str,
        chosen: ToolChoice | None,
        *,
        lexical: bool,
        candidates: Collection[str] | None,
        text: str,
        payload: Mapping[str, JSONValue] | None,
        context: Mapping[str, object] | None,
    ) -> tuple[Fallback | None, _ChoiceFirst | None, CheaperPath | None]:
        """The fallback this message installs, and the handle that says what it did."""
        if self._fallback is None:
            return None, None, None
        if chosen is not None:
            choice_first = _ChoiceFirst(chosen)
            return choice_first, choice_first, None
        if isinstance(self._fallback, LLMFallback) and self.chooser is not None:
            if not lexical:
                offered = self.chooser.narrowed((event,))
            elif candidates is None:
                offered = self.chooser
            else:
                offered = self.chooser.narrowed(candidates)
            cheaper = CheaperPath(
                projected=self._fallback,
                plain=offered,
                text=text,
                payload=payload,
                context=context,
                projected_allowed=not lexical,
            )
            return cheaper, None, cheaper
        return self._fallback, None, None


class Conversation:
    """Multi-turn slot filling over an ``EventAgent``.

    When a turn ends with ``missing_information``, the pending event and the
    values resolved so far are kept; the next message is dispatched to the
    same event, its resolver filling what is still missing, unless the
    router recognises a different event in it (then the user changed topic).
    """

    def __init__(self, agent: EventAgent) -> None:
        self.agent = agent
        self.pending: str | None = None
        self.known: JSONObject = {}

    async def say(self, text: str, *, context: Mapping[str, object] | None = None) -> AgentReply:
        """One user message."""
        event = None
        prefill: JSONObject = {}
        if self.pending is not None:
            route = self.agent.plugins.route(text)
            if route.event in (None, self.pending):
                event, prefill = self.pending, self.known
        reply = await self.agent.respond(text, event=event, context=context, prefill=prefill)
        if reply.status is Status.MISSING_INFORMATION and reply.result is not None:
            self.pending = reply.event
            self.known = dict(reply.result.resolved or {})
        else:
            self.pending, self.known = None, {}
        return reply


class ToolAgent:
    """LLM-always: the model picks the event and every argument by tool calling.

    The choice then runs through the same registry, validation and handler
    as the event agent's, and its arguments through the same audit: they are
    handed to the kernel as a fallback reply (strict parse, raw/parsed
    check, K17-K18), so both agents are judged by one set of rules.
    """

    def __init__(
        self,
        plugins: PluginSet,
        provider: Provider,
        *,
        clock: Clock | None = None,
        offload: Executor | None = None,
    ) -> None:
        self.plugins = plugins
        self.chooser = ToolChooser(provider, plugins.definitions)
        self.kernel = model_kernel(plugins, clock, offload)

    async def respond(
        self,
        text: str,
        *,
        event: str | None = None,
        candidates: Collection[str] | None = None,
        payload: Mapping[str, JSONValue] | None = None,
        context: Mapping[str, object] | None = None,
    ) -> AgentReply:
        """Handle one message: one tool-calling request, then the kernel's rules.

        With ``event`` given, the model is offered that one tool, and fills its
        arguments; with ``candidates``, only those tools.
        """
        chooser = self.chooser
        if event is not None:
            chooser = chooser.narrowed((event,))
        elif candidates is not None:
            chooser = chooser.narrowed(candidates)
        choice = await chooser.choose(text, payload=payload, context=context)
        calls = choice.usage.requests
        # Unless the choice's arguments go through the kernel as its fallback reply
        # (then the kernel's ledger holds the request), the route holds it.
        decided = chose_by_model(BY_MODEL, choice)
        if answers_with_several(choice, chooser.names):
            several = await dispatch_calls(
                self.kernel, choice, text=text, payload=payload, context=context
            )
            return routed(decided, dataclasses.replace(several, path=FallbackPath.TOOL))
        if choice.outcome is not ChoiceOutcome.CHOSEN or choice.name is None:
            status = (
                Status.UNKNOWN_EVENT
                if choice.outcome in (ChoiceOutcome.NO_TOOL_CALL, ChoiceOutcome.UNKNOWN_TOOL)
                else Status.FALLBACK_FAILED
            )
            return AgentReply(
                route=decided,
                status=status,
                reason=choice.reason or choice.outcome.value,
                event=None,
                arguments=None,
                routed_by=Routing.LLM,
                llm_calls=calls,
                usage=choice.usage,
                message=choice.message,
                model_text=said(choice),
            )
        # Every argument comes from the model: its choice is this message's
        # only fallback reply, whatever it leaves missing.
        result = await dispatch_call(
            self.kernel, choice, text=text, payload=payload, context=context
        )
        return model_outcome(result, FallbackPath.TOOL)
