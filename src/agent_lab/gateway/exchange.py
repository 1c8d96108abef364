"""One finished request as the store keeps it: a ``pairs`` line, and the decision beside it.

Built in the store's writer thread, off the response path: the bodies are
parsed there, a streamed answer's chunks put back together into the
``chat.completion`` they spell, the client's key redacted from everything,
and the request replayed (``log_replay.replayed.replay``, the function
``agent-lab shadow`` runs) on the very line that is stored. A line that
replay cannot use (a client's tools the registry refuses) is stored marked
so: its decision says ``skipped``, with the reason and the problem in words,
and ``agent-lab shadow`` counts it as left out (``logs.exchanges``), never as
an error. A request the gateway's rules forward is replayed as never covered,
as ``agent-lab shadow`` reads it back from the rule stored beside it.
"""

from __future__ import annotations

import dataclasses
import json
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from agent_lab.chat_completions import assembled, pairs_line
from agent_lab.errors import StrictJSONError
from agent_lab.exchange_stores import NewRow
from agent_lab.gateway.wire_rules import wire_request
from agent_lab.log_replay.replayed import Replayed, replay
from agent_lab.logs.pairs import pair_request
from agent_lab.logs.record import LogError, SkippedLine
from agent_lab.providers.redaction import Redactor
from agent_lab.strict_json import loads

if TYPE_CHECKING:
    from agent_lab.answering import Answerer
    from agent_lab.strict_json import JSONObject, JSONValue

__all__ = ["Exchange", "row_of"]

_MAX_DEPTH = 128
_DECIDED = tuple(f.name for f in dataclasses.fields(Replayed) if f.name != "where")
"""What a stored decision holds of the replay: everything but where it was read."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Exchange:
    """What the response path hands to the store: bytes as they passed, and the facts around."""

    request_id: str
    at: str
    """When the request arrived, ISO 8601 (the resolvers' ``now``)."""
    origin: Literal["upstream", "local"]
    request: bytes
    response: bytes
    """The answer's body: JSON, or the SSE text of a streamed one."""
    streamed: bool
    status: int
    latency_ms: float
    error: str | None = None
    """Why no answer came (a fixed phrase: a timeout, a refused connection), else ``None``."""
    secrets: tuple[str, ...] = ()
    """The client's key and the gateway's own, redacted from what is stored; never stored."""
    decision: JSONObject | None = None
    """For a local answer: the calls made, as the row's decision."""
    reference_date: str | None = None
    """The date relative dates were read against, when not the arrival time (``at``): a
    ``--reference-date``, or the request's ``x-agent-lab-reference-date`` header."""


def _parsed(body: bytes) -> JSONValue | None:
    try:
        return loads(body, max_depth=_MAX_DEPTH)
    except (StrictJSONError, UnicodeDecodeError):
        return None


def _line(exchange: Exchange) -> JSONObject:
    response = assembled(exchange.response) if exchange.streamed else _parsed(exchange.response)
    # A failed attempt, as a pairs line says it: read back as ``failed_request``.
    failed = exchange.error is not None or not 200 <= exchange.status < 300 or response is None
    return pairs_line(
        _parsed(exchange.request),
        response=None if failed else response,
        error=exchange.error or f"the upstream answered HTTP {exchange.status}" if failed else None,
        response_error=response if failed and isinstance(response, dict) else None,
        latency_ms=exchange.latency_ms,
        timestamp=exchange.at,
        status=exchange.status,
        streamed=exchange.streamed,
        metadata=None
        if exchange.reference_date is None
        else {"reference_date": exchange.reference_date},
    )


def _skipped(skipped: SkippedLine, rule: str | None) -> JSONObject:
    """The mark of a line replay cannot use: what ``logs.exchanges`` reads it back as."""
    return {"skipped": str(skipped.reason), "message": skipped.message, "rule": rule}


def _decision(line: JSONObject, where: str, answerer: Answerer) -> JSONObject | None:
    checked = wire_request(line.get("request"))
    rule = checked if isinstance(checked, str) else None
    try:
        request = pair_request(line, where)
    except LogError as err:
        return _skipped(err.skipped, rule)
    if rule is not None:
        request = dataclasses.replace(request, forwarded=rule)
    replayed = replay(request, answerer)
    if isinstance(replayed, SkippedLine):
        return _skipped(replayed, rule)
    assert isinstance(replayed, Replayed)
    # Field by field, not dataclasses.asdict: its deep copy was a seventh of a row's cost.
    fields: JSONObject = {name: getattr(replayed, name) for name in _DECIDED}
    return {**fields, "rule": rule}


def row_of(exchange: Exchange, answerer: Answerer) -> NewRow:
    """The stored row: the line (redacted) and, for an upstream answer, the decision beside it.

    Made in the store's writer process, which the row names as its writer.
    """
    line = _line(exchange)
    redactor = Redactor(exchange.secrets)
    if redactor:
        redacted = redactor.json(line)
        assert isinstance(redacted, dict)
        line = redacted
    decision = (
        _decision(line, exchange.request_id, answerer)
        if exchange.origin == "upstream"
        else exchange.decision
    )
    return NewRow(
        request_id=exchange.request_id,
        at=exchange.at,
        origin=exchange.origin,
        status=exchange.status,
        line=json.dumps(line, ensure_ascii=False),
        decision=None if decision is None else json.dumps(decision, ensure_ascii=False),
        worker=os.getpid(),
    )
