"""DeterministicFirstModel in Pydantic AI's own agent loop, its test models as the wrapped one."""

from __future__ import annotations

import pytest

pytest.importorskip("pydantic_ai", reason="the pydantic-ai extra is not installed")

import asyncio
import io
import json
from collections.abc import AsyncIterator
from datetime import date, time
from decimal import Decimal
from pathlib import Path
from typing import Any

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from pydantic import BaseModel
from pydantic_ai import Agent, AgentRunResult, ModelRetry
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models import ModelRequestParameters
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel
from pydantic_ai.models.test import TestModel
from pydantic_ai.settings import ModelSettings
from pydantic_ai.tools import ToolDefinition

from agent_lab.agents.plugins import PluginSet
from agent_lab.answering import is_local_call
from agent_lab.cli import run
from agent_lab.clock import FakeClock
from agent_lab.integrations.pydantic_ai import LEDGER_KEY, DeterministicFirstModel
from agent_lab.kernel.models import Event, EventDefinition
from agent_lab.otel.tracing import Tracing
from agent_lab.providers.pricing import Price, PriceTable
from agent_lab.resolvers.schema import SchemaResolver
from agent_lab.strict_json import JSONValue
from tests.integrations import confirmed
from tests.integrations.booking import ASKING, BOOK_SCHEMA, QUESTION, booking_plugins
from tests.integrations.weather import CITY, WEATHER_TEXT, big_apple

TIMER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"minutes": {"type": "integer", "minimum": 1}},
    "required": ["minutes"],
}


def timer_plugins(reply: Any) -> PluginSet:
    # The user's own definition replaces the tool's: its resolver too (here the same reader).
    definition = EventDefinition(
        "set_timer", parameters=TIMER_SCHEMA, resolver=SchemaResolver(TIMER_SCHEMA), reply=reply
    )
    return PluginSet("timers", (definition,))


class Counted:
    """A FunctionModel's function that records each request it is asked, and answers in words."""

    def __init__(self, *answers: ModelResponse) -> None:
        self.asked: list[list[ModelMessage]] = []
        self.infos: list[AgentInfo] = []
        self.answers = list(answers)

    def answer(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.asked.append(list(messages))
        self.infos.append(info)
        if self.answers:
            return self.answers.pop(0)
        return ModelResponse(parts=[TextPart("the model's words")])

    async def stream(self, messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        self.asked.append(list(messages))
        for word in ("the model's ", "streamed ", "words"):
            yield word


def run_agent(agent: Agent[None, Any], prompt: str) -> AgentRunResult[Any]:
    # agent.run in a loop of our own: run_sync keeps a loop open past the test.
    return asyncio.run(agent.run(prompt))


def timer_agent(model: DeterministicFirstModel, ran: list[int]) -> Agent[None, str]:
    agent = Agent(model)

    @agent.tool_plain
    def set_timer(minutes: int) -> dict[str, int]:
        """Set a timer for some minutes."""
        ran.append(minutes)
        return {"minutes": minutes}

    return agent


def test_a_complete_request_runs_the_tool_with_no_model_call() -> None:
    """The user's turn is answered by plain code: the wrapped model first sees the tool's result."""
    counted = Counted()
    ran: list[int] = []
    agent = timer_agent(DeterministicFirstModel(FunctionModel(counted.answer)), ran)

    result = run_agent(agent, "set a timer for 10 minutes")

    assert ran == [10]
    assert len(counted.asked) == 1  # the follow-up only: no reply is declared
    last = counted.asked[0][-1]
    assert isinstance(last, ModelRequest)
    assert isinstance(last.parts[0], ToolReturnPart)
    local = result.all_messages()[1]
    assert isinstance(local, ModelResponse)
    call = local.parts[0]
    assert isinstance(call, ToolCallPart)
    assert is_local_call(call.tool_call_id)
    assert (local.usage.input_tokens, local.usage.output_tokens) == (0, 0)
    assert result.output == "the model's words"


def test_a_local_answer_carries_its_ledger_and_its_span() -> None:
    """The decision's ledger rides in provider_details, and as an execute_tool span."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    model = DeterministicFirstModel(
        FunctionModel(Counted().answer), timer_plugins("{minutes} min"), tracing=Tracing(provider)
    )
    result = run_agent(timer_agent(model, []), "set a timer for 10 minutes")

    details = [m.provider_details for m in result.all_messages() if isinstance(m, ModelResponse)]
    assert [d[LEDGER_KEY]["reason"] for d in details if d] == ["completed", "local_reply"]
    ledger = details[0][LEDGER_KEY]["ledger"]  # type: ignore[index]
    assert (ledger["event"], ledger["status"], ledger["fallback"]["called"]) == (
        "set_timer",
        "success",
        False,
    )
    spans = exporter.get_finished_spans()
    assert [span.name for span in spans] == ["execute_tool set_timer", "execute_tool set_timer"]
    assert spans[0].attributes is not None
    assert spans[0].attributes["agent_lab.status"] == "success"


def test_missing_information_asks_the_wrapped_model_once_and_uses_its_answer() -> None:
    """No minutes: the model is asked the user's turn, and its words are the run's output."""
    question = ModelResponse(parts=[TextPart("For how long?")])
    counted = Counted(question)
    ran: list[int] = []
    agent = timer_agent(DeterministicFirstModel(FunctionModel(counted.answer)), ran)

    result = run_agent(agent, "set a timer")

    assert len(counted.asked) == 1
    assert result.output == "For how long?"
    assert ran == []
    answered = result.all_messages()[-1]
    assert isinstance(answered, ModelResponse)
    assert answered.parts == question.parts
    assert answered.provider_details is None
    assert result.usage.input_tokens > 0  # the framework's usage accounting, untouched


def test_a_declared_reply_ends_the_turn_with_no_model_call() -> None:
    """The tool's result said by its event's template: the whole run costs no request."""
    counted = Counted()
    ran: list[int] = []
    model = DeterministicFirstModel(
        FunctionModel(counted.answer), timer_plugins("Timer set for {minutes} minutes")
    )
    result = run_agent(timer_agent(model, ran), "set a timer for 10 minutes")

    assert result.output == "Timer set for 10 minutes"
    assert ran == [10]
    assert counted.asked == []


def minutes_from_now(result: JSONValue) -> str:
    assert isinstance(result, dict)
    return f"{result['minutes']} minutes, starting now"


def test_a_reply_function_says_the_result() -> None:
    """A function of the result works as a template does."""
    counted = Counted()
    model = DeterministicFirstModel(
        FunctionModel(counted.answer),
        timer_plugins(minutes_from_now),
    )
    result = run_agent(timer_agent(model, []), "set a timer for 5 minutes")

    assert (result.output, counted.asked) == ("5 minutes, starting now", [])


def test_a_reply_that_does_not_fit_the_result_leaves_the_words_to_the_model() -> None:
    """A template naming a key the result lacks is no reply, never an error: the model says it."""
    counted = Counted()
    model = DeterministicFirstModel(
        FunctionModel(counted.answer), timer_plugins("Set for {seconds} s")
    )
    result = run_agent(timer_agent(model, []), "set a timer for 10 minutes")

    assert (result.output, len(counted.asked)) == ("the model's words", 1)


def timer_set(result: JSONValue) -> str:
    return "Your timer is set."


@pytest.mark.parametrize(
    "failure",
    [{"error": "the timer service is down"}, "Error: the timer service is down"],
    ids=["an error object", "an error string"],
)
def test_a_tool_that_reports_failure_is_said_by_the_model_not_the_reply(failure: Any) -> None:
    """A reply function that says any result: over a failure it is not said."""
    counted = Counted()
    agent = Agent(DeterministicFirstModel(FunctionModel(counted.answer), timer_plugins(timer_set)))

    @agent.tool_plain
    def set_timer(minutes: int) -> Any:
        """Set a timer for some minutes."""
        return failure

    result = run_agent(agent, "set a timer for 10 minutes")

    assert (result.output, len(counted.asked)) == ("the model's words", 1)
    returned = counted.asked[0][-1].parts[0]
    assert isinstance(returned, ToolReturnPart)
    assert returned.content == failure


def test_a_tool_that_asks_for_a_retry_is_the_models_to_handle() -> None:
    """A failed local call (ModelRetry) is never replied to: the model gets the retry."""
    counted = Counted()
    agent = Agent(
        DeterministicFirstModel(FunctionModel(counted.answer), timer_plugins("Timer set")),
        retries=2,
    )

    @agent.tool_plain
    def set_timer(minutes: int) -> str:
        """Set a timer for some minutes."""
        raise ModelRetry("timers are broken")

    result = run_agent(agent, "set a timer for 10 minutes")

    assert (result.output, len(counted.asked)) == ("the model's words", 1)


def test_run_stream_answers_locally_then_streams_the_models_words() -> None:
    """Streaming: the local call is a stream of its own; the follow-up streams from the model."""
    counted = Counted()
    ran: list[int] = []
    agent = timer_agent(
        DeterministicFirstModel(FunctionModel(counted.answer, stream_function=counted.stream)), ran
    )

    async def streamed() -> str:
        async with agent.run_stream("set a timer for 10 minutes") as result:
            return await result.get_output()

    assert asyncio.run(streamed()) == "the model's streamed words"
    assert ran == [10]
    assert len(counted.asked) == 1


def test_run_stream_with_a_reply_asks_no_model() -> None:
    """Streaming a whole turn plain code answers: the call, then the reply, no request."""
    counted = Counted()
    ran: list[int] = []
    model = DeterministicFirstModel(
        FunctionModel(counted.answer, stream_function=counted.stream),
        timer_plugins("{minutes} min"),
    )
    agent = timer_agent(model, ran)

    async def streamed() -> list[str]:
        async with agent.run_stream("set a timer for 10 minutes") as result:
            return [text async for text in result.stream_text()]

    assert asyncio.run(streamed())[-1] == "10 min"
    assert (ran, counted.asked) == ([10], [])


class Timer(BaseModel):
    minutes: int


def test_output_types_are_the_models_to_give() -> None:
    """Structured output is an output tool, never a function tool: the model gives it."""
    agent = Agent(DeterministicFirstModel(TestModel()), output_type=Timer)
    result = run_agent(agent, "set a timer for 10 minutes")
    assert isinstance(result.output, Timer)
    assert result.all_messages()[1].provider_details is None  # type: ignore[union-attr]


def test_with_structured_output_a_reply_is_not_the_output() -> None:
    """The tool call is local, but the run's output (a Timer) is still the model's."""
    counted = Counted(
        ModelResponse(parts=[ToolCallPart("final_result", {"minutes": 10})]),
    )
    agent = Agent(
        DeterministicFirstModel(FunctionModel(counted.answer), timer_plugins("{minutes} min")),
        output_type=Timer,
    )
    ran: list[int] = []

    @agent.tool_plain
    def set_timer(minutes: int) -> dict[str, int]:
        """Set a timer for some minutes."""
        ran.append(minutes)
        return {"minutes": minutes}

    result = run_agent(agent, "set a timer for 10 minutes")
    assert result.output == Timer(minutes=10)
    assert ran == [10]
    said = [
        part
        for message in result.all_messages()
        if isinstance(message, ModelResponse)
        for part in message.parts
        if isinstance(part, TextPart)
    ]
    assert said == []  # no words spent, and no output retry used up on them
    assert len(counted.asked) == 1
    assert [t.name for t in counted.infos[0].function_tools] == ["set_timer"]


def test_a_retry_of_the_output_is_not_read_as_the_users_words() -> None:
    """Retry feedback reaches the model in the user's voice; plain code never answers it."""
    counted = Counted(
        ModelResponse(parts=[TextPart("set a timer for 10 minutes")]),
        ModelResponse(parts=[TextPart("fine")]),
    )
    ran: list[int] = []
    agent = timer_agent(DeterministicFirstModel(FunctionModel(counted.answer)), ran)

    @agent.output_validator
    def once_more(output: str) -> str:
        if output != "fine":
            raise ModelRetry("set a timer for 10 minutes")
        return output

    result = run_agent(agent, "hello")
    assert (result.output, len(counted.asked), ran) == ("fine", 2, [])


def shadow_exchange(
    counted: Counted, messages: list[ModelMessage], latency_ms: float
) -> list[dict[str, Any]]:
    """The two requests of a timer run, as a proxy's ``pairs`` log would hold them."""
    info = counted.infos[0]
    tool = info.function_tools[0]
    tools = [
        {
            "type": "function",
            "function": {
                "name": tool.name,
                "description": tool.description,
                "parameters": tool.parameters_json_schema,
            },
        }
    ]
    first, second = (m for m in messages if isinstance(m, ModelResponse))
    call = first.parts[0]
    assert isinstance(call, ToolCallPart)
    user = {"role": "user", "content": "set a timer for 10 minutes"}
    assistant = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": call.tool_call_id,
                "type": "function",
                "function": {"name": call.tool_name, "arguments": call.args_as_json_str()},
            }
        ],
    }
    result = {"role": "tool", "tool_call_id": call.tool_call_id, "content": '{"minutes":10}'}

    def line(sent: list[dict[str, Any]], response: ModelResponse) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": None}
        if isinstance(response.parts[0], TextPart):
            message["content"] = response.parts[0].content
        else:
            message["tool_calls"] = assistant["tool_calls"]
        return {
            "request": {"model": "m", "messages": sent, "tools": tools},
            "response": {
                "model": response.model_name,
                "choices": [{"index": 0, "message": message}],
                "usage": {
                    "prompt_tokens": response.usage.input_tokens,
                    "completion_tokens": response.usage.output_tokens,
                },
            },
            "timestamp": response.timestamp.isoformat(),
            "latency_ms": latency_ms,
        }

    return [line([user], first), line([user, assistant, result], second)]


def test_shadow_mode_asks_the_model_and_counts_what_agent_lab_shadow_counts(
    tmp_path: Path,
) -> None:
    """Always the model's answers; the figures are agent-lab shadow's on the same exchange."""
    counted = Counted(
        ModelResponse(parts=[ToolCallPart("set_timer", {"minutes": 10}, tool_call_id="c1")]),
        ModelResponse(parts=[TextPart("Done: 10 minutes.")]),
    )
    model = DeterministicFirstModel(
        FunctionModel(counted.answer),
        timer_plugins("{minutes} min"),
        shadow=True,
        clock=FakeClock(tick_ns=3_000_000),
    )
    ran: list[int] = []
    result = run_agent(timer_agent(model, ran), "set a timer for 10 minutes")

    assert result.output == "Done: 10 minutes."
    assert (ran, len(counted.asked)) == ([10], 2)
    figures = model.figures.as_json()
    assert (figures["requests"], figures["calls"], figures["covered"]) == (2, 1, 1)
    assert figures["agreement"]["right"] == 1  # type: ignore[index]
    assert figures["saved"]["requests"] == 1  # type: ignore[index]
    assert figures["saved"]["latency_ms"] == 3.0  # type: ignore[index]

    log = tmp_path / "pairs.jsonl"
    lines = shadow_exchange(counted, result.all_messages(), 3.0)
    log.write_text("".join(json.dumps(line) + "\n" for line in lines))
    out, err = io.StringIO(), io.StringIO()
    assert run(["shadow", str(log), "--format", "pairs", "--json"], stdout=out, stderr=err) == 0
    assert json.loads(out.getvalue()) == figures


@pytest.mark.parametrize("streamed", [False, True], ids=["run", "run_stream"])
def test_shadow_figures_carry_the_time_the_wrapped_model_took_at_the_prices_given(
    streamed: bool,
) -> None:
    """The clock given times each request (its stream included), and ``prices`` prices the
    tokens a local answer saves, as ``agent-lab shadow`` reads a log's ``latency_ms``."""
    counted = Counted(
        ModelResponse(parts=[ToolCallPart("set_timer", {"minutes": 10})]),
        ModelResponse(parts=[TextPart("Done.")]),
    )

    async def calling(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
        counted.asked.append(list(messages))
        if len(counted.asked) == 1:
            yield {0: DeltaToolCall(name="set_timer", json_args='{"minutes": 10}')}
        else:
            yield "Done."

    wrapped = FunctionModel(counted.answer, stream_function=calling, model_name="gpt-4o-mini")
    prices = PriceTable({"gpt-4o-mini": Price(Decimal(1_000_000), Decimal(0))})
    model = DeterministicFirstModel(
        wrapped, shadow=True, clock=FakeClock(tick_ns=5_000_000), prices=prices
    )
    agent = timer_agent(model, [])

    async def streamed_run() -> str:
        async with agent.run_stream("set a timer for 10 minutes") as result:
            return await result.get_output()

    output = (
        asyncio.run(streamed_run())
        if streamed
        else run_agent(agent, "set a timer for 10 minutes").output
    )

    assert output == "Done."
    saved: dict[str, Any] = json.loads(json.dumps(model.figures.as_json()))["saved"]
    assert (saved["requests"], saved["latency_ms"], saved["latency_unknown_for"]) == (1, 5.0, 0)
    assert saved["cost_usd"] == saved["prompt_tokens"] > 0  # a dollar a token, as priced


def test_shadow_mode_streams_the_model_and_still_counts() -> None:
    """run_stream in shadow mode: the model's stream, and the request counted once it ends."""
    counted = Counted()
    model = DeterministicFirstModel(
        FunctionModel(counted.answer, stream_function=counted.stream), shadow=True
    )
    agent = timer_agent(model, [])

    async def streamed() -> str:
        async with agent.run_stream("hello there") as result:
            return await result.get_output()

    assert asyncio.run(streamed()) == "the model's streamed words"
    assert model.figures.requests == 1
    assert model.figures.as_json()["answered_in_words"] == 1


@pytest.mark.parametrize("shadow", [False, True], ids=["deterministic-first", "shadow"])
def test_the_wrapper_names_the_wrapped_model(shadow: bool) -> None:
    """Tracing and pricing see the wrapped model's name."""
    model = DeterministicFirstModel(TestModel(), shadow=shadow)
    assert (model.model_name, model.system) == ("test", "test")


def test_the_resolvers_read_the_context_given() -> None:
    """Facts the words lack (a clock, a default) reach the resolvers through ``context``."""

    def from_context(event: Event) -> dict[str, object]:
        return {"minutes": event.context.get("usual_minutes")}

    definition = EventDefinition("set_timer", parameters=TIMER_SCHEMA, resolver=from_context)
    counted = Counted()
    ran: list[int] = []
    model = DeterministicFirstModel(
        FunctionModel(counted.answer),
        PluginSet("timers", (definition,)),
        context={"usual_minutes": 4},
    )
    run_agent(timer_agent(model, ran), "set a timer, the usual")
    assert ran == [4]


# A parameter only the user can supply ------------------------------------------------------


def booking_agent(model: DeterministicFirstModel, booked: list[int], **options: Any) -> Agent[Any]:
    agent: Agent[Any] = Agent(model, **options)

    @agent.tool_plain
    def book_table(party_size: int, time: str | None = None) -> str:
        """Book a table at the restaurant."""
        booked.append(party_size)
        return f"booked for {party_size}"

    return agent


def test_a_missing_user_only_value_is_asked_of_the_user_with_no_model_call() -> None:
    """The party size is the user's to say: the run ends with the question, no request made."""
    counted = Counted()
    booked: list[int] = []
    model = DeterministicFirstModel(FunctionModel(counted.answer), booking_plugins())

    result = run_agent(booking_agent(model, booked), ASKING)

    assert result.output == QUESTION
    assert (counted.asked, booked) == ([], [])
    asked = result.all_messages()[-1]
    assert isinstance(asked, ModelResponse)
    assert asked.parts == [TextPart(QUESTION)]
    assert (asked.usage.input_tokens, asked.usage.output_tokens) == (0, 0)
    assert asked.provider_details is not None
    details = asked.provider_details[LEDGER_KEY]
    assert (details["reason"], details["llm_calls"]) == ("user_only_missing", 0)
    assert details["ledger"]["reason"] == "user_only_missing"


def test_run_stream_asks_for_a_user_only_value_with_no_model_call() -> None:
    """Streaming: the question is the stream's text, and the model is never asked."""
    counted = Counted()
    model = DeterministicFirstModel(
        FunctionModel(counted.answer, stream_function=counted.stream), booking_plugins()
    )
    agent = booking_agent(model, [])

    async def streamed() -> str:
        async with agent.run_stream(ASKING) as result:
            return await result.get_output()

    assert (asyncio.run(streamed()), counted.asked) == (QUESTION, [])


class Booking(BaseModel):
    party_size: int


def test_with_structured_output_a_missing_user_only_value_is_the_models_turn() -> None:
    """A question in words would not be the ``Booking`` the run must end with: the model answers."""
    counted = Counted(ModelResponse(parts=[ToolCallPart("final_result", {"party_size": 2})]))
    model = DeterministicFirstModel(FunctionModel(counted.answer), booking_plugins())

    asked = run_agent(booking_agent(model, []), ASKING)
    result = run_agent(booking_agent(model, [], output_type=Booking), ASKING)

    assert asked.output == QUESTION  # the same words, with text for output: no model
    assert result.output == Booking(party_size=2)
    assert len(counted.asked) == 1


def test_a_tool_choice_that_demands_a_call_leaves_the_question_to_the_model() -> None:
    """``tool_choice="required"`` (set per step, as Pydantic AI allows): words would break it."""
    counted = Counted(ModelResponse(parts=[ToolCallPart("book_table", {"party_size": 2})]))
    model = DeterministicFirstModel(FunctionModel(counted.answer), booking_plugins())
    tool = ToolDefinition(name="book_table", parameters_json_schema=BOOK_SCHEMA)
    parameters = ModelRequestParameters(function_tools=[tool], allow_text_output=True)
    request = ModelRequest(parts=[UserPromptPart(ASKING)])

    free = asyncio.run(model.request([request], None, parameters))
    forced = asyncio.run(model.request([request], {"tool_choice": "required"}, parameters))

    assert free.parts == [TextPart(QUESTION)]
    assert isinstance(forced.parts[0], ToolCallPart)
    assert len(counted.asked) == 1


def test_tool_choice_none_leaves_a_complete_call_to_the_model() -> None:
    """``tool_choice="none"`` forbids calls: plain code's call would break it, so the model,
    which may only answer in words, gets the turn; a shadow never counts it covered."""
    counted = Counted(ModelResponse(parts=[TextPart("I cannot set timers now.")]))
    ran: list[int] = []
    model = DeterministicFirstModel(FunctionModel(counted.answer))
    shadowed = DeterministicFirstModel(FunctionModel(counted.answer), shadow=True)
    settings: ModelSettings = {"tool_choice": "none"}

    result = asyncio.run(
        timer_agent(model, ran).run("set a timer for 10 minutes", model_settings=settings)
    )
    asyncio.run(
        timer_agent(shadowed, ran).run("set a timer for 10 minutes", model_settings=settings)
    )

    assert (result.output, ran, len(counted.asked)) == ("I cannot set timers now.", [], 2)
    answered = result.all_messages()[1]
    assert isinstance(answered, ModelResponse)
    assert answered.provider_details is None
    figures = shadowed.figures.as_json()
    assert (figures["requests"], figures["answered_in_words"]) == (1, 1)
    assert figures["acted_where_the_model_answered_in_words"] == 0


def test_a_tool_choice_naming_one_tool_is_obeyed_by_a_local_call_and_no_other() -> None:
    """A list of one tool (set per step, as Pydantic AI allows) is that tool, required: plain
    code's call when it is that tool; another tool, or a choice among several, the model's."""
    weather = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    tools = [
        ToolDefinition(
            name="set_timer",
            description="Set a timer for some minutes.",
            parameters_json_schema=TIMER_SCHEMA,
        ),
        ToolDefinition(
            name="get_weather",
            description="The weather forecast for a city.",
            parameters_json_schema=weather,
        ),
    ]
    parameters = ModelRequestParameters(function_tools=tools, allow_text_output=True)
    request = ModelRequest(parts=[UserPromptPart("set a timer for 10 minutes")])

    def answered(tool_choice: list[str]) -> tuple[str, bool, int]:
        counted = Counted(ModelResponse(parts=[ToolCallPart("get_weather", {"city": "Paris"})]))
        model = DeterministicFirstModel(FunctionModel(counted.answer))
        response = asyncio.run(model.request([request], {"tool_choice": tool_choice}, parameters))
        [call] = response.parts
        assert isinstance(call, ToolCallPart)
        return call.tool_name, is_local_call(call.tool_call_id), len(counted.asked)

    assert answered(["set_timer"]) == ("set_timer", True, 0)
    assert answered(["get_weather"]) == ("get_weather", False, 1)
    assert answered(["set_timer", "get_weather"]) == ("get_weather", False, 1)


def test_shadow_mode_leaves_the_question_to_the_model() -> None:
    """A shadow never answers: the model asks, and the figures count the request."""
    counted = Counted(ModelResponse(parts=[TextPart("For how many?")]))
    model = DeterministicFirstModel(FunctionModel(counted.answer), booking_plugins(), shadow=True)
    enforcing = DeterministicFirstModel(FunctionModel(counted.answer), booking_plugins())

    asked = run_agent(booking_agent(enforcing, []), ASKING)
    result = run_agent(booking_agent(model, []), ASKING)

    assert asked.output == QUESTION
    assert (result.output, len(counted.asked)) == ("For how many?", 1)
    assert model.figures.requests == 1


def weather_agent(model: DeterministicFirstModel, cities: list[str]) -> Agent[None, str]:
    agent = Agent(model)

    @agent.tool_plain
    def get_weather(city: str) -> str:
        """The weather forecast for a city."""
        cities.append(city)
        return f"sunny in {city}"

    return agent


@pytest.mark.parametrize("rules", [False, True], ids=["without", "with"])
def test_learned_rules_complete_a_call_only_an_alias_reads(rules: bool) -> None:
    """``rules=``: "the big apple" is New York, so plain code answers the user's turn."""
    call = ModelResponse(parts=[ToolCallPart("get_weather", {"city": CITY})])
    words = ModelResponse(parts=[TextPart("Sunny in New York.")])
    counted = Counted(words) if rules else Counted(call, words)
    cities: list[str] = []
    model = DeterministicFirstModel(
        FunctionModel(counted.answer), rules=big_apple() if rules else None
    )

    result = run_agent(weather_agent(model, cities), WEATHER_TEXT)

    assert cities == [CITY]
    # With the rules, the model's first request already holds the tool's result (its words,
    # no reply being declared): it was never asked for the user's turn.
    first = counted.asked[0][-1]
    assert isinstance(first, ModelRequest)
    assert isinstance(first.parts[-1], ToolReturnPart if rules else UserPromptPart)
    assert len(counted.asked) == (1 if rules else 2)
    assert result.output == "Sunny in New York."


@pytest.mark.parametrize("rules", [False, True], ids=["without", "with"])
def test_shadow_mode_counts_what_the_learned_rules_cover(rules: bool) -> None:
    """A shadow replays each exchange with the rules, as ``agent-lab shadow --rules`` does."""
    counted = Counted(
        ModelResponse(parts=[ToolCallPart("get_weather", {"city": CITY})]),
        ModelResponse(parts=[TextPart("Sunny in New York.")]),
    )
    model = DeterministicFirstModel(
        FunctionModel(counted.answer), shadow=True, rules=big_apple() if rules else None
    )
    run_agent(weather_agent(model, []), WEATHER_TEXT)

    figures = model.figures.as_json()
    assert (figures["calls"], figures["covered"]) == (1, 1 if rules else 0)
    assert len(counted.asked) == 2


@pytest.mark.parametrize(
    ("said", "city"),
    [
        ("What's the weather in Paris right now?", "Paris"),
        ("How is the weather in Lisbon?", "Lisbon"),
    ],
)
def test_a_lone_tool_asked_for_as_people_speak_is_answered_with_no_model(
    said: str, city: str
) -> None:
    """No "get" in the words: the one tool is spoken of, and its call is complete."""
    counted = Counted(ModelResponse(parts=[TextPart(f"Sunny in {city}.")]))
    cities: list[str] = []
    model = DeterministicFirstModel(FunctionModel(counted.answer))

    result = run_agent(weather_agent(model, cities), said)

    assert cities == [city]
    first = counted.asked[0][-1]
    assert isinstance(first, ModelRequest)
    assert isinstance(first.parts[-1], ToolReturnPart)  # never asked for the user's turn
    assert result.output == f"Sunny in {city}."


def test_a_confirmed_booking_is_made_from_the_whole_conversation() -> None:
    """The history holds the search, its result, the choice and the summary: "Yes" books."""
    counted = Counted(ModelResponse(parts=[TextPart("Booked.")]))
    booked: list[dict[str, Any]] = []
    model = DeterministicFirstModel(FunctionModel(counted.answer), context=confirmed.NOW)
    agent = Agent(model)

    @agent.tool_plain
    def find_tables(city: str) -> list[dict[str, Any]]:
        """Find restaurants with a free table in a city."""
        return confirmed.FOUND

    @agent.tool_plain
    def reserve_table(restaurant: str, city: str, guests: int, day: date, at: time) -> str:
        """Reserve a table at a restaurant."""
        booked.append(confirmed.booking(restaurant, city, guests, day, at))
        return "booked"

    history: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart(confirmed.ASKED_FIRST)]),
        ModelResponse(parts=[ToolCallPart("find_tables", {"city": "Ghent"}, tool_call_id="c1")]),
        ModelRequest(parts=[ToolReturnPart("find_tables", confirmed.FOUND, tool_call_id="c1")]),
        ModelResponse(parts=[TextPart(confirmed.OFFERED)]),
        ModelRequest(parts=[UserPromptPart(confirmed.CHOSEN)]),
        ModelResponse(parts=[TextPart(confirmed.SUMMARY)]),
    ]
    result = asyncio.run(agent.run(confirmed.YES, message_history=history))

    assert booked == [confirmed.BOOKED]
    first = counted.asked[0][-1]
    assert isinstance(first, ModelRequest)
    assert isinstance(first.parts[-1], ToolReturnPart)  # never asked for the user's turn
    assert result.output == "Booked."
