"""Deterministic-first inside Pydantic AI: a model that answers what plain code can, else the model.

``DeterministicFirstModel(model, plugins)`` wraps the model an agent already
has. Before each request it asks ``agent_lab.decide`` (through the
integrations' seam) whether plain code completes the turn:

* the user's words name a tool and hold every required argument: the
  response is that tool call, made with no request (zero usage); the
  agent runs the tool as if the model had called it;
* a parameter only the user can supply (``"x-user-only": true``) is
  missing: the response is a question to the user naming it, and the run
  ends (a model would have to ask the same, or make the value up);
* the turn ends with the results of those calls and each tool's event
  declares a ``reply``: the response is that text, and the run ends;
* anything else (missing information, a retry, output tools, words only):
  the wrapped model is asked, unchanged.

With ``shadow=True`` it always asks the wrapped model and adds, for each
request, what plain code would have done to ``figures`` (the figures of
``agent-lab shadow``).
"""

from __future__ import annotations

import itertools
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models import CompletedStreamedResponse
from pydantic_ai.models.wrapper import WrapperModel
from pydantic_ai.usage import RequestUsage

from agent_lab.agents.tool_specs import tool_name
from agent_lab.answering import Answerer
from agent_lab.clock import SystemClock
from agent_lab.errors import StrictJSONError
from agent_lab.integrations._pydantic_ai_messages import exchange_of
from agent_lab.integrations.seam import answer_locally, reply_locally, rule_book
from agent_lab.log_replay.figures import ShadowFigures
from agent_lab.log_replay.replayed import replay
from agent_lab.logs.record import (
    LogFormat,
    LoggedRequest,
    LoggedToolCall,
    LoggedUsage,
    SkippedLine,
    SkipReason,
)
from agent_lab.strict_json import loads

if TYPE_CHECKING:
    from collections.abc import AsyncGenerator, Mapping
    from pathlib import Path

    from pydantic_ai import RunContext
    from pydantic_ai.messages import ModelMessage
    from pydantic_ai.models import KnownModelName, Model, ModelRequestParameters, StreamedResponse
    from pydantic_ai.settings import ModelSettings

    from agent_lab.agents.plugins import PluginSet
    from agent_lab.agents.turn import Reading
    from agent_lab.clock import Clock
    from agent_lab.integrations._pydantic_ai_messages import Exchange
    from agent_lab.integrations.seam import LocalAnswer
    from agent_lab.otel.tracing import Tracing
    from agent_lab.providers.pricing import PriceTable
    from agent_lab.resolvers.learned import RuleBook

__all__ = ["LEDGER_KEY", "DeterministicFirstModel"]

LEDGER_KEY = "agent_lab"
"""The key of ``ModelResponse.provider_details`` under which a local answer carries its
decision: ``{"decided_locally": true, "reason", "llm_calls": 0, "ledger"}``."""

_TEXT_OUTPUT = frozenset({"text", "tool"})
"""Output modes in which plain text is the run's output (``str``, or ``str`` among tool outputs)."""
_WORDS_CHOICES = (None, "auto", "none")
"""``tool_choice`` values under which words may end the turn (``required``, or tools named,
demand a call)."""


class DeterministicFirstModel(WrapperModel):
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
    ) -> None:
        super().__init__(wrapped)
        self.rules = rule_book(rules)
        self.plugins = plugins
        self.read: Reading = read
        self.shadow = shadow
        self.context = context
        self._clock: Clock = clock if clock is not None else SystemClock()
        self._tracing = tracing if tracing is not None else _global_tracing()
        self._figures = ShadowFigures(prices=_prices() if shadow else None)
        self._requests = itertools.count(1)

    @property
    def figures(self) -> ShadowFigures:
        """What plain code would have done with each request ``wrapped`` answered (``shadow``)."""
        return self._figures

    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        """The local answer when plain code completes the turn, else the wrapped model's."""
        exchange = exchange_of(messages, model_request_parameters)
        if not self.shadow:
            local = self._answer(exchange, model_settings, model_request_parameters)
            if local is not None:
                return local
            return await self.wrapped.request(messages, model_settings, model_request_parameters)
        started = self._clock.monotonic_ns()
        response = await self.wrapped.request(messages, model_settings, model_request_parameters)
        self._record(exchange, response, self._clock.monotonic_ns() - started)
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
        exchange = exchange_of(messages, model_request_parameters)
        local = (
            None
            if self.shadow
            else self._answer(exchange, model_settings, model_request_parameters)
        )
        if local is not None:
            yield CompletedStreamedResponse(
                local, model_request_parameters=model_request_parameters, replay_events=True
            )
            return
        started = self._clock.monotonic_ns()
        async with self.wrapped.request_stream(
            messages, model_settings, model_request_parameters, run_context
        ) as stream:
            yield stream
        if self.shadow:
            self._record(exchange, stream.get(), self._clock.monotonic_ns() - started)

    def _answer(
        self,
        exchange: Exchange,
        settings: ModelSettings | None,
        parameters: ModelRequestParameters,
    ) -> ModelResponse | None:
        if not exchange.tools:
            return None
        # Structured output is the model's to give, and a call demanded (tool_choice) the
        # model's to make: a reply or a question in words would be neither.
        says = (
            parameters.allow_text_output
            and parameters.output_mode in _TEXT_OUTPUT
            and (settings or {}).get("tool_choice") in _WORDS_CHOICES
        )
        if exchange.follow_up:
            if not says:
                return None
            answer = reply_locally(exchange.messages, exchange.tools, plugins=self.plugins)
        elif exchange.user_turn:
            answer = answer_locally(
                exchange.messages,
                exchange.tools,
                plugins=self.plugins,
                read=self.read,
                at_most_one=(settings or {}).get("parallel_tool_calls") is False,
                context=self.context,
                ask=says,
                rules=self.rules,
            )
        else:
            return None
        return None if answer is None else self._response(answer)

    def _response(self, answer: LocalAnswer) -> ModelResponse:
        decision = answer.decision
        _trace(answer, self._tracing)
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

    def _record(self, exchange: Exchange, response: ModelResponse, elapsed_ns: int) -> None:
        where = f"pydantic-ai:{next(self._requests)}"
        logged = _logged(exchange, response, where, elapsed_ns / 1e6)
        if isinstance(logged, SkippedLine):
            self._figures.add(logged)
            return
        answerer = Answerer(self.plugins, rules=self.rules, read=self.read)
        self._figures.add(replay(logged, answerer))


def _logged(
    exchange: Exchange, response: ModelResponse, where: str, latency_ms: float
) -> LoggedRequest | SkippedLine:
    """The exchange as a log line would hold it (``pairs``): what was sent, what came back."""
    offered = {name for tool in exchange.tools if (name := tool_name(tool)) is not None}
    calls: list[LoggedToolCall] = []
    for part in response.parts:
        # A call of an output tool is the run's output, not a tool call: words, for the replay.
        if not isinstance(part, ToolCallPart) or part.tool_name not in offered:
            continue
        raw = part.args_as_json_str()
        try:
            arguments = loads(raw)
        except StrictJSONError:
            arguments = None
        if not isinstance(arguments, dict):
            return SkippedLine(
                where=where,
                reason=SkipReason.ARGUMENTS_NOT_JSON,
                message=f"the arguments of {part.tool_name!r} are not a JSON object",
            )
        calls.append(LoggedToolCall(name=part.tool_name, arguments=arguments, raw=raw))
    texts = [part.content for part in response.parts if isinstance(part, TextPart)]
    usage = response.usage
    return LoggedRequest(
        where=where,
        format=LogFormat.PAIRS,
        messages=exchange.messages,
        tools=exchange.tools,
        calls=tuple(calls),
        text="".join(texts) if texts else None,
        model=response.model_name,
        usage=LoggedUsage(
            prompt_tokens=usage.input_tokens,
            completion_tokens=usage.output_tokens,
            cached_tokens=usage.cache_read_tokens,
        ),
        latency_ms=latency_ms,
        timestamp=response.timestamp.isoformat(),
    )


def _prices() -> PriceTable:
    # Imported only for a shadow: genai-prices' data takes a while to load.
    from agent_lab.providers.pricing import PriceTable  # noqa: PLC0415

    return PriceTable()


def _global_tracing() -> Tracing | None:
    """Spans to the global tracer provider, or ``None`` without the ``otel`` extra."""
    try:
        from agent_lab.otel.tracing import Tracing  # noqa: PLC0415 - the optional extra
    except ImportError:
        return None
    return Tracing()


def _trace(answer: LocalAnswer, tracing: Tracing | None) -> None:
    """The decision as an ``execute_tool`` span with its ledger, when tracing is configured."""
    if tracing is None or not tracing.live:
        return
    with tracing.dispatch_span(answer.decision.event) as span:
        tracing.record(span, answer.decision)
