"""An Agents SDK ``Model`` that answers from a script, and a trace processor that keeps spans.

The SDK ships no test model in its package; this one implements both halves
of its ``Model`` interface (``get_response`` and ``stream_response``) the way
its Chat Completions model does, and fails loudly when asked once too often.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from agents.items import TResponseOutputItem, TResponseStreamEvent
from agents.models.interface import Model
from agents.tracing import Span, Trace
from openai.types.responses import (
    Response,
    ResponseCompletedEvent,
    ResponseCreatedEvent,
    ResponseFunctionToolCall,
    ResponseOutputItemAddedEvent,
    ResponseOutputItemDoneEvent,
    ResponseOutputMessage,
    ResponseOutputText,
    ResponseTextDeltaEvent,
    ResponseUsage,
)
from typing_extensions import override

from agents import ModelResponse, TracingProcessor, Usage


def said(text: str, *, input_tokens: int = 40, output_tokens: int = 8) -> ModelResponse:
    """A model's answer in words."""
    message = ResponseOutputMessage(
        id="msg_1",
        type="message",
        role="assistant",
        status="completed",
        content=[ResponseOutputText(type="output_text", text=text, annotations=[])],
    )
    return answered([message], input_tokens=input_tokens, output_tokens=output_tokens)


def called(
    name: str, arguments: str, *, call_id: str = "call_model_1", input_tokens: int = 50
) -> ModelResponse:
    """A model's answer that calls one tool."""
    item = ResponseFunctionToolCall(
        type="function_call", call_id=call_id, name=name, arguments=arguments
    )
    return answered([item], input_tokens=input_tokens, output_tokens=12)


def answered(
    output: list[TResponseOutputItem], *, input_tokens: int, output_tokens: int
) -> ModelResponse:
    usage = Usage(
        requests=1,
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        total_tokens=input_tokens + output_tokens,
    )
    return ModelResponse(output=output, usage=usage, response_id=None)


@dataclass
class Request:
    """What the scripted model was asked."""

    instructions: str | None
    input: Any
    tools: list[str]
    streamed: bool


@dataclass
class ScriptedModel(Model):
    """Answers with the next ``ModelResponse`` of its script; records every request."""

    script: list[ModelResponse]
    model: str = "gpt-4o-mini"
    requests: list[Request] = field(default_factory=list[Request])

    def _next(self, instructions: str | None, items: Any, tools: list[Any], streamed: bool) -> Any:
        names = [str(getattr(tool, "name", tool)) for tool in tools]
        self.requests.append(Request(instructions, items, names, streamed))
        if not self.script:
            raise AssertionError("the scripted model was asked once more than scripted")
        return self.script.pop(0)

    @override
    async def get_response(
        self,
        system_instructions: str | None,
        input: Any,
        model_settings: Any,
        tools: list[Any],
        output_schema: Any,
        handoffs: list[Any],
        tracing: Any,
        *,
        previous_response_id: str | None,
        conversation_id: str | None,
        prompt: Any,
    ) -> ModelResponse:
        return self._next(system_instructions, input, tools, streamed=False)

    @override
    async def stream_response(
        self,
        system_instructions: str | None,
        input: Any,
        model_settings: Any,
        tools: list[Any],
        output_schema: Any,
        handoffs: list[Any],
        tracing: Any,
        *,
        previous_response_id: str | None,
        conversation_id: str | None,
        prompt: Any,
    ) -> AsyncIterator[TResponseStreamEvent]:
        answer: ModelResponse = self._next(system_instructions, input, tools, streamed=True)
        for event in stream_of(answer):
            yield event


def stream_of(answer: ModelResponse) -> list[TResponseStreamEvent]:
    """The events a Responses stream of ``answer`` is made of."""
    response = Response(
        id="resp_1",
        created_at=0,
        model="gpt-4o-mini",
        object="response",
        output=[],
        tool_choice="auto",
        tools=[],
        parallel_tool_calls=True,
    )
    events: list[TResponseStreamEvent] = [
        ResponseCreatedEvent(response=response, type="response.created", sequence_number=0)
    ]
    for index, item in enumerate(answer.output):
        events.append(
            ResponseOutputItemAddedEvent(
                item=item,
                output_index=index,
                type="response.output_item.added",
                sequence_number=len(events),
            )
        )
        if isinstance(item, ResponseOutputMessage):
            for part in item.content:
                assert isinstance(part, ResponseOutputText)
                events.append(
                    ResponseTextDeltaEvent(
                        content_index=0,
                        delta=part.text,
                        item_id=item.id,
                        logprobs=[],
                        output_index=index,
                        type="response.output_text.delta",
                        sequence_number=len(events),
                    )
                )
        events.append(
            ResponseOutputItemDoneEvent(
                item=item,
                output_index=index,
                type="response.output_item.done",
                sequence_number=len(events),
            )
        )
    usage = answer.usage
    done = response.model_copy(
        update={
            "output": list(answer.output),
            "status": "completed",
            "usage": ResponseUsage(
                input_tokens=usage.input_tokens,
                output_tokens=usage.output_tokens,
                total_tokens=usage.total_tokens,
                input_tokens_details=usage.input_tokens_details,
                output_tokens_details=usage.output_tokens_details,
            ),
        }
    )
    events.append(
        ResponseCompletedEvent(
            response=done, type="response.completed", sequence_number=len(events)
        )
    )
    return events


@dataclass
class KeptSpans(TracingProcessor):
    """Keeps every finished span of the SDK's traces."""

    spans: list[Span[Any]] = field(default_factory=list[Span[Any]])

    def on_trace_start(self, trace: Trace) -> None:
        pass

    def on_trace_end(self, trace: Trace) -> None:
        pass

    def on_span_start(self, span: Span[Any]) -> None:
        pass

    def on_span_end(self, span: Span[Any]) -> None:
        self.spans.append(span)

    def shutdown(self) -> None:
        pass

    def force_flush(self) -> None:
        pass
