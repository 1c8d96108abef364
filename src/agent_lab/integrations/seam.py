"""What every framework wrapper asks: may this turn be answered without the model, and with what?

A wrapper turns its framework's message history into Chat Completions
messages and its function tools into OpenAI tool specs, and asks
``answer_locally``. It gets back the tool calls plain code decided (with the
decision and its ledger), or ``None``: then the wrapped model is asked,
unchanged. The decision is ``agent_lab.decide``'s, the one function the
agents, ``agent-lab shadow`` and ``agent-lab serve`` use.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent_lab.agents.decide import decide

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from agent_lab.agents.outcome import Decision
    from agent_lab.agents.plugins import PluginSet
    from agent_lab.agents.turn import Reading
    from agent_lab.strict_json import JSONObject

__all__ = ["LOCAL_CALL_PREFIX", "LocalAnswer", "LocalCall", "answer_locally", "is_local_call"]

LOCAL_CALL_PREFIX = "call_al_"
"""The id of every tool call a wrapper answers with: a later turn can tell its own calls
(and their results) from the model's without any state kept between requests."""


@dataclass(frozen=True, slots=True, kw_only=True)
class LocalCall:
    """One tool call decided by plain code."""

    id: str
    name: str
    arguments: JSONObject
    arguments_json: str
    """The arguments as the wire carries them (a JSON object's text)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class LocalAnswer:
    """The turn's answer without the model: its tool calls, and the decision behind them."""

    calls: tuple[LocalCall, ...]
    decision: Decision


def is_local_call(call_id: object) -> bool:
    """Whether a tool call id is one a wrapper (or the gateway) made."""
    return isinstance(call_id, str) and call_id.startswith(LOCAL_CALL_PREFIX)


def _call(name: str, arguments: JSONObject) -> LocalCall:
    return LocalCall(
        id=LOCAL_CALL_PREFIX + secrets.token_hex(8),
        name=name,
        arguments=arguments,
        arguments_json=json.dumps(arguments, ensure_ascii=False, separators=(",", ":")),
    )


def answer_locally(
    messages: Sequence[Mapping[str, object]],
    tools: Sequence[Mapping[str, object]],
    *,
    plugins: PluginSet | None = None,
    read: Reading = "last",
    at_most_one: bool = False,
) -> LocalAnswer | None:
    """The tool calls plain code decides for the conversation's last user turn, or ``None``.

    ``None`` when the conversation does not end with the user's message, no tool
    is offered, or plain code cannot complete a call: the model is needed.
    ``at_most_one`` (``parallel_tool_calls: false``) refuses an answer of several calls.
    """
    if not tools:
        return None
    decision = decide(messages, tools, plugins=plugins, read=read)
    if not decision.local:
        return None
    if decision.calls:
        if at_most_one and len(decision.calls) > 1:
            return None
        calls = tuple(_call(call.event, call.arguments or {}) for call in decision.calls)
    elif decision.event is not None:
        calls = (_call(decision.event, decision.arguments or {}),)
    else:
        return None
    return LocalAnswer(calls=calls, decision=decision)
