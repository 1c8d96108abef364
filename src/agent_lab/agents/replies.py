"""What an agent did with one message: who routed it, how it ended, the calls it made."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from agent_lab.application.events.ledger import GIVEN, RouteDecision, undispatched_ledger

if TYPE_CHECKING:
    from agent_lab.application.events.ledger import DecisionLedger
    from agent_lab.application.events.models import EventResult, Status
    from agent_lab.strict_json import JSONObject
    from agent_lab.usage import Usage

__all__ = ["AgentReply", "DispatchedCall", "FallbackPath", "Routing"]


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


@dataclass(frozen=True, slots=True, kw_only=True)
class AgentReply:
    """What an agent did with one message."""

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
    calls: tuple[DispatchedCall, ...] = ()
    """When the model answered with several calls: each one, dispatched in turn."""
    path: FallbackPath = FallbackPath.NONE
    """Which request filled the gaps, if one was sent."""
    route: RouteDecision = GIVEN
    """How the event was chosen, and why a model chose it when one did."""

    @property
    def ledger(self) -> DecisionLedger:
        """The dispatch's decision ledger (``EventResult.ledger``).

        When the message reached no event, a ledger that holds only its routing.
        """
        if self.result is not None:
            return self.result.ledger
        return undispatched_ledger(status=str(self.status), reason=self.reason, route=self.route)
