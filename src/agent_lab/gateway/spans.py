"""The gateway's decisions as OpenTelemetry spans, for a collector to add up across replicas.

One ``execute_tool`` span per finished chat completion, made in the store's
writer thread from the row's decision (never on the response path). A span
carries what was decided and how it compared with the upstream's answer, as
``agent_lab.gateway.*`` attributes; never message text, arguments or any
header: what goes out of the process cannot hold a client's key.
Configured by the standard variables (``OTEL_EXPORTER_OTLP_ENDPOINT`` or
``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``), with the ``otel`` extra.
"""

from __future__ import annotations

import functools
import json
import logging
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.util.types import AttributeValue

    from agent_lab.exchange_stores import NewRow
    from agent_lab.otel import Tracing

__all__ = ["ENDPOINT_VARIABLES", "DecisionSpans", "otlp_spans", "spans_from_environment"]

ENDPOINT_VARIABLES = ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT")
_LOG = logging.getLogger(__name__)
_FIELDS = ("kind", "tool", "produced_tool", "covered", "agreed", "status", "reason", "rule")
"""The decision's fields a span carries: names and verdicts, never values the user wrote."""


class DecisionSpans:
    """Makes one span per row; ``close`` flushes what is still buffered."""

    def __init__(self, tracing: Tracing, provider: TracerProvider | None = None) -> None:
        self._tracing = tracing
        self._provider = provider

    def __call__(self, row: NewRow) -> None:
        """The span of one finished request."""
        decision: dict[str, object] = json.loads(row.decision) if row.decision else {}
        attributes: dict[str, AttributeValue] = {
            "agent_lab.gateway.origin": row.origin,
            "agent_lab.gateway.http_status": row.status,
        }
        for name in _FIELDS:
            value = decision.get(name)
            if isinstance(value, str | bool | int | float):
                attributes[f"agent_lab.gateway.{name}"] = value
        tools = decision.get("tools")
        if isinstance(tools, list) and tools:
            attributes["agent_lab.gateway.tool"] = str(tools[0])  # pyright: ignore[reportUnknownArgumentType]
        tool = attributes.get("agent_lab.gateway.produced_tool") or attributes.get(
            "agent_lab.gateway.tool"
        )
        with self._tracing.dispatch_span(tool if isinstance(tool, str) else None, attributes):
            pass

    def close(self) -> None:
        """Flush and stop the exporter."""
        if self._provider is not None:
            self._provider.shutdown()


def spans_from_environment() -> Callable[[], DecisionSpans | None] | None:
    """What makes spans for the OTLP/HTTP endpoint the environment names; ``None`` if none.

    Read here, in the serving process, and carried to the store's writer process
    (whose environment is its fork server's), with every ``OTEL_*`` variable.
    """
    if not any(os.environ.get(name) for name in ENDPOINT_VARIABLES):
        return None
    settings = {name: value for name, value in os.environ.items() if name.startswith("OTEL_")}
    return functools.partial(otlp_spans, settings)


def otlp_spans(
    settings: Mapping[str, str], service: str = "agent-lab-gateway"
) -> DecisionSpans | None:
    """Spans to the OTLP/HTTP endpoint ``settings`` (``OTEL_*`` variables) name.

    Without the ``otel`` extra, an endpoint set for other programs is said once in
    the log and ignored: tracing must never stop the gateway.
    """
    os.environ.update(settings)
    try:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import (  # noqa: PLC0415
            OTLPSpanExporter,
        )
        from opentelemetry.sdk.resources import Resource  # noqa: PLC0415
        from opentelemetry.sdk.trace import TracerProvider  # noqa: PLC0415
        from opentelemetry.sdk.trace.export import BatchSpanProcessor  # noqa: PLC0415

        from agent_lab.otel import Tracing  # noqa: PLC0415
    except ImportError:
        _LOG.warning("an OTLP endpoint is set, but the otel extra is missing: no spans")
        return None
    provider = TracerProvider(resource=Resource.create({"service.name": service}))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    return DecisionSpans(Tracing(provider), provider)
