"""Numbers said in the unit their property is measured in, and the other number readings.

The phrasings are this file's own (issue 34: a number property read by its unit, a
percentage written as its description says, a year, ``name=value``).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_lab.kernel.models import Event
from agent_lab.resolvers.schema import SchemaResolver
from agent_lab.resolvers.units import described_unit, numbers_in_unit, unit_of


def resolve(properties: dict[str, Any], text: str, required: list[str] | None = None) -> Any:
    schema = {"type": "object", "properties": properties, "required": required or []}
    return SchemaResolver(schema)(Event("tool", text=text))


@pytest.mark.parametrize(
    ("description", "unit"),
    [
        ("How long the kettle boils, in seconds.", "second"),
        ("Weight of the parcel in kilograms", "kilogram"),
        ("Cruise speed, km/h.", "kilometer / hour"),
        ("Floor area in square metres.", "meter ** 2"),
        ("Oven temperature in Kelvin", "kelvin"),
        # No unit: a word after "in" that is English, or none at all.
        ("The number of nights in a row", None),
        ("The town in which the shop is", None),
        ("How many guests", None),
        # Two units: no one reading.
        ("Height in metres or in feet", None),
        # A unit with no dimension says nothing a number alone does not.
        ("The discount in percent", None),
    ],
)
def test_a_description_names_the_unit_its_number_is_in(description: str, unit: str | None) -> None:
    assert described_unit(description) == unit


@pytest.mark.parametrize(
    ("text", "unit", "expected"),
    [
        ("boil it for 240 seconds", "second", [240.0]),
        ("the parcel is 3.5 kg", "kilogram", [3.5]),
        ("a 12 metre boat", "meter", [12.0]),
        ("keep it at 77K", "kelvin", [77.0]),
        # A unit of one letter only written against its number: "2 m" may be anything.
        ("row 2 m from the door", "meter", []),
        ("a 400m sprint", "meter", [400.0]),
        # Another unit of the same quantity would need converting: not read.
        ("the parcel is 3500 g", "kilogram", []),
        # "In 3 days" and "2 hours ago" say when, not how long.
        ("remind me in 3 days", "day", []),
        ("it started 2 hours ago", "hour", []),
        ("it lasted 2 hours", "hour", [2.0]),
        # English words Pint also reads as units are words here.
        ("5 at the door, 3 in a row, 2 a day", "year", []),
    ],
)
def test_numbers_said_in_a_unit(text: str, unit: str, expected: list[float]) -> None:
    found = numbers_in_unit(text, unit)
    assert found is not None
    assert [value for value, _, _ in found] == expected


def test_unit_words_that_are_english_are_no_units() -> None:
    for word in ("a", "at", "in", "as", "am", "pm", "us", "point", "the"):
        assert unit_of(word) is None, word


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=30))
def test_any_word_is_a_unit_or_none_never_an_error(word: str) -> None:
    assert unit_of(word) is None or isinstance(unit_of(word), str)


STEEP = {
    "tea": {"type": "string", "description": "The tea to brew."},
    "steep_for": {"type": "integer", "description": "Steeping time in seconds."},
    "water_temp": {"type": "integer", "description": "Water temperature in kelvin."},
}


def test_a_number_property_takes_the_number_said_in_its_unit() -> None:
    resolution = resolve(STEEP, "brew a green tea at 353K and let it sit 90 seconds")
    assert resolution.arguments["steep_for"] == 90
    assert resolution.arguments["water_temp"] == 353


def test_two_properties_in_one_unit_leave_the_unit_no_reading() -> None:
    properties = {
        "width": {"type": "number", "description": "Plot width in metres."},
        "depth": {"type": "number", "description": "Plot depth in metres."},
    }
    resolution = resolve(properties, "a plot of 20m by 35m", ["width", "depth"])
    assert "width" not in resolution.arguments
    assert "depth" not in resolution.arguments


def test_a_number_in_its_unit_asked_about_or_taken_back_is_none() -> None:
    assert "steep_for" not in resolve(STEEP, "is that 90 seconds?").arguments
    assert "steep_for" not in resolve(STEEP, "90 seconds. Actually, 120 seconds").arguments


RATES = {
    "rate": {"type": "number", "description": "Yearly rate, written as a decimal."},
    "principal": {"type": "integer", "description": "The sum lent."},
}


@pytest.mark.parametrize(
    ("description", "expected"),
    [
        ("Yearly rate, written as a decimal.", 0.045),
        ("Yearly rate as a percentage.", 4.5),
        # Not said how: "4.5%" is 4.5 or 0.045.
        ("Yearly rate.", None),
    ],
)
def test_a_percentage_is_written_as_the_description_says(
    description: str, expected: float | None
) -> None:
    properties = {**RATES, "rate": {"type": "number", "description": description}}
    resolution = resolve(properties, "lend 900 pounds at 4.5% a year")
    assert resolution.arguments.get("rate") == expected


def test_a_year_placed_by_its_word_fills_the_one_year_property() -> None:
    properties = {
        "team": {"type": "string", "description": "The club."},
        "season_year": {"type": "integer", "description": "Which season."},
    }
    assert resolve(properties, "who coached them in 1998?").arguments["season_year"] == 1998
    # A number of that shape that is no year: "a 2400 seat arena".
    assert "season_year" not in resolve(properties, "a 2400 seat arena").arguments
    # Two years: no one reading.
    assert "season_year" not in resolve(properties, "in 1998 or in 2004").arguments


def test_a_property_assigned_by_its_name_takes_the_value() -> None:
    properties = {
        "k": {"type": "integer", "description": "Neighbours to count."},
        "p": {"type": "number", "description": "The norm."},
    }
    resolution = resolve(properties, "cluster with k=7 and p = 1.5 please")
    assert resolution.arguments == {"k": 7, "p": 1.5}
    assert "k" not in resolve(properties, "k=7, no wait, k=9").arguments


def test_a_property_that_counts_takes_no_sum_of_money() -> None:
    # "The number of periods the money is lent for" speaks of money, and counts periods.
    properties = {
        "periods": {"type": "integer", "description": "The number of periods the money is lent."},
        "fee": {"type": "integer", "description": "The fee charged."},
    }
    assert "periods" not in resolve(properties, "lend $400 with a $20 fee").arguments
    assert "periods" not in resolve(properties, "lend $400 for a while").arguments
    paired = {
        "spans": {"type": "integer", "description": "Number of time spans the money is lent."}
    }
    assert "spans" not in resolve(paired, "lend $400 for a while").arguments


def test_a_count_of_two_words_is_read_as_said_joined_or_apart() -> None:
    properties = {
        "desks": {"type": "integer", "description": "Number of desk lamps wanted."},
        "office": {"type": "string", "description": "The office."},
    }
    assert resolve(properties, "we need 4 desklamps").arguments["desks"] == 4
    assert resolve(properties, "we need 4 desk lamps").arguments["desks"] == 4
    # The second word alone is another thing: "4 lamps" may be floor lamps.
    assert "desks" not in resolve(properties, "we need 4 lamps").arguments


def test_a_span_in_years_that_speaks_of_money_takes_no_sum() -> None:
    """ "The time the money is invested for in years": 10 years, not the $10000."""
    properties = {
        "principal": {"type": "integer", "description": "The sum invested."},
        "time": {"type": "integer", "description": "The time the money is invested for in years."},
    }
    found = resolve(properties, "invest $10000 for 10 years").arguments
    assert found.get("time") == 10
