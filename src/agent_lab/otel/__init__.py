"""OpenTelemetry for agent-lab: a span per dispatch, a child span per LLM request (extra ``otel``).

Install with ``pip install 'agent-lab[otel]'`` (the official ``opentelemetry-api``,
``-sdk`` and OTLP/HTTP exporter). Nothing in agent-lab imports this package
unless you do, so without it the kernel pays nothing at all; with it and no
tracer provider configured, every span is a non-recording one and no
attribute is computed.

Spans follow the OpenTelemetry GenAI semantic conventions:

* one ``execute_tool {event}`` span per dispatch (``gen_ai.operation.name``
  ``execute_tool``, ``gen_ai.tool.name``), carrying the decision ledger as
  ``agent_lab.*`` attributes (route, why the LLM was called, what was
  missing, the outcome);
* one ``chat {model}`` client span per provider call inside it
  (``gen_ai.request.model``, ``gen_ai.response.model``,
  ``gen_ai.usage.input_tokens``, ``gen_ai.usage.output_tokens``,
  ``gen_ai.response.finish_reasons``, ``error.type`` on failure).

Prompt and reply text is recorded only when asked for
(``capture_content=True``, or ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true``).
"""

from __future__ import annotations

from agent_lab.otel.file_exporter import OTLPJsonFileExporter
from agent_lab.otel.tracing import CAPTURE_CONTENT_ENV, TracedProvider, Tracing

__all__ = ["CAPTURE_CONTENT_ENV", "OTLPJsonFileExporter", "TracedProvider", "Tracing"]
