"""The spans: one per dispatch with the ledger's decisions, one per provider call inside it."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from contextlib import contextmanager
from importlib.metadata import version
from typing import TYPE_CHECKING, Any, cast

from opentelemetry import trace
from opentelemetry.trace import NoOpTracerProvider, ProxyTracerProvider, SpanKind, StatusCode

from agent_lab._text import escape_surrogates

if TYPE_CHECKING:
    from collections.abc import Generator

    from opentelemetry.trace import Span, TracerProvider
    from opentelemetry.util.types import AttributeValue

    from agent_lab.agents.decision import Decision
    from agent_lab.agents.event_agent import EventAgent
    from agent_lab.agents.port import Provider, ProviderReply, ProviderRequest
    from agent_lab.agents.tool_agent import ToolAgent
    from agent_lab.kernel.event_kernel import EventKernel
    from agent_lab.kernel.ledger import DecisionLedger
    from agent_lab.kernel.models import Event, EventResult
    from agent_lab.usage import Usage

__all__ = ["CAPTURE_CONTENT_ENV", "TracedProvider", "Tracing"]

CAPTURE_CONTENT_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
"""The GenAI instrumentations' switch for recording prompt and reply text (off by default)."""

_ERRORS = frozenset({"fallback_failed", "definition_error", "handler_error"})
"""Statuses that are failures of the system, not answers: the span's status is then ERROR.
``invalid_arguments`` and ``missing_information`` are answers to the user, not errors."""


_UNSET_PROVIDERS = (ProxyTracerProvider, NoOpTracerProvider)
"""What ``trace.get_tracer_provider()`` returns when nobody configured tracing."""


def _wants_content() -> bool:
    return os.environ.get(CAPTURE_CONTENT_ENV, "").strip().lower() in ("true", "1", "yes")


class Tracing:
    """Where agent-lab's spans go, and whether they may hold text.

    Args:
        tracer_provider: The SDK's ``TracerProvider``; ``None`` takes the global
            one (``opentelemetry.trace.set_tracer_provider``). With none
            configured, spans do not record and cost next to nothing.
        capture_content: Record prompts and replies (``gen_ai.input.messages``,
            ``gen_ai.output.messages``); ``None`` reads ``CAPTURE_CONTENT_ENV``.

    Example:
        ``tracing = Tracing(); kernel = EventKernel(registry, LLMFallback(tracing.provider(p)))``,
        then ``tracing.dispatch(kernel, event)``.
    """

    def __init__(
        self, tracer_provider: TracerProvider | None = None, *, capture_content: bool | None = None
    ) -> None:
        self.tracer = trace.get_tracer(
            "agent_lab", version("agent-lab"), tracer_provider=tracer_provider
        )
        self._given = tracer_provider is not None
        self.capture_content = _wants_content() if capture_content is None else capture_content

    def provider(self, inner: Provider) -> TracedProvider:
        """``inner``, with a client span around each of its calls."""
        return TracedProvider(inner, self)

    @contextmanager
    def dispatch_span(
        self, event: str | None = None, attributes: Mapping[str, AttributeValue] | None = None
    ) -> Generator[Span]:
        """A current ``execute_tool`` span: the provider spans started inside are its children."""
        name = f"execute_tool {event}" if event else "execute_tool"
        start: dict[str, AttributeValue] = {"gen_ai.operation.name": "execute_tool"}
        if event:
            start["gen_ai.tool.name"] = event
        with self.tracer.start_as_current_span(
            name, kind=SpanKind.INTERNAL, attributes={**start, **(attributes or {})}
        ) as span:
            yield span

    def record(self, span: Span, outcome: EventResult | Decision) -> None:
        """Put the outcome's ledger on ``span``; a span that does not record costs no ledger."""
        if not span.is_recording():
            return
        ledger, llm_calls, usage = outcome.ledger, outcome.llm_calls, outcome.usage
        span.set_attributes(ledger_attributes(ledger, llm_calls=llm_calls, usage=usage))
        if ledger.event:
            span.update_name(f"execute_tool {ledger.event}")
            span.set_attribute("gen_ai.tool.name", ledger.event)
        if ledger.status in _ERRORS:
            span.set_attribute("error.type", ledger.reason)
            span.set_status(StatusCode.ERROR, ledger.reason)

    def fail(self, span: Span, reason: str) -> None:
        """Mark ``span`` as a dispatch that gave no result at all (the policy raised, timed out)."""
        if span.is_recording():
            span.set_attributes({"agent_lab.status": "error", "agent_lab.reason": reason})
            span.set_attribute("error.type", reason)
            span.set_status(StatusCode.ERROR, reason)

    @property
    def live(self) -> bool:
        """Whether spans can record: a tracer provider was given, or one is set globally.

        Asked on every call, so that a provider set after this object was made counts.
        """
        return self._given or not isinstance(trace.get_tracer_provider(), _UNSET_PROVIDERS)

    def dispatch(self, kernel: EventKernel, event: Event) -> EventResult:
        """``kernel.dispatch(event)`` inside a dispatch span (none without a tracer provider)."""
        if not self.live:
            return kernel.dispatch(event)
        with self.dispatch_span(event.name) as span:
            result = kernel.dispatch(event)
            self.record(span, result)
        return result

    async def adispatch(self, kernel: EventKernel, event: Event) -> EventResult:
        """``await kernel.adispatch(event)`` inside a dispatch span."""
        if not self.live:
            return await kernel.adispatch(event)
        with self.dispatch_span(event.name) as span:
            result = await kernel.adispatch(event)
            self.record(span, result)
        return result

    async def respond(self, agent: EventAgent | ToolAgent, text: str, **options: Any) -> Decision:
        """``await agent.respond(text, **options)`` inside a dispatch span (routing included)."""
        if not self.live:
            return await agent.respond(text, **options)
        event = options.get("event")
        with self.dispatch_span(event if isinstance(event, str) else None) as span:
            reply = await agent.respond(text, **options)
            self.record(span, reply)
        return reply


def ledger_attributes(
    ledger: DecisionLedger, *, llm_calls: int, usage: Usage
) -> dict[str, AttributeValue]:
    """The ledger's decisions as span attributes (``agent_lab.*``); unknowns are left out.

    Token counts go under ``agent_lab.usage.*`` here, not ``gen_ai.usage.*``: the
    child spans carry those, and a backend that sums them would count them twice.
    """
    found: dict[str, AttributeValue | None] = {
        "agent_lab.status": ledger.status,
        "agent_lab.reason": ledger.reason,
        "agent_lab.route": str(ledger.route.by),
        "agent_lab.route.tied": list(ledger.route.tied) or None,
        "agent_lab.llm_reason": None if ledger.llm_reason is None else str(ledger.llm_reason),
        "agent_lab.fallback.called": ledger.fallback.called,
        "agent_lab.fallback.reason": None
        if ledger.fallback.reason is None
        else str(ledger.fallback.reason),
        "agent_lab.fallback.skipped": ledger.fallback.skipped,
        "agent_lab.missing": list(ledger.missing) or None,
        "agent_lab.invalid": list(ledger.invalid) or None,
        "agent_lab.llm_calls": llm_calls,
        "agent_lab.llm_calls.failed": usage.failed,
        "agent_lab.usage.input_tokens": usage.prompt_tokens,
        "agent_lab.usage.output_tokens": usage.completion_tokens,
        "agent_lab.cost": None if usage.cost is None else float(usage.cost),
    }
    return _known(found)


_INT64 = range(-(2**63), 2**63)


def _flat_tool(tool: Mapping[str, Any]) -> dict[str, Any]:
    """An OpenAI tool spec in the GenAI conventions' form: its function's fields beside ``type``."""
    function = tool.get("function")
    if not isinstance(function, Mapping):
        return dict(tool)
    return {"type": tool.get("type", "function"), **cast("Mapping[str, Any]", function)}


def _sendable(value: AttributeValue | None) -> AttributeValue | None:
    # What a server or a model sent may be no OTLP value: a count beyond int64 is
    # unknown (the encoder would log a traceback and drop it), and a lone surrogate
    # in text (a model name) is escaped, as the results store escapes it.
    if isinstance(value, str):
        return escape_surrogates(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return value if value in _INT64 else None
    if isinstance(value, list | tuple) and value and isinstance(value[0], str):
        return [escape_surrogates(str(item)) for item in value]
    return value


def _known(found: Mapping[str, AttributeValue | None]) -> dict[str, AttributeValue]:
    # A span attribute cannot be None: an unknown figure is left out, never sent as 0.
    sent = {key: _sendable(value) for key, value in found.items()}
    return {key: value for key, value in sent.items() if value is not None}


class TracedProvider:
    """A provider whose every call is a GenAI ``chat`` client span; all else is the inner one's."""

    def __init__(self, inner: Provider, tracing: Tracing) -> None:
        self.inner = inner
        self._tracing = tracing

    @property
    def name(self) -> str:
        """The inner provider's name."""
        return self.inner.name

    @property
    def model(self) -> str | None:
        """The inner provider's default model."""
        return self.inner.model

    def __getattr__(self, attribute: str) -> Any:
        """Anything else is the inner provider's."""
        # What a provider offers beyond the protocol (the format auto found, a cassette's
        # path) is the inner one's: tracing must not hide it.
        return getattr(self.inner, attribute)

    async def complete(self, request: ProviderRequest) -> ProviderReply:
        """The inner call, inside a client span that says what was asked and what came back."""
        if not self._tracing.live:
            return await self.inner.complete(request)
        model = request.model or self.inner.model or "unknown"
        with self._tracing.tracer.start_as_current_span(
            f"chat {model}", kind=SpanKind.CLIENT
        ) as span:
            recording = span.is_recording()
            if recording:
                span.set_attributes(_known(self._request_attributes(request, model)))
            reply = await self.inner.complete(request)
            if recording:
                self._record_reply(span, reply)
        return reply

    async def aclose(self) -> None:
        """Close the inner provider."""
        await self.inner.aclose()

    def _request_attributes(self, request: ProviderRequest, model: str) -> dict[str, Any]:
        name = self.inner.name
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "chat",
            # The conventions' value for an OpenAI-compatible API; the others are ours.
            "gen_ai.provider.name": "openai" if name == "openai" else f"agent_lab.{name}",
            "gen_ai.request.model": model,
            "gen_ai.request.max_tokens": request.max_tokens,
            "gen_ai.request.temperature": request.temperature,
            "gen_ai.output.type": "json" if request.response_schema is not None else "text",
            "agent_lab.purpose": request.purpose,
        }
        if request.seed is not None:
            attributes["gen_ai.request.seed"] = request.seed
        if self._tracing.capture_content:
            attributes["gen_ai.input.messages"] = json.dumps(
                [
                    {"role": m.role, "parts": [{"type": "text", "content": m.content}]}
                    for m in request.messages
                ]
            )
            if request.tools:
                # The tools offered, in the conventions' flat form: without them a log
                # reader cannot tell which tools the model chose among (replay's ``no_tools``).
                attributes["gen_ai.tool.definitions"] = json.dumps(
                    [_flat_tool(tool) for tool in request.tools]
                )
        return attributes

    def _record_reply(self, span: Span, reply: ProviderReply) -> None:
        usage = reply.usage
        found: dict[str, AttributeValue | None] = {
            "gen_ai.response.model": usage.model,
            "gen_ai.usage.input_tokens": usage.prompt_tokens,
            "gen_ai.usage.output_tokens": usage.completion_tokens,
            "gen_ai.usage.cache_read.input_tokens": usage.cached_tokens,
            "gen_ai.response.finish_reasons": None
            if reply.finish_reason is None
            else [reply.finish_reason],
            "agent_lab.requests": usage.requests,
            "agent_lab.requests.succeeded": usage.succeeded,
            "agent_lab.cost": None if usage.cost is None else float(usage.cost),
        }
        span.set_attributes(_known(found))
        if reply.failure is not None:
            span.set_attribute("error.type", reply.failure.reason)
            span.set_status(StatusCode.ERROR, reply.failure.reason)
        if self._tracing.capture_content:
            parts: list[dict[str, Any]] = []
            if reply.text is not None:
                parts.append({"type": "text", "content": reply.text})
            parts.extend(
                {"type": "tool_call", "name": call.name, "arguments": call.arguments_raw}
                for call in reply.tool_calls
            )
            message = {"role": "assistant", "parts": parts, "finish_reason": reply.finish_reason}
            span.set_attribute("gen_ai.output.messages", json.dumps([message]))
