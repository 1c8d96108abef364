"""Deterministic-first inside Pydantic AI: a model that answers what plain code can, else the model.

``DeterministicFirstModel(model, plugins)`` wraps the model an agent already
has. Its settings, the envelope that decides (``agent_lab.answering``), the
shadow's figures and the ``execute_tool`` span are the base's
(``integrations.wrapper.DeterministicFirstWrapper``); this module turns each request
into the envelope's ``Asked`` (``_pydantic_ai_messages.asked_of``) and a
local answer into a ``ModelResponse``. Before each request:

* the user's words name a tool and hold every required argument: the
  response is that tool call, made with no request (zero usage); the
  agent runs the tool as if the model had called it. A ``tool_choice``
  naming one tool (``["set_timer"]``) is obeyed: a call to another tool
  is the model's to make;
* a parameter only the user can supply (``"x-user-only": true``) is
  missing: the response is a question to the user naming it, and the run
  ends (a model would have to ask the same, or make the value up);
* the turn ends with the results of those calls and each tool's event
  declares a ``reply``: the response is that text, and the run ends;
* anything else (missing information, a retry, output tools, structured
  output, ``tool_choice`` ``none``, several tools named): the wrapped model
  is asked, unchanged.

With ``shadow=True`` it always asks the wrapped model and adds, for each
request, what plain code would have done to ``figures`` (the figures of
``agent-lab shadow``, with the time the wrapped model took).
"""

from __future__ import annotations

from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models import CompletedStreamedResponse
from pydantic_ai.models.wrapper import WrapperModel
from pydantic_ai.usage import RequestUsage

from agent_lab.integrations._pydantic_ai_messages import (
    asked_of,
    chat_request_of,
    model_answer,
    tool_choice_of,
)
from agent_lab.integrations.wrapper import DeterministicFirstWrapper

if TYPE_CHECKING:
    from collections.abc import AsyncGenerator, Mapping
    from pathlib import Path

    from pydantic_ai import RunContext
    from pydantic_ai.messages import ModelMessage
    from pydantic_ai.models import KnownModelName, Model, ModelRequestParameters, StreamedResponse
    from pydantic_ai.settings import ModelSettings

    from agent_lab.agents.plugins import PluginSet
    from agent_lab.agents.turn import Reading
    from agent_lab.answering import LocalAnswer
    from agent_lab.clock import Clock
    from agent_lab.integrations._pydantic_ai_messages import ChatRequest
    from agent_lab.otel.tracing import Tracing
    from agent_lab.providers.pricing import PriceTable
    from agent_lab.resolvers.learned import RuleBook

__all__ = ["LEDGER_KEY", "DeterministicFirstModel"]

LEDGER_KEY = "agent_lab"
"""The key of ``ModelResponse.provider_details`` under which a local answer carries its
decision: ``{"decided_locally": true, "reason", "llm_calls": 0, "ledger"}``."""


class DeterministicFirstModel(DeterministicFirstWrapper, WrapperModel):
    """A Pydantic AI model that answers what plain code decides, and asks ``wrapped`` for the rest.

    Args:
        wrapped: The model to ask when plain code cannot answer (a ``Model`` or a
            model name, as ``Agent`` takes).
        plugins: Your own resolvers, routes and replies for the tools they name
            (their handlers never run here: the agent runs its tools); the other
            tools get the schema-driven resolver.
        read: What the resolvers read: the last user message, or every user message.
        shadow: Always ask ``wrapped``, and add what plain code would have done to
            ``figures``, as ``agent-lab shadow`` counts it.
        context: Facts for the resolvers, such as ``{"now": "2026-12-01T09:00"}`` for
            relative dates (read as ``agent_lab.decide`` reads them).
        clock: Times the wrapped model's requests in shadow mode (the saved latency).
        tracing: Where a local answer's ``execute_tool`` span goes, with its ledger
            (extra ``otel``); ``None``: the global tracer provider, when one is set.
        rules: Learned rules (``agent-lab learn``'s), or the path of their file, read
            once here: written into the tools' schemas before each decision (and
            each shadow replay), so the schema-driven resolver applies them.
        ask: Answer in words what plain code knows with no model (a question for a
            missing value only the user can supply, a refusal of a value the schema
            forbids); ``False``: those turns go to the model.
        prices: Prices the saved tokens in shadow mode; ``None``: genai-prices'.

    Example:
        ``agent = Agent(DeterministicFirstModel("openai:gpt-4o-mini"), tools=[set_timer])``
    """

    def __init__(
        self,
        wrapped: Model | KnownModelName | str,
        plugins: PluginSet | None = None,
        *,
        read: Reading = "last",
        shadow: bool = False,
        context: Mapping[str, object] | None = None,
        clock: Clock | None = None,
        tracing: Tracing | None = None,
        rules: RuleBook | str | Path | None = None,
        ask: bool = True,
        prices: PriceTable | None = None,
    ) -> None:
        super().__init__(wrapped)
        self._hold(
            "pydantic-ai",
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

    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        """The local answer when plain code completes the turn, else the wrapped model's."""
        exchange = chat_request_of(messages, model_request_parameters)
        local = self._local(exchange, model_settings, model_request_parameters)
        if local is not None:
            return local
        started = self._started()
        response = await self.wrapped.request(messages, model_settings, model_request_parameters)
        self._record(exchange, model_settings, response, started)
        return response

    @asynccontextmanager
    async def request_stream(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
        run_context: RunContext[Any] | None = None,
    ) -> AsyncGenerator[StreamedResponse]:
        """``request``, streamed: a local answer is replayed as the events of a stream."""
        exchange = chat_request_of(messages, model_request_parameters)
        local = self._local(exchange, model_settings, model_request_parameters)
        if local is not None:
            yield CompletedStreamedResponse(
                local, model_request_parameters=model_request_parameters, replay_events=True
            )
            return
        started = self._started()
        async with self.wrapped.request_stream(
            messages, model_settings, model_request_parameters, run_context
        ) as stream:
            yield stream
        self._record(exchange, model_settings, stream.get(), started)

    def _local(
        self,
        exchange: ChatRequest,
        settings: ModelSettings | None,
        parameters: ModelRequestParameters,
    ) -> ModelResponse | None:
        answer = self._answered(asked_of(exchange, settings, parameters))
        return None if answer is None else self._response(answer)

    def _response(self, answer: LocalAnswer) -> ModelResponse:
        decision = answer.decision
        if answer.text is not None:
            parts: list[TextPart | ToolCallPart] = [TextPart(answer.text)]
        else:
            parts = [
                ToolCallPart(call.name, call.arguments_json, tool_call_id=call.id)
                for call in answer.calls
            ]
        return ModelResponse(
            parts=parts,
            usage=RequestUsage(),
            model_name=self.model_name,
            finish_reason="stop" if answer.text is not None else "tool_call",
            provider_details={
                LEDGER_KEY: {
                    "decided_locally": True,
                    "reason": str(decision.reason),
                    "llm_calls": 0,
                    "ledger": decision.ledger.as_json(),
                }
            },
        )

    def _record(
        self,
        exchange: ChatRequest,
        settings: ModelSettings | None,
        response: ModelResponse,
        started: int,
    ) -> None:
        if not self.shadow:
            return
        chosen = tool_choice_of(settings, exchange.tools)
        self._shadowed(
            exchange.messages,
            exchange.tools,
            model_answer(response, exchange.tools),
            started,
            tool_choice=None if chosen is None else chosen[0],
        )
