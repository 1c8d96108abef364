"""``Decider``: from one message and the events on offer to the calls made, or why there are none.

Every caller decides through here: the event agent and the tool agent, log
replay, the gateway, the framework wrappers. A ``Decider`` is prepared once
per plugin set (its registry, kernel and router); each message is decided
by one generator that yields its effects (a model's tool choice, a
dispatch, a dispatch of a call a model made) rather than making them, and
two drivers run it: ``decide`` in the caller's thread (plain code costs no
event loop), ``adecide`` awaiting. So the sync and async paths share every
line, as the kernel's do.

Deterministic first: the plugin set's routes, else its events' own words,
pick the event; the kernel resolves it; a model is asked only to choose
when no route decides, and to fill what the resolver left missing, with
never a longer request than LLM-always's own (``paths``). With no model
given, the decision is plain code's alone: ``Decision.local`` says whether
it decided, and its status why not.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Generator
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeAlias, cast

from agent_lab._loops import run_sync
from agent_lab.agents._endings import (
    BY_MODEL,
    chose_by_model,
    declined,
    failed,
    from_result,
    several_known,
    unanswered,
)
from agent_lab.agents._prefill import PREFILL, with_prefill
from agent_lab.agents.choice import (
    ChoiceOutcome,
    ToolChoice,
    ToolChooser,
    choice_reply,
)
from agent_lab.agents.decision import Decision, DispatchedCall, FallbackPath, Routing
from agent_lab.agents.fallback import LLMFallback
from agent_lab.agents.paths import NoRegretFallback, PathTaken
from agent_lab.agents.routing import DeterministicRouter
from agent_lab.kernel.event_kernel import EventKernel
from agent_lab.kernel.ledger import GIVEN, LLMReason, RouteDecision, RouteKind
from agent_lab.kernel.models import (
    Event,
    EventResult,
    FallbackReply,
    Status,
)
from agent_lab.kernel.registry import EventRegistry
from agent_lab.kernel.reply import say
from agent_lab.usage import Usage

if TYPE_CHECKING:
    from concurrent.futures import Executor

    from agent_lab.agents.plugins import PluginSet
    from agent_lab.agents.turn import Turn
    from agent_lab.clock import Clock
    from agent_lab.kernel.models import Fallback, FallbackRequest

__all__ = ["BY_MODEL", "Decider"]

_LEXICAL = RouteDecision(by=RouteKind.LEXICAL)
_BY_PATTERN = RouteDecision(by=RouteKind.PATTERN)
_BY_KEYWORD = RouteDecision(by=RouteKind.KEYWORD)
_LEARNED = RouteDecision(by=RouteKind.LEARNED)
_SPOKEN_OF = RouteDecision(by=RouteKind.LEXICAL)


@dataclass(frozen=True, slots=True)
class _Choose:
    """Effect: ask a model to choose the event, with its arguments."""

    chooser: ToolChooser
    turn: Turn


@dataclass(frozen=True, slots=True)
class _Dispatch:
    """Effect: dispatch an event through the kernel, with this message's fallback."""

    event: Event
    fallback: Fallback | None


@dataclass(frozen=True, slots=True)
class _DispatchReply:
    """Effect: dispatch a call a model made, its arguments the only reply (``dispatch_reply``)."""

    event: Event
    reply: FallbackReply


_Effect: TypeAlias = _Choose | _Dispatch | _DispatchReply
_Deciding: TypeAlias = Generator[_Effect, object, Decision]


@dataclass(frozen=True, slots=True)
class _ChoiceServes:
    """One message's fallback when the model chose its event: that tool call's arguments.

    The model that chose the event by tool calling already sent arguments for
    it; asking again would pay a second request where LLM-always pays one, so
    they serve as the fallback reply whatever they cover (what they leave out
    stays missing). They go through the same strict parse and raw/parsed
    audit as any reply, and resolved values still win (K19).
    """

    choice: ToolChoice

    def __call__(self, request: FallbackRequest) -> FallbackReply:
        return dataclasses.replace(
            choice_reply(self.choice), note=PathTaken(path=FallbackPath.CHOICE)
        )


class Decider:
    """Decides messages for one plugin set: routes, resolves, asks a model only for gaps.

    Args:
        plugins: Definitions and routes.
        clock: The kernel's clock.
        lexical: Route a plugin set that has no routes by its events' own words
            (``LexicalRouter``); ``False``: such messages go to the model.
        offload: Run resolvers and handlers in this executor's threads
            (``EventKernel``'s ``offload``).
    """

    def __init__(
        self,
        plugins: PluginSet,
        *,
        clock: Clock | None = None,
        lexical: bool = True,
        offload: Executor | None = None,
    ) -> None:
        self.plugins = plugins
        registry = EventRegistry()
        for definition in plugins.definitions:
            registry.register(
                dataclasses.replace(definition, resolver=with_prefill(definition.resolver))
            )
        self.kernel = EventKernel(registry, clock=clock, offload=offload)
        self._replies = {
            d.name: d for d in plugins.definitions if d.reply is not None and d.handler is not None
        }
        # One copy of the LLM-free routing, shared with the lab's measurement of it.
        self.router = DeterministicRouter(plugins, lexical=lexical)

    # The two ways to decide, each sync and async ----------------------------------------

    def decide(
        self, turn: Turn, *, fallback: Fallback | None = None, chooser: ToolChooser | None = None
    ) -> Decision:
        """Decide deterministic-first, in this thread (a model is asked in a kept loop)."""
        return self._run(self._first(turn, fallback, chooser))

    async def adecide(
        self, turn: Turn, *, fallback: Fallback | None = None, chooser: ToolChooser | None = None
    ) -> Decision:
        """Decide deterministic-first: route and resolve with code; a model only for gaps.

        ``chooser`` is asked to pick the event only when no route decides;
        ``fallback`` fills what the resolver left missing (an ``LLMFallback``
        with a ``chooser`` sends the smaller of its request and LLM-always's).
        With neither, plain code decides alone.
        """
        return await self._arun(self._first(turn, fallback, chooser))

    def decide_by_model(self, turn: Turn, chooser: ToolChooser) -> Decision:
        """``adecide_by_model``, in this thread."""
        return self._run(self._by_model(turn, chooser))

    async def adecide_by_model(self, turn: Turn, chooser: ToolChooser) -> Decision:
        """LLM-always: one tool-calling request; the model's calls then meet the kernel's rules.

        With ``turn.event``, the model is offered that one tool and fills its
        arguments; with ``turn.candidates``, only those tools.
        """
        return await self._arun(self._by_model(turn, chooser))

    # The drivers ------------------------------------------------------------------------

    def _run(self, deciding: _Deciding) -> Decision:
        outcome: object = None
        while True:
            try:
                effect = deciding.send(outcome)
            except StopIteration as stop:
                return self._said(cast("Decision", stop.value))
            if isinstance(effect, _Dispatch):
                outcome = self.kernel.dispatch(effect.event, fallback=effect.fallback)
            elif isinstance(effect, _DispatchReply):
                outcome = self.kernel.dispatch_reply(effect.event, effect.reply)
            else:
                outcome = run_sync(_choose(effect))

    async def _arun(self, deciding: _Deciding) -> Decision:
        outcome: object = None
        while True:
            try:
                effect = deciding.send(outcome)
            except StopIteration as stop:
                return self._said(cast("Decision", stop.value))
            if isinstance(effect, _Dispatch):
                outcome = await self.kernel.adispatch(effect.event, fallback=effect.fallback)
            elif isinstance(effect, _DispatchReply):
                outcome = await self.kernel.adispatch_reply(effect.event, effect.reply)
            else:
                outcome = await _choose(effect)

    def _said(self, decision: Decision) -> Decision:
        """The decision with its words (``said``), when every call's event can say its output."""
        if not self._replies or decision.status is not Status.SUCCESS:
            return decision
        results = [call.result for call in decision.calls] if decision.calls else [decision.result]
        said: list[str] = []
        for result in results:
            if result is None or result.status is not Status.SUCCESS:
                return decision
            replying = self._replies.get(result.event)
            if replying is None:
                return decision
            # A handler may report its failure in its output: no words of success over it.
            words = say(replying.reply, result.output, failed=replying.failed)
            if words is None:
                return decision
            said.append(words)
        return dataclasses.replace(decision, said="\n".join(said))

    # Deterministic first ----------------------------------------------------------------

    def _first(
        self, turn: Turn, fallback: Fallback | None, chooser: ToolChooser | None
    ) -> _Deciding:
        event, decided, routed_by = self._route(turn)
        lone = self._lone(turn.text, turn.candidates) if event is None else None
        if lone is not None:
            # A lone candidate the message speaks of in people's words ("the weather in
            # Paris" for get_weather) is routed only if its resolver completes the call.
            tried = cast("EventResult", (yield _Dispatch(self._event(turn, lone), None)))
            if tried.status is Status.SUCCESS and not tried.llm_calls:
                return from_result(
                    tried, _SPOKEN_OF, Routing.LEXICAL, Usage.zero(), path=FallbackPath.NONE
                )
        chosen: ToolChoice | None = None
        if event is None and chooser is not None:
            offered = chooser if turn.candidates is None else chooser.narrowed(turn.candidates)
            choice = cast("ToolChoice", (yield _Choose(offered, turn)))
            decided = chose_by_model(decided, choice)
            if choice.outcome is ChoiceOutcome.FAILED:
                return failed(decided, choice)
            if several_known(choice, offered.names):
                return (yield from self._follow(choice, turn, decided, FallbackPath.CHOICE))
            if choice.outcome is not ChoiceOutcome.CHOSEN:
                return declined(dataclasses.replace(decided, by=RouteKind.NONE), choice)
            event, routed_by, chosen = choice.name, Routing.LLM, choice
        if event is None:
            # Nobody was asked: no model is why nothing was chosen.
            return declined(dataclasses.replace(decided, llm_reason=None), None)
        # A route read from word statistics (lexical, learned) may be wrong: a model asked
        # to fill its gaps is offered every tool, so that it can choose another.
        guessed = routed_by is Routing.LEXICAL or decided.by is RouteKind.LEARNED
        fallback_for = self._fallback_for(
            turn, event, fallback, chooser, chosen=chosen, lexical=guessed
        )
        result = cast("EventResult", (yield _Dispatch(self._event(turn, event), fallback_for)))
        note = result.fallback_note
        if isinstance(note, PathTaken) and note.followed is not None:
            return (yield from self._follow(note.followed, turn, decided, note.path))
        path, question = FallbackPath.NONE, None
        if isinstance(note, PathTaken):
            path, question = note.path, note.question
        elif result.llm_calls:
            path = FallbackPath.CUSTOM
        routing = chosen.usage if chosen is not None else Usage.zero()
        if path is FallbackPath.CHOICE:
            # The choice's own arguments served as the fallback reply: the kernel
            # counted that request already, and its ledger holds it.
            routing, decided = Usage.zero(), dataclasses.replace(decided, attempts=())
        return from_result(result, decided, routed_by, routing, path=path, model_text=question)

    def routes_to(self, text: str, candidates: tuple[str, ...] | None) -> str | None:
        """The event plain code routes ``text`` to: the router's, else the lone one it speaks of."""
        found = self.router.route(text, candidates).event
        return found or self._lone(text, candidates)

    def _lone(self, text: str, candidates: tuple[str, ...] | None) -> str | None:
        """The one candidate, when the message speaks of it (``LexicalRouter.speaks_of``)."""
        lexical = self.router.lexical
        if lexical is None:
            return None
        names = (
            candidates
            if candidates is not None
            else tuple(definition.name for definition in self.plugins.definitions)
        )
        if len(names) != 1 or not lexical.speaks_of(names[0], text):
            return None
        return names[0]

    def _route(self, turn: Turn) -> tuple[str | None, RouteDecision, Routing]:
        """The event plain code picks, how, and who; ``None`` when it does not decide."""
        if turn.event is not None:
            return turn.event, GIVEN, Routing.GIVEN
        found = self.router.route(turn.text, turn.candidates)
        if found.event is not None:
            if found.lexical:
                return found.event, _LEXICAL, Routing.LEXICAL
            if found.learned:
                return found.event, _LEARNED, Routing.ROUTER
            return (
                found.event,
                _BY_PATTERN if found.match.by_pattern else _BY_KEYWORD,
                Routing.ROUTER,
            )
        tie = found.match.candidates if found.match.tied else ()
        why = LLMReason.ROUTING_TIE if tie else LLMReason.NO_ROUTE
        return None, RouteDecision(by=RouteKind.NONE, tied=tie, llm_reason=why), Routing.NONE

    def _fallback_for(
        self,
        turn: Turn,
        event: str,
        fallback: Fallback | None,
        chooser: ToolChooser | None,
        *,
        chosen: ToolChoice | None,
        lexical: bool,
    ) -> Fallback | None:
        """The fallback this message's dispatch gets."""
        if fallback is None:
            return None
        if chosen is not None:
            return _ChoiceServes(chosen)
        if isinstance(fallback, LLMFallback) and chooser is not None:
            if not lexical:
                offered = chooser.narrowed((event,))
            elif turn.candidates is None:
                offered = chooser
            else:
                offered = chooser.narrowed(turn.candidates)
            return NoRegretFallback(
                projected=fallback,
                plain=offered,
                text=turn.text,
                payload=turn.payload,
                context=turn.context,
                projected_allowed=not lexical,
            )
        return fallback

    # The model decides ------------------------------------------------------------------

    def _by_model(self, turn: Turn, chooser: ToolChooser) -> _Deciding:
        offered = chooser
        if turn.event is not None:
            offered = chooser.narrowed((turn.event,))
        elif turn.candidates is not None:
            offered = chooser.narrowed(turn.candidates)
        choice = cast("ToolChoice", (yield _Choose(offered, turn)))
        if several_known(choice, offered.names):
            return (yield from self._follow(choice, turn, BY_MODEL, FallbackPath.TOOL))
        if choice.outcome is not ChoiceOutcome.CHOSEN or choice.name is None:
            return unanswered(choice)
        # Every argument comes from the model: its call is this message's only reply.
        reply = choice_reply(choice)
        result = cast(
            "EventResult", (yield _DispatchReply(self._plain_event(turn, choice.name), reply))
        )
        return from_result(result, BY_MODEL, Routing.LLM, Usage.zero(), path=FallbackPath.TOOL)

    def _follow(
        self, choice: ToolChoice, turn: Turn, route: RouteDecision, path: FallbackPath
    ) -> _Deciding:
        """The model's own call(s), each through the kernel's rules; one request for them all.

        The first call's reply carries the request's usage, so that every request
        appears once, in that call's ledger; the others cost nothing of their own.
        """
        calls = choice.calls or ()
        if not calls and choice.name is not None:
            dispatched = [(choice.name, choice_reply(choice))]
        else:
            dispatched = [
                (call.name, dataclasses.replace(choice_reply(choice, call),
                                                usage=choice.usage if index == 0 else Usage.zero()))
                for index, call in enumerate(calls)
            ]  # fmt: skip
        made: list[DispatchedCall] = []
        for name, reply in dispatched:
            result = cast(
                "EventResult", (yield _DispatchReply(self._plain_event(turn, name), reply))
            )
            made.append(
                DispatchedCall(
                    event=name, status=result.status, arguments=result.arguments, result=result
                )
            )
        route = dataclasses.replace(route, attempts=())
        first = made[0].result
        assert first is not None
        if len(made) == 1:
            return from_result(first, route, Routing.LLM, Usage.zero(), path=path)
        failed = next((call for call in made if call.status is not Status.SUCCESS), None)
        return Decision(
            status=(failed or made[0]).status,
            reason="several_calls" if failed is None else f"a call ended {failed.status}",
            event=made[0].event,
            arguments=made[0].arguments,
            routed_by=Routing.LLM,
            llm_calls=sum(call.result.llm_calls for call in made if call.result is not None),
            usage=choice.usage,
            result=first,
            message=choice.message,
            calls=tuple(made),
            path=path,
            route=route,
        )

    # Events -----------------------------------------------------------------------------

    def _event(self, turn: Turn, name: str) -> Event:
        context = dict(turn.context)
        if turn.prefill:
            context[PREFILL] = dict(turn.prefill)
        return Event(name, text=turn.text, payload=dict(turn.payload), context=context)

    @staticmethod
    def _plain_event(turn: Turn, name: str) -> Event:
        return Event(name, text=turn.text, payload=dict(turn.payload), context=dict(turn.context))


async def _choose(effect: _Choose) -> ToolChoice:
    turn = effect.turn
    return await effect.chooser.choose(turn.text, payload=turn.payload, context=turn.context)
