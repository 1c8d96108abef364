"""Enum values read from text only when stated: not negated, narrowed, asked about, taken back."""

from __future__ import annotations

import time
from typing import Any

import pytest

from agent_lab import Event
from agent_lab.resolvers.enums import mentions, read_enum
from agent_lab.resolvers.schema import SchemaResolver


def enum_schema(**properties: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            name: {"type": "string", "enum": values} for name, values in properties.items()
        },
    }


SEATS = enum_schema(seating_class=["Economy", "Premium Economy", "Business", "First Class"])
PLACES = enum_schema(category=["Park", "Theme Park", "Museum"])
DEVICES = enum_schema(playback_device=["TV", "Kitchen speaker", "Bedroom speaker"])
SUBTITLES = enum_schema(subtitle_language=["None", "English", "Spanish"])
ACCOUNTS = enum_schema(
    account_type=["checking", "savings"], recipient_account_type=["checking", "savings"]
)


def read(schema: dict[str, Any], text: str) -> dict[str, Any]:
    return dict(SchemaResolver(schema)(Event("e", text=text)).arguments)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("I don't want economy", None),
        ("no economy seats, please", None),
        ("anything but not business class", None),
        ("economy please", "Economy"),
        ("No, economy is fine", "Economy"),
    ],
    ids=["don't want", "no X", "not X", "plain", "a no that answers, then the value"],
)
def test_a_negated_value_is_not_taken(text: str, value: str | None) -> None:
    assert read(SEATS, text).get("seating_class") == value


@pytest.mark.parametrize(
    ("schema", "text", "name", "value"),
    [
        (PLACES, "I am looking for an amusement park", "category", None),
        (PLACES, "I'd like to visit a park", "category", "Park"),
        (PLACES, "take me to a theme park", "category", "Theme Park"),
        (SEATS, "two basic economy seats", "seating_class", None),
        (SEATS, "two economy seats", "seating_class", "Economy"),
        (SEATS, "I prefer to travel economy", "seating_class", "Economy"),
        (SEATS, "a seat in economy", "seating_class", "Economy"),
    ],
    ids=[
        "an unknown kind of park",
        "a park",
        "a theme park",
        "an unknown kind of economy",
        "a count is no modifier",
        "a verb is no modifier",
        "a preposition is no modifier",
    ],
)
def test_a_value_narrowed_by_a_word_the_enum_does_not_know_is_not_taken(
    schema: dict[str, Any], text: str, name: str, value: str | None
) -> None:
    """Only where the enum shows its word takes such words: "Theme Park" beside "Park"."""
    assert read(schema, text).get(name) == value


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Is that in economy?", None),
        ("Is it a premium economy ticket?", None),
        ("And please confirm that it is a first class ticket?", None),
        ("Is there an economy fare?", "Economy"),
        ("Can you find me an economy ticket?", "Economy"),
        ("Is it economy? I want economy.", "Economy"),
        ("Is that in economy", None),
        ("Is the flight in economy?", None),
        ("That one is in economy, right?", None),
        ("I'd like economy, is that ok with you", "Economy"),
    ],
    ids=[
        "is that",
        "is it",
        "confirm",
        "is there: a request",
        "can you: a request",
        "asked, then stated",
        "inverted, no question mark",
        "is the",
        "a tag question",
        "a tag with no question mark states",
    ],
)
def test_a_value_only_asked_about_is_not_taken(text: str, value: str | None) -> None:
    """A yes-no question about what was offered checks it; it does not choose it."""
    assert read(SEATS, text).get("seating_class") == value


def test_a_value_two_properties_could_take_goes_to_neither_unless_the_words_say_which() -> None:
    assert read(ACCOUNTS, "send 200 dollars with my savings account") == {}
    # "from" says the account the money leaves (test_a_value_said_from_or_to...).
    assert read(ACCOUNTS, "send 200 dollars from my savings account") == {"account_type": "savings"}
    assert read(ACCOUNTS, "send it to the recipient's savings account") == {
        "recipient_account_type": "savings"
    }
    alone = enum_schema(account_type=["checking", "savings"])
    assert read(alone, "send 200 dollars from my savings account") == {"account_type": "savings"}


@pytest.mark.parametrize(
    ("schema", "text", "value"),
    [
        (
            DEVICES,
            "Play it on the kitchen speaker. Sorry, play it on the speaker in the bedroom.",
            None,
        ),
        (DEVICES, "play it on my kitchen speaker no play it on bedroom device", None),
        (
            SUBTITLES,
            "Rent it with Spanish subtitles No, I changed my mind: with no subtitles",
            None,
        ),
        (
            DEVICES,
            "Play it on the kitchen speaker. Sorry, what album is it from?",
            "Kitchen speaker",
        ),
        (SUBTITLES, "Spanish subtitles please. No, I don't need the rental cost.", "Spanish"),
    ],
    ids=[
        "sorry, the other value's word",
        "no, without punctuation",
        "changed my mind, the property's word",
        "sorry about something else",
        "no about something else",
    ],
)
def test_a_value_taken_back_afterwards_is_not_taken(
    schema: dict[str, Any], text: str, value: str | None
) -> None:
    (name,) = schema["properties"]
    assert read(schema, text).get(name) == value


def test_a_value_left_unread_asks_the_fallback() -> None:
    """Refusing a value is not forgetting it: the text still says something the fallback reads."""
    result = SchemaResolver(SEATS)(Event("e", text="I don't want economy"))
    assert (result.arguments, result.missing, result.complete) == ({}, (), False)


def test_read_enum_reads_the_values_it_is_given() -> None:
    assert read_enum(["Economy", "Business"], "Business class, please") == "Business"
    assert read_enum(["Economy", "Business"], "economy or business?") is None
    assert read_enum(["Economy", "Business"], "first class") is None


def test_a_name_inside_a_longer_one_is_not_a_mention() -> None:
    found = mentions(["Economy", "Premium Economy"], "premium economy, not just economy")
    assert [m.value for m in found] == ["Premium Economy", "Economy"]


@pytest.mark.parametrize(
    "unit",
    ["economy ", "premium economy ", "a basic economy ", "is it economy? ", "economy. sorry. "],
)
def test_reading_an_enum_stays_linear(unit: str) -> None:
    """40 KiB of mentions: keeping only the longest took a comparison per pair (minutes)."""
    text = unit * (40 * 1024 // len(unit))
    started = time.perf_counter()
    SchemaResolver(SEATS)(Event("e", text=text))
    assert time.perf_counter() - started < 1.0


WALLETS = {
    "type": "object",
    "properties": {
        "from_wallet": {"type": "string", "enum": ["card", "cash", "crypto"]},
        "payee_wallet": {"type": "string", "enum": ["card", "cash", "crypto"]},
        "payee": {"type": "string", "description": "Who receives the money"},
    },
}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "move it from my cash wallet to Ines's card wallet",
            {"from_wallet": "cash", "payee_wallet": "card"},
        ),
        ("into crypto from card, please", {"from_wallet": "card", "payee_wallet": "crypto"}),
        # The same value both ways: each is said so.
        ("from card to card", {"from_wallet": "card", "payee_wallet": "card"}),
        # No way said: the words beside the value must name one property alone.
        ("use cash", {}),
    ],
)
def test_a_value_said_from_or_to_goes_to_the_property_that_gives_or_receives(
    text: str, expected: dict[str, str]
) -> None:
    found = SchemaResolver(WALLETS)(Event("pay", text=text)).arguments
    assert {k: v for k, v in found.items() if k != "payee"} == expected
