"""Readings the new number, date, name and route rules must refuse: a hostile review's cases.

Each was a wrong value or a hang before its fix; the phrasings are the review's own and
this file's, none a dataset's.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest

from agent_lab.agents.act_pairs import by_verb
from agent_lab.kernel.models import Event
from agent_lab.resolvers.date_forms import date_pattern
from agent_lab.resolvers.english import find_date
from agent_lab.resolvers.name_forms import value_form
from agent_lab.resolvers.schema import SchemaResolver, kind_of


def read(properties: dict[str, Any], text: str) -> dict[str, Any]:
    schema = {"type": "object", "properties": properties}
    return dict(SchemaResolver(schema)(Event("tool", text=text)).arguments)


@pytest.mark.parametrize(
    ("description", "text"),
    [
        ("Duration of the timer in minutes", "Set a timer for 1 hour 30 minutes"),
        ("Length of the call in hours", "book it for 2 hours 30 minutes"),
        ("Height in inches", "I'm 5 feet 10 inches"),
    ],
)
def test_a_quantity_said_in_two_units_is_not_its_part_in_one(description: str, text: str) -> None:
    assert read({"amount": {"type": "integer", "description": description}}, text) == {}


def test_a_price_in_pounds_is_a_sum_not_a_weight() -> None:
    price = {"max_price": {"type": "integer", "description": "Maximum price in pounds"}}
    assert read(price, "a road bike under £300") == {"max_price": 300}
    # "20 pounds" is a sum too, for all plain code knows: two sums, no reading (not 20).
    assert read(price, "a road bike under £300 that weighs less than 20 pounds") == {}


@pytest.mark.parametrize(
    ("description", "text"),
    [
        ("Tip percentage as a decimal number, e.g. 18.5", "an 18% tip on a $120 bill"),
        ("Discount, up to two decimal places", "25% off"),
        ("Minimum rating as a decimal", "rated above 4 with 20% off"),
        ("Latitude in decimal degrees", "50% of people bike"),
    ],
)
def test_decimal_said_of_no_percentage_writes_none(description: str, text: str) -> None:
    assert read({"value": {"type": "number", "description": description}}, text) == {}


@pytest.mark.parametrize("text", ["turn it down by 20%", "a rate between 3 and 4%"])
def test_a_change_or_a_range_of_percentages_is_no_level(text: str) -> None:
    level = {"rate": {"type": "number", "description": "The rate, as a percentage"}}
    assert read(level, text) == {}


@pytest.mark.parametrize(
    "text", ["released after 2015", "from 1500 to 3000 dollars", "priced from 1500 euros"]
)
def test_a_bound_a_range_or_a_sum_is_no_year(text: str) -> None:
    assert read({"release_year": {"type": "integer", "description": "Year"}}, text) == {}


@pytest.mark.parametrize(("text", "value"), [("a=1/2", None), ("a=2^3", None), ("a = 1 000", None)])
def test_an_assignment_reads_a_whole_number_only(text: str, value: float | None) -> None:
    assert read({"a": {"type": "number", "description": "Coefficient"}}, text).get("a") == value


def test_a_number_beyond_any_measure_is_none() -> None:
    weight = {"weight": {"type": "number", "description": "Weight in kilograms"}}
    assert read(weight, "it weighs 1e999 kg") == {}
    assert read({"a": {"type": "number"}}, "a=" + "9" * 400) == {}


def test_a_date_with_a_time_is_no_date() -> None:
    start = {"type": "string", "description": "Start time in format YYYY-MM-DD HH:MM:SS"}
    assert date_pattern(start["description"]) is None
    assert kind_of(start) != "date"
    moment = {"type": "string", "description": "When, as YYYY-MM-DD'T'HH:mm:ss"}
    assert kind_of(moment) == "free-form"


def test_numbers_that_number_things_are_no_dates() -> None:
    assert find_date("install version 2024.1.2", None) is None
    assert find_date("where is order #2024-05-06?", None) is None


def test_a_birthday_with_no_year_is_not_this_year_s() -> None:
    born = {"birth_date": {"type": "string", "description": "Date of birth as MM-DD-YYYY"}}
    schema: dict[str, Any] = {"type": "object", "properties": born}
    now = {"now": "2026-04-01T09:00:00"}
    assert SchemaResolver(schema)(Event("t", text="born May 3", context=now)).arguments == {}
    said = SchemaResolver(schema)(Event("t", text="born May 3, 1990", context=now))
    assert said.arguments == {"birth_date": "05-03-1990"}


def test_equal_instants_in_two_zones_count_their_own_days() -> None:
    late = datetime(2026, 4, 1, 23, 30, tzinfo=timezone(timedelta(hours=-5)))
    same = late.astimezone(UTC)  # 04:30 on April 2nd
    assert find_date("tomorrow", late).isoformat() == "2026-04-02"  # type: ignore[union-attr]
    assert find_date("tomorrow", same).isoformat() == "2026-04-03"  # type: ignore[union-attr]


def test_a_description_built_to_backtrack_is_read_at_once() -> None:
    start = time.perf_counter()
    value_form(["topic"], "Topic such as " + "Aa'" * 40 + "!")
    assert time.perf_counter() - start < 1.0


def test_a_name_form_with_more_than_a_name_keeps_the_property_unread() -> None:
    assert value_form(["town"], "in the format of city name and country") is None


@pytest.mark.parametrize(
    "text",
    [
        "I don't want to book a hotel, I want to know about hotels in Rome",
        "I have a booking at a hotel in Paris, what's the hotel address?",
        "hotels in Rome, in order of price",
    ],
)
def test_a_verb_negated_or_a_noun_of_an_act_chooses_neither(text: str) -> None:
    assert by_verb(text, "Stays__FindHotel", "Stays__ReserveHotel") is None
