"""OpenTelemetry spans: a dispatch span with the ledger, a GenAI child span per LLM request."""

from __future__ import annotations

import asyncio
import io
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("opentelemetry.sdk", reason="the otel extra is not installed")

from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from agent_lab import Event, EventDefinition, EventKernel, EventRegistry, Status, Usage
from agent_lab.agents.choice import ToolChooser
from agent_lab.agents.event_agent import EventAgent
from agent_lab.agents.fallback import LLMFallback
from agent_lab.cli import run
from agent_lab.demo import plugins as demo_plugins
from agent_lab.lab.results.store import Store
from agent_lab.lab.run.policies import make_policy
from agent_lab.lab.run.run_config import RunConfig
from agent_lab.lab.run.runner import Runner
from agent_lab.lab.workload import load_workload
from agent_lab.otel import Tracing
from agent_lab.providers import ProviderFailure, ProviderReply, ProviderRequest, ToolCall
from agent_lab.providers.simulated import Expected, SimulatedProvider
from agent_lab.testing import ScriptedProvider

TIMER: dict[str, Any] = {
    "type": "object",
    "properties": {"duration_seconds": {"type": "integer"}, "label": {"type": "string"}},
    "required": ["duration_seconds"],
    "additionalProperties": False,
}


def recorded(capture_content: bool = False) -> tuple[Tracing, InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return Tracing(provider, capture_content=capture_content), exporter


def timer_kernel(provider: Any) -> EventKernel:
    registry = EventRegistry()
    registry.register(
        EventDefinition("set_timer", parameters=TIMER, resolver=lambda e: {"label": "tea"})
    )
    return EventKernel(registry, LLMFallback(provider))


def answer(raw: str = '{"duration_seconds": 240}') -> ProviderReply:
    usage = Usage(prompt_tokens=61, completion_tokens=9, cost=Decimal("0.0000147"), model="m-1")
    return ProviderReply(text=raw, parsed=json.loads(raw), usage=usage, finish_reason="stop")


def span_id(span: ReadableSpan) -> int:
    assert span.context is not None
    return span.context.span_id


def by_name(spans: tuple[ReadableSpan, ...], prefix: str) -> list[ReadableSpan]:
    return [span for span in spans if span.name.startswith(prefix)]


def test_a_dispatch_span_holds_the_ledger_and_a_chat_span_per_request() -> None:
    tracing, exporter = recorded()
    scripted = ScriptedProvider([answer()], model="m")
    kernel = timer_kernel(tracing.provider(scripted))
    result = tracing.dispatch(kernel, Event("set_timer", text="tea for four minutes"))
    assert result.status is Status.SUCCESS
    spans = exporter.get_finished_spans()
    [dispatch] = by_name(spans, "execute_tool")
    [chat] = by_name(spans, "chat")
    assert dispatch.name == "execute_tool set_timer"
    assert chat.parent is not None
    assert chat.parent.span_id == span_id(dispatch)
    assert chat.kind is SpanKind.CLIENT
    attributes = dict(chat.attributes or {})
    assert attributes["gen_ai.operation.name"] == "chat"
    assert attributes["gen_ai.request.model"] == "m"
    assert attributes["gen_ai.response.model"] == "m-1"
    assert attributes["gen_ai.usage.input_tokens"] == 61
    assert attributes["gen_ai.usage.output_tokens"] == 9
    assert attributes["gen_ai.response.finish_reasons"] == ("stop",)
    assert attributes["agent_lab.purpose"] == "fallback"
    decided = dict(dispatch.attributes or {})
    assert decided["gen_ai.operation.name"] == "execute_tool"
    assert decided["gen_ai.tool.name"] == "set_timer"
    assert decided["agent_lab.status"] == "success"
    assert decided["agent_lab.llm_reason"] == "missing_required"
    assert decided["agent_lab.missing"] == ("/duration_seconds",)
    assert decided["agent_lab.route"] == "given"
    assert decided["agent_lab.llm_calls"] == 1
    # Text stays out unless asked for.
    assert not any("messages" in key for key in (*attributes, *decided))
    assert not any("tea" in str(value) for value in (*attributes.values(), *decided.values()))


def test_content_is_captured_only_when_asked() -> None:
    tracing, exporter = recorded(capture_content=True)
    kernel = timer_kernel(tracing.provider(ScriptedProvider([answer()], model="m")))
    tracing.dispatch(kernel, Event("set_timer", text="tea for four minutes"))
    [chat] = by_name(exporter.get_finished_spans(), "chat")
    attributes = dict(chat.attributes or {})
    sent = json.loads(str(attributes["gen_ai.input.messages"]))
    assert any("tea for four minutes" in part["content"] for m in sent for part in m["parts"])
    [output] = json.loads(str(attributes["gen_ai.output.messages"]))
    assert output["parts"] == [{"type": "text", "content": '{"duration_seconds": 240}'}]
    assert output["finish_reason"] == "stop"


def test_the_switch_is_the_conventions_environment_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "true")
    assert Tracing(TracerProvider()).capture_content is True
    monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "false")
    assert Tracing(TracerProvider()).capture_content is False


def test_a_failed_request_is_an_error_span_with_its_type() -> None:
    tracing, exporter = recorded()
    failure = ProviderReply(
        usage=Usage(requests=1),
        failure=ProviderFailure(reason="http_4xx", message="no", retryable=False),
    )
    kernel = timer_kernel(tracing.provider(ScriptedProvider([failure], model="m")))
    result = tracing.dispatch(kernel, Event("set_timer"))
    assert result.status is Status.FALLBACK_FAILED
    spans = exporter.get_finished_spans()
    [chat] = by_name(spans, "chat")
    [dispatch] = by_name(spans, "execute_tool")
    for span in (chat, dispatch):
        assert span.status.status_code is StatusCode.ERROR
        assert dict(span.attributes or {})["error.type"] == "http_4xx"
    assert dict(chat.attributes or {})["agent_lab.requests.succeeded"] == 0


def test_missing_information_is_an_answer_not_an_error() -> None:
    tracing, exporter = recorded()
    registry = EventRegistry()
    registry.register(EventDefinition("set_timer", parameters=TIMER))
    result = tracing.dispatch(EventKernel(registry), Event("set_timer"))
    assert result.status is Status.MISSING_INFORMATION
    [dispatch] = exporter.get_finished_spans()
    assert dispatch.status.status_code is StatusCode.UNSET
    assert dict(dispatch.attributes or {})["agent_lab.fallback.skipped"] == "no_fallback"


def test_an_agents_routing_request_is_a_child_of_the_dispatch_too() -> None:
    tracing, exporter = recorded()
    raw = '{"query": "Coldplay", "kind": "artist"}'
    choice = ProviderReply(
        tool_calls=(ToolCall(name="play_music", arguments_raw=raw, arguments=json.loads(raw)),),
        finish_reason="tool_calls",
    )
    provider = tracing.provider(ScriptedProvider([choice], model="m"))
    agent = EventAgent(
        demo_plugins,
        fallback=LLMFallback(provider),
        chooser=ToolChooser(provider, demo_plugins.definitions),
    )
    reply = asyncio.run(tracing.respond(agent, "I'd like to hear something from Coldplay"))
    assert reply.status is Status.SUCCESS
    spans = exporter.get_finished_spans()
    [dispatch] = by_name(spans, "execute_tool")
    [chat] = by_name(spans, "chat")
    assert chat.parent is not None
    assert chat.parent.span_id == span_id(dispatch)
    assert dict(chat.attributes or {})["agent_lab.purpose"] == "tool_choice"
    assert dict(chat.attributes or {})["gen_ai.response.finish_reasons"] == ("tool_calls",)
    decided = dict(dispatch.attributes or {})
    assert dispatch.name == "execute_tool play_music"
    assert (decided["agent_lab.route"], decided["agent_lab.llm_reason"]) == (
        "llm_choice",
        "no_route",
    )


def test_without_a_tracer_provider_nothing_records_and_nothing_changes() -> None:
    tracing = Tracing()  # the global provider: none configured in the tests
    scripted = ScriptedProvider([answer()], model="m")
    traced = tracing.provider(scripted)
    assert traced.requests is scripted.requests  # what the provider offers stays reachable
    result = tracing.dispatch(timer_kernel(traced), Event("set_timer"))
    assert result.status is Status.SUCCESS
    assert result.arguments == {"duration_seconds": 240, "label": "tea"}


def test_a_demo_run_writes_a_span_per_dispatch_and_per_llm_request(tmp_path: Path) -> None:
    """The demo's trials through the runner, in memory: spans match the stored trials."""
    tracing, exporter = recorded()
    workload = load_workload("demo")
    config = RunConfig(
        workload="demo",
        plugins="agent_lab.demo:plugins",
        policies=("deterministic-first", "llm-always"),
        provider="simulated",
        limit=30,
        warmup=0,
    )
    truth = {case.id: case for case in workload.cases}

    def oracle(request: ProviderRequest) -> Expected | None:
        case = truth.get(str(request.context.get("case_id")))
        if case is None:
            return None
        return Expected(case.event, dict(case.expected.arguments or {}))

    provider = tracing.provider(SimulatedProvider(oracle, wait=False, seed=0))
    with Store(tmp_path / "r.sqlite") as store:
        runner = Runner(
            store,
            workload,
            demo_plugins,
            {name: make_policy(name, demo_plugins, provider) for name in config.policies},
            config,
            simulated=True,
            progress=False,
            tracing=tracing,
        )
        run_id = runner.prepare(resume=False)
        asyncio.run(runner.run(run_id))
        trials = store.trials(run_id)
    spans = exporter.get_finished_spans()
    dispatches = by_name(spans, "execute_tool")
    assert len(dispatches) == len(trials)
    requests: dict[int, int] = {}
    for chat in by_name(spans, "chat"):
        assert chat.parent is not None
        sent = dict(chat.attributes or {})["agent_lab.requests"]
        assert isinstance(sent, int)
        requests[chat.parent.span_id] = requests.get(chat.parent.span_id, 0) + sent
    stored = {(t.policy, t.case_id): t for t in trials}
    for span in dispatches:
        attributes = dict(span.attributes or {})
        t = stored[(str(attributes["agent_lab.policy"]), str(attributes["agent_lab.case_id"]))]
        assert requests.get(span_id(span), 0) == t.llm_calls
        assert attributes["agent_lab.llm_calls"] == t.llm_calls
        assert t.ledger is not None
        assert attributes.get("agent_lab.llm_reason") == t.ledger["llm_reason"]
    assert sum(requests.values()) > 0


def test_the_cli_writes_otlp_json_lines(tmp_path: Path) -> None:
    spans_file, db = tmp_path / "spans.jsonl", tmp_path / "r.sqlite"
    argv = [
        "run", "demo", "--plugins", "agent_lab.demo:plugins", "--limit", "20", "--db", str(db),
        "--provider", "simulated", "--simulated-latency", "1,2", "--no-progress",
        "--otel-file", str(spans_file), "--warmup", "0",
    ]  # fmt: skip
    err = io.StringIO()
    assert run(argv, stdout=io.StringIO(), stderr=err) == 0, err.getvalue()
    assert f"spans: {spans_file}" in err.getvalue()
    spans = [
        span
        for line in spans_file.read_text().splitlines()
        for resource in json.loads(line)["resourceSpans"]
        for scope in resource["scopeSpans"]
        for span in scope["spans"]
    ]
    with Store(db) as store:
        [record] = store.runs()
        trials = store.trials(record.run_id)
    assert sum(s["name"].startswith("execute_tool") for s in spans) == len(trials)
    assert sum(s["name"].startswith("chat") for s in spans) > 0
    for span in spans:
        # OTLP/JSON: ids in hex, not protobuf's base64.
        assert len(span["traceId"]) == 32
        assert int(span["traceId"], 16) > 0
        assert len(span["spanId"]) == 16
    chat = next(s for s in spans if s["name"].startswith("chat"))
    keys = {a["key"] for a in chat["attributes"]}
    assert {"gen_ai.operation.name", "gen_ai.request.model", "gen_ai.usage.input_tokens"} <= keys


def test_an_unwritable_spans_file_is_a_usage_error(tmp_path: Path) -> None:
    argv = [
        "run", "demo", "--plugins", "agent_lab.demo:plugins", "--limit", "5",
        "--db", str(tmp_path / "r.sqlite"), "--provider", "simulated", "--no-progress",
        "--otel-file", str(tmp_path / "missing" / "spans.jsonl"),
    ]  # fmt: skip
    err = io.StringIO()
    assert run(argv, stdout=io.StringIO(), stderr=err) == 2
    assert "--otel-file" in err.getvalue()
