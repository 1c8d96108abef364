"""The OpenAI Agents SDK, deterministic-first: a ``Model`` that answers what plain code completes.

``DeterministicFirstModel`` wraps the ``Model`` an agent already has. Its
settings, the envelope that decides (``agent_lab.answering``), the shadow's
figures and the OpenTelemetry ``execute_tool`` span are the base's
(``integrations.wrapper.DeterministicFirstWrapper``); this module turns each turn's
input items, tools and settings into the envelope's ``Asked`` (with the SDK's
own converter, as its Chat Completions model does), and a local answer into
output items, with a custom span of the SDK's trace holding the decision:

* the user's turn, when plain code completes the call: function-call items
  and zero usage, and the wrapped model is not asked; under a
  ``tool_choice`` naming one tool, only a call to that tool (another is the
  model's to make);
* the user's turn, when a parameter only the user can supply is missing
  and the output is plain text: an assistant message asking for it, zero
  usage, and the run ends (a model would have to ask the same, or guess);
* the turn after the results of those calls, when each tool's event declares
  a ``reply`` that can say its result and the output is plain text: an
  assistant message of those words, zero usage, and the run ends with no
  model either;
* otherwise (``tool_choice`` ``none``, hosted tools, a conversation the server
  holds) the wrapped model gets the turn unchanged, so the SDK's retries,
  output types, streaming and tracing are its own.

Install with ``pip install 'agent-lab[openai-agents]'``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agents.items import ModelResponse
from agents.models.interface import Model
from agents.tracing import custom_span
from agents.usage import Usage
from openai.types.responses import (
    Response,
    ResponseCompletedEvent,
    ResponseOutputItemDoneEvent,
)
from typing_extensions import override

from agent_lab.integrations._openai_agents_items import chat_request, local_items, model_answer
from agent_lab.integrations._openai_agents_stream import LOCAL_MODEL, local_events
from agent_lab.integrations.wrapper import DeterministicFirstWrapper

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Mapping, Sequence
    from pathlib import Path

    from agents.agent_output import AgentOutputSchemaBase
    from agents.handoffs import Handoff
    from agents.items import TResponseInputItem, TResponseOutputItem, TResponseStreamEvent
    from agents.model_settings import ModelSettings
    from agents.models.interface import ModelTracing
    from agents.tool import Tool
    from openai.types.responses.response_prompt_param import ResponsePromptParam

    from agent_lab.agents.plugins import PluginSet
    from agent_lab.agents.turn import Reading
    from agent_lab.answering import Asked, LocalAnswer
    from agent_lab.clock import Clock
    from agent_lab.otel import Tracing
    from agent_lab.providers.pricing import PriceTable
    from agent_lab.resolvers.learned import RuleBook

__all__ = ["LOCAL_MODEL", "DeterministicFirstModel"]

_SPAN = "agent_lab.decision"


class DeterministicFirstModel(DeterministicFirstWrapper, Model):
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
            answer is also an ``execute_tool`` span carrying its ledger;
            ``None``: the global tracer provider, when one is set.
        prices: Prices the saved tokens in shadow mode; ``None``: genai-prices'.
        rules: Learned rules (``agent-lab learn``'s), or the path of their file, read
            once here: written into the tools' schemas before each decision (and
            each shadow replay), so the schema-driven resolver applies them.
        context: Facts for the resolvers, such as ``{"now": "2026-12-01T09:00"}``.
        ask: Answer in words what plain code knows with no model (a question for a
            missing value only the user can supply, a refusal of a value the schema
            forbids); ``False``: those turns go to the model.
        clock: Times the wrapped model's turns in shadow mode (the saved latency).
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
        rules: RuleBook | str | Path | None = None,
        context: Mapping[str, object] | None = None,
        ask: bool = True,
        clock: Clock | None = None,
    ) -> None:
        self.wrapped = wrapped
        self._hold(
            "openai-agents",
            plugins,
            read=read,
            shadow=shadow,
            context=context,
            rules=rules,
            ask=ask,
            prices=prices,
            tracing=tracing,
            clock=clock,
        )

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
        request = chat_request(
            system_instructions, input, model_settings, tools, handoffs, output_schema=output_schema
        )
        served = previous_response_id is not None or conversation_id is not None
        answer = self._local(None if served else request, tracing)
        if answer is not None:
            return ModelResponse(output=local_items(answer), usage=Usage(), response_id=None)
        started = self._started()
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
        self._record(request, response.output, response.usage, started)
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
        request = chat_request(
            system_instructions, input, model_settings, tools, handoffs, output_schema=output_schema
        )
        served = previous_response_id is not None or conversation_id is not None
        answer = self._local(None if served else request, tracing)
        if answer is not None:
            for event in local_events(answer, model_settings):
                yield event
            return
        started = self._started()
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
                started,
            )

    def _local(self, asked: Asked | None, tracing: ModelTracing) -> LocalAnswer | None:
        answer = self._answered(asked)
        if answer is None:
            return None
        data: dict[str, object] = {
            "reason": str(answer.decision.reason),
            "ledger": answer.decision.ledger.as_json(),
            "calls": [call.name for call in answer.calls],
        }
        # The SDK's own trace holds the decision where the model's generation span would be:
        # a span of no length, its data the decision (the OpenTelemetry span is the base's).
        with custom_span(_SPAN, data=data, disabled=tracing.is_disabled()):
            pass
        return answer

    def _record(
        self,
        asked: Asked | None,
        output: Sequence[object],
        usage: Usage | None,
        started: int,
    ) -> None:
        if not self.shadow or asked is None:
            return
        model = getattr(self.wrapped, "model", None)
        self._shadowed(
            asked.messages,
            asked.tools,
            model_answer(output, usage, model),
            started,
            tool_choice=asked.tool_choice,
        )
