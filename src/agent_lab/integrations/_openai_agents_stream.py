"""A local answer streamed as the Agents SDK's Responses events, as a model's stream would carry it.

One response: created, then each output item (a function call with its
arguments in one delta, or an assistant message with its text in one
delta), then completed; no usage, since no model was asked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from openai.types.responses import (
    Response,
    ResponseCompletedEvent,
    ResponseContentPartAddedEvent,
    ResponseContentPartDoneEvent,
    ResponseCreatedEvent,
    ResponseFunctionCallArgumentsDeltaEvent,
    ResponseFunctionToolCall,
    ResponseOutputItemAddedEvent,
    ResponseOutputItemDoneEvent,
    ResponseOutputMessage,
    ResponseOutputText,
    ResponseTextDeltaEvent,
    ResponseTextDoneEvent,
)

from agent_lab.integrations._openai_agents_items import ITEM_ID, local_items

if TYPE_CHECKING:
    from agents.items import TResponseStreamEvent
    from agents.model_settings import ModelSettings

    from agent_lab.answering import LocalAnswer

__all__ = ["LOCAL_MODEL", "local_events"]

LOCAL_MODEL = "agent-lab"
"""The model a local answer names in a streamed ``Response``: plain code, not a model."""


def local_events(answer: LocalAnswer, settings: ModelSettings) -> list[TResponseStreamEvent]:
    """The events a streamed response of these items is made of, usage left out."""
    items = local_items(answer)
    response = Response(
        id=ITEM_ID,
        created_at=0,
        model=LOCAL_MODEL,
        object="response",
        output=[],
        tool_choice="auto",
        tools=[],
        parallel_tool_calls=settings.parallel_tool_calls is not False,
    )
    events: list[TResponseStreamEvent] = [
        ResponseCreatedEvent(response=response, type="response.created", sequence_number=0)
    ]
    for index, item in enumerate(items):
        if isinstance(item, ResponseOutputMessage):
            events += _message_events(item, index, len(events))
        else:
            assert isinstance(item, ResponseFunctionToolCall)
            events += _call_events(item, index, len(events))
    finished = response.model_copy(update={"output": items, "status": "completed"})
    events.append(
        ResponseCompletedEvent(
            response=finished, type="response.completed", sequence_number=len(events)
        )
    )
    return events


def _call_events(
    item: ResponseFunctionToolCall, index: int, first: int
) -> list[TResponseStreamEvent]:
    """A function call streamed: added, its arguments in one delta, done."""
    return [
        ResponseOutputItemAddedEvent(
            item=item, output_index=index, type="response.output_item.added", sequence_number=first
        ),
        ResponseFunctionCallArgumentsDeltaEvent(
            delta=item.arguments,
            item_id=item.call_id,
            output_index=index,
            type="response.function_call_arguments.delta",
            sequence_number=first + 1,
        ),
        ResponseOutputItemDoneEvent(
            item=item,
            output_index=index,
            type="response.output_item.done",
            sequence_number=first + 2,
        ),
    ]


def _message_events(
    item: ResponseOutputMessage, index: int, first: int
) -> list[TResponseStreamEvent]:
    """An assistant message streamed as a model streams its words: its text in one delta."""
    [part] = item.content
    assert isinstance(part, ResponseOutputText)
    opened = item.model_copy(update={"content": [], "status": "in_progress"})
    empty = part.model_copy(update={"text": ""})
    return [
        ResponseOutputItemAddedEvent(
            item=opened,
            output_index=index,
            type="response.output_item.added",
            sequence_number=first,
        ),
        ResponseContentPartAddedEvent(
            content_index=0,
            item_id=item.id,
            output_index=index,
            part=empty,
            type="response.content_part.added",
            sequence_number=first + 1,
        ),
        ResponseTextDeltaEvent(
            content_index=0,
            delta=part.text,
            item_id=item.id,
            logprobs=[],
            output_index=index,
            type="response.output_text.delta",
            sequence_number=first + 2,
        ),
        ResponseTextDoneEvent(
            content_index=0,
            item_id=item.id,
            logprobs=[],
            output_index=index,
            text=part.text,
            type="response.output_text.done",
            sequence_number=first + 3,
        ),
        ResponseContentPartDoneEvent(
            content_index=0,
            item_id=item.id,
            output_index=index,
            part=part,
            type="response.content_part.done",
            sequence_number=first + 4,
        ),
        ResponseOutputItemDoneEvent(
            item=item,
            output_index=index,
            type="response.output_item.done",
            sequence_number=first + 5,
        ),
    ]
