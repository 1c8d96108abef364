"""A request's body as the gateway takes it: no larger than the cap, all of it in time.

A body over ``max_body_bytes`` (declared, or streamed past it) is 413 before
the rest is read. A client that announces more than it sends would hold its
connection: it has ``body_timeout`` seconds for the whole body, then 408 and
the connection closed, as from any proxy in front of a server. A client that
leaves mid-body is answered by nobody: status 499 (nginx's word for it) in the
request's one log line, never a traceback.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from starlette.requests import ClientDisconnect
from starlette.responses import Response

from agent_lab.gateway.relay import error_response

if TYPE_CHECKING:
    from starlette.requests import Request

    from agent_lab.gateway.metrics import GatewayMetrics

__all__ = ["LEFT", "REFUSALS", "read_body_bytes"]

LEFT = 499
"""The status logged for a client that left before its body arrived."""
REFUSALS = {413: "too_large", 408: "slow_body", LEFT: "client_left"}
"""The rule each refusal of a body is logged under."""


async def read_body_bytes(
    request: Request, *, cap: int, seconds: float, metrics: GatewayMetrics
) -> bytes | Response:
    """The whole body, or the response that refuses it (counted in ``metrics``)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > cap:
        return _too_large(cap, metrics)
    pieces: list[bytes] = []
    size = 0
    try:
        async with asyncio.timeout(seconds):
            async for piece in request.stream():
                size += len(piece)
                if size > cap:
                    return _too_large(cap, metrics)
                pieces.append(piece)
    except TimeoutError:
        metrics.refused.labels("slow_body").inc()
        return error_response(
            408,
            f"the request body did not arrive within {seconds:g} seconds",
            type="invalid_request_error",
            code="request_timeout",
            headers={"Connection": "close"},
        )
    except ClientDisconnect:
        metrics.refused.labels("client_left").inc()
        return Response(status_code=LEFT)
    return b"".join(pieces)


def _too_large(cap: int, metrics: GatewayMetrics) -> Response:
    metrics.refused.labels("too_large").inc()
    return error_response(
        413,
        f"the request body is larger than the gateway takes ({cap} bytes)",
        type="invalid_request_error",
        code="request_too_large",
    )
