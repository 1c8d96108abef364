"""``enforce``: a covered request for trusted tools answered by plain code, streamed or not.

The answer is a ``chat.completion`` (or its chunks) whose message holds the
calls, ``finish_reason: "tool_calls"``, zero usage, and the header
``x-agent-lab-answered: local``. The turn after those calls, when every
called event declares how its result is said, is answered the same way with
those words (``finish_reason: "stop"``). The exchange goes to the store as answered
locally: ``agent-lab shadow`` leaves it out (no model answered it).
"""

from __future__ import annotations

import logging
import time
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING

from starlette.responses import Response

from agent_lab.gateway.exchange import Exchange
from agent_lab.gateway.relay import JSON
from agent_lab.gateway.rules import FollowUp, Gate, follow_up, gate, reply_verdict, verdict
from agent_lab.gateway.wire import ANSWERED_HEADER, completion, stream_chunks

if TYPE_CHECKING:
    from agent_lab.agents.plugins import PluginSet
    from agent_lab.agents.turn import Reading
    from agent_lab.gateway.store import ExchangeStore
    from agent_lab.gateway.trust import Trust
    from agent_lab.resolvers.learned import RuleBook
    from agent_lab.strict_json import JSONObject, JSONValue

__all__ = ["Answering", "answer_locally"]

_LOG = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True, kw_only=True)
class Answering:
    """What a local answer needs of the gateway."""

    plugins: PluginSet | None
    read: Reading
    trust: Trust
    store: ExchangeStore | None
    rules: RuleBook | None = None


def answer_locally(
    answering: Answering, parsed: JSONObject, body: bytes, *, at: str, secrets: tuple[str, ...]
) -> Response | str:
    """The local answer to ``parsed`` (``body`` as it came), or the rule that forwards it."""
    gated = gate(parsed)
    checked: Gate | FollowUp | None = gated if isinstance(gated, Gate) else None
    if gated == "not_a_user_turn":
        checked = follow_up(parsed)
    if checked is None:
        return gated if isinstance(gated, str) else "not_covered"
    try:
        if isinstance(checked, Gate):
            decided = verdict(
                checked,
                plugins=answering.plugins,
                read=answering.read,
                now=at,
                rules=answering.rules,
            )
        else:
            decided = reply_verdict(checked, plugins=answering.plugins)
    except Exception:  # noqa: BLE001  (a user's resolver may raise anything: the model's turn)
        _LOG.warning("a plugin raised while deciding a request; forwarded")
        return "plugin_raised"
    names = list(decided.tools)
    if not (decided.calls or decided.text):
        return decided.reason
    if not answering.trust.trusts(names):
        return "not_trusted"
    # Seconds since the epoch, as the API's ``created``: a wall-clock fact, not a duration.
    created = int(time.time())
    if checked.stream:
        answer = stream_chunks(
            decided.calls,
            model=checked.model,
            created=created,
            include_usage=checked.include_usage,
            text=decided.text,
        )
        response = Response(
            answer, headers={ANSWERED_HEADER: "local"}, media_type="text/event-stream"
        )
    else:
        answer = completion(decided.calls, model=checked.model, created=created, text=decided.text)
        response = Response(answer, headers={ANSWERED_HEADER: "local"}, media_type=JSON)
    if answering.store is not None:
        spoken_for: list[JSONValue] = [*names]
        answering.store.put(
            Exchange(
                request_id=uuid.uuid4().hex,
                at=at,
                origin="local",
                request=body,
                response=answer,
                streamed=checked.stream,
                status=200,
                latency_ms=0.0,
                secrets=secrets,
                decision={"answered": "local", "tools": spoken_for, "rule": decided.reason},
            )
        )
    return response
