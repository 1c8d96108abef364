"""The OpenAI Agents SDK, deterministic-first: a ``Model`` that answers what plain code completes.

``DeterministicFirstModel`` wraps the ``Model`` an agent already has. Each
turn it turns the SDK's input items and tools into Chat Completions messages
and tool specs (with the SDK's own converter, as its Chat Completions model
does) and asks the integrations' seam:

* the user's turn, when plain code completes the call (``answer_locally``):
  function-call items and zero usage, and the wrapped model is not asked;
* the user's turn, when a parameter only the user can supply is missing
  and the output is plain text: an assistant message asking for it, zero
  usage, and the run ends (a model would have to ask the same, or guess);
* the turn after the results of those calls, when each tool's event declares
  a ``reply`` that can say its result (``reply_locally``) and the output is
  plain text: an assistant message of those words, zero usage, and the run
  ends with no model either;
* otherwise the wrapped model gets the turn unchanged, so the SDK's retries,
  output types, streaming and tracing are its own.

Install with ``pip install 'agent-lab[openai-agents]'``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from agents.exceptions import UserError
from agents.items import ModelResponse
from agents.models.chatcmpl_converter import Converter
from agents.models.interface import Model
from agents.tool import FunctionTool
from agents.tracing import custom_span
from agents.usage import Usage
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
from typing_extensions import override

from agent_lab.integrations._shadow import ModelAnswer, ShadowLog, answered_call
from agent_lab.integrations.seam import answer_locally, reply_locally
from agent_lab.lab.shadow.figures import ShadowFigures

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Sequence

    from agents.agent_output import AgentOutputSchemaBase
    from agents.handoffs import Handoff
    from agents.items import TResponseInputItem, TResponseOutputItem, TResponseStreamEvent
    from agents.model_settings import ModelSettings
    from agents.models.interface import ModelTracing
    from agents.tool import Tool
    from openai.types.responses.response_prompt_param import ResponsePromptParam

    from agent_lab.agents.plugins import PluginSet
    from agent_lab.agents.turn import Reading
    from agent_lab.integrations.seam import LocalAnswer
    from agent_lab.otel import Tracing
    from agent_lab.providers.pricing import PriceTable
    from agent_lab.strict_json import JSONObject

__all__ = ["LOCAL_MODEL", "DeterministicFirstModel"]

LOCAL_MODEL = "agent-lab"
"""The model a local answer names in a streamed ``Response``: plain code, not a model."""
_SPAN = "agent_lab.decision"
_ITEM_ID = "__fake_id__"
"""The id of a local answer's items, as the SDK's own Chat Completions model fills it in
(``agents.models.fake_id.FAKE_RESPONSES_ID``): no Responses API made them."""


class _ChatRequest:
    """The turn as Chat Completions would send it: messages, tool specs, one call or several."""

    __slots__ = ("at_most_one", "messages", "says", "tools")

    def __init__(
        self,
        messages: list[JSONObject],
        tools: list[JSONObject],
        *,
        at_most_one: bool,
        says: bool,
    ) -> None:
        self.messages = messages
        self.tools = tools
        self.at_most_one = at_most_one
        self.says = says
        """Words may end the turn: ``tool_choice`` does not demand a call, the output is text."""


class DeterministicFirstModel(Model):
    """An Agents SDK ``Model`` that answers what plain code completes: a call, a declared reply.

    Args:
        wrapped: The model asked whenever plain code cannot complete a call.
        plugins: Your own resolvers, routes and replies for the tools they name
            (the others get the schema-driven resolver).
        read: What of the conversation the resolvers read: the last user
            message, or every user message so far (``"user_turns"``).
        shadow: Never answer locally: always ask the wrapped model, and count
            what plain code would have done in ``figures``.
        tracing: agent-lab's OpenTelemetry spans (extra ``otel``): a local
            answer is also an ``execute_tool`` span carrying its ledger.
        prices: Prices the saved tokens in shadow mode; ``None``: genai-prices'.
    """

    def __init__(
        self,
        wrapped: Model,
        plugins: PluginSet | None = None,
        *,
        read: Reading = "last",
        shadow: bool = False,
        tracing: Tracing | None = None,
        prices: PriceTable | None = None,
    ) -> None:
        self.wrapped = wrapped
        self.plugins = plugins
        self.read: Reading = read
        self.shadow = shadow
        self.tracing = tracing
        self._log = (
            ShadowLog("openai-agents", plugins=plugins, read=read, prices=prices)
            if shadow
            else None
        )

    @property
    def figures(self) -> ShadowFigures:
        """In shadow mode, what plain code would have done, as ``agent-lab shadow`` counts it.

        Empty when ``shadow`` is off: every local answer then sent no request at all.
        """
        return self._log.figures if self._log is not None else ShadowFigures()

    @override
    async def get_response(
        self,
        system_instructions: str | None,
        input: str | list[TResponseInputItem],
        model_settings: ModelSettings,
        tools: list[Tool],
        output_schema: AgentOutputSchemaBase | None,
        handoffs: list[Handoff],
        tracing: ModelTracing,
        *,
        previous_response_id: str | None,
        conversation_id: str | None,
        prompt: ResponsePromptParam | None,
    ) -> ModelResponse:
        """The local answer when plain code completes the turn, else the wrapped model's."""
        request = _chat_request(
            system_instructions, input, model_settings, tools, handoffs, output_schema=output_schema
        )
        served = previous_response_id is not None or conversation_id is not None
        answer = self._local(request, tracing) if not served else None
        if answer is not None:
            return ModelResponse(output=_items(answer), usage=Usage(), response_id=None)
        response = await self.wrapped.get_response(
            system_instructions,
            input,
            model_settings,
            tools,
            output_schema,
            handoffs,
            tracing,
            previous_response_id=previous_response_id,
            conversation_id=conversation_id,
            prompt=prompt,
        )
        self._record(request, response.output, response.usage)
        return response

    @override
    async def stream_response(
        self,
        system_instructions: str | None,
        input: str | list[TResponseInputItem],
        model_settings: ModelSettings,
        tools: list[Tool],
        output_schema: AgentOutputSchemaBase | None,
        handoffs: list[Handoff],
        tracing: ModelTracing,
        *,
        previous_response_id: str | None,
        conversation_id: str | None,
        prompt: ResponsePromptParam | None,
    ) -> AsyncIterator[TResponseStreamEvent]:
        """The local answer as the events of one streamed response, else the wrapped stream."""
        request = _chat_request(
            system_instructions, input, model_settings, tools, handoffs, output_schema=output_schema
        )
        served = previous_response_id is not None or conversation_id is not None
        answer = self._local(request, tracing) if not served else None
        if answer is not None:
            for event in _local_events(answer, model_settings):
                yield event
            return
        stream = self.wrapped.stream_response(
            system_instructions,
            input,
            model_settings,
            tools,
            output_schema,
            handoffs,
            tracing,
            previous_response_id=previous_response_id,
            conversation_id=conversation_id,
            prompt=prompt,
        )
        done: list[TResponseOutputItem] = []
        completed: Response | None = None
        try:
            async for event in stream:
                if isinstance(event, ResponseOutputItemDoneEvent):
                    done.append(event.item)
                elif isinstance(event, ResponseCompletedEvent):
                    completed = event.response
                yield event
        finally:
            # Closed early (the run raised), the wrapped stream is closed too, not left suspended.
            close = getattr(stream, "aclose", None)
            if close is not None:
                await close()
        if completed is not None:
            usage = completed.usage
            self._record(
                request,
                completed.output or done,
                None
                if usage is None
                else Usage(
                    requests=1, input_tokens=usage.input_tokens, output_tokens=usage.output_tokens
                ),
            )

    def _local(self, request: _ChatRequest | None, tracing: ModelTracing) -> LocalAnswer | None:
        if request is None or self.shadow:
            return None
        if request.messages and request.messages[-1].get("role") == "tool":
            # Tool results end the input: the turn after calls, said by their replies or not.
            if not request.says:
                return None
            answer = reply_locally(request.messages, request.tools, plugins=self.plugins)
        else:
            answer = answer_locally(
                request.messages,
                request.tools,
                plugins=self.plugins,
                read=self.read,
                at_most_one=request.at_most_one,
                ask=request.says,
            )
        if answer is None:
            return None
        ledger = answer.decision.ledger.as_json()
        data: dict[str, object] = {
            "reason": str(answer.decision.reason),
            "ledger": ledger,
            "calls": [call.name for call in answer.calls],
        }
        # The SDK's own trace holds the decision where the model's generation span would be.
        with custom_span(_SPAN, data=data, disabled=tracing.is_disabled()):
            self._otel(answer)
        return answer

    def _otel(self, answer: LocalAnswer) -> None:
        tracing = self.tracing
        if tracing is None or not tracing.live:
            return
        with tracing.dispatch_span(answer.decision.event) as span:
            tracing.record(span, answer.decision)

    def _record(
        self, request: _ChatRequest | None, output: Sequence[object], usage: Usage | None
    ) -> None:
        if self._log is None or request is None:
            return
        calls = tuple(
            answered_call(item.call_id, item.name, item.arguments)
            for item in output
            if isinstance(item, ResponseFunctionToolCall)
        )
        texts = [
            part.text
            for item in output
            if isinstance(item, ResponseOutputMessage)
            for part in item.content
            if isinstance(part, ResponseOutputText)
        ]
        known = usage is not None and (usage.requests > 0 or usage.total_tokens > 0)
        model = getattr(self.wrapped, "model", None)
        self._log.record(
            request.messages,
            request.tools,
            ModelAnswer(
                calls=calls,
                text="".join(texts) if texts else None,
                prompt_tokens=usage.input_tokens if known and usage is not None else None,
                completion_tokens=usage.output_tokens if known and usage is not None else None,
                model=model if isinstance(model, str) else None,
            ),
        )


def _chat_request(
    system_instructions: str | None,
    items: str | list[TResponseInputItem],
    settings: ModelSettings,
    tools: list[Tool],
    handoffs: list[Handoff],
    *,
    output_schema: AgentOutputSchemaBase | None,
) -> _ChatRequest | None:
    """The turn in Chat Completions form, or ``None`` when it is the model's whatever it says.

    ``None``: a tool Chat Completions cannot carry (hosted tools), input the
    converter refuses, or ``tool_choice`` set to ``none`` or to one tool by name.
    A function call's output is a ``tool`` message answering its ``call_id``.
    """
    if settings.tool_choice not in (None, "auto", "required"):
        return None
    if any(not isinstance(tool, FunctionTool) for tool in tools):
        return None
    try:
        specs = [Converter.tool_to_openai(tool) for tool in tools]
        messages = Converter.items_to_messages(items)
    except UserError:
        return None
    specs.extend(Converter.convert_handoff_tool(handoff) for handoff in handoffs)
    chat: list[JSONObject] = [cast("JSONObject", dict(message)) for message in messages]
    if system_instructions:
        chat.insert(0, {"role": "system", "content": system_instructions})
    return _ChatRequest(
        chat,
        [cast("JSONObject", dict(spec)) for spec in specs],
        at_most_one=settings.parallel_tool_calls is False,
        # A structured output type is the model's to give: a reply in words would not be it.
        says=settings.tool_choice in (None, "auto")
        and (output_schema is None or output_schema.is_plain_text()),
    )


def _said(text: str) -> ResponseOutputMessage:
    """The assistant message a model's answer in words is."""
    return ResponseOutputMessage(
        id=_ITEM_ID,
        type="message",
        role="assistant",
        status="completed",
        content=[ResponseOutputText(type="output_text", text=text, annotations=[])],
    )


def _items(answer: LocalAnswer) -> list[TResponseOutputItem]:
    if answer.text is not None:
        return [_said(answer.text)]
    return [
        ResponseFunctionToolCall(
            type="function_call",
            call_id=call.id,
            name=call.name,
            arguments=call.arguments_json,
            status="completed",
        )
        for call in answer.calls
    ]


def _local_events(answer: LocalAnswer, settings: ModelSettings) -> list[TResponseStreamEvent]:
    """The events a streamed response of these items is made of, usage left out."""
    items = _items(answer)
    response = Response(
        id=_ITEM_ID,
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
