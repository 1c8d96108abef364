"""Dates a string property's description prescribes a pattern for, and dates written in numbers.

The phrasings are this file's own.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from agent_lab.kernel.models import Event
from agent_lab.resolvers.date_forms import date_pattern, write_date
from agent_lab.resolvers.english import find_date
from agent_lab.resolvers.schema import SchemaResolver, kind_of


@pytest.mark.parametrize(
    ("description", "pattern"),
    [
        ("Day of the visit, MM-DD-YYYY.", "%m-%d-%Y"),
        ("Use the format 'yyyy-mm-dd'", "%Y-%m-%d"),
        ("In DD/MM/YYYY", "%d/%m/%Y"),
        ("The day, YYYY.MM.DD", "%Y.%m.%d"),
        # Two patterns, a year of two digits, no separator: none.
        ("DD/MM/YYYY or YYYY-MM-DD", None),
        ("MM-DD-YY", None),
        ("YYYYMMDD", None),
        ("The year, YYYY", None),
    ],
)
def test_a_description_prescribes_a_date_pattern(description: str, pattern: str | None) -> None:
    assert date_pattern(description) == pattern


def test_a_string_with_a_prescribed_pattern_is_a_date_written_so() -> None:
    prop = {"type": "string", "description": "Day of the visit, MM-DD-YYYY."}
    assert kind_of(prop) == "date"
    assert write_date(date(2024, 2, 9), "%m-%d-%Y") == "02-09-2024"
    schema: dict[str, Any] = {"type": "object", "properties": {"visit_day": prop}}
    resolution = SchemaResolver(schema)(Event("tool", text="a visit on 9 February, 2024"))
    assert resolution.arguments == {"visit_day": "02-09-2024"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("the report of 2021-11-30", date(2021, 11, 30)),
        ("rates for 2021/11/30 please", date(2021, 11, 30)),
        ("closing price on Nov.30,2021", date(2021, 11, 30)),
        ("on Sept.3, 2020", date(2020, 9, 3)),
        # Month first or day first in numbers: either, so neither.
        ("the report of 11/03/2021", None),
        # No such day.
        ("the report of 2021-02-30", None),
        # A range of numbers is no date.
        ("versions 2021-11-30-2", None),
    ],
)
def test_dates_with_their_year_need_no_reference(text: str, expected: date | None) -> None:
    assert find_date(text, None) == expected
