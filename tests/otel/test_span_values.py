"""What a server sends may be no OTLP value: spans stay whole, and nothing is logged as broken."""

from __future__ import annotations

import json
import logging
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("opentelemetry.sdk", reason="the otel extra is not installed")

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor

from agent_lab import Event, EventDefinition, EventKernel, EventRegistry, Status, Usage
from agent_lab.agents.fallback import LLMFallback
from agent_lab.otel import OTLPJsonFileExporter, Tracing
from agent_lab.providers import ProviderReply
from agent_lab.testing import ScriptedProvider

TIMER: dict[str, Any] = {
    "type": "object",
    "properties": {"duration_seconds": {"type": "integer"}},
    "required": ["duration_seconds"],
}


def test_a_lone_surrogate_and_a_count_past_int64_reach_the_span_file_cleanly(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A reply's model "m\\udc80" and 10**30 prompt tokens: the OTLP encoder logged a
    traceback for each and dropped the attribute. Now the model is sent escaped, as the
    store keeps it, and the impossible count is left out as unknown."""
    path = tmp_path / "spans.jsonl"
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(OTLPJsonFileExporter(path)))
    tracing = Tracing(provider)
    usage = Usage(prompt_tokens=10**30, completion_tokens=9, cost=Decimal(0), model="m\udc80")
    reply = ProviderReply(
        text='{"duration_seconds": 60}', parsed={"duration_seconds": 60}, usage=usage
    )
    registry = EventRegistry()
    registry.register(EventDefinition("set_timer", parameters=TIMER))
    kernel = EventKernel(registry, LLMFallback(tracing.provider(ScriptedProvider([reply]))))
    with caplog.at_level(logging.WARNING):
        result = tracing.dispatch(kernel, Event("set_timer", text="a minute"))
        provider.shutdown()
    assert result.status is Status.SUCCESS
    assert [r.getMessage() for r in caplog.records if r.name.startswith("opentelemetry")] == []
    spans = [
        span
        for line in path.read_text().splitlines()
        for resource in json.loads(line)["resourceSpans"]
        for scope in resource["scopeSpans"]
        for span in scope["spans"]
    ]
    [chat] = [span for span in spans if span["name"].startswith("chat")]
    attributes = {a["key"]: a["value"] for a in chat["attributes"]}
    assert attributes["gen_ai.response.model"] == {"stringValue": "m\\udc80"}
    assert "gen_ai.usage.input_tokens" not in attributes
    assert attributes["gen_ai.usage.output_tokens"] == {"intValue": "9"}
