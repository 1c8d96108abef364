"""What the envelope answers: a turn plain code completes (``LocalAnswer``), or why not.

A local answer is tool calls, or words that end the turn (a declared reply,
a question for what only the user can say, a refusal of what the tool's
schema forbids). Every call is a ``LocalCall``, made once here from the
``Decision``, with an id that tells a later turn it was answered locally.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent_lab.agents.decision import Decision
    from agent_lab.strict_json import JSONObject

__all__ = [
    "LOCAL_CALL_PREFIX",
    "Forward",
    "LocalAnswer",
    "LocalCall",
    "is_local_call",
    "local_calls",
]

LOCAL_CALL_PREFIX = "call_al_"
"""The id of every tool call answered locally: a later turn can tell those calls (and their
results) from the model's without any state kept between requests."""


@dataclass(frozen=True, slots=True, kw_only=True)
class LocalCall:
    """One tool call decided by plain code."""

    id: str
    name: str
    arguments: JSONObject
    arguments_json: str
    """The arguments as the wire carries them (a JSON object's text)."""

    @classmethod
    def of(cls, name: str, arguments: JSONObject) -> LocalCall:
        """A call with a fresh local id (``LOCAL_CALL_PREFIX``)."""
        return cls(
            id=LOCAL_CALL_PREFIX + secrets.token_hex(12),
            name=name,
            arguments=arguments,
            arguments_json=json.dumps(arguments, ensure_ascii=False, separators=(",", ":")),
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class LocalAnswer:
    """The turn answered without the model: its calls or its words, and the decision behind them."""

    calls: tuple[LocalCall, ...]
    """Empty when ``text`` ends the turn."""
    text: str | None
    """The words that end the turn: the events' declared replies, a question for what only the
    user can supply, or what is wrong with what the user asked; ``None`` for calls."""
    decision: Decision
    reason: str
    """``covered`` (calls), ``local_reply``, ``asked`` or ``refused`` (words)."""

    @property
    def tools(self) -> tuple[str, ...]:
        """The tools the answer speaks for: its calls', or the events its words are about."""
        if self.calls:
            return tuple(call.name for call in self.calls)
        named = [call.event for call in self.decision.calls] or [self.decision.event]
        return tuple(name for name in named if name is not None)


@dataclass(frozen=True, slots=True, kw_only=True)
class Forward:
    """The turn is the model's: the rule that says so, and the decision when one was made."""

    reason: str
    """A fixed word (``not_covered``, ``not_a_user_turn``, ``parallel_tool_calls``...), never
    text from the request."""
    decision: Decision | None = None
    detail: str = ""
    """For ``bad_tools``: what is wrong with the tools offered."""


def is_local_call(call_id: object) -> bool:
    """Whether a tool call id is one a local answer made (a wrapper's or the gateway's)."""
    return isinstance(call_id, str) and call_id.startswith(LOCAL_CALL_PREFIX)


def local_calls(decision: Decision) -> tuple[LocalCall, ...]:
    """The calls a decision made, each once: its parallel calls, else its one event's call.

    Empty when the decision holds no complete call.
    """
    if decision.calls:
        if any(call.arguments is None for call in decision.calls):
            return ()
        return tuple(LocalCall.of(call.event, call.arguments or {}) for call in decision.calls)
    if decision.event is None or decision.arguments is None:
        return ()
    return (LocalCall.of(decision.event, decision.arguments),)
