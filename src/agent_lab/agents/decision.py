"""``Decision``: who routed the message, how it ended, the calls made, what it cost."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property
from typing import TYPE_CHECKING

from agent_lab.kernel.ledger import GIVEN, RouteDecision, ValueSource, undispatched_ledger
from agent_lab.kernel.models import Status

if TYPE_CHECKING:
    from agent_lab.kernel.ledger import DecisionLedger
    from agent_lab.kernel.models import EventResult
    from agent_lab.strict_json import JSONObject
    from agent_lab.usage import Usage

__all__ = ["Decision", "DispatchedCall", "FallbackPath", "Routing"]


class Routing(StrEnum):
    """Who picked the event a message went to."""

    ROUTER = "router"
    """Plain code: the plugin set's routes."""
    LEXICAL = "lexical"
    """Plain code: the lexical router, for a plugin set with no routes."""
    LLM = "llm"
    """The model, by tool calling."""
    GIVEN = "given"
    """The caller named the event."""
    NONE = "none"
    """Nobody: no event was found."""


class FallbackPath(StrEnum):
    """Which request filled what the resolver left missing."""

    NONE = "none"
    """No request: the resolver filled everything, or nothing was dispatched."""
    PROJECTED = "projected"
    """The kernel's fallback prompt: the missing fields only, the resolved values fixed."""
    PLAIN = "plain"
    """LLM-always's own tool-calling request, when it was the smaller."""
    CHOICE = "choice"
    """The arguments of the tool call that chose the event (no second request)."""
    TOOL = "tool"
    """LLM-always: its one tool call supplied every argument."""
    CUSTOM = "custom"
    """A fallback of the caller's own."""


@dataclass(frozen=True, slots=True, kw_only=True)
class DispatchedCall:
    """One of several calls a message was answered with: the event, how it ended, its arguments."""

    event: str
    status: Status
    arguments: JSONObject | None
    result: EventResult | None = None
    """The kernel's result for this call."""


@dataclass(frozen=True, kw_only=True)
class Decision:
    """What was decided for one message: the calls, or why there are none, and the ledger.

    Decided locally (``local``) when plain code routed and resolved every
    argument; otherwise it says why a model was (or would be) needed, and,
    when a model was at hand, what it said and cost.
    """

    status: Status
    reason: str
    event: str | None
    """The event it dispatched, or ``None`` when it found none."""
    arguments: JSONObject | None
    routed_by: Routing
    llm_calls: int
    """Every LLM request: routing and fallback or tool choice, retries included."""
    usage: Usage
    result: EventResult | None = None
    """The kernel's result, when an event was dispatched."""
    message: str = ""
    """Why it ended so, in words: the kernel's message, or the provider's for a failed request."""
    model_text: str | None = None
    """What the model wrote when it called no tool (its question, or why it declined)."""
    said: str | None = None
    """The words that end the turn with no model: each call's event's declared ``reply``
    (``EventDefinition.reply``) over its handler's output, a line each; ``None`` when an
    event declares none, its reply cannot say the output, or the output reports failure."""
    calls: tuple[DispatchedCall, ...] = ()
    """When the message was answered with several calls: each one, dispatched in turn."""
    path: FallbackPath = FallbackPath.NONE
    """Which request filled the gaps, if one was sent."""
    route: RouteDecision = GIVEN
    """How the event was chosen, and why a model chose it when one did."""
    read_from: tuple[tuple[str, ValueSource], ...] = ()
    """Where the conversation's reader found each value it gave (``sources`` reads it)."""

    @property
    def sources(self) -> dict[str, ValueSource]:
        """Per argument, where its value came from.

        The conversation's reader says for the values it gave (an earlier message, the
        accepted summary, an earlier call, a name its results held); the model's reply
        for the values it filled; the message being answered for the rest.
        """
        arguments = self.arguments or {}
        given = dict(self.read_from)
        audit = self.result.ledger.audit if self.result is not None else None
        filled = {pointer.lstrip("/") for pointer in audit.filled} if audit else set[str]()
        return {
            name: given.get(name) or (ValueSource.MODEL if name in filled else ValueSource.MESSAGE)
            for name in arguments
        }

    @property
    def local(self) -> bool:
        """Whether plain code decided it all: a successful call, and no LLM request."""
        return self.status is Status.SUCCESS and self.llm_calls == 0

    @cached_property
    def ledger(self) -> DecisionLedger:
        """The decision ledger: the route taken here, and the kernel's dispatch.

        When the message reached no event, a ledger that holds only its routing.
        """
        if self.result is None:
            return undispatched_ledger(
                status=str(self.status), reason=self.reason, route=self.route
            )
        sources = tuple((f"/{name}", source) for name, source in self.sources.items())
        return dataclasses.replace(self.result.ledger, route=self.route, sources=sources)
