"""A forwarded request's answer relayed to the client: whole, or chunk by chunk as it comes.

The client gets the upstream's answer unchanged, status and body, except
that an answer that is no answer becomes the API's error object with the
right status: a 2xx chat completion that is not JSON (502), an error status
whose body is not the API's error object (the same status, wrapped), a body
over ``max_upstream_body_bytes`` (502, read no further), a stream cut off
mid-way (an ``error`` event, as the API sends, which the ``openai`` SDK
raises). Then the exchange goes to the store.

A streamed answer is relayed piece by piece, whatever its length (the
deadline bounds it); only the copy kept for the store is bounded, to
``_MAX_KEPT`` or the body cap if smaller, and a copy cut short is stored as
a failed exchange (``too_large_to_store``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from starlette.responses import Response, StreamingResponse

from agent_lab.chat_completions import error_body
from agent_lab.gateway.upstream import UpstreamFailure

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Callable

    from agent_lab.gateway.upstream import UpstreamReply

__all__ = ["JSON", "Answered", "Redact", "error_response", "failure_response", "relay"]

JSON = "application/json"
_MAX_KEPT = 16 << 20
"""A streamed answer is kept for the store up to this size (or the body cap, if smaller); past
it, the rest is relayed, not kept."""


@dataclass(frozen=True, slots=True)
class Redact:
    """Takes secrets out of text, and says how much of a stream to hold back to see them whole."""

    text: Callable[[str], str]
    hold: int
    """Characters a streamed piece keeps back: a secret's longest spelling (JSON-escaped)."""

    def bytes(self, body: bytes) -> bytes:
        """``body`` with the secrets taken out (bytes that are no UTF-8 kept as they were)."""
        return self.text(body.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")


@dataclass(frozen=True, slots=True, kw_only=True)
class Answered:
    """What the upstream gave, as it goes to the store."""

    status: int
    body: bytes
    error: str | None = None
    """Why it is no answer (a fixed code), else ``None``."""
    streamed: bool = False


def error_response(
    status: int,
    message: str,
    *,
    type: str,
    code: str | None,
    headers: dict[str, str] | None = None,
    param: str | None = None,
) -> Response:
    """The API's error object with ``status``."""
    return Response(
        error_body(message, type=type, code=code, param=param),
        status,
        headers=headers,
        media_type=JSON,
    )


def failure_response(failure: UpstreamFailure) -> Response:
    """The client's answer to an upstream that gave nothing usable."""
    return error_response(failure.status, failure.message, type="upstream_error", code=failure.code)


def _is_api_error(body: bytes) -> bool:
    try:
        value: object = json.loads(body)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return False
    return isinstance(value, dict) and isinstance(
        cast("dict[str, object]", value).get("error"), dict
    )


def _is_json(body: bytes) -> bool:
    try:
        json.loads(body)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return False
    return True


async def relay(
    reply: UpstreamReply,
    *,
    check_json: bool,
    finished: Callable[[Answered], None],
    on_failure: Callable[[str], None],
    hint: str = "",
    redact: Redact | None = None,
) -> Response:
    """The client's response for ``reply``; ``finished`` is told what came, once it all came.

    ``check_json``: a 2xx that is not JSON is a broken answer (a chat completion's).
    ``hint``: said after a 404 that is no API error object (the upstream URL may lack ``/v1``).
    ``redact``: what takes the upstream's key out of the answer's header values and body
    (whole or streamed) before the client gets them: a client holding only the gateway's
    key must never see it, even echoed in an error.
    """
    if redact is not None:
        reply.headers = {name: redact.text(value) for name, value in reply.headers.items()}
    if reply.streamed and 200 <= reply.status < 300:
        return StreamingResponse(
            _relayed(reply, finished, on_failure, redact), reply.status, headers=reply.headers
        )
    try:
        body = await reply.body()
    except UpstreamFailure as failure:
        on_failure(failure.code)
        finished(Answered(status=failure.status, body=b"", error=failure.code))
        return failure_response(failure)
    if redact is not None:
        body = redact.bytes(body)
    if 200 <= reply.status < 300:
        if check_json and not _is_json(body):
            on_failure("upstream_bad_answer")
            finished(Answered(status=502, body=body, error="upstream_bad_answer"))
            return error_response(
                502, "the upstream's answer is not JSON", type="upstream_error", code="bad_answer"
            )
    elif not _is_api_error(body):
        on_failure(f"status_{reply.status // 100}xx")
        finished(Answered(status=reply.status, body=body))
        said = hint if reply.status == 404 and hint else ""
        return error_response(
            reply.status,
            f"the upstream answered HTTP {reply.status} without the API's error object{said}",
            type="upstream_error",
            code="upstream_error",
            headers={k: v for k, v in reply.headers.items() if k == "retry-after"},
        )
    elif reply.status >= 500:
        on_failure(f"status_{reply.status // 100}xx")
    finished(Answered(status=reply.status, body=body))
    return Response(body, reply.status, headers=reply.headers)


async def _relayed(
    reply: UpstreamReply,
    finished: Callable[[Answered], None],
    on_failure: Callable[[str], None],
    redact: Redact | None,
) -> AsyncIterator[bytes]:
    kept: list[bytes] = []
    size = 0
    keep = min(_MAX_KEPT, reply.limit)
    error: str | None = None
    held = "" if redact is not None else None
    try:
        async for came in reply.pieces():
            piece = came
            if redact is not None and held is not None:
                # What could still be the start of a key cut in two waits for the next piece.
                text = redact.text(held + came.decode("utf-8", "surrogateescape"))
                cut = max(0, len(text) - redact.hold)
                piece, held = text[:cut].encode("utf-8", "surrogateescape"), text[cut:]
            size += len(piece)
            if size <= keep:
                kept.append(piece)
            yield piece
        if held:
            rest = held.encode("utf-8", "surrogateescape")
            kept.append(rest)
            yield rest
    except UpstreamFailure as failure:
        error = failure.code
        on_failure(failure.code)
        event = json.loads(error_body(failure.message, type="upstream_error", code=failure.code))
        yield f"data: {json.dumps(event)}\n\n".encode()
    finally:
        if size > keep:
            error = error or "too_large_to_store"
        # A client that left mid-stream ends here too: what came is stored as it came.
        finished(Answered(status=reply.status, body=b"".join(kept), error=error, streamed=True))
