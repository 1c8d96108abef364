"""The agents: plain-code routing, LLM routing only on doubt, slot filling, the tool agent."""

from __future__ import annotations

import asyncio
import json
from typing import Any, cast

from agent_lab import Event, EventDefinition, Resolution, Status
from agent_lab.agents.choice import ToolChooser
from agent_lab.agents.decision import Decision
from agent_lab.agents.event_agent import Conversation, EventAgent
from agent_lab.agents.fallback import LLMFallback
from agent_lab.agents.plugins import PluginSet
from agent_lab.agents.tool_agent import ToolAgent
from agent_lab.demo import plugins
from agent_lab.providers import ProviderReply, ProviderRequest, ToolCall
from agent_lab.resolvers.schema import SchemaResolver
from agent_lab.testing import FunctionProvider, ScriptedProvider

NOW = {"now": "2026-12-01T09:00"}


def test_routes_and_resolves_with_plain_code_and_no_llm() -> None:
    """A readable request is routed and resolved without any LLM request."""
    provider = ScriptedProvider([])
    agent = EventAgent(
        plugins, fallback=LLMFallback(provider), chooser=ToolChooser(provider, plugins.definitions)
    )
    reply = asyncio.run(agent.respond("set a timer for 10 minutes for the pasta", context=NOW))
    assert reply.status is Status.SUCCESS
    assert reply.event == "set_timer"
    assert reply.arguments == {"duration_seconds": 600, "label": "pasta"}
    assert (reply.routed_by, reply.llm_calls) == ("router", 0)
    assert provider.requests == []


def test_asks_the_llm_to_choose_only_when_no_route_matches_and_counts_it() -> None:
    """No route: the provider picks the event (one request), and never a second one.

    The choice came with no arguments; LLM-always would stop there, so the
    event agent does too (no regret): what the choice lacks stays missing.
    """
    choose = ProviderReply(
        tool_calls=(ToolCall(name="play_music", arguments_raw="{}", arguments={}),)
    )
    provider = ScriptedProvider([choose])
    agent = EventAgent(
        plugins, fallback=LLMFallback(provider), chooser=ToolChooser(provider, plugins.definitions)
    )
    reply = asyncio.run(agent.respond("I'd like to hear something from Coldplay", context=NOW))
    assert reply.routed_by == "llm"
    assert reply.event == "play_music"
    assert reply.status is Status.MISSING_INFORMATION
    assert (reply.llm_calls, reply.path) == (1, "choice")
    assert [r.purpose for r in provider.requests] == ["tool_choice"]


def test_the_choices_own_arguments_fill_the_gap_with_no_second_request() -> None:
    """The model sent the arguments with its choice: they serve as the fallback reply."""
    raw = '{"query": "Coldplay", "kind": "artist"}'
    choose = ProviderReply(
        tool_calls=(ToolCall(name="play_music", arguments_raw=raw, arguments=json.loads(raw)),)
    )
    provider = ScriptedProvider([choose])
    agent = EventAgent(
        plugins, fallback=LLMFallback(provider), chooser=ToolChooser(provider, plugins.definitions)
    )
    reply = asyncio.run(agent.respond("I'd like to hear something from Coldplay", context=NOW))
    assert reply.status is Status.SUCCESS
    assert reply.arguments == {"query": "Coldplay", "kind": "artist"}
    assert reply.llm_calls == 1
    assert [r.purpose for r in provider.requests] == ["tool_choice"]


def test_out_of_domain_without_a_chooser_is_unknown_event() -> None:
    """Deterministic-only: no route, no LLM: unknown_event with zero calls."""
    reply = asyncio.run(EventAgent(plugins).respond("tell me a joke"))
    assert (reply.status, reply.llm_calls, reply.event) == (Status.UNKNOWN_EVENT, 0, None)


def test_missing_information_is_continued_by_the_next_message() -> None:
    """Slot filling: the pending event keeps what it knew; the next turn fills the rest."""
    conversation = Conversation(EventAgent(plugins))
    first = asyncio.run(conversation.say("start a timer for the pasta", context=NOW))
    assert first.status is Status.MISSING_INFORMATION
    assert first.result is not None
    assert first.result.missing == ("/duration_seconds",)
    assert conversation.pending == "set_timer"
    second = asyncio.run(conversation.say("twelve minutes", context=NOW))
    assert second.status is Status.SUCCESS
    assert second.arguments == {"label": "pasta", "duration_seconds": 720}
    assert conversation.pending is None


def test_a_new_topic_drops_the_pending_event() -> None:
    """If the next message routes to another event, the user changed topic."""
    conversation = Conversation(EventAgent(plugins))
    asyncio.run(conversation.say("remind me to buy milk", context=NOW))
    assert conversation.pending == "set_reminder"
    reply = asyncio.run(conversation.say("what's the weather in Oslo", context=NOW))
    assert reply.event == "get_weather"
    assert reply.status is Status.SUCCESS


def tool_agent(arguments_raw: str, parsed: object, name: str = "set_timer") -> ToolAgent:
    call = ToolCall(name=name, arguments_raw=arguments_raw, arguments=parsed)  # type: ignore[arg-type]
    return ToolAgent(plugins, FunctionProvider(lambda request: ProviderReply(tool_calls=(call,))))


def test_tool_agent_is_judged_by_the_same_rules() -> None:
    """The model's choice runs through the same validation, audit and handler."""
    ok = asyncio.run(
        tool_agent('{"duration_seconds": 60}', {"duration_seconds": 60}).respond("a minute")
    )
    assert (ok.status, ok.arguments, ok.llm_calls) == (Status.SUCCESS, {"duration_seconds": 60}, 1)
    assert ok.result is not None
    assert ok.result.output == {"started": True, "seconds": 60, "label": None}
    missing = asyncio.run(tool_agent("{}", {}).respond("a timer"))
    assert missing.status is Status.MISSING_INFORMATION
    invalid = asyncio.run(
        tool_agent('{"duration_seconds": -5}', {"duration_seconds": -5}).respond("x")
    )
    assert invalid.status is Status.INVALID_ARGUMENTS
    nan = asyncio.run(
        tool_agent('{"duration_seconds": NaN}', json.loads('{"d": NaN}')).respond("x")
    )
    assert (nan.status, nan.reason) == (Status.FALLBACK_FAILED, "fallback_invalid_json")
    mismatch = asyncio.run(
        tool_agent('{"duration_seconds": 1}', {"duration_seconds": 1.0}).respond("x")
    )
    assert mismatch.reason == "fallback_mismatch"


def test_tool_agent_without_a_usable_call() -> None:
    """No call or an unknown tool: unknown_event, the request counted."""
    silent = ToolAgent(plugins, FunctionProvider(lambda request: ProviderReply(text="no idea")))
    reply = asyncio.run(silent.respond("tell me a joke"))
    assert (reply.status, reply.llm_calls) == (Status.UNKNOWN_EVENT, 1)
    unknown = asyncio.run(tool_agent("{}", {}, name="launch_rocket").respond("launch"))
    assert unknown.status is Status.UNKNOWN_EVENT


def _offered(request: ProviderRequest) -> list[str]:
    return sorted(str(cast("Any", tool)["function"]["name"]) for tool in request.tools)


def test_candidates_limit_what_either_agent_offers_the_model() -> None:
    """A case offering a few functions (BFCL) shows the model only those tools."""
    seen: list[list[str]] = []

    def reply(request: ProviderRequest) -> ProviderReply:
        seen.append(_offered(request))
        return ProviderReply(text="none of these")

    provider = FunctionProvider(reply)
    tool_agent = ToolAgent(plugins, provider)
    candidates = ("play_music", "get_weather")
    outcome = asyncio.run(tool_agent.respond("hum something", candidates=candidates))
    assert outcome.status is Status.UNKNOWN_EVENT
    event_agent = EventAgent(plugins, chooser=ToolChooser(provider, plugins.definitions))
    # "set a timer" routes to set_timer, which is not a candidate: the model decides.
    asyncio.run(event_agent.respond("set a timer for 5 minutes", candidates=candidates))
    asyncio.run(tool_agent.respond("set a timer", event="set_timer"))
    assert seen == [sorted(candidates), sorted(candidates), ["set_timer"]]


def _echo_plugins(gate: asyncio.Barrier) -> PluginSet:
    """One event whose resolver waits until every message in flight reached it."""

    async def resolve(event: Event) -> Resolution:
        await gate.wait()
        return Resolution({}, complete=False)

    echo = EventDefinition(
        "echo",
        parameters={
            "type": "object",
            "properties": {"word": {"type": "string"}},
            "required": ["word"],
            "additionalProperties": False,
        },
        resolver=resolve,
        handler=dict,
    )
    return PluginSet("echo", (echo,))


def _echo_each_message(gate: asyncio.Barrier) -> FunctionProvider:
    """Calls ``echo`` with the message's words, once every message in flight has asked."""

    async def reply(request: ProviderRequest) -> ProviderReply:
        await gate.wait()
        raw = json.dumps({"word": request.messages[-1].content})
        call = ToolCall(name="echo", arguments_raw=raw, arguments=json.loads(raw))
        return ProviderReply(tool_calls=(call,))

    return FunctionProvider(reply)


def test_concurrent_messages_on_one_agent_never_see_each_others_choice() -> None:
    """Both messages wait inside the kernel at once; each fallback serves its own choice."""

    async def both() -> tuple[Decision, ...]:
        provider = _echo_each_message(asyncio.Barrier(2))
        plugins = _echo_plugins(asyncio.Barrier(2))
        event_agent = EventAgent(
            plugins,
            fallback=LLMFallback(provider),
            chooser=ToolChooser(provider, plugins.definitions),
        )
        first = await asyncio.gather(event_agent.respond("alpha"), event_agent.respond("beta"))
        tool_agent = ToolAgent(plugins, provider)
        second = await asyncio.gather(tool_agent.respond("gamma"), tool_agent.respond("delta"))
        assert [r.purpose for r in provider.requests] == ["tool_choice"] * 4
        return (*first, *second)

    replies = asyncio.run(both())
    assert [reply.arguments for reply in replies] == [
        {"word": word} for word in ("alpha", "beta", "gamma", "delta")
    ]
    assert [(reply.status, reply.llm_calls) for reply in replies] == [(Status.SUCCESS, 1)] * 4


def test_a_failed_routing_request_is_a_failure_never_a_decline() -> None:
    """The event-choosing request got no reply: fallback_failed with its reason and attempt.

    Were it ``unknown_event`` (no route), an out-of-domain case would score it
    as a right decline, and an outage would raise deterministic-first's accuracy.
    """
    from agent_lab.providers import FailureReason, ProviderFailure
    from agent_lab.usage import Usage

    failed = ProviderReply(
        usage=Usage(requests=3, succeeded=0),
        failure=ProviderFailure(reason=FailureReason.CONNECTION_ERROR, message="refused"),
        latency_ns=5_000,
    )
    provider = ScriptedProvider([failed])
    agent = EventAgent(
        plugins, fallback=LLMFallback(provider), chooser=ToolChooser(provider, plugins.definitions)
    )
    reply = asyncio.run(agent.respond("tell me a joke", context=NOW))
    assert reply.status is Status.FALLBACK_FAILED
    assert (reply.reason, reply.message, reply.llm_calls) == ("connection_error", "refused", 3)
    ledger = reply.ledger
    [attempt] = ledger.route.attempts
    assert (attempt.outcome, attempt.reason, attempt.usage.requests) == (
        "error",
        "connection_error",
        3,
    )
    assert ledger.llm_requests == 3
    assert ledger.as_json()["route"]["attempts"][0]["duration_ns"] == 5_000  # type: ignore[index,call-overload]


def test_a_routing_request_that_answered_is_in_the_route_unless_it_filled_the_gaps() -> None:
    """Every request appears once in the ledger: under the route, or as the fallback's reply."""
    choose = ProviderReply(
        tool_calls=(ToolCall(name="play_music", arguments_raw="{}", arguments={}),)
    )
    provider = ScriptedProvider([choose])
    agent = EventAgent(
        plugins, fallback=LLMFallback(provider), chooser=ToolChooser(provider, plugins.definitions)
    )
    reply = asyncio.run(agent.respond("I'd like to hear something from Coldplay", context=NOW))
    assert reply.path == "choice"
    assert reply.ledger.route.attempts == ()
    assert reply.ledger.llm_requests == reply.llm_calls == 1
    declined = ScriptedProvider([ProviderReply(text="None of these fits.")])
    agent = EventAgent(
        plugins, fallback=LLMFallback(declined), chooser=ToolChooser(declined, plugins.definitions)
    )
    reply = asyncio.run(agent.respond("tell me a joke", context=NOW))
    assert reply.status is Status.UNKNOWN_EVENT
    assert [a.reason for a in reply.ledger.route.attempts] == ["completed"]
    assert reply.ledger.llm_requests == reply.llm_calls == 1


TIMER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"minutes": {"type": "integer", "minimum": 1}},
    "required": ["minutes"],
}


def timers(reply: Any) -> PluginSet:
    definition = EventDefinition(
        "set_timer",
        parameters=TIMER_SCHEMA,
        resolver=SchemaResolver(TIMER_SCHEMA),
        handler=dict,
        reply=reply,
        description="Set a timer for some minutes.",
    )
    return PluginSet("timers", (definition,))


def test_a_declared_reply_says_the_handlers_output_with_no_model() -> None:
    """The event says its result: ``said`` holds the words, and no request was sent."""
    provider = ScriptedProvider([])
    agent = EventAgent(
        timers("A timer for {minutes} minutes is set."), fallback=LLMFallback(provider)
    )
    reply = agent.respond_sync("set a timer for 5 minutes")
    assert reply.status is Status.SUCCESS
    assert reply.said == "A timer for 5 minutes is set."
    assert (reply.llm_calls, provider.requests) == (0, [])


def test_a_reply_function_gets_the_output_and_the_tool_agent_says_it_too() -> None:
    """The same words whoever chose the call: the tool agent's call meets the same reply."""

    def minutes_said(output: Any) -> str:
        return f"{output['minutes']} min."

    plugins_ = timers(minutes_said)
    call = ToolCall(name="set_timer", arguments_raw='{"minutes": 7}', arguments={"minutes": 7})
    provider = ScriptedProvider([ProviderReply(tool_calls=(call,))])
    reply = asyncio.run(ToolAgent(plugins_, provider).respond("a timer please, seven minutes"))
    assert reply.status is Status.SUCCESS
    assert reply.said == "7 min."


def test_no_words_without_a_reply_a_fitting_one_or_a_success() -> None:
    """No reply, a template the output does not fit, a failed call: ``said`` stays ``None``."""
    for plugins_, text in [
        (timers(None), "set a timer for 5 minutes"),
        (timers("Set until {until}."), "set a timer for 5 minutes"),
        (timers("{minutes} minutes."), "set a timer for 0 minutes"),
    ]:
        reply = EventAgent(plugins_).respond_sync(text)
        assert reply.said is None, (plugins_.definitions[0].reply, text, reply.status)


def test_no_words_over_a_handler_output_that_reports_failure() -> None:
    """A handler that returns its error as data succeeds as a call, but is no success to say."""
    definition = EventDefinition(
        "set_timer",
        parameters=TIMER_SCHEMA,
        resolver=SchemaResolver(TIMER_SCHEMA),
        handler=lambda _: {"error": "the timer service is down"},
        reply="Your timer is set.",
    )
    reply = EventAgent(PluginSet("timers", (definition,))).respond_sync("set a timer for 5 minutes")
    assert reply.status is Status.SUCCESS
    assert reply.said is None
