"""``DeterministicFirstChatModel`` in LangChain's agent loop (``create_agent``, on LangGraph)."""

from __future__ import annotations

import pytest

pytest.importorskip("langchain", reason="the langchain extra is not installed")

import asyncio
import dataclasses
import io
import json
from collections.abc import Sequence
from datetime import date, time
from pathlib import Path
from typing import Any, cast

from langchain.agents import create_agent  # pyright: ignore[reportUnknownVariableType]
from langchain_core.language_models import LanguageModelInput
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    ToolMessage,
)
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool, ToolException, tool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import BaseModel, Field

from agent_lab.agents.plugins import PluginSet
from agent_lab.answering import LOCAL_CALL_PREFIX, Answerer, is_local_call
from agent_lab.cli import run as cli
from agent_lab.clock import FakeClock
from agent_lab.demo import plugins as demo
from agent_lab.demo.events import timer
from agent_lab.errors import InputFileError, MissingInputError
from agent_lab.integrations.langchain import DeterministicFirstChatModel
from agent_lab.kernel.reply import Reply
from agent_lab.strict_json import JSONValue
from tests.integrations import confirmed
from tests.integrations.booking import ASKING, QUESTION, booking_plugins
from tests.integrations.weather import CITY, WEATHER_TEXT, big_apple, rules_file

SYSTEM = "You set timers."
timers: list[int] = []


@tool
def set_timer(duration_seconds: int, label: str | None = None) -> str:
    """Start a countdown timer.

    Args:
        duration_seconds: How long, in seconds.
        label: What the timer is for.
    """
    timers.append(duration_seconds)
    return f"timer set for {duration_seconds} s"


@tool("set_timer", return_direct=True)
def set_timer_and_stop(duration_seconds: int, label: str | None = None) -> str:
    """Start a countdown timer.

    Args:
        duration_seconds: How long, in seconds.
        label: What the timer is for.
    """
    timers.append(duration_seconds)
    return f"timer set for {duration_seconds} s"


class ToolCallingFake(GenericFakeChatModel):
    """LangChain's fake chat model, with the ``bind_tools`` a tool-calling model has."""

    requests: list[list[BaseMessage]] = Field(default_factory=list[list[BaseMessage]])
    bound_tools: list[dict[str, Any]] = Field(default_factory=list[dict[str, Any]])

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Any],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        self.bound_tools = [convert_to_openai_tool(t) for t in tools]
        return self.bind(tools=self.bound_tools, tool_choice=tool_choice, **kwargs)

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        self.requests.append(list(messages))
        return super()._generate(messages, *args, **kwargs)


def fake(*replies: AIMessage) -> ToolCallingFake:
    return ToolCallingFake(messages=iter(replies))


def agent(
    model: DeterministicFirstChatModel, tools: list[BaseTool] | None = None, **options: Any
) -> Any:
    return create_agent(model, tools or [set_timer], system_prompt=SYSTEM, **options)


def ask(text: str) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": text}]}


def setup_function() -> None:
    timers.clear()


def test_a_complete_request_runs_the_tool_with_no_wrapped_model_call() -> None:
    """Plain code completes set_timer: the agent runs the tool; the wrapped model is never asked."""
    wrapped = fake()
    model = DeterministicFirstChatModel(wrapped, demo)

    out = agent(model, [set_timer_and_stop]).invoke(ask("start a 3 minute timer"))

    assert timers == [180]
    assert wrapped.requests == []
    _, decided, result = out["messages"]
    assert isinstance(decided, AIMessage)
    [call] = decided.tool_calls
    assert (call["name"], call["args"]) == ("set_timer", {"duration_seconds": 180})
    assert is_local_call(call["id"])
    assert decided.usage_metadata == {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0}
    ledger = decided.response_metadata["agent_lab"]["ledger"]
    assert (ledger["event"], ledger["status"]) == ("set_timer", "success")
    assert isinstance(result, ToolMessage)
    assert result.content == "timer set for 180 s"


def test_the_turn_after_a_local_call_is_the_wrapped_models_with_the_call_and_its_result() -> None:
    """The tool's result ends the conversation: the model's to continue, with our call in it."""
    reply = AIMessage(content="Your 3 minute timer is running.", id="reply-1")
    wrapped = fake(reply)

    out = agent(DeterministicFirstChatModel(wrapped, demo)).invoke(ask("start a 3 minute timer"))

    assert timers == [180]
    [request] = wrapped.requests
    assert [type(m).__name__ for m in request] == [
        "SystemMessage",
        "HumanMessage",
        "AIMessage",
        "ToolMessage",
    ]
    assert is_local_call(cast("ToolMessage", request[3]).tool_call_id)
    assert out["messages"][-1].content == "Your 3 minute timer is running."
    assert out["messages"][-1].id == "reply-1"


def test_missing_information_asks_the_wrapped_model_once_and_uses_its_answer_unchanged() -> None:
    """No duration said: the wrapped model is asked with the tools bound; its tool call stands."""
    own = AIMessage(
        content="",
        id="model-1",
        tool_calls=[{"name": "set_timer", "args": {"duration_seconds": 60}, "id": "call_model"}],
        usage_metadata={"input_tokens": 50, "output_tokens": 12, "total_tokens": 62},
    )
    wrapped = fake(own, AIMessage(content="Done.", id="reply-1"))

    out = agent(DeterministicFirstChatModel(wrapped, demo)).invoke(ask("set a timer"))

    assert len(wrapped.requests) == 2
    assert [t["function"]["name"] for t in wrapped.bound_tools] == ["set_timer"]
    decided = out["messages"][1]
    assert decided.id == "model-1"
    assert decided.tool_calls == own.tool_calls
    assert decided.usage_metadata == own.usage_metadata
    assert timers == [60]


def test_an_async_run_answers_locally_and_delegates_the_same_way() -> None:
    """``ainvoke``: the local call, then the wrapped model for the reply, once."""
    wrapped = fake(AIMessage(content="Running.", id="reply-1"))
    graph = agent(DeterministicFirstChatModel(wrapped, demo))

    out = asyncio.run(graph.ainvoke(ask("start a 3 minute timer")))

    assert timers == [180]
    assert len(wrapped.requests) == 1
    assert is_local_call(out["messages"][1].tool_calls[0]["id"])
    assert out["messages"][-1].content == "Running."


def test_a_streamed_run_gets_the_local_answer_as_a_chunk_and_the_models_tokens_after() -> None:
    """``stream_mode="messages"``: our call as one chunk, then the wrapped model's own tokens."""
    wrapped = fake(AIMessage(content="Your timer is running.", id="reply-1"))
    graph = agent(DeterministicFirstChatModel(wrapped, demo))

    chunks = [
        message
        for message, _ in graph.stream(ask("start a 3 minute timer"), stream_mode="messages")
        if isinstance(message, AIMessageChunk)
    ]

    assert timers == [180]
    [local] = chunks[0].tool_call_chunks
    assert is_local_call(local["id"])
    assert json.loads(local["args"] or "") == {"duration_seconds": 180}
    assert "".join(str(c.content) for c in chunks[1:]) == "Your timer is running."
    assert len(wrapped.requests) == 1


def test_a_streamed_call_the_model_must_answer_is_the_wrapped_models_stream() -> None:
    """``stream`` with missing information: the wrapped model's chunks, as it streamed them."""
    wrapped = fake(AIMessage(content="How long should it run?", id="q-1"))
    model = DeterministicFirstChatModel(wrapped, demo).bind_tools([set_timer])

    chunks = list(model.stream([HumanMessage("set a timer")]))

    assert [c.content for c in chunks] == [
        "How",
        " ",
        "long",
        " ",
        "should",
        " ",
        "it",
        " ",
        "run?",
    ]
    assert {c.id for c in chunks} == {"q-1"}
    assert len(wrapped.requests) == 1


@tool
def get_weather_now(city: str) -> str:
    """The weather now in a city.

    Args:
        city: The city.
    """
    return f"sunny in {city}"


@pytest.mark.parametrize(
    "tool_choice",
    ["get_weather_now", {"type": "function", "function": {"name": "get_weather_now"}}, "none"],
    ids=["another tool named", "another tool named, as a dict", "none"],
)
def test_a_tool_choice_that_binds_the_model_otherwise_goes_to_the_model(tool_choice: Any) -> None:
    """``tool_choice`` naming another tool than plain code decides, or ``none``: delegated."""
    wrapped = fake(AIMessage(content="Done.", id="reply-1"))
    model = DeterministicFirstChatModel(wrapped, demo).bind_tools(
        [set_timer, get_weather_now], tool_choice=tool_choice
    )

    answer = model.invoke("start a 3 minute timer")

    assert answer.id == "reply-1"
    assert len(wrapped.requests) == 1


def forcing(name: str) -> Any:
    """Middleware forcing ``name`` on the user's turn, as LangChain lets a step choose its tool."""
    from langchain.agents.middleware import wrap_model_call

    @wrap_model_call
    def force(request: Any, handler: Any) -> Any:
        if isinstance(request.messages[-1], HumanMessage):
            request = request.override(tool_choice=name)
        return handler(request)

    return force


def test_the_tool_a_tool_choice_names_is_answered_locally_and_another_is_the_models() -> None:
    """create_agent with ``tool_choice="set_timer"`` on the user's turn: plain code's call.

    Named ``get_weather_now`` instead, the call plain code decides (set_timer) would
    break the choice: the wrapped model gets the turn.
    """
    wrapped = fake(
        AIMessage(content="Running.", id="reply-1"), AIMessage(content="Sunny.", id="reply-2")
    )
    model = DeterministicFirstChatModel(wrapped, demo)
    tools: list[BaseTool] = [set_timer, get_weather_now]

    named = agent(model, tools, middleware=[forcing("set_timer")])
    out = named.invoke(ask("start a 3 minute timer"))
    other = agent(model, tools, middleware=[forcing("get_weather_now")])
    forwarded = other.invoke(ask("start a 3 minute timer"))

    decided = out["messages"][1]
    assert isinstance(decided, AIMessage)
    [call] = decided.tool_calls
    assert (call["name"], is_local_call(call["id"])) == ("set_timer", True)
    assert out["messages"][-1].id == "reply-1"
    assert timers == [180]
    assert forwarded["messages"][-1].id == "reply-2"
    assert len(wrapped.requests) == 2  # the follow-up of the first run; the second's turn
    assert isinstance(wrapped.requests[1][-1], HumanMessage)


@pytest.mark.parametrize(
    ("awaited", "streamed"),
    [(False, False), (False, True), (True, False), (True, True)],
    ids=["generate", "generate, streamed", "agenerate", "agenerate, streamed"],
)
def test_the_legacy_generate_calls_answer_locally_and_delegate_inside_their_own_run(
    awaited: bool, streamed: bool
) -> None:
    """``generate()``/``agenerate()`` go through ``_generate``/``_stream`` and their async
    twins: local when complete, else the wrapped model, once."""
    wrapped = fake(AIMessage(content="How long?", id="q-1"))
    model = cast(
        "DeterministicFirstChatModel",
        DeterministicFirstChatModel(wrapped, demo).bind_tools([set_timer]),
    )
    asked: list[list[BaseMessage]] = [
        [HumanMessage("start a 3 minute timer")],
        [HumanMessage("set a timer")],
    ]
    options: dict[str, Any] = {"stream": True} if streamed else {}

    if awaited:
        result = asyncio.run(model.agenerate(asked, **options))
    else:
        result = model.generate(asked, **options)

    local, delegated = (cast("ChatGeneration", g[0]).message for g in result.generations)
    assert is_local_call(cast("AIMessage", local).tool_calls[0]["id"])
    assert delegated.id == "q-1"
    assert delegated.text == "How long?"
    assert len(wrapped.requests) == 1


def test_an_async_stream_answers_locally_and_streams_the_wrapped_model_otherwise() -> None:
    """``astream``: our call as one chunk; with missing information, the wrapped model's chunks."""
    wrapped = fake(AIMessage(content="How long?", id="q-1"))
    model = DeterministicFirstChatModel(wrapped, demo).bind_tools([set_timer])

    async def both() -> tuple[list[AIMessage], list[AIMessage]]:
        local = [c async for c in model.astream("start a 3 minute timer")]
        asked = [c async for c in model.astream("set a timer")]
        return local, asked

    local, asked = asyncio.run(both())

    [chunk] = local
    assert is_local_call(cast("AIMessageChunk", chunk).tool_call_chunks[0]["id"])
    assert [c.content for c in asked] == ["How", " ", "long?"]
    assert len(wrapped.requests) == 1


# Declared replies: the turn after the local call, said with no model --------------------------


@tool("set_timer")
def set_timer_json(duration_seconds: int, label: str | None = None) -> dict[str, Any]:
    """Start a countdown timer.

    Args:
        duration_seconds: How long, in seconds.
        label: What the timer is for.
    """
    timers.append(duration_seconds)
    return {"seconds": duration_seconds, "label": label}


def replying(reply: Reply) -> PluginSet:
    """The demo's set_timer (its resolver, its route), its result said by ``reply``."""
    return PluginSet(
        "timers", (dataclasses.replace(timer.EVENT, reply=reply),), routes=(timer.ROUTE,)
    )


def reasons(messages: list[BaseMessage]) -> list[str]:
    """The reason of each local answer among the messages, from its ``response_metadata``."""
    return [
        m.response_metadata["agent_lab"]["ledger"]["reason"]
        for m in messages
        if isinstance(m, AIMessage) and "agent_lab" in m.response_metadata
    ]


ZERO = {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0}


def test_a_declared_reply_ends_the_turn_with_no_wrapped_model_call() -> None:
    """The agent runs the local call, then the event's template says the result: no request."""
    wrapped = fake()
    model = DeterministicFirstChatModel(wrapped, replying("Timer set for {seconds} s"))

    out = agent(model, [set_timer_json]).invoke(ask("start a 3 minute timer"))

    assert timers == [180]
    assert wrapped.requests == []
    said = out["messages"][-1]
    assert isinstance(said, AIMessage)
    assert (said.content, said.tool_calls) == ("Timer set for 180 s", [])
    assert said.usage_metadata == ZERO
    assert said.response_metadata["agent_lab"]["reason"] == "local_reply"
    assert reasons(out["messages"]) == ["completed", "local_reply"]


def started(result: JSONValue) -> str:
    return f"Started: {result}"


def test_a_reply_function_says_the_result() -> None:
    """A function of the result (here the tool's text) works as a template does."""
    wrapped = fake()

    out = agent(DeterministicFirstChatModel(wrapped, replying(started))).invoke(
        ask("start a 3 minute timer")
    )

    assert out["messages"][-1].content == "Started: timer set for 180 s"
    assert wrapped.requests == []


def test_a_reply_that_does_not_fit_the_result_leaves_the_words_to_the_wrapped_model() -> None:
    """A template naming a key the result lacks is no reply: the model is asked, once."""
    words = AIMessage(content="Your 3 minute timer is running.", id="reply-1")
    wrapped = fake(words)
    model = DeterministicFirstChatModel(wrapped, replying("Set for {minutes} min"))

    out = agent(model, [set_timer_json]).invoke(ask("start a 3 minute timer"))

    assert timers == [180]
    assert len(wrapped.requests) == 1
    last = out["messages"][-1]
    assert (last.id, last.content) == ("reply-1", "Your 3 minute timer is running.")
    assert reasons(out["messages"]) == ["completed"]


def test_an_async_run_ends_with_the_reply_too() -> None:
    """``ainvoke``: the same turn, the same words, no request."""
    wrapped = fake()
    graph = agent(
        DeterministicFirstChatModel(wrapped, replying("Timer set for {seconds} s")),
        [set_timer_json],
    )

    out = asyncio.run(graph.ainvoke(ask("start a 3 minute timer")))

    assert out["messages"][-1].content == "Timer set for 180 s"
    assert wrapped.requests == []


@pytest.mark.parametrize("awaited", [False, True], ids=["stream", "astream"])
def test_a_streamed_run_ends_with_the_reply_and_asks_no_model(awaited: bool) -> None:
    """``stream_mode="messages"``: our call as one chunk, then the reply's words as one."""
    wrapped = fake()
    graph = agent(
        DeterministicFirstChatModel(wrapped, replying("Timer set for {seconds} s")),
        [set_timer_json],
    )

    async def astreamed() -> list[Any]:
        return [
            m async for m, _ in graph.astream(ask("start a 3 minute timer"), stream_mode="messages")
        ]

    if awaited:
        streamed = asyncio.run(astreamed())
    else:
        streamed = [
            m for m, _ in graph.stream(ask("start a 3 minute timer"), stream_mode="messages")
        ]

    chunks = [m for m in streamed if isinstance(m, AIMessageChunk)]
    assert [c.content for c in chunks] == ["", "Timer set for 180 s"]
    assert chunks[-1].tool_call_chunks == []
    assert chunks[-1].usage_metadata == ZERO
    assert chunks[-1].response_metadata["agent_lab"]["reason"] == "local_reply"
    assert (timers, wrapped.requests) == ([180], [])


@tool("set_timer")
def broken_timer(duration_seconds: int, label: str | None = None) -> str:
    """Start a countdown timer.

    Args:
        duration_seconds: How long, in seconds.
        label: What the timer is for.
    """
    raise ToolException("timers are broken")


broken_timer.handle_tool_error = True


def test_a_tool_that_failed_is_the_wrapped_models_to_explain() -> None:
    """A tool's error (``status="error"``) is never replied to, whatever the reply says."""
    wrapped = fake(AIMessage(content="The timer could not be set.", id="reply-1"))
    model = DeterministicFirstChatModel(wrapped, replying(started))

    out = agent(model, [broken_timer]).invoke(ask("start a 3 minute timer"))

    assert cast("ToolMessage", out["messages"][-2]).status == "error"
    assert out["messages"][-1].id == "reply-1"
    assert len(wrapped.requests) == 1


class Started(BaseModel):
    seconds: int


def test_with_structured_output_the_reply_is_not_the_response() -> None:
    """``response_format``: the call is local, the structured response the wrapped model's."""
    answer = AIMessage(
        content="",
        tool_calls=[{"name": "Started", "args": {"seconds": 180}, "id": "call_model"}],
    )
    wrapped = fake(answer)
    model = DeterministicFirstChatModel(wrapped, replying("Timer set for {seconds} s"))
    graph = agent(model, [set_timer_json], response_format=Started)

    out = graph.invoke(ask("start a 3 minute timer"))

    assert out["structured_response"] == Started(seconds=180)
    assert timers == [180]
    assert len(wrapped.requests) == 1


def after_a_local_call() -> list[BaseMessage]:
    """A conversation that ends with the result of a call the wrapper made."""
    call_id = LOCAL_CALL_PREFIX + "0001"
    return [
        HumanMessage("start a 3 minute timer"),
        AIMessage(
            content="",
            tool_calls=[{"name": "set_timer", "args": {"duration_seconds": 180}, "id": call_id}],
        ),
        ToolMessage('{"seconds": 180, "label": null}', tool_call_id=call_id),
    ]


@pytest.mark.parametrize(
    "options",
    [
        {"tool_choice": "any"},
        {"tool_choice": "required"},
        {"response_format": {"type": "json_schema", "json_schema": {"name": "Started"}}},
    ],
    ids=["tool_choice any", "tool_choice required", "response_format"],
)
def test_a_binding_that_demands_a_call_or_an_output_leaves_the_turn_to_the_model(
    options: dict[str, Any],
) -> None:
    """Words would break a demanded call or a structured output: the wrapped model answers."""
    wrapped = fake(AIMessage(content="Running.", id="reply-1"))
    model = DeterministicFirstChatModel(wrapped, replying("Timer set for {seconds} s"))

    message = model.bind_tools([set_timer_json], **options).invoke(after_a_local_call())

    assert message.id == "reply-1"
    assert len(wrapped.requests) == 1


def counted_answers(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Each turn the envelope is asked, from now on."""
    decided: list[object] = []
    real = Answerer.answer

    def counting(self: Answerer, *args: Any, **kwargs: Any) -> Any:
        decided.append(args)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Answerer, "answer", counting)
    return decided


def test_a_reply_is_decided_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """invoke decides the reply, and the _generate its LangChain run goes through reuses it."""
    decided = counted_answers(monkeypatch)
    model = DeterministicFirstChatModel(fake(), replying("Timer set for {seconds} s"))

    message = model.bind_tools([set_timer_json]).invoke(after_a_local_call())

    assert (message.content, len(decided)) == ("Timer set for 180 s", 1)


def test_shadow_mode_never_replies_locally() -> None:
    """A shadow makes no call of its own, so no reply either: the model says every result."""
    wrapped = fake(model_call(180), model_words("Running."))
    model = DeterministicFirstChatModel(wrapped, replying("Timer set for {seconds} s"), shadow=True)

    out = agent(model, [set_timer_json]).invoke(ask("start a 3 minute timer"))

    assert out["messages"][-1].content == "Running."
    assert len(wrapped.requests) == 2
    figures: dict[str, Any] = json.loads(json.dumps(model.figures.as_json()))
    assert (figures["calls"], figures["covered"], figures["follow_ups"]) == (1, 1, 1)


# Shadow mode --------------------------------------------------------------------------------

SPEC = convert_to_openai_tool(set_timer)


TICK_MS = 4.0
"""How long the wrapped model takes each call, by the fake clock the shadow tests give."""


def logged(
    messages: list[dict[str, Any]], answer: dict[str, Any], tokens: tuple[int, int]
) -> dict[str, Any]:
    return {
        "request": {"messages": messages, "tools": [SPEC]},
        "response": {
            "model": "gpt-4o-mini",
            "choices": [{"message": {"role": "assistant", **answer}}],
            "usage": {"prompt_tokens": tokens[0], "completion_tokens": tokens[1]},
        },
        "latency_ms": TICK_MS,
    }


def pairs(text: str, seconds: int) -> list[dict[str, Any]]:
    """One run's two requests, as a proxy in front of a Chat Completions model logs them."""
    asked = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": text}]
    arguments = json.dumps({"duration_seconds": seconds})
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "set_timer", "arguments": arguments},
    }
    follow = [
        *asked,
        {"role": "assistant", "content": "", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_1", "content": f"timer set for {seconds} s"},
    ]
    return [
        logged(asked, {"content": None, "tool_calls": [call]}, (50, 12)),
        logged(follow, {"content": "Running."}, (40, 8)),
    ]


def model_call(seconds: int) -> AIMessage:
    return AIMessage(
        content="",
        tool_calls=[{"name": "set_timer", "args": {"duration_seconds": seconds}, "id": "call_1"}],
        usage_metadata={"input_tokens": 50, "output_tokens": 12, "total_tokens": 62},
        response_metadata={"model_name": "gpt-4o-mini"},
    )


def model_words(text: str) -> AIMessage:
    return AIMessage(
        content=text,
        usage_metadata={"input_tokens": 40, "output_tokens": 8, "total_tokens": 48},
        response_metadata={"model_name": "gpt-4o-mini"},
    )


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
    for cause in document["disagreements"].values():
        for example in cause["examples"]:
            example.pop("where")
    return document


def test_shadow_mode_always_asks_the_model_and_counts_what_agent_lab_shadow_counts(
    tmp_path: Path,
) -> None:
    """Three runs in shadow mode: the figures equal ``agent-lab shadow``'s on their pairs log."""
    wrapped = fake(
        model_call(180),
        model_words("Running."),
        model_call(100),
        model_words("Running."),
        model_words("How long should it run?"),
    )
    clock = FakeClock(tick_ns=int(TICK_MS * 1e6))
    model = DeterministicFirstChatModel(wrapped, demo, shadow=True, clock=clock)
    graph = agent(model)

    for text in ("start a 3 minute timer", "set a 2 minute timer", "set a timer"):
        graph.invoke(ask(text))

    assert len(wrapped.requests) == 5
    assert timers == [180, 100]
    lines = [
        *pairs("start a 3 minute timer", 180),
        *pairs("set a 2 minute timer", 100),
        logged(
            [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "set a timer"}],
            {"content": "How long should it run?"},
            (40, 8),
        ),
    ]
    log = tmp_path / "exchanges.jsonl"
    log.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    measured: dict[str, Any] = json.loads(json.dumps(model.figures.as_json()))
    assert without_where(measured) == without_where(shadow_json(log))
    assert (measured["calls"], measured["covered"], measured["follow_ups"]) == (2, 2, 2)
    assert measured["agreement"]["right"] == 1
    assert measured["saved"]["requests"] == 1  # covered and agreed
    assert measured["saved"]["latency_ms"] == TICK_MS


@pytest.mark.parametrize("streamed", [False, True], ids=["invoke", "stream"])
def test_shadow_figures_carry_the_time_the_wrapped_model_took(streamed: bool) -> None:
    """The clock given times each call the wrapped model answers: the latency a local answer
    saves, as ``agent-lab shadow`` reads a log's ``latency_ms``."""
    # The fake streams a call only as the OpenAI-format field it came in.
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "set_timer", "arguments": json.dumps({"duration_seconds": 180})},
    }
    wrapped = fake(AIMessage(content="", additional_kwargs={"tool_calls": [call]}))
    clock = FakeClock(tick_ns=7_000_000)
    model = DeterministicFirstChatModel(wrapped, demo, shadow=True, clock=clock)
    bound = model.bind_tools([set_timer])
    asked = [HumanMessage("start a 3 minute timer")]

    if streamed:
        list(bound.stream(asked))
    else:
        bound.invoke(asked)

    saved: dict[str, Any] = json.loads(json.dumps(model.figures.as_json()))["saved"]
    assert (saved["requests"], saved["latency_ms"], saved["latency_unknown_for"]) == (1, 7.0, 0)


def test_every_copy_of_the_wrapper_counts_into_the_same_figures() -> None:
    """bind_tools' copies, and deep copies, share the settings and the shadow's tally."""
    wrapped = fake(model_call(180), model_call(180))
    model = DeterministicFirstChatModel(wrapped, demo, shadow=True)
    bound = cast("DeterministicFirstChatModel", model.bind_tools([set_timer]))
    deep = model.model_copy(deep=True).bind_tools([set_timer])

    bound.invoke([HumanMessage("start a 3 minute timer")])
    deep.invoke([HumanMessage("start a 3 minute timer")])

    assert bound.figures is model.figures
    assert (model.figures.requests, bound.plugins) == (2, demo)


def test_shadow_mode_counts_a_streamed_call_from_its_chunks() -> None:
    """Streamed, the answer is the wrapped model's chunks added up; tokens it never gave are
    unknown, not 0 (the fake streams no usage)."""
    arguments = json.dumps({"duration_seconds": 180})
    streamable = AIMessage(
        content="",
        # The fake streams a call only as the OpenAI-format field it came in.
        additional_kwargs={
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "set_timer", "arguments": arguments},
                }
            ]
        },
    )
    wrapped = fake(streamable)
    model = DeterministicFirstChatModel(wrapped, demo, shadow=True).bind_tools([set_timer])

    chunks = [
        cast("AIMessageChunk", c) for c in model.stream([HumanMessage("start a 3 minute timer")])
    ]

    assert chunks[0].tool_call_chunks[0]["id"] == "call_1"
    shadowed = cast("DeterministicFirstChatModel", model)
    figures: dict[str, Any] = json.loads(json.dumps(shadowed.figures.as_json()))
    assert (figures["calls"], figures["covered"], figures["agreement"]["right"]) == (1, 1, 1)
    assert figures["saved"]["prompt_tokens"] is None
    assert figures["saved"]["tokens_unknown_for"] == 1


def test_a_delegated_call_is_counted_once_by_langchains_usage_callback() -> None:
    """The wrapped model's own run is the only run of a delegated call: its tokens count once."""
    from langchain_core.callbacks import get_usage_metadata_callback

    wrapped = fake(model_words("How long should it run?"))
    model = DeterministicFirstChatModel(wrapped, demo).bind_tools([set_timer])

    with get_usage_metadata_callback() as usage:
        model.invoke("start a 3 minute timer")
        model.invoke("set a timer")

    assert usage.usage_metadata == {
        "agent-lab": {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0},
        "gpt-4o-mini": {"input_tokens": 40, "output_tokens": 8, "total_tokens": 48},
    }


def test_a_turn_answered_locally_is_decided_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """invoke decides, and the _generate its LangChain run goes through reuses that answer."""
    decided = counted_answers(monkeypatch)
    model = DeterministicFirstChatModel(fake(), demo).bind_tools([set_timer_and_stop])
    message = model.invoke([HumanMessage("start a 3 minute timer")])
    assert isinstance(message, AIMessage)
    assert [c["name"] for c in message.tool_calls] == ["set_timer"]
    assert len(decided) == 1


@pytest.mark.parametrize("awaited", [False, True], ids=["stream", "astream"])
def test_a_streamed_turn_answered_locally_is_decided_once_and_traced_once(
    monkeypatch: pytest.MonkeyPatch, awaited: bool
) -> None:
    """stream decides, and the _stream its LangChain run goes through reuses that answer:
    one decision, one ``execute_tool`` span."""
    pytest.importorskip("opentelemetry.sdk", reason="the otel extra is not installed")
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from agent_lab.otel import Tracing

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    decided = counted_answers(monkeypatch)
    model = DeterministicFirstChatModel(fake(), demo, tracing=Tracing(provider))
    bound = model.bind_tools([set_timer])
    asked = [HumanMessage("start a 3 minute timer")]

    async def astreamed() -> list[Any]:
        return [chunk async for chunk in bound.astream(asked)]

    chunks = asyncio.run(astreamed()) if awaited else list(bound.stream(asked))

    [chunk] = chunks
    assert is_local_call(cast("AIMessageChunk", chunk).tool_call_chunks[0]["id"])
    assert len(decided) == 1
    assert [span.name for span in exporter.get_finished_spans()] == ["execute_tool set_timer"]


# A parameter only the user can supply ------------------------------------------------------

booked: list[int] = []


@tool
def book_table(party_size: int, time: str | None = None) -> str:
    """Book a table at the restaurant.

    Args:
        party_size: How many people.
        time: When.
    """
    booked.append(party_size)
    return f"booked for {party_size}"


def test_a_missing_user_only_value_is_asked_of_the_user_with_no_wrapped_model_call() -> None:
    """The party size is the user's to say: the agent ends with the question, no request made."""
    booked.clear()
    wrapped = fake()
    model = DeterministicFirstChatModel(wrapped, booking_plugins())

    out = agent(model, [book_table]).invoke(ask(ASKING))

    _, asked = out["messages"]
    assert isinstance(asked, AIMessage)
    assert (asked.content, asked.tool_calls) == (QUESTION, [])
    assert asked.usage_metadata == {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0}
    assert asked.response_metadata["agent_lab"]["reason"] == "user_only_missing"
    assert asked.response_metadata["agent_lab"]["ledger"]["reason"] == "user_only_missing"
    assert (wrapped.requests, booked) == ([], [])


def test_async_and_streamed_runs_ask_for_a_user_only_value_with_no_wrapped_model_call() -> None:
    """``ainvoke`` and ``stream_mode="messages"``: the same question, no request."""
    wrapped = fake()
    graph = agent(DeterministicFirstChatModel(wrapped, booking_plugins()), [book_table])

    out = asyncio.run(graph.ainvoke(ask(ASKING)))
    chunks = [
        message
        for message, _ in graph.stream(ask(ASKING), stream_mode="messages")
        if isinstance(message, AIMessageChunk)
    ]

    assert out["messages"][-1].content == QUESTION
    assert "".join(str(chunk.content) for chunk in chunks) == QUESTION
    assert wrapped.requests == []


class Booking(BaseModel):
    party_size: int


@pytest.mark.parametrize(
    "options",
    [
        {"tool_choice": "any"},
        {"tool_choice": "required"},
        {"response_format": {"type": "json_schema", "json_schema": {"name": "Booking"}}},
    ],
    ids=["tool_choice any", "tool_choice required", "response_format"],
)
def test_a_binding_that_demands_a_call_or_an_output_leaves_the_question_to_the_model(
    options: dict[str, Any],
) -> None:
    """Words would break a demanded call or a structured output: the wrapped model answers."""
    wrapped = fake(AIMessage(content="For how many?", id="reply-1"))
    model = DeterministicFirstChatModel(wrapped, booking_plugins())

    asked = model.bind_tools([book_table]).invoke([HumanMessage(ASKING)])
    message = model.bind_tools([book_table], **options).invoke([HumanMessage(ASKING)])

    assert asked.content == QUESTION  # bound plainly, words may end the turn: no model
    assert message.id == "reply-1"
    assert len(wrapped.requests) == 1


def test_with_structured_output_a_missing_user_only_value_is_the_models_turn() -> None:
    """``create_agent(response_format=...)``: the ``Booking`` is the wrapped model's to give."""
    answer = AIMessage(
        content="", tool_calls=[{"name": "Booking", "args": {"party_size": 2}, "id": "call_1"}]
    )
    wrapped = fake(answer)
    model = DeterministicFirstChatModel(wrapped, booking_plugins())

    asked = agent(model, [book_table]).invoke(ask(ASKING))
    out = agent(model, [book_table], response_format=Booking).invoke(ask(ASKING))

    assert asked["messages"][-1].content == QUESTION  # no response_format: no model
    assert out["structured_response"] == Booking(party_size=2)
    assert len(wrapped.requests) == 1


def test_shadow_mode_leaves_the_question_to_the_wrapped_model() -> None:
    """A shadow never answers: the model asks, and the figures count the request."""
    wrapped = fake(AIMessage(content="For how many?", id="reply-1"))
    model = DeterministicFirstChatModel(wrapped, booking_plugins(), shadow=True)
    enforcing = DeterministicFirstChatModel(wrapped, booking_plugins())

    asked = agent(enforcing, [book_table]).invoke(ask(ASKING))
    out = agent(model, [book_table]).invoke(ask(ASKING))

    assert asked["messages"][-1].content == QUESTION
    assert out["messages"][-1].content == "For how many?"
    assert len(wrapped.requests) == 1
    assert model.figures.requests == 1


cities: list[str] = []


@tool(return_direct=True)
def get_weather(city: str) -> str:
    """The weather forecast for a city.

    Args:
        city: The city.
    """
    cities.append(city)
    return f"sunny in {city}"


def weather_call() -> AIMessage:
    return AIMessage(
        content="", tool_calls=[{"name": "get_weather", "args": {"city": CITY}, "id": "call_1"}]
    )


@pytest.mark.parametrize("rules", [False, True], ids=["without", "with"])
def test_learned_rules_complete_a_call_only_an_alias_reads(rules: bool) -> None:
    """``rules=``: "the big apple" is New York, so the tool runs and the model is never asked."""
    cities.clear()
    wrapped = fake(weather_call())
    model = DeterministicFirstChatModel(wrapped, rules=big_apple() if rules else None)

    out = agent(model, [get_weather]).invoke(ask(WEATHER_TEXT))

    assert cities == [CITY]
    assert out["messages"][-1].content == "sunny in New York"
    assert len(wrapped.requests) == (0 if rules else 1)


def test_a_rules_file_is_read_once_when_the_model_is_made(tmp_path: Path) -> None:
    """A path is read at construction (a bad file fails there), then applies as a RuleBook does."""
    cities.clear()
    path = rules_file(tmp_path)
    wrapped = fake()
    model = DeterministicFirstChatModel(wrapped, rules=path)
    path.unlink()  # read once: the file is no longer needed

    out = agent(model, [get_weather]).invoke(ask(WEATHER_TEXT))

    assert (cities, out["messages"][-1].content) == ([CITY], "sunny in New York")
    assert wrapped.requests == []
    with pytest.raises(MissingInputError, match="no such rules file"):
        DeterministicFirstChatModel(wrapped, rules=str(path))
    path.write_text("{}", encoding="utf-8")
    with pytest.raises(InputFileError, match="not a rules file"):
        DeterministicFirstChatModel(wrapped, rules=path)


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
    cities.clear()
    wrapped = fake(weather_call())
    model = DeterministicFirstChatModel(wrapped)

    out = agent(model, [get_weather]).invoke(ask(said))

    assert cities == [city]
    assert out["messages"][-1].content == f"sunny in {city}"
    assert wrapped.requests == []


reserved: list[dict[str, Any]] = []


@tool
def find_tables(city: str) -> str:
    """Find restaurants with a free table in a city.

    Args:
        city: The city.
    """
    return json.dumps(confirmed.FOUND)


@tool(return_direct=True)
def reserve_table(restaurant: str, city: str, guests: int, day: date, at: time) -> str:
    """Reserve a table at a restaurant.

    Args:
        restaurant: The restaurant's name.
        city: The city.
        guests: Guests at the table.
        day: The day.
        at: The time.
    """
    reserved.append(confirmed.booking(restaurant, city, guests, day, at))
    return "booked"


def test_a_confirmed_booking_is_made_from_the_whole_conversation() -> None:
    """The messages hold the search, its result, the choice and the summary: "Yes" books."""
    reserved.clear()
    wrapped = fake()
    model = DeterministicFirstChatModel(wrapped, context=confirmed.NOW)
    history: list[Any] = [
        HumanMessage(confirmed.ASKED_FIRST),
        AIMessage(
            content="", tool_calls=[{"name": "find_tables", "args": {"city": "Ghent"}, "id": "c1"}]
        ),
        ToolMessage(json.dumps(confirmed.FOUND), tool_call_id="c1"),
        AIMessage(confirmed.OFFERED),
        HumanMessage(confirmed.CHOSEN),
        AIMessage(confirmed.SUMMARY),
        HumanMessage(confirmed.YES),
    ]

    out = agent(model, [find_tables, reserve_table]).invoke({"messages": history})

    assert reserved == [confirmed.BOOKED]
    assert out["messages"][-1].content == "booked"
    assert wrapped.requests == []
