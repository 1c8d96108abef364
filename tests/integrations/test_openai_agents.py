"""``DeterministicFirstModel`` in the Agents SDK's own loop (``Runner``), over a scripted model."""

from __future__ import annotations

import pytest

pytest.importorskip("agents", reason="the openai-agents extra is not installed")

import asyncio
import dataclasses
import io
import json
from collections.abc import Iterator
from datetime import date, time
from pathlib import Path
from typing import Any

from agents.models.chatcmpl_converter import Converter
from agents.stream_events import RawResponsesStreamEvent
from openai.types.responses import ResponseOutputMessage, ResponseTextDeltaEvent
from pydantic import BaseModel

from agent_lab.agents.plugins import PluginSet
from agent_lab.answering import is_local_call
from agent_lab.cli import run as cli
from agent_lab.clock import FakeClock
from agent_lab.demo import plugins as demo
from agent_lab.demo.events import timer
from agent_lab.integrations.openai_agents import DeterministicFirstModel
from agent_lab.kernel.reply import Reply
from agent_lab.strict_json import JSONValue
from agents import (
    Agent,
    ModelSettings,
    RunConfig,
    Runner,
    function_tool,
    set_trace_processors,
    trace,
)
from tests.integrations import confirmed
from tests.integrations.agents_doubles import KeptSpans, ScriptedModel, called, said
from tests.integrations.booking import ASKING, QUESTION, booking_plugins
from tests.integrations.weather import CITY, WEATHER_TEXT, big_apple

INSTRUCTIONS = "You set timers."
timers: list[tuple[int, str | None]] = []


@function_tool
def set_timer(duration_seconds: int, label: str | None = None) -> str:
    """Start a countdown timer.

    Args:
        duration_seconds: How long, in seconds.
        label: What the timer is for.
    """
    timers.append((duration_seconds, label))
    return f"timer set for {duration_seconds} s"


@pytest.fixture(autouse=True)
def kept_spans() -> Iterator[KeptSpans]:
    """The SDK's traces go to a list here, never to the network."""
    kept = KeptSpans()
    set_trace_processors([kept])
    timers.clear()
    yield kept
    set_trace_processors([])


def agent(model: DeterministicFirstModel, **options: Any) -> Agent[None]:
    options.setdefault("tools", [set_timer])
    return Agent(name="timers", instructions=INSTRUCTIONS, model=model, **options)


def test_a_complete_request_runs_the_tool_with_no_wrapped_model_call() -> None:
    """Plain code completes set_timer: the SDK runs the tool; the wrapped model is never asked."""
    wrapped = ScriptedModel([])
    model = DeterministicFirstModel(wrapped, demo)

    result = asyncio.run(
        Runner.run(agent(model, tool_use_behavior="stop_on_first_tool"), "start a 3 minute timer")
    )

    assert timers == [(180, None)]
    assert result.final_output == "timer set for 180 s"
    assert wrapped.requests == []
    assert result.context_wrapper.usage.requests == 0
    assert result.context_wrapper.usage.total_tokens == 0
    [response] = result.raw_responses
    [item] = response.output
    assert is_local_call(getattr(item, "call_id", None))


def test_the_turn_after_a_local_call_is_the_wrapped_models_with_the_call_and_its_result() -> None:
    """The tool's result ends the conversation: the model's to continue, with our call in it."""
    wrapped = ScriptedModel([said("Your 3 minute timer is running.")])

    result = asyncio.run(
        Runner.run(agent(DeterministicFirstModel(wrapped, demo)), "start a 3 minute timer")
    )

    assert timers == [(180, None)]
    assert result.final_output == "Your 3 minute timer is running."
    [request] = wrapped.requests
    kinds = [item["type"] for item in request.input if "type" in item]
    assert kinds == ["function_call", "function_call_output"]
    assert is_local_call(request.input[1]["call_id"])
    assert request.input[1]["call_id"] == request.input[2]["call_id"]
    assert result.context_wrapper.usage.requests == 1


def test_missing_information_asks_the_wrapped_model_once_and_uses_its_answer_unchanged() -> None:
    """No duration said: the wrapped model gets the turn as the SDK sent it; its answer stands."""
    question = said("How long should the timer run?")
    wrapped = ScriptedModel([question])

    result = asyncio.run(Runner.run(agent(DeterministicFirstModel(wrapped, demo)), "set a timer"))

    [request] = wrapped.requests
    assert request.instructions == INSTRUCTIONS
    assert request.input == [{"content": "set a timer", "role": "user"}]
    assert request.tools == ["set_timer"]
    assert result.raw_responses == [question]
    assert result.final_output == "How long should the timer run?"
    assert timers == []


def stream(agent: Agent[None], text: str) -> tuple[Any, list[Any]]:
    async def consume() -> tuple[Any, list[Any]]:
        result = Runner.run_streamed(agent, text)
        events = [event async for event in result.stream_events()]
        return result, events

    return asyncio.run(consume())


def test_a_streamed_run_gets_the_local_answer_as_events_and_runs_the_tool() -> None:
    """``run_streamed``: the local call arrives as a stream's events; no wrapped model call."""
    wrapped = ScriptedModel([])
    model = DeterministicFirstModel(wrapped, demo)

    result, events = stream(
        agent(model, tool_use_behavior="stop_on_first_tool"), "start a 3 minute timer"
    )

    assert timers == [(180, None)]
    assert result.final_output == "timer set for 180 s"
    assert wrapped.requests == []
    called_items = [e.item for e in events if getattr(e, "name", None) == "tool_called"]
    assert [is_local_call(item.raw_item.call_id) for item in called_items] == [True]


def test_a_streamed_run_the_model_must_answer_streams_the_wrapped_models_events() -> None:
    """Missing information, streamed: the wrapped model's own stream reaches the caller."""
    wrapped = ScriptedModel([said("How long?")])

    result, events = stream(agent(DeterministicFirstModel(wrapped, demo)), "set a timer")

    assert [r.streamed for r in wrapped.requests] == [True]
    deltas = [
        e.data.delta
        for e in events
        if isinstance(e, RawResponsesStreamEvent) and isinstance(e.data, ResponseTextDeltaEvent)
    ]
    assert deltas == ["How long?"]
    assert result.final_output == "How long?"


def test_a_local_answer_carries_its_ledger_in_the_sdks_trace(kept_spans: KeptSpans) -> None:
    """Where the model's generation span would be, a custom span holds the decision's ledger."""
    model = DeterministicFirstModel(ScriptedModel([]), demo)

    async def traced() -> None:
        with trace("timers"):
            await Runner.run(
                agent(model, tool_use_behavior="stop_on_first_tool"), "start a 3 minute timer"
            )

    asyncio.run(traced())

    [decision] = [s for s in kept_spans.spans if s.span_data.type == "custom"]
    data = decision.span_data.export()["data"]
    assert data["calls"] == ["set_timer"]
    assert data["ledger"]["event"] == "set_timer"
    assert data["ledger"]["status"] == "success"
    assert data["ledger"]["fallback"]["called"] is False


@function_tool
def get_weather_now(city: str) -> str:
    """The weather now in a city.

    Args:
        city: The city.
    """
    return f"sunny in {city}"


@pytest.mark.parametrize(
    ("settings", "config"),
    [
        (ModelSettings(tool_choice="none"), RunConfig()),
        (ModelSettings(tool_choice="get_weather_now"), RunConfig()),
        (ModelSettings(tool_choice="web_search"), RunConfig()),
    ],
    ids=["tool_choice none", "another tool forced by name", "a tool not offered named"],
)
def test_a_turn_whose_settings_bind_the_model_goes_to_the_model(
    settings: ModelSettings, config: RunConfig
) -> None:
    """``tool_choice`` none, or naming another tool than plain code decides: delegated."""
    wrapped = ScriptedModel([said("Done.")])
    model = DeterministicFirstModel(wrapped, demo)
    tools = [set_timer, get_weather_now]

    asyncio.run(
        Runner.run(
            agent(model, model_settings=settings, tools=tools),
            "start a 3 minute timer",
            run_config=config,
        )
    )

    assert len(wrapped.requests) == 1
    assert timers == []


@pytest.mark.parametrize("streamed", [False, True], ids=["run", "run_streamed"])
def test_the_tool_a_tool_choice_names_is_answered_locally_and_another_is_the_models(
    streamed: bool,
) -> None:
    """``tool_choice="set_timer"``: plain code's call obeys it, the SDK runs the tool, then
    resets the choice (``reset_tool_choice``). Named ``get_weather_now``, the call plain
    code decides would break the choice: the wrapped model gets the turn."""
    wrapped = ScriptedModel([said("Running."), said("Sunny.")])
    model = DeterministicFirstModel(wrapped, demo)
    tools = [set_timer, get_weather_now]
    named = agent(model, tools=tools, model_settings=ModelSettings(tool_choice="set_timer"))
    other = agent(model, tools=tools, model_settings=ModelSettings(tool_choice="get_weather_now"))

    def run(which: Agent[None]) -> Any:
        if streamed:
            return stream(which, "start a 3 minute timer")[0]
        return asyncio.run(Runner.run(which, "start a 3 minute timer"))

    result = run(named)
    forwarded = run(other)

    assert timers == [(180, None)]
    assert result.final_output == "Running."
    [local, *_] = result.new_items
    assert is_local_call(local.raw_item.call_id)
    assert forwarded.final_output == "Sunny."
    assert [request.input[-1].get("type") for request in wrapped.requests] == [
        "function_call_output",  # the first run's follow-up: its user turn was plain code's
        None,  # the second run's user turn
    ]


def test_a_server_managed_conversation_goes_to_the_model() -> None:
    """With ``previous_response_id`` the server holds the history: a local call would be unknown."""
    wrapped = ScriptedModel([said("Done.")])
    model = DeterministicFirstModel(wrapped, demo)

    asyncio.run(
        Runner.run(agent(model), "start a 3 minute timer", previous_response_id="resp_earlier")
    )

    assert len(wrapped.requests) == 1
    assert timers == []


# Declared replies: the turn after the local call, said with no model --------------------------


@function_tool(name_override="set_timer")
def set_timer_json(duration_seconds: int, label: str | None = None) -> str:
    """Start a countdown timer.

    Args:
        duration_seconds: How long, in seconds.
        label: What the timer is for.
    """
    timers.append((duration_seconds, label))
    return json.dumps({"seconds": duration_seconds, "label": label})


def replying(reply: Reply) -> PluginSet:
    """The demo's set_timer (its resolver, its route), its result said by ``reply``."""
    return PluginSet(
        "timers", (dataclasses.replace(timer.EVENT, reply=reply),), routes=(timer.ROUTE,)
    )


def decision_reasons(kept: KeptSpans) -> list[str]:
    return [
        s.span_data.export()["data"]["ledger"]["reason"]
        for s in kept.spans
        if s.span_data.type == "custom"
    ]


def test_a_declared_reply_ends_the_turn_with_no_wrapped_model_call(kept_spans: KeptSpans) -> None:
    """The SDK runs the local call, then the event's template says the result: no request."""
    wrapped = ScriptedModel([])
    model = DeterministicFirstModel(wrapped, replying("Timer set for {seconds} s"))

    result = asyncio.run(Runner.run(agent(model, tools=[set_timer_json]), "start a 3 minute timer"))

    assert timers == [(180, None)]
    assert result.final_output == "Timer set for 180 s"
    assert wrapped.requests == []
    assert result.context_wrapper.usage.requests == 0
    assert result.context_wrapper.usage.total_tokens == 0
    [said_item] = result.raw_responses[-1].output
    assert isinstance(said_item, ResponseOutputMessage)
    assert said_item.role == "assistant"
    assert decision_reasons(kept_spans) == ["completed", "local_reply"]


def started(result: JSONValue) -> str:
    return f"Started: {result}"


def test_a_reply_function_says_the_result() -> None:
    """A function of the result (here the tool's text) works as a template does."""
    wrapped = ScriptedModel([])
    model = DeterministicFirstModel(wrapped, replying(started))

    result = asyncio.run(Runner.run(agent(model), "start a 3 minute timer"))

    assert result.final_output == "Started: timer set for 180 s"
    assert wrapped.requests == []


def test_a_reply_that_does_not_fit_the_result_leaves_the_words_to_the_wrapped_model() -> None:
    """A template naming a key the result lacks is no reply: the model is asked, once."""
    words = said("Your 3 minute timer is running.")
    wrapped = ScriptedModel([words])
    model = DeterministicFirstModel(wrapped, replying("Set for {minutes} min"))

    result = asyncio.run(Runner.run(agent(model, tools=[set_timer_json]), "start a 3 minute timer"))

    assert timers == [(180, None)]
    assert len(wrapped.requests) == 1
    assert result.raw_responses[-1] is words
    assert result.final_output == "Your 3 minute timer is running."


def test_a_streamed_run_ends_with_the_reply_and_asks_no_model(kept_spans: KeptSpans) -> None:
    """``run_streamed``: the call, then the reply's words as a text delta, no request."""
    wrapped = ScriptedModel([])
    model = DeterministicFirstModel(wrapped, replying("Timer set for {seconds} s"))

    result, events = stream(agent(model, tools=[set_timer_json]), "start a 3 minute timer")

    assert result.final_output == "Timer set for 180 s"
    assert (timers, wrapped.requests) == ([(180, None)], [])
    deltas = [
        e.data.delta
        for e in events
        if isinstance(e, RawResponsesStreamEvent) and isinstance(e.data, ResponseTextDeltaEvent)
    ]
    assert deltas == ["Timer set for 180 s"]
    assert result.context_wrapper.usage.requests == 0
    assert decision_reasons(kept_spans) == ["completed", "local_reply"]


class Started(BaseModel):
    seconds: int


def test_with_a_structured_output_type_the_reply_is_not_the_output() -> None:
    """The call is local, but the run's output (a ``Started``) is the wrapped model's to give."""
    wrapped = ScriptedModel([said('{"seconds": 180}')])
    model = DeterministicFirstModel(wrapped, replying("Timer set for {seconds} s"))

    result = asyncio.run(
        Runner.run(
            agent(model, tools=[set_timer_json], output_type=Started), "start a 3 minute timer"
        )
    )

    assert result.final_output == Started(seconds=180)
    assert timers == [(180, None)]
    assert len(wrapped.requests) == 1


def test_a_tool_choice_that_requires_a_call_leaves_the_turn_to_the_wrapped_model() -> None:
    """``tool_choice="required"`` kept after the call: words would break it, the model answers."""
    wrapped = ScriptedModel([said("Running.")])
    model = DeterministicFirstModel(wrapped, replying("Timer set for {seconds} s"))
    forced = agent(
        model,
        tools=[set_timer_json],
        model_settings=ModelSettings(tool_choice="required"),
        reset_tool_choice=False,
    )

    result = asyncio.run(Runner.run(forced, "start a 3 minute timer"))

    assert result.final_output == "Running."
    assert timers == [(180, None)]
    assert len(wrapped.requests) == 1


# Shadow mode --------------------------------------------------------------------------------

SPEC = json.loads(json.dumps(Converter.tool_to_openai(set_timer)))
"""The tool as a Chat Completions request offers it (the SDK's own conversion)."""


TICK_MS = 4.0
"""How long the wrapped model takes each turn, by the fake clock the shadow tests give."""


def pairs(text: str, arguments: str, reply: str) -> list[dict[str, Any]]:
    """The two requests of one run, as a proxy in front of a Chat Completions model logs them."""
    asked = [{"role": "system", "content": INSTRUCTIONS}, {"role": "user", "content": text}]
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "set_timer", "arguments": arguments},
    }
    first = {
        "request": {"messages": asked, "tools": [SPEC]},
        "response": {
            "model": "gpt-4o-mini",
            "choices": [{"message": {"role": "assistant", "content": None, "tool_calls": [call]}}],
            "usage": {"prompt_tokens": 50, "completion_tokens": 12},
        },
        "latency_ms": TICK_MS,
    }
    result = json.loads(arguments)["duration_seconds"]
    follow = [
        *asked,
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_1", "content": f"timer set for {result} s"},
    ]
    second = {
        "request": {"messages": follow, "tools": [SPEC]},
        "response": {
            "model": "gpt-4o-mini",
            "choices": [{"message": {"role": "assistant", "content": reply}}],
            "usage": {"prompt_tokens": 40, "completion_tokens": 8},
        },
        "latency_ms": TICK_MS,
    }
    return [first, second]


def asked_in_words(text: str, question: str) -> dict[str, Any]:
    return {
        "request": {
            "messages": [
                {"role": "system", "content": INSTRUCTIONS},
                {"role": "user", "content": text},
            ],
            "tools": [SPEC],
        },
        "response": {
            "model": "gpt-4o-mini",
            "choices": [{"message": {"role": "assistant", "content": question}}],
            "usage": {"prompt_tokens": 40, "completion_tokens": 8},
        },
        "latency_ms": TICK_MS,
    }


def shadow_json(log: Path) -> dict[str, Any]:
    out, err = io.StringIO(), io.StringIO()
    code = cli(
        ["shadow", str(log), "--format", "pairs", "--plugins", "agent_lab.demo:plugins", "--json"],
        stdout=out,
        stderr=err,
    )
    assert code == 0, err.getvalue()
    document: dict[str, Any] = json.loads(out.getvalue())
    return document


def without_where(document: dict[str, Any]) -> dict[str, Any]:
    """The document with each example's ``where`` dropped: a file's line is not a run's count."""
    for cause in document["disagreements"].values():
        for example in cause["examples"]:
            example.pop("where")
    return document


def test_shadow_mode_always_asks_the_model_and_counts_what_agent_lab_shadow_counts(
    tmp_path: Path,
) -> None:
    """Three runs in shadow mode: the figures equal ``agent-lab shadow``'s on their pairs log."""
    wrapped = ScriptedModel(
        [
            called("set_timer", '{"duration_seconds": 180}'),
            said("Your timer is running."),
            called("set_timer", '{"duration_seconds": 100}'),
            said("Your timer is running."),
            said("How long should it run?"),
        ]
    )
    clock = FakeClock(tick_ns=int(TICK_MS * 1e6))
    model = DeterministicFirstModel(wrapped, demo, shadow=True, clock=clock)
    timers_agent = agent(model)

    async def runs() -> None:
        await Runner.run(timers_agent, "start a 3 minute timer")
        await Runner.run(timers_agent, "set a 2 minute timer")
        await Runner.run(timers_agent, "set a timer")

    asyncio.run(runs())

    assert len(wrapped.requests) == 5
    assert timers == [(180, None), (100, None)]
    lines = [
        *pairs("start a 3 minute timer", '{"duration_seconds": 180}', "Your timer is running."),
        *pairs("set a 2 minute timer", '{"duration_seconds": 100}', "Your timer is running."),
        asked_in_words("set a timer", "How long should it run?"),
    ]
    log = tmp_path / "exchanges.jsonl"
    log.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    measured = json.loads(json.dumps(model.figures.as_json()))
    assert without_where(measured) == without_where(shadow_json(log))
    assert measured["calls"] == 2
    assert measured["covered"] == 2
    assert measured["agreement"]["right"] == 1
    assert measured["follow_ups"] == 2
    assert measured["saved"]["requests"] == 1  # covered and agreed
    assert measured["saved"]["latency_ms"] == TICK_MS


@pytest.mark.parametrize("streamed", [False, True], ids=["run", "run_streamed"])
def test_shadow_figures_carry_the_time_the_wrapped_model_took(streamed: bool) -> None:
    """The clock given times each turn the wrapped model answers: the latency a local answer
    saves, as ``agent-lab shadow`` reads a log's ``latency_ms``."""
    wrapped = ScriptedModel([called("set_timer", '{"duration_seconds": 180}'), said("Running.")])
    clock = FakeClock(tick_ns=7_000_000)
    model = DeterministicFirstModel(wrapped, demo, shadow=True, clock=clock)

    if streamed:
        stream(agent(model), "start a 3 minute timer")
    else:
        asyncio.run(Runner.run(agent(model), "start a 3 minute timer"))

    saved: dict[str, Any] = json.loads(json.dumps(model.figures.as_json()))["saved"]
    assert (saved["requests"], saved["latency_ms"], saved["latency_unknown_for"]) == (1, 7.0, 0)


def test_shadow_mode_counts_a_streamed_run_too() -> None:
    """Streamed, the answer is read from the wrapped model's completed response."""
    wrapped = ScriptedModel([called("set_timer", '{"duration_seconds": 180}'), said("Running.")])
    model = DeterministicFirstModel(wrapped, demo, shadow=True)

    stream(agent(model), "start a 3 minute timer")

    figures: dict[str, Any] = json.loads(json.dumps(model.figures.as_json()))
    assert (figures["calls"], figures["covered"], figures["follow_ups"]) == (1, 1, 1)
    assert figures["agreement"]["right"] == 1


def test_with_agent_lab_tracing_a_local_answer_is_an_execute_tool_span_with_its_ledger() -> None:
    """``tracing=Tracing(...)``: the OpenTelemetry span agent-lab's agents write, for the turn."""
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from agent_lab.otel import Tracing

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    model = DeterministicFirstModel(ScriptedModel([]), demo, tracing=Tracing(provider))

    asyncio.run(
        Runner.run(agent(model, tool_use_behavior="stop_on_first_tool"), "start a 3 minute timer")
    )

    [span] = exporter.get_finished_spans()
    attributes = dict(span.attributes or {})
    assert span.name == "execute_tool set_timer"
    assert attributes["agent_lab.status"] == "success"
    assert attributes["agent_lab.llm_calls"] == 0
    assert attributes["agent_lab.fallback.called"] is False


def test_shadow_mode_never_replies_locally() -> None:
    """A shadow makes no call of its own, so no reply either: the model says every result."""
    wrapped = ScriptedModel(
        [called("set_timer", '{"duration_seconds": 180}'), said("Your timer is running.")]
    )
    model = DeterministicFirstModel(wrapped, replying("Timer set for {seconds} s"), shadow=True)

    result = asyncio.run(Runner.run(agent(model, tools=[set_timer_json]), "start a 3 minute timer"))

    assert result.final_output == "Your timer is running."
    assert len(wrapped.requests) == 2
    figures: dict[str, Any] = json.loads(json.dumps(model.figures.as_json()))
    assert (figures["calls"], figures["covered"], figures["follow_ups"]) == (1, 1, 1)


# A parameter only the user can supply ------------------------------------------------------

booked: list[int] = []


@function_tool
def book_table(party_size: int, time: str | None = None) -> str:
    """Book a table at the restaurant.

    Args:
        party_size: How many people.
        time: When.
    """
    booked.append(party_size)
    return f"booked for {party_size}"


def booking(model: DeterministicFirstModel, **options: Any) -> Agent[Any]:
    booked.clear()
    return Agent(name="booking", model=model, tools=[book_table], **options)


def test_a_missing_user_only_value_is_asked_of_the_user_with_no_wrapped_model_call(
    kept_spans: KeptSpans,
) -> None:
    """The party size is the user's to say: the run ends with the question, no request made."""
    wrapped = ScriptedModel([])
    model = DeterministicFirstModel(wrapped, booking_plugins())

    result = asyncio.run(Runner.run(booking(model), ASKING))

    assert result.final_output == QUESTION
    assert (wrapped.requests, booked) == ([], [])
    assert result.context_wrapper.usage.requests == 0
    assert result.context_wrapper.usage.total_tokens == 0
    [item] = result.raw_responses[-1].output
    assert isinstance(item, ResponseOutputMessage)
    assert decision_reasons(kept_spans) == ["user_only_missing"]


def test_a_streamed_run_asks_for_a_user_only_value_with_no_wrapped_model_call() -> None:
    """``run_streamed``: the question arrives as a text delta; no request."""
    wrapped = ScriptedModel([])

    result, events = stream(booking(DeterministicFirstModel(wrapped, booking_plugins())), ASKING)

    assert (result.final_output, wrapped.requests) == (QUESTION, [])
    deltas = [
        e.data.delta
        for e in events
        if isinstance(e, RawResponsesStreamEvent) and isinstance(e.data, ResponseTextDeltaEvent)
    ]
    assert deltas == [QUESTION]


class Booking(BaseModel):
    party_size: int


def test_with_a_structured_output_type_a_missing_user_only_value_is_the_models_turn() -> None:
    """A question in words would not be the ``Booking`` the run must end with."""
    wrapped = ScriptedModel([said('{"party_size": 2}')])
    model = DeterministicFirstModel(wrapped, booking_plugins())

    asked = asyncio.run(Runner.run(booking(model), ASKING))
    result = asyncio.run(Runner.run(booking(model, output_type=Booking), ASKING))

    assert asked.final_output == QUESTION  # the same words, with text for output: no model
    assert result.final_output == Booking(party_size=2)
    assert len(wrapped.requests) == 1


def test_a_tool_choice_that_requires_a_call_leaves_the_question_to_the_wrapped_model() -> None:
    """``tool_choice="required"``: a call is due, so the model answers the turn."""
    wrapped = ScriptedModel([called("book_table", '{"party_size": 2}'), said("Booked.")])
    model = DeterministicFirstModel(wrapped, booking_plugins())
    free = booking(model, model_settings=ModelSettings(tool_choice="auto"))

    asked = asyncio.run(Runner.run(free, ASKING))
    forced = booking(model, model_settings=ModelSettings(tool_choice="required"))
    result = asyncio.run(Runner.run(forced, ASKING))

    assert asked.final_output == QUESTION  # "auto": words may end the turn, no model
    assert (result.final_output, booked) == ("Booked.", [2])
    assert len(wrapped.requests) == 2


def test_shadow_mode_leaves_the_question_to_the_wrapped_model() -> None:
    """A shadow never answers: the model asks, and the figures count the request."""
    wrapped = ScriptedModel([said("For how many?")])
    model = DeterministicFirstModel(wrapped, booking_plugins(), shadow=True)
    enforcing = DeterministicFirstModel(wrapped, booking_plugins())

    asked = asyncio.run(Runner.run(booking(enforcing), ASKING))
    result = asyncio.run(Runner.run(booking(model), ASKING))

    assert asked.final_output == QUESTION
    assert (result.final_output, len(wrapped.requests)) == ("For how many?", 1)
    assert model.figures.requests == 1


@pytest.mark.parametrize("rules", [False, True], ids=["without", "with"])
def test_learned_rules_complete_a_call_only_an_alias_reads(rules: bool) -> None:
    """``rules=``: "the big apple" is New York, so the SDK runs the tool and asks no model."""
    cities: list[str] = []

    @function_tool
    def get_weather(city: str) -> str:
        """The weather forecast for a city.

        Args:
            city: The city.
        """
        cities.append(city)
        return f"sunny in {city}"

    wrapped = ScriptedModel([called("get_weather", json.dumps({"city": CITY}))])
    model = DeterministicFirstModel(wrapped, rules=big_apple() if rules else None)
    weather = agent(model, tools=[get_weather], tool_use_behavior="stop_on_first_tool")

    result = asyncio.run(Runner.run(weather, WEATHER_TEXT))

    assert cities == [CITY]
    assert result.final_output == "sunny in New York"
    assert len(wrapped.requests) == (0 if rules else 1)


@pytest.mark.parametrize("rules", [False, True], ids=["without", "with"])
def test_shadow_mode_counts_what_the_learned_rules_cover(rules: bool) -> None:
    """A shadow replays each exchange with the rules, as ``agent-lab shadow --rules`` does."""

    @function_tool
    def get_weather(city: str) -> str:
        """The weather forecast for a city.

        Args:
            city: The city.
        """
        return f"sunny in {city}"

    wrapped = ScriptedModel([called("get_weather", json.dumps({"city": CITY}))])
    model = DeterministicFirstModel(wrapped, shadow=True, rules=big_apple() if rules else None)
    weather = agent(model, tools=[get_weather], tool_use_behavior="stop_on_first_tool")

    asyncio.run(Runner.run(weather, WEATHER_TEXT))

    figures = model.figures.as_json()
    assert (figures["calls"], figures["covered"]) == (1, 1 if rules else 0)
    assert len(wrapped.requests) == 1


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
    cities: list[str] = []

    @function_tool
    def get_weather(city: str) -> str:
        """The weather forecast for a city.

        Args:
            city: The city.
        """
        cities.append(city)
        return f"sunny in {city}"

    wrapped = ScriptedModel([])
    model = DeterministicFirstModel(wrapped)
    weather = agent(model, tools=[get_weather], tool_use_behavior="stop_on_first_tool")

    result = asyncio.run(Runner.run(weather, said))

    assert cities == [city]
    assert result.final_output == f"sunny in {city}"
    assert wrapped.requests == []


def test_a_confirmed_booking_is_made_from_the_whole_conversation() -> None:
    """The input holds the search, its result, the choice and the summary: "Yes" books."""
    booked: list[dict[str, Any]] = []

    @function_tool
    def find_tables(city: str) -> str:
        """Find restaurants with a free table in a city.

        Args:
            city: The city.
        """
        return json.dumps(confirmed.FOUND)

    @function_tool
    def reserve_table(restaurant: str, city: str, guests: int, day: date, at: time) -> str:
        """Reserve a table at a restaurant.

        Args:
            restaurant: The restaurant's name.
            city: The city.
            guests: Guests at the table.
            day: The day.
            at: The time.
        """
        booked.append(confirmed.booking(restaurant, city, guests, day, at))
        return "booked"

    wrapped = ScriptedModel([])
    model = DeterministicFirstModel(wrapped, context=confirmed.NOW)
    tables = agent(
        model, tools=[find_tables, reserve_table], tool_use_behavior="stop_on_first_tool"
    )
    history: list[Any] = [
        {"role": "user", "content": confirmed.ASKED_FIRST},
        {"type": "function_call", "call_id": "c1", "name": "find_tables",
         "arguments": json.dumps({"city": "Ghent"})},
        {"type": "function_call_output", "call_id": "c1", "output": json.dumps(confirmed.FOUND)},
        {"role": "assistant", "content": confirmed.OFFERED},
        {"role": "user", "content": confirmed.CHOSEN},
        {"role": "assistant", "content": confirmed.SUMMARY},
        {"role": "user", "content": confirmed.YES},
    ]  # fmt: skip

    result = asyncio.run(Runner.run(tables, history))

    assert booked == [confirmed.BOOKED]
    assert result.final_output == "booked"
    assert wrapped.requests == []
