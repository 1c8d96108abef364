"""The gateway's own time for one request: said on its answer, and counted in ``/metrics``.

A user debugging one slow request looks at its answer's headers, not at a
histogram: every answer under ``/v1`` (local, forwarded, refused, failed)
carries ``x-agent-lab-overhead-ms``, the time from the request's arrival to
its response being handed to the server, less the upstream's share:

- forwarded whole: less the time from sending the request upstream to its
  whole answer having come;
- forwarded as a stream: less the time to the upstream's headers (what is
  relayed after the header is sent cannot be in it);
- local or refused: all of it.

The same number, in seconds, is observed in the
``agent_lab_gateway_added_latency_seconds`` histogram under its ``answered``
label, so the header and the metric agree by construction. LiteLLM's proxy
says the same thing as ``x-litellm-overhead-duration-ms``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from starlette.responses import Response

    from agent_lab.gateway.metrics import GatewayMetrics

__all__ = ["OVERHEAD_HEADER", "AnsweredBy", "RequestTime"]

OVERHEAD_HEADER = "x-agent-lab-overhead-ms"

AnsweredBy = Literal["local", "upstream", "refused", "failed"]
"""How the request was answered: the histogram's ``answered`` label."""


@dataclass(slots=True)
class RequestTime:
    """One request's clock readings, in monotonic nanoseconds, filled in as it is served."""

    started: int
    upstream: int = 0
    """The upstream's share: its whole answer's time, or a stream's time to its headers."""
    answered: AnsweredBy = "refused"

    def say(self, response: Response, now: int, metrics: GatewayMetrics) -> float:
        """Put the overhead on ``response`` and in the histogram; the milliseconds said."""
        own = max(0, now - self.started - self.upstream)
        milliseconds = own / 1e6
        response.headers[OVERHEAD_HEADER] = f"{milliseconds:.3f}"
        metrics.added_latency.labels(self.answered).observe(own / 1e9)
        return milliseconds
