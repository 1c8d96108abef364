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
from agent_lab.integrations._shadow import ShadowLog
from agent_lab.integrations.seam import answer_locally, reply_locally, rule_book
from agent_lab.log_replay.figures import ShadowFigures

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Sequence
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
    from agent_lab.integrations._openai_agents_items import ChatRequest
    from agent_lab.integrations.seam import LocalAnswer
    from agent_lab.otel import Tracing
    from agent_lab.providers.pricing import PriceTable
    from agent_lab.resolvers.learned import RuleBook

__all__ = ["LOCAL_MODEL", "DeterministicFirstModel"]

_SPAN = "agent_lab.decision"


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
        rules: Learned rules (``agent-lab learn``'s), or the path of their file, read
            once here: written into the tools' schemas before each decision (and
            each shadow replay), so the schema-driven resolver applies them.
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
    ) -> None:
        self.wrapped = wrapped
        self.plugins = plugins
        self.read: Reading = read
        self.shadow = shadow
        self.tracing = tracing
        self.rules = rule_book(rules)
        self._log = (
            ShadowLog("openai-agents", plugins=plugins, read=read, prices=prices, rules=self.rules)
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
        request = chat_request(
            system_instructions, input, model_settings, tools, handoffs, output_schema=output_schema
        )
        served = previous_response_id is not None or conversation_id is not None
        answer = self._local(request, tracing) if not served else None
        if answer is not None:
            return ModelResponse(output=local_items(answer), usage=Usage(), response_id=None)
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
        request = chat_request(
            system_instructions, input, model_settings, tools, handoffs, output_schema=output_schema
        )
        served = previous_response_id is not None or conversation_id is not None
        answer = self._local(request, tracing) if not served else None
        if answer is not None:
            for event in local_events(answer, model_settings):
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

    def _local(self, request: ChatRequest | None, tracing: ModelTracing) -> LocalAnswer | None:
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
                rules=self.rules,
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
        self, request: ChatRequest | None, output: Sequence[object], usage: Usage | None
    ) -> None:
        if self._log is None or request is None:
            return
        model = getattr(self.wrapped, "model", None)
        self._log.record(request.messages, request.tools, model_answer(output, usage, model))
