"""Who gets in, before any work is done: not a loop, not over the bound in flight, the key.

Plain ASGI facts only (the scope's headers), so that a refused request costs
no routing and no body read. A request that already passed this gateway (its
``x-agent-lab-via`` names this run) is 508, a loop; over ``max_in_flight``
requests at once is 429 with ``Retry-After``; with a gateway key, a request
without it is 401, and so is ``/metrics``, whose counters name every tool.
"""

from __future__ import annotations

import base64
import contextlib
import hmac
from typing import TYPE_CHECKING

from agent_lab.gateway.relay import error_response

if TYPE_CHECKING:
    from starlette.responses import Response
    from starlette.types import Scope

    from agent_lab.gateway.metrics import GatewayMetrics

__all__ = ["VIA_HEADER", "Admission", "bearer", "credentials"]

VIA_HEADER = "x-agent-lab-via"
"""Set on every forwarded request to the run's id: a request that comes back is a loop (508)."""
_VIA = VIA_HEADER.encode()
_KEY_HEADERS = frozenset(
    {
        b"authorization",
        b"proxy-authorization",
        b"api-key",
        b"x-api-key",
        b"x-goog-api-key",
        b"ocp-apim-subscription-key",
    }
)
"""Headers that carry a credential: OpenAI's, Azure's, Anthropic's, Google's, a proxy's."""


def bearer(scope: Scope) -> str | None:
    """The token of the request's ``Authorization: Bearer`` header, if it has one."""
    for name, value in scope["headers"]:
        if name == b"authorization":
            text = bytes(value).decode("latin-1")
            scheme, _, token = text.partition(" ")
            return token.strip() if scheme.lower() == "bearer" else None
    return None


def credentials(scope: Scope) -> tuple[str, ...]:
    """Every credential the request's headers carry, to redact from all the gateway writes.

    The token of each ``Authorization`` (any scheme: a Basic one also as the
    ``user:password`` it encodes, padded or not, and the password alone), and
    each value of the other headers that carry keys (``_KEY_HEADERS``).
    """
    found: list[str] = []
    for name, value in scope["headers"]:
        if name not in _KEY_HEADERS:
            continue
        text = bytes(value).decode("latin-1").strip()
        scheme, _, token = text.partition(" ")
        if name in (b"authorization", b"proxy-authorization") and token:
            found.append(token.strip())
            if scheme.lower() == "basic":
                with contextlib.suppress(ValueError):
                    blob = token.strip()
                    padded = blob + "=" * (-len(blob) % 4)
                    pair = base64.b64decode(padded, validate=True).decode("latin-1")
                    found.extend((pair, pair.partition(":")[2]))
        else:
            found.append(text)
    return tuple(secret for secret in found if secret)


class Admission:
    """The checks at the door, and the count of requests inside.

    Args:
        key: The key clients must send, or ``None`` for none.
        instance: This run's id (``GatewaySettings.instance``).
        max_in_flight: Requests served at once.
        metrics: Where refusals are counted (fixed reasons).
    """

    def __init__(
        self, *, key: str | None, instance: str, max_in_flight: int, metrics: GatewayMetrics
    ) -> None:
        self.key = key
        self.instance = instance
        self.max_in_flight = max_in_flight
        self.metrics = metrics
        self.in_flight = 0

    def refusal(self, scope: Scope) -> Response | None:
        """The answer that turns a ``/v1`` request away, or ``None`` to let it in."""
        if sum(name == b"authorization" for name, _ in scope["headers"]) > 1:
            # One parser could read the first and another the last: the key checked, the
            # key forwarded and the key redacted must be one.
            self.metrics.refused.labels("two_keys").inc()
            return error_response(
                400,
                "the request carries more than one Authorization header",
                type="invalid_request_error",
                code="invalid_request",
            )
        if self.looped(scope):
            self.metrics.refused.labels("loop").inc()
            return error_response(
                508,
                "this request already passed this gateway: its upstream leads back to it, a loop",
                type="invalid_request_error",
                code="loop_detected",
            )
        if self.in_flight >= self.max_in_flight:
            self.metrics.refused.labels("busy").inc()
            return error_response(
                429,
                "the gateway is serving as many requests as it may; retry shortly",
                type="rate_limit_error",
                code="rate_limit_exceeded",
                headers={"Retry-After": "1"},
            )
        return self.unauthorized(scope)

    def unauthorized(self, scope: Scope) -> Response | None:
        """401 for a request without the gateway's key, when it has one; else ``None``."""
        if self.key is None:
            return None
        given = bearer(scope)
        if given is not None and hmac.compare_digest(given.encode(), self.key.encode()):
            return None
        self.metrics.refused.labels("unauthorized").inc()
        return error_response(
            401,
            "the gateway needs its API key in the Authorization header",
            type="invalid_request_error",
            code="invalid_api_key",
        )

    def looped(self, scope: Scope) -> bool:
        """Whether the request's ``x-agent-lab-via`` names this run."""
        for name, value in scope["headers"]:
            if name == _VIA:
                passed = bytes(value).decode("latin-1").split(",")
                if self.instance in (hop.strip() for hop in passed):
                    return True
        return False

    def via(self, passed: str | None) -> str:
        """The ``x-agent-lab-via`` a forwarded request carries: the hops so far, then this run."""
        return f"{passed}, {self.instance}" if passed else self.instance
