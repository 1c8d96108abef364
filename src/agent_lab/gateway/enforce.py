"""``enforce``: what the envelope answers for trusted tools, said on the wire, streamed or not.

The request passes the wire's rules (``wire_rules.wire_request``), then the envelope
every caller asks (``answering.Answerer``) answers it or names the rule
that forwards it. A local answer is a ``chat.completion`` (or its chunks)
with zero usage and the header ``x-agent-lab-answered: local``: the calls
(``finish_reason: "tool_calls"``), or words (``finish_reason: "stop"``): the
declared replies after the gateway's own calls, a question for a value only
the user can supply, or what is wrong with a value the user asked for
(``--no-ask`` forwards those two). The exchange goes to the store as answered
locally: ``agent-lab shadow`` leaves it out (no model answered it).
"""

from __future__ import annotations

import logging
import time
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING

from starlette.responses import Response

from agent_lab.answering import Forward
from agent_lab.gateway.exchange import Exchange
from agent_lab.gateway.relay import JSON
from agent_lab.gateway.wire import ANSWERED_HEADER, completion, stream_chunks
from agent_lab.gateway.wire_rules import wire_request

if TYPE_CHECKING:
    from agent_lab.answering import Answerer
    from agent_lab.gateway.store import ExchangeStore
    from agent_lab.gateway.trust import Trust
    from agent_lab.strict_json import JSONObject, JSONValue

__all__ = ["Answering", "local_response"]

_LOG = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True, kw_only=True)
class Answering:
    """What a local answer needs of the gateway."""

    answerer: Answerer
    trust: Trust
    store: ExchangeStore | None


def local_response(
    answering: Answering,
    parsed: JSONObject,
    body: bytes,
    *,
    at: str,
    secrets: tuple[str, ...],
    reference_date: str | None = None,
) -> tuple[Response, str] | str:
    """The local answer to ``parsed`` (``body`` as it came), and its word, or the forward rule.

    The word is the envelope's: ``covered``, ``local_reply``, ``asked`` or ``refused``.
    """
    checked = wire_request(parsed)
    if isinstance(checked, str):
        return checked
    try:
        answer = answering.answerer.answer(checked.asked, now=reference_date or at)
    except Exception:  # noqa: BLE001  (a user's resolver may raise anything: the model's turn)
        _LOG.warning("a plugin raised while deciding a request; forwarded")
        return "plugin_raised"
    if isinstance(answer, Forward):
        return answer.reason
    cut = checked.limits.refusal(answer.calls, answer.text)
    if cut is not None:
        return cut
    names = list(answer.tools)
    if not answering.trust.trusts(names):
        return "not_trusted"
    # Seconds since the epoch, as the API's ``created``: a wall-clock fact, not a duration.
    created = int(time.time())
    if checked.stream:
        said = stream_chunks(
            answer.calls,
            model=checked.model,
            created=created,
            include_usage=checked.include_usage,
            text=answer.text,
        )
        response = Response(
            said, headers={ANSWERED_HEADER: "local"}, media_type="text/event-stream"
        )
    else:
        said = completion(answer.calls, model=checked.model, created=created, text=answer.text)
        response = Response(said, headers={ANSWERED_HEADER: "local"}, media_type=JSON)
    if answering.store is not None:
        spoken_for: list[JSONValue] = [*names]
        answering.store.put(
            Exchange(
                request_id=uuid.uuid4().hex,
                at=at,
                origin="local",
                request=body,
                response=said,
                streamed=checked.stream,
                status=200,
                latency_ms=0.0,
                secrets=secrets,
                decision={"answered": "local", "tools": spoken_for, "rule": answer.reason},
                reference_date=reference_date,
            )
        )
    return response, answer.reason
