"""Two date parameters, a start and an end, each filled by the date its cue places."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_lab.kernel.models import Event
from agent_lab.resolvers.date_pairs import date_role, placed_dates
from agent_lab.resolvers.english import find_date
from agent_lab.resolvers.schema import SchemaResolver

NOW = datetime(2027, 5, 3, 9, 0)  # a Monday


@pytest.mark.parametrize(
    ("name", "role"),
    [
        ("pickup_date", "start"),
        ("checkInDate", "start"),
        ("departure_day", "start"),
        ("dropoff_date", "end"),
        ("check_out_date", "end"),
        ("return_date", "end"),
        ("date", None),
        ("birth_date", None),
    ],
)
def test_a_date_parameter_role_comes_from_its_name(name: str, role: str | None) -> None:
    assert date_role(name) == role


@pytest.mark.parametrize(
    ("text", "placed"),
    [
        ("a van from May 10th to the 14th", {"start": date(2027, 5, 10), "end": date(2027, 5, 14)}),
        # A dated clause with no cue of its own leaves both unplaced.
        ("collect it on the 7th, and I'll drop it off on May 9th", {}),
        (
            "we check in on May 20th and check out on May 23rd",
            {"start": date(2027, 5, 20), "end": date(2027, 5, 23)},
        ),
        ("flying out tomorrow", {"start": date(2027, 5, 4)}),
        # Two dates, no cue for either; an end before its start; a role said twice: none.
        ("May 10th and May 14th", {}),
        ("returning May 8th, departing May 9th", {}),
        ("leaving May 9th, or leaving May 10th", {}),
        # A lone end, said by how long it lasts: "until", "till".
        ("I'll need the van until May 14th", {"end": date(2027, 5, 14)}),
        ("till the 14th, please", {"end": date(2027, 5, 14)}),
        ("pick it up tomorrow, keep it till Friday", {"start": date(2027, 5, 4),
                                                       "end": date(2027, 5, 7)}),
        ("pick it up and keep it until May 14th", {"end": date(2027, 5, 14)}),
        # One clause that starts and ends: no role for its one date.
        ("depart until May 14th", {}),
    ],
)  # fmt: skip
def test_dates_are_placed_by_their_cues(text: str, placed: dict[str, date]) -> None:
    assert placed_dates(text, NOW) == placed


def test_a_stay_lasts_until_its_end() -> None:
    assert placed_dates("a room in Lisbon until the 9th", NOW, stay=True) == {
        "end": date(2027, 5, 9)
    }


def test_without_a_reference_date_nothing_is_placed() -> None:
    assert placed_dates("from May 10th to the 14th", None) == {}


SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "pickup_date": {"type": "string", "format": "date"},
        "dropoff_date": {"type": "string", "format": "date"},
    },
    "required": ["pickup_date", "dropoff_date"],
}


def read(text: str) -> dict[str, Any]:
    event = Event("rent", text=text, context={"now": NOW.isoformat()})
    return dict(SchemaResolver(SCHEMA)(event).arguments)


def test_the_resolver_fills_a_start_and_an_end() -> None:
    assert read("I'd pick it up May 10th and return it on the 12th") == {
        "pickup_date": "2027-05-10",
        "dropoff_date": "2027-05-12",
    }
    # One date for one role: the other stays missing, never the same day twice.
    assert read("pick up on May 10th") == {"pickup_date": "2027-05-10"}
    assert read("on May 10th") == {}


@given(st.text(max_size=300))
def test_any_text_places_without_error(text: str) -> None:
    placed = placed_dates(text, NOW)
    if "start" in placed and "end" in placed:
        assert placed["start"] <= placed["end"]


@pytest.mark.parametrize(
    ("text", "placed"),
    [
        # A range with no "from": the first date, a time maybe, then "until" the second.
        (
            "the van from the depot on May 10th at 9 am until May 12th.",
            {"start": date(2027, 5, 10), "end": date(2027, 5, 12)},
        ),
        (
            "for May 20th till the 22nd, right?",
            {"start": date(2027, 5, 20), "end": date(2027, 5, 22)},
        ),
        # "to" a place is no range; a third date elsewhere leaves both unplaced.
        ("I want to go to Tours on May 10th", {}),
        ("May 10th until May 12th. Or maybe May 14th", {}),
    ],
)
def test_a_range_needs_no_from(text: str, placed: dict[str, date]) -> None:
    assert placed_dates(text, NOW) == placed


def test_a_stay_starts_on_arriving_and_ends_on_leaving() -> None:
    said = "arriving on May 20th and leaving on May 23rd"
    assert placed_dates(said, NOW, stay=True) == {
        "start": date(2027, 5, 20),
        "end": date(2027, 5, 23),
    }
    # For a trip, leaving is its start: the two cues collide and nothing is placed.
    assert placed_dates(said, NOW) == {}


@pytest.mark.parametrize(
    ("text", "day"),
    [
        # A weekday that ends a name names no day: the band, then the day said.
        ("two tickets for Taking Back Sunday next Friday", date(2027, 5, 7)),
        ("tickets for Bloody Sunday", None),
        # A word that says when keeps it a day.
        ("see you Next Sunday", date(2027, 5, 9)),
        ("the gig on Sunday", date(2027, 5, 9)),
    ],
)
def test_a_weekday_that_ends_a_name_is_no_day(text: str, day: date | None) -> None:
    assert find_date(text, NOW) == day
