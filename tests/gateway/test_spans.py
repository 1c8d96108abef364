"""The gateway's decisions as spans over OTLP/HTTP, to the loopback receiver of tests/otel."""

from __future__ import annotations

import pytest

pytest.importorskip("prometheus_client", reason="the gateway extra is not installed")
pytest.importorskip("opentelemetry.sdk", reason="the otel extra is not installed")

from pathlib import Path

import httpx

from agent_lab.cli.commands.serve.app import build_gateway
from agent_lab.gateway import GatewaySettings, Mode
from tests.gateway.conftest import COVERED, KEY, TOOLS, user
from tests.gateway.running import serving
from tests.openai_server import OpenAIServer, tool_calls
from tests.otel.test_otlp_receiver import Receiver, attributes, receiver

__all__ = ["receiver"]  # the fixture, imported to be used here


def test_each_decision_is_a_span_with_what_was_decided_and_no_key(
    receiver: Receiver, upstream: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One ``execute_tool`` span per request, its verdicts as attributes; none holds the key."""
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.url)
    upstream.default = tool_calls(("get_weather", '{"city": "Rome"}'))
    settings = GatewaySettings(
        upstream=upstream.url,
        mode=Mode.ENFORCE,
        enforce=("set_timer",),
        db=str(tmp_path / "gateway.sqlite"),
    )
    headers = {"Authorization": f"Bearer {KEY}"}
    with serving(settings, gateway=build_gateway(settings)) as served:
        for text in (COVERED, "set timer for 5 minutes"):
            body = {"model": "m", "messages": user(text), "tools": TOOLS}
            httpx.post(f"{served.url}/chat/completions", json=body, headers=headers, timeout=10)
    # Stopping the gateway flushed the exporter.
    spans = {span.name: attributes(span) for span in receiver.spans}
    assert set(spans) == {"execute_tool get_weather", "execute_tool set_timer"}
    forwarded = spans["execute_tool get_weather"]
    assert forwarded["agent_lab.gateway.origin"] == "upstream"
    assert forwarded["agent_lab.gateway.covered"] is True
    assert forwarded["agent_lab.gateway.agreed"] is False  # the model said Rome
    assert spans["execute_tool set_timer"]["agent_lab.gateway.origin"] == "local"
    sent = b"".join(span.SerializeToString() for span in receiver.spans)
    assert not [KEY[i : i + 12] for i in range(len(KEY) - 11) if KEY[i : i + 12].encode() in sent]
