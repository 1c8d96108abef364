"""The lexical router: events ranked by their own words; a route only on a measured lead."""

from __future__ import annotations

import asyncio
from typing import Any, cast

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_lab import EventDefinition, Status
from agent_lab.agents.choice import ToolChooser
from agent_lab.agents.event_agent import EventAgent
from agent_lab.agents.fallback import LLMFallback
from agent_lab.agents.lexical_router import LexicalRouter, describe
from agent_lab.agents.plugins import PluginSet, Route
from agent_lab.providers import ProviderReply, ToolCall
from agent_lab.testing import ScriptedProvider


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
ROUTER = LexicalRouter(EVENTS)


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


def test_one_word_of_one_candidates_name_that_no_other_says_routes() -> None:
    """ "Will it rain on the weekend? How's the weather looking?": the name speaks."""
    router = LexicalRouter(EVENTS)
    assert router.rank("How's the weather looking for Sunday?").best == "weather.getForecast"
    # A word of the description alone is no such sign ("song" for play_music)...
    assert router.rank("a song please").best is None
    # ...nor a word of the name another candidate says too ("flight" of "book a flight"
    # and a forecast that speaks of flights).
    flying = event(
        "flight_status",
        "Is a flight on time?",
        number={"type": "string", "description": "the flight number"},
    )
    assert LexicalRouter([*EVENTS, flying]).rank("and the flight?").best is None
    # A look-up verb names nothing.
    assert router.rank("get it").best is None


def test_a_name_run_together_is_matched_by_its_two_words() -> None:
    oneway = event("SearchOnewayFlight", "Search for flights to a city.")
    roundtrip = event("SearchRoundtripFlights", "Search for flights to a city and back.")
    router = LexicalRouter([oneway, roundtrip])
    assert router.rank("Can you look up a one way flight to Oslo?").best == "SearchOnewayFlight"
    assert router.rank("I need a round trip to Oslo").best == "SearchRoundtripFlights"


def test_a_narrow_lead_is_not_enough_to_route() -> None:
    router = LexicalRouter(EVENTS, margin=1.0)
    assert router.rank("book a flight, and the weather forecast for the city").best is None


def test_candidates_limit_the_ranking() -> None:
    router = LexicalRouter(EVENTS)
    two = router.rank("weather forecast for the city", ["book_flight", "play_music"])
    assert {name for name, _ in two.ranked} == {"book_flight", "play_music"}
    assert two.best is None  # neither shares a word
    assert router.rank("anything", ["not_an_event"]).ranked == ()


@pytest.mark.parametrize(
    ("text", "share", "routed"),
    [
        ("play music by Miles Davis, a song", 1.0, True),
        ("music to play while I cook: a song please", 1.0, True),
        ("play a song", 0.5, False),  # "music" is not said
        ("music", 0.5, False),
        ("play music", 1.0, True),
        ("the weather forecast for Paris", 0.0, False),
    ],
    ids=["every-name-word", "any-order", "part-of-the-name", "one-word", "the-name", "other"],
)
def test_a_lone_candidate_routes_only_when_the_message_holds_every_word_of_its_name(
    text: str, share: float, routed: bool
) -> None:
    """No runner-up to lead: the evidence is absolute (docs/experiments.md, the name rule)."""
    ranking = LexicalRouter(EVENTS).rank(text, ["play_music"])
    assert ranking.name_share == share
    assert ranking.best == ("play_music" if routed else None)


def test_every_name_word_is_not_enough_when_it_is_one_shared_word() -> None:
    weather = event("weather", "Get the weather forecast for a city.")
    assert LexicalRouter([weather]).rank("weather").best is None  # min_terms
    assert LexicalRouter([weather]).rank("the weather forecast").best == "weather"


def test_a_lone_candidate_is_decided_as_in_a_plugin_set_of_that_event_alone() -> None:
    """The name rule reads nothing of the other events, so one-event plugin sets route alike."""
    texts = [
        "what is the weather forecast in Paris, in celsius?",
        "get the forecast weather for the city",
        "play music by Miles Davis, a song",
        "book a flight from the airport",
        "tell me a joke",
    ]
    together = LexicalRouter(EVENTS)
    for definition in EVENTS:
        alone = LexicalRouter([definition])
        for text in texts:
            assert alone.rank(text).best == together.rank(text, [definition.name]).best, text
    alone = LexicalRouter([FLIGHTS])
    assert alone.rank("book a flight from the departure airport").best == "book_flight"


def test_a_lone_candidate_with_a_lower_name_share_routes_on_part_of_its_name() -> None:
    assert LexicalRouter(EVENTS).rank("play a song", ["play_music"]).best is None
    lower = LexicalRouter(EVENTS, name_share=0.5)
    assert lower.rank("play a song", ["play_music"]).best == "play_music"


def test_numbers_in_a_name_are_not_words_a_message_must_say() -> None:
    """An importer names a second function of one name ``__2``; no message says "2"."""
    second = event("book_flight__12", "Book a flight between two airports.")
    router = LexicalRouter([second])
    assert router.rank("book a flight to Rome").best == "book_flight__12"


def test_a_name_with_no_words_never_routes_a_lone_candidate() -> None:
    nameless = event("x_1", "Book a flight between two airports.")
    assert (
        LexicalRouter([nameless], name_share=0.0).rank("book a flight between airports").best
        is None
    )


def test_a_candidate_listed_twice_is_one_candidate() -> None:
    router = LexicalRouter(EVENTS)
    twice = router.rank("play music by Miles Davis, a song", ["play_music", "play_music"])
    assert twice.ranked == router.rank("play music by Miles Davis, a song", ["play_music"]).ranked
    assert twice.best == "play_music"


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


@given(text=st.text(max_size=200), lone=st.booleans())
def test_no_message_crashes_the_router(text: str, lone: bool) -> None:
    """Whatever a user sends is ranked, routed or not; never an exception."""
    ranking = ROUTER.rank(text, ["play_music"] if lone else None)
    assert ranking.best in (None, *ROUTER.names)
    assert 0.0 <= ranking.name_share <= 1.0


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="margin"):
        LexicalRouter(EVENTS, margin=1.5)
    with pytest.raises(ValueError, match="min_terms"):
        LexicalRouter(EVENTS, min_terms=0)
    with pytest.raises(ValueError, match="name_share"):
        LexicalRouter(EVENTS, name_share=1.5)


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
    assert EventAgent(routed).decider.router.lexical is None
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
    assert agent.decider.router.lexical is not None
    assert agent.decider.router.lexical.rank(text).best == "get_forecast"
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
