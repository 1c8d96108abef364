"""Numbers and flags read from text only when stated: not asked about, not taken back, in scope."""

from __future__ import annotations

from typing import Any

import pytest

from agent_lab import Event
from agent_lab.resolvers.cues import cued_number, own_words
from agent_lab.resolvers.flags import boolean_phrase
from agent_lab.resolvers.schema import SchemaResolver


def read(properties: dict[str, Any], text: str) -> dict[str, Any]:
    schema = {"type": "object", "properties": properties}
    return dict(SchemaResolver(schema)(Event("e", text=text)).arguments)


PASSENGERS = {"passengers": {"type": "integer", "description": "Number of passengers"}}
SEATS = {
    "number_of_seats": {
        "type": "integer",
        "description": "Number of seats to find event tickets for",
    }
}
HOTEL = {
    "number_of_rooms": {"type": "integer", "description": "Number of rooms in the reservation"},
    "number_of_days": {"type": "integer", "description": "Number of days in the reservation"},
}
AMOUNT = {"amount": {"type": "number", "description": "The amount of money to transfer"}}
RIDE = {"shared_ride": {"type": "boolean"}}
SUBTITLES = {"subtitles": {"type": "boolean"}}
WIFI = {"has_wifi": {"type": "boolean"}}
SMOKING = {"smoking_allowed": {"type": "boolean"}}


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Is that for four passengers?", None),
        ("Also, is the for two passengers?", None),
        ("Is this a redeye flight for three passengers I want a one way flight", None),
        ("This is for 3 passengers, correct?", None),
        ("Can you find a flight for 3 passengers?", 3),
        ("I need a flight for 2 passengers. Is it a redeye?", 2),
    ],
    ids=[
        "a yes-no question about the offer",
        "about the ...",
        "inverted, no question mark",
        "a tag question",
        "a question that asks for it",
        "a statement, then a question about something else",
    ],
)
def test_a_number_only_asked_about_is_not_taken(text: str, value: int | None) -> None:
    assert read(PASSENGERS, text).get("passengers") == value


@pytest.mark.parametrize(
    ("properties", "text", "name", "value"),
    [
        (SEATS, "2 seats please Actually, make it one ticket", "number_of_seats", None),
        (SEATS, "3 seats. No, make it two.", "number_of_seats", None),
        (HOTEL, "3 rooms for 2 days. No, make that 4 days.", "number_of_rooms", 3),
        (SEATS, "one seat. No I changed my mind, I want one for Friday", "number_of_seats", 1),
        (SEATS, "4 seats. Actually, on the 12th of March.", "number_of_seats", 4),
    ],
    ids=[
        "restated beside one of its words",
        "restated bare",
        "another property's number taken back",
        "'one' as a pronoun is no count",
        "a date taken back",
    ],
)
def test_a_number_taken_back_afterwards_is_not_taken(
    properties: dict[str, Any], text: str, name: str, value: int | None
) -> None:
    assert read(properties, text).get(name) == value


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("for the amount of 1,120 bucks", 1120),
        ("an amount of 1,120.50 dollars", 1120.5),
        ("with the amount of one hundred and forty dollars", None),
        ("an amount of 140 dollars", 140),
    ],
    ids=["thousands separator", "separator and decimals", "a hundred: not read", "plain"],
)
def test_a_number_is_read_whole_or_not_at_all(text: str, value: float | None) -> None:
    """ "1,120" once read as 1, "one hundred and forty" as 1."""
    assert read(AMOUNT, text).get("amount") == value


@pytest.mark.parametrize(
    ("properties", "text", "value"),
    [
        (RIDE, "I would not mind taking a shared ride", None),
        (RIDE, "I wouldn't mind a shared ride", None),
        (RIDE, "I don't want a shared ride", False),
        (WIFI, "I don't know whether the place has wifi", None),
        (WIFI, "a room with wifi, I don't need parking", True),
        (WIFI, "wifi isn't needed", False),
        (SUBTITLES, "turn off the subtitles", False),
        (SUBTITLES, "No, I want the subtitles to be displayed", True),
        (SMOKING, "the hotel should have no restriction for smoking", None),
        (SMOKING, "no smoking please", False),
    ],
    ids=[
        "would not mind",
        "wouldn't mind",
        "a negation of the flag",
        "a negation of something else in its clause",
        "a negation in another clause",
        "negated after",
        "turned off",
        "a no that answers, then the flag",
        "a negation of another noun, before a preposition",
        "no X",
    ],
)
def test_a_flag_is_negated_only_by_a_negation_that_takes_it(
    properties: dict[str, Any], text: str, value: bool | None
) -> None:
    name = next(iter(properties))
    assert read(properties, text).get(name) == value


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (
            "Play Stockholm with no subtitles please. Actually I would like to watch Gloria Bell.",
            None,
        ),
        ("Play Stockholm with subtitles please. Yes, that is correct.", True),
        ("Does the movie have subtitles", None),
    ],
    ids=["taken back", "confirmed", "asked about, no question mark"],
)
def test_a_flag_whose_request_was_taken_back_or_only_asked_about_is_not_taken(
    text: str, value: bool | None
) -> None:
    assert read(SUBTITLES, text).get("subtitles") == value


@pytest.mark.parametrize(
    ("name", "text", "count"),
    [
        ("number_of_seats", "Confirm 3 tickets for the gig on Friday", 3),
        ("number_of_tickets", "a booking for 2 people at 8 pm", 2),
        ("group_size", "it is one seat on the 9:10 coach", 1),
    ],
)
def test_a_seat_a_ticket_and_a_person_count_alike(name: str, text: str, count: int) -> None:
    own = frozenset(own_words(name, ""))
    assert cued_number(name, text, own=own) == count


@pytest.mark.parametrize(
    ("text", "count"),
    [("a table for 4 at Noma", 4), ("a booking for six, please", 6), ("a table for 7 pm", None)],
)
def test_a_table_for_n_counts_the_party_not_the_hour(text: str, count: int | None) -> None:
    own = frozenset(own_words("party_size", "Number of people in the party"))
    assert cued_number("party_size", text, own=own) == count


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("Two one-way tickets to Oslo", 2),
        ("Any one-way tickets to Oslo?", None),  # the kind of ticket, not how many
        ("a 2-ticket deal", 2),
        ("three return tickets", 3),
    ],
)
def test_a_number_hyphened_to_another_word_is_no_count_of_the_noun(
    text: str, count: int | None
) -> None:
    assert cued_number("number_of_tickets", text) == count


@pytest.mark.parametrize(
    ("text", "amount"),
    [
        ("Please send $800 to Ines.", 800),
        ("I want Ines to have 1,450 bucks", 1450),
        ("Move twenty euros to my savings", 20),
        ("Send $5 million", None),  # scaled: two readings
        ("Send $20, or maybe $30", None),  # two sums
        ("Send it to flat 800", None),  # no sum of money
    ],
)
def test_a_sum_of_money_is_an_amount(text: str, amount: int | None) -> None:
    own = frozenset(own_words("amount", "The amount of money to transfer"))
    assert cued_number("amount", text, own=own) == amount


def test_what_a_description_counts_skips_its_article() -> None:
    from agent_lab.resolvers.cues import counted_in

    assert counted_in("The number of the guests, default 1") == "guests"
    assert counted_in("Number of bikes") == "bikes"
    assert counted_in("Number of adults, or number of children") is None


def test_the_last_word_of_a_number_in_words_is_not_the_number() -> None:
    """ "seven hundred and sixty bucks" is not 60: the reader leaves it to the model."""
    own = frozenset({"amount", "money"})
    said = "wire one thousand seven hundred and sixty bucks to Li"
    assert cued_number("wire_amount", said, own=own) is None
    assert cued_number("wire_amount", "wire sixty bucks to Li", own=own) == 60
    # Digits after "and" are a number of their own.
    assert cued_number("children", "2 adults and 3 children") == 3
    assert cued_number("children", "two adults and three children") == 3


def test_a_scant_amount_of_the_flag_s_subject_says_neither_yes_nor_no() -> None:
    assert boolean_phrase("outdoor_seating", "a cafe with little outdoor seating") is None
    assert boolean_phrase("likes_crowds", "she hardly likes crowds") is None
    assert boolean_phrase("outdoor_seating", "a cafe with outdoor seating") is True
