"""A look-up and the act on the same thing, told apart by the verb the message says.

The phrasings and tools are this file's own.
"""

from __future__ import annotations

from typing import Any

import pytest

from agent_lab import EventDefinition
from agent_lab.agents.act_pairs import ActPair, asks_for_act, by_verb
from agent_lab.agents.lexical_router import LexicalRouter


def event(name: str, description: str, **properties: dict[str, Any]) -> EventDefinition:
    return EventDefinition(
        name,
        description=description,
        parameters={"type": "object", "properties": properties},
        handler=dict,
    )


CABIN = {"lake": {"type": "string", "description": "the lake"}}
# A shared opening, as a service describes each of its tools: its verbs tie the two.
LOOK = event("Lodging__FindLakeCabin", "Find and reserve lake cabins: find a lake cabin", **CABIN)
BOOK = event(
    "Lodging__ReserveLakeCabin", "Find and reserve lake cabins: reserve a lake cabin", **CABIN
)
WEATHER = event("Lodging__GetLakeWeather", "The weather at a lake", **CABIN)
ROUTER = LexicalRouter([LOOK, BOOK, WEATHER])


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("could you search lake cabins for me", "Lodging__FindLakeCabin"),
        ("are there any lake cabins free in June?", "Lodging__FindLakeCabin"),
        ("show me lake cabins near Tahoe", "Lodging__FindLakeCabin"),
        ("I want to buy a week in a lake cabin", "Lodging__ReserveLakeCabin"),
        ("please book the lake cabin", "Lodging__ReserveLakeCabin"),
        ("I'd like to make a reservation for a lake cabin", "Lodging__ReserveLakeCabin"),
        # Verbs of both kinds, or of neither: the words alone tie, so no route.
        ("find and book a lake cabin", None),
        ("a lake cabin, please", None),
    ],
)
def test_the_verb_tells_a_look_up_from_its_act(text: str, expected: str | None) -> None:
    assert ROUTER.rank(text).best == expected


def test_only_a_look_up_and_an_act_on_the_same_thing_pair() -> None:
    pairs = ActPair((LOOK, BOOK, WEATHER))
    assert pairs.choose("Lodging__FindLakeCabin", "Lodging__ReserveLakeCabin", "book it")
    # The weather is no act, and of another thing.
    assert pairs.choose("Lodging__FindLakeCabin", "Lodging__GetLakeWeather", "find it") is None
    # Two look-ups of one thing make no pair either: the verb cannot choose.
    other = event("Lodging__SearchLakeCabin", "Find and reserve lake cabins: search", **CABIN)
    assert ActPair((LOOK, other, BOOK)).choose(LOOK.name, BOOK.name, "book it") is None


def test_a_third_tool_close_to_the_two_leaves_the_verb_no_choice() -> None:
    near = event(
        "Lodging__FindLakeCabinNearby", "Find and reserve lake cabins: find a lake cabin", **CABIN
    )
    router = LexicalRouter([LOOK, BOOK, near])
    assert router.rank("could you search lake cabins for me").best is None


def test_by_verb_reads_whole_words() -> None:
    assert by_verb("the bookshelf cabin", "look", "act") is None
    assert by_verb("find it", "look", "act") == "look"


def test_an_act_on_a_part_of_the_thing_pairs_with_its_look_up() -> None:
    shows = event("Stage__FindShows", "Shows on stage: find shows")
    seats = event("Stage__BuyShowSeats", "Shows on stage: buy seats for a show")
    router = LexicalRouter([shows, seats])
    assert router.rank("could you find a show on stage tonight?").best == "Stage__FindShows"
    assert router.rank("buy me two seats for a show on stage").best == "Stage__BuyShowSeats"
    # Two acts on the thing: the verb cannot say which.
    gifts = event("Stage__BuyShowGifts", "Shows on stage: buy gifts of a show")
    assert ActPair((shows, seats, gifts)).choose(shows.name, seats.name, "buy it") is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Lovely. Please purchase the early sailing.", True),
        ("I'd like to arrange a viewing of it.", True),
        ("Could you schedule a tasting for Friday?", True),
        ("What else is on my schedule the 3rd?", False),  # a noun, not the verb
        ("Find the cheapest and book it.", False),  # both kinds: no choice
        ("Don't book it yet.", False),
        ("Which ferries leave after noon?", False),
    ],
)
def test_asks_for_act_reads_the_verb_of_an_act_alone(text: str, expected: bool) -> None:
    assert asks_for_act(text) is expected
