"""End to end: a run's spans over OTLP/HTTP to a loopback receiver that reads the official protos.

The receiver is the smallest one that speaks the protocol: an HTTP server that
takes ``POST /v1/traces`` and parses the body with the OpenTelemetry
project's own generated protobuf classes (``opentelemetry-proto``), so the
exporter is checked against the wire format, not against our reading of it.
"""

from __future__ import annotations

import gzip
import io
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

pytest.importorskip("opentelemetry.proto", reason="the otel extra is not installed")

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.trace.v1.trace_pb2 import Span

from agent_lab.cli import run
from agent_lab.lab.results.store import Store


class Receiver(ThreadingHTTPServer):
    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.spans: list[Span] = []
        self.resources: list[dict[str, str]] = []
        self.paths: list[str] = []
        self.lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        receiver = self.server
        assert isinstance(receiver, Receiver)
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        request = ExportTraceServiceRequest()
        request.ParseFromString(body)
        with receiver.lock:
            receiver.paths.append(self.path)
            for resource_spans in request.resource_spans:
                receiver.resources.append(
                    {a.key: a.value.string_value for a in resource_spans.resource.attributes}
                )
                for scope in resource_spans.scope_spans:
                    receiver.spans.extend(scope.spans)
        reply = ExportTraceServiceResponse().SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, format: str, *args: object) -> None:
        return


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    server = Receiver()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def attributes(span: Span) -> dict[str, object]:
    found: dict[str, object] = {}
    for item in span.attributes:
        kind = item.value.WhichOneof("value")
        found[item.key] = getattr(item.value, kind) if kind else None
    return found


def test_a_run_exports_its_spans_to_the_endpoint_the_environment_names(
    receiver: Receiver, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.url)
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_COMPRESSION", "gzip")
    db = tmp_path / "r.sqlite"
    argv = [
        "run", "demo", "--plugins", "agent_lab.demo:plugins", "--limit", "20", "--db", str(db),
        "--provider", "simulated", "--simulated-latency", "1,2", "--no-progress",
        "--warmup", "0",
    ]  # fmt: skip
    err = io.StringIO()
    assert run(argv, stdout=io.StringIO(), stderr=err) == 0, err.getvalue()
    assert f"spans: OTLP endpoint {receiver.url}" in err.getvalue()
    with Store(db) as store:
        [record] = store.runs()
        trials = store.trials(record.run_id)
    assert set(receiver.paths) == {"/v1/traces"}
    assert {r.get("service.name") for r in receiver.resources} == {"agent-lab"}
    dispatches = [s for s in receiver.spans if s.name.startswith("execute_tool")]
    chats = [s for s in receiver.spans if s.name.startswith("chat")]
    assert len(dispatches) == len(trials)
    expected_requests = sum(t.llm_calls for t in trials)
    assert sum(int(str(attributes(c)["agent_lab.requests"])) for c in chats) == expected_requests
    by_id = {s.span_id: s for s in dispatches}
    for chat in chats:
        assert chat.parent_span_id in by_id  # every LLM request inside its dispatch
        assert chat.kind == Span.SpanKind.SPAN_KIND_CLIENT
        found = attributes(chat)
        assert found["gen_ai.operation.name"] == "chat"
        assert isinstance(found["gen_ai.usage.input_tokens"], int)
        assert found["gen_ai.response.finish_reasons"] is not None
    reasons = {attributes(s).get("agent_lab.llm_reason") for s in dispatches}
    assert "model_resolves" in reasons


def test_an_endpoint_with_credentials_is_never_printed_with_them(
    receiver: Receiver, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``http://user:secret@host``: the run says where spans go, without the password."""
    with_password = receiver.url.replace("http://", "http://someone:s3cret-passw0rd@")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", with_password)
    argv = [
        "run", "demo", "--plugins", "agent_lab.demo:plugins", "--limit", "4",
        "--db", str(tmp_path / "r.sqlite"), "--provider", "simulated",
        "--simulated-latency", "1,2", "--no-progress", "--warmup", "0",
    ]  # fmt: skip
    err = io.StringIO()
    assert run(argv, stdout=io.StringIO(), stderr=err) == 0, err.getvalue()
    assert f"spans: OTLP endpoint {receiver.url}" in err.getvalue()
    assert "s3cret" not in err.getvalue()
