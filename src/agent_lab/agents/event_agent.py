"""Deterministic first: route and resolve with plain code, ask a model only for what is missing."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_lab.agents.decider import Decider
from agent_lab.agents.turn import Turn
from agent_lab.kernel.models import Status

if TYPE_CHECKING:
    from collections.abc import Collection, Mapping
    from concurrent.futures import Executor

    from agent_lab.agents.choice import ToolChooser
    from agent_lab.agents.decision import Decision
    from agent_lab.agents.plugins import PluginSet
    from agent_lab.clock import Clock
    from agent_lab.kernel.models import Fallback
    from agent_lab.strict_json import JSONObject, JSONValue

__all__ = ["Conversation", "EventAgent"]


class EventAgent:
    """Deterministic first: route and resolve with plain code; ask an LLM only for gaps.

    Example:
        ``EventAgent(plugins, fallback=LLMFallback(provider),
        chooser=ToolChooser(provider, plugins.definitions))``

    Args:
        plugins: Definitions and routes.
        fallback: Fills what the resolvers leave missing (``None``: nothing is
            filled; the message ends ``missing_information``). An
            ``LLMFallback`` with a ``chooser`` never sends a longer request than
            LLM-always's own for the message.
        chooser: Asked to pick the event only when no route decides
            (``None``: such messages are ``unknown_event``).
        clock: The kernel's clock.
        lexical: Route a plugin set that has no routes by its events' own
            words (``LexicalRouter``); ``False``: such messages go to the chooser.
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
        self.fallback = fallback
        self.chooser = chooser
        self.decider = Decider(plugins, clock=clock, lexical=lexical, offload=offload)

    async def respond(
        self,
        text: str,
        *,
        event: str | None = None,
        candidates: Collection[str] | None = None,
        payload: Mapping[str, JSONValue] | None = None,
        context: Mapping[str, object] | None = None,
        prefill: Mapping[str, JSONValue] | None = None,
    ) -> Decision:
        """Handle one message (or a structured event whose name is known), with no memory.

        ``candidates`` limits the events this message may go to (the router's
        pick outside them counts as no route; the model is offered only them).
        """
        return await self.decider.adecide(
            _turn(
                text,
                event=event,
                candidates=candidates,
                payload=payload,
                context=context,
                prefill=prefill,
            ),
            fallback=self.fallback,
            chooser=self.chooser,
        )

    def respond_sync(
        self,
        text: str,
        *,
        event: str | None = None,
        candidates: Collection[str] | None = None,
        payload: Mapping[str, JSONValue] | None = None,
        context: Mapping[str, object] | None = None,
        prefill: Mapping[str, JSONValue] | None = None,
    ) -> Decision:
        """``respond``, in this thread: plain code costs no event loop."""
        return self.decider.decide(
            _turn(
                text,
                event=event,
                candidates=candidates,
                payload=payload,
                context=context,
                prefill=prefill,
            ),
            fallback=self.fallback,
            chooser=self.chooser,
        )


def _turn(
    text: str,
    *,
    event: str | None,
    candidates: Collection[str] | None,
    payload: Mapping[str, JSONValue] | None,
    context: Mapping[str, object] | None,
    prefill: Mapping[str, JSONValue] | None,
) -> Turn:
    return Turn(
        text=text,
        event=event,
        candidates=None if candidates is None else tuple(candidates),
        payload=payload or {},
        context=context or {},
        prefill=prefill or {},
    )


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

    async def say(self, text: str, *, context: Mapping[str, object] | None = None) -> Decision:
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
