"""The lexical router: events ranked by their own words; a route only on a measured lead."""

from __future__ import annotations

import asyncio
from typing import Any, cast

import pytest

from agent_lab import EventDefinition, Status
from agent_lab.application.agents import EventAgent
from agent_lab.application.lexical_router import LexicalRouter, describe
from agent_lab.application.llm import LLMFallback, ToolChooser
from agent_lab.application.plugins import PluginSet, Route
from agent_lab.providers import ProviderReply, ToolCall
from agent_lab.providers.testing import ScriptedProvider


def event(name: str, description: str, **properties: dict[str, Any]) -> EventDefinition:
    return EventDefinition(
        name,
        description=description,
        parameters={"type": "object", "properties": properties, "additionalProperties": False},
        handler=dict,
    )


WEATHER = event(
    "weather.getForecast",
    "Get the weather forecast for a city.",
    city={"type": "string", "description": "the city name"},
    unit={"type": "string", "enum": ["celsius", "fahrenheit"]},
)
FLIGHTS = event(
    "book_flight",
    "Book a flight between two airports.",
    origin={"type": "string", "description": "departure airport"},
    destination={"type": "string", "description": "arrival airport"},
)
MUSIC = event("play_music", "Play a song or an artist.", query={"type": "string"})
EVENTS = (WEATHER, FLIGHTS, MUSIC)


def test_an_event_is_described_by_its_name_description_parameters_and_enums() -> None:
    words = describe(WEATHER)
    assert words.startswith("weather get Forecast weather get Forecast Get the weather")
    assert "city" in words
    assert "the city name" in words
    assert "celsius fahrenheit" in words


def test_the_best_candidate_routes_when_it_leads_and_shares_two_words() -> None:
    ranking = LexicalRouter(EVENTS).rank("what is the weather forecast in Paris, in celsius?")
    assert ranking.best == "weather.getForecast"
    assert ranking.ranked[0][0] == "weather.getForecast"
    assert ranking.margin > 0.1


def test_one_shared_word_is_not_enough_to_route() -> None:
    ranking = LexicalRouter(EVENTS).rank("a song please")
    assert ranking.ranked[0][0] == "play_music"
    assert ranking.best is None  # "song" alone


def test_a_narrow_lead_is_not_enough_to_route() -> None:
    router = LexicalRouter(EVENTS, margin=1.0)
    assert router.rank("book a flight, and the weather forecast for the city").best is None


def test_candidates_limit_the_ranking_and_one_candidate_never_routes() -> None:
    router = LexicalRouter(EVENTS)
    two = router.rank("weather forecast for the city", ["book_flight", "play_music"])
    assert {name for name, _ in two.ranked} == {"book_flight", "play_music"}
    assert two.best is None  # neither shares a word
    alone = router.rank("weather forecast for the city", ["weather.getForecast"])
    assert alone.best is None
    assert router.rank("anything", ["not_an_event"]).ranked == ()


@pytest.mark.parametrize(
    "definitions",
    [
        (event("a", "the"),),
        (event("a", "of it", x={"type": "string"}), event("b_c", "a b c")),
        (event("a", "the"), MUSIC),
    ],
    ids=["one-empty-event", "every-event-empty", "one-empty-among-others"],
)
def test_events_whose_words_are_all_stopwords_or_single_letters_do_not_crash_the_router(
    definitions: tuple[EventDefinition, ...],
) -> None:
    """bm25s cannot index an empty vocabulary; such events are simply never matched."""
    router = LexicalRouter(definitions)
    for text in ("", "a", "the a of b", "play music, a song", "zebra quantum"):
        ranking = router.rank(text)
        assert ranking.best in (None, "play_music")
        assert [name for name, _ in ranking.ranked] != []
    assert router.rank("a b c", ["a"]).best is None


@pytest.mark.parametrize("text", ["", "   ", "the a of", "!!!"])
def test_text_with_no_words_never_routes(text: str) -> None:
    assert LexicalRouter(EVENTS).rank(text).best is None


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="margin"):
        LexicalRouter(EVENTS, margin=1.5)
    with pytest.raises(ValueError, match="min_terms"):
        LexicalRouter(EVENTS, min_terms=0)


def test_a_plugin_set_with_no_routes_is_routed_lexically_with_no_request() -> None:
    provider = ScriptedProvider([])
    plugins = PluginSet("no-routes", definitions=EVENTS)
    agent = EventAgent(
        plugins, fallback=LLMFallback(provider), chooser=ToolChooser(provider, plugins.definitions)
    )
    reply = asyncio.run(agent.respond("the weather forecast for Paris"))
    assert (reply.event, reply.routed_by) == ("weather.getForecast", "lexical")
    assert reply.status is Status.SUCCESS  # nothing required: no fallback either
    assert (reply.llm_calls, provider.requests) == (0, [])


def test_plugin_sets_with_routes_keep_them_and_the_router_can_be_turned_off() -> None:
    choose = ProviderReply(
        tool_calls=(ToolCall(name="play_music", arguments_raw='{"query": "x"}', arguments={}),)
    )
    routed = PluginSet(
        "routed", definitions=EVENTS, routes=(Route("play_music", patterns=(r"\bsing\b",)),)
    )
    assert EventAgent(routed).lexical is None
    provider = ScriptedProvider([choose])
    plugins = PluginSet("no-routes", definitions=EVENTS)
    agent = EventAgent(
        plugins,
        fallback=LLMFallback(provider),
        chooser=ToolChooser(provider, plugins.definitions),
        lexical=False,
    )
    reply = asyncio.run(agent.respond("the weather forecast for Paris"))
    assert reply.routed_by == "llm"
    assert [r.purpose for r in provider.requests] == ["tool_choice"]


def needing_a_city() -> PluginSet:
    weather = EventDefinition(
        "get_forecast",
        description="Get the weather forecast for a city.",
        parameters={
            "type": "object",
            "properties": {"city": {"type": "string", "description": "the city name"}},
            "required": ["city"],
        },
        handler=dict,
    )
    return PluginSet("no-routes", definitions=(weather, FLIGHTS, MUSIC))


def test_a_lexical_pick_with_gaps_sends_llm_always_s_request_and_follows_its_calls() -> None:
    """The message may need another candidate, or several: the model sees them all."""
    weather = ToolCall(
        name="get_forecast", arguments_raw='{"city": "Paris"}', arguments={"city": "Paris"}
    )
    flight = ToolCall(
        name="book_flight",
        arguments_raw='{"origin": "CDG", "destination": "JFK"}',
        arguments={"origin": "CDG", "destination": "JFK"},
    )
    provider = ScriptedProvider([ProviderReply(tool_calls=(weather, flight))])
    plugins = needing_a_city()
    agent = EventAgent(
        plugins, fallback=LLMFallback(provider), chooser=ToolChooser(provider, plugins.definitions)
    )
    text = "the weather forecast for the city, then a flight"
    assert agent.lexical is not None
    assert agent.lexical.rank(text).best == "get_forecast"
    reply = asyncio.run(agent.respond(text))
    (sent,) = provider.requests
    assert sent.purpose == "tool_choice"
    assert {cast("Any", t)["function"]["name"] for t in sent.tools} == {
        "get_forecast",
        "book_flight",
        "play_music",
    }
    assert [c.event for c in reply.calls] == ["get_forecast", "book_flight"]
    assert (reply.llm_calls, reply.path) == (1, "plain")


def test_a_lexical_pick_the_model_overrules_is_dispatched_as_the_model_called_it() -> None:
    music = ToolCall(
        name="play_music", arguments_raw='{"query": "rain"}', arguments={"query": "rain"}
    )
    provider = ScriptedProvider([ProviderReply(tool_calls=(music,))])
    plugins = needing_a_city()
    agent = EventAgent(
        plugins, fallback=LLMFallback(provider), chooser=ToolChooser(provider, plugins.definitions)
    )
    reply = asyncio.run(agent.respond("the weather forecast for the city, then a flight"))
    assert (reply.event, reply.status, reply.arguments) == (
        "play_music",
        Status.SUCCESS,
        {"query": "rain"},
    )
    assert (reply.llm_calls, reply.routed_by) == (1, "llm")
