"""A relative date is read against the conversation's reference date, and never without one."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from agent_lab.answering import Answerer
from agent_lab.kernel.models import Event
from agent_lab.log_replay.figures import ShadowFigures
from agent_lab.log_replay.replayed import Replayed, replay
from agent_lab.logs.record import LogFormat, LoggedRequest, LoggedToolCall
from agent_lab.resolvers.english import find_date
from agent_lab.resolvers.schema import SchemaResolver
from agent_lab.strict_json import JSONObject

SAID_ON = datetime(2031, 7, 9, 15, 30)
"""A Wednesday, far from any default a resolver could fall back on."""
VISIT: JSONObject = {
    "type": "object",
    "properties": {"day": {"type": "string", "format": "date"}},
    "required": ["day"],
}
TOOL: JSONObject = {"type": "function", "function": {"name": "plan_visit", "parameters": VISIT}}


@pytest.mark.parametrize(
    ("text", "with_reference"),
    [
        ("the day after tomorrow", date(2031, 7, 11)),
        ("this coming friday", date(2031, 7, 11)),
        ("on the 20th", date(2031, 7, 20)),
        ("August 2nd", date(2031, 8, 2)),
        ("in four days", date(2031, 7, 13)),
    ],
)
def test_a_relative_date_needs_a_reference_date(text: str, with_reference: date) -> None:
    assert find_date(text, SAID_ON) == with_reference
    assert find_date(text, None) is None


@pytest.mark.parametrize(
    ("text", "day"),
    [("August 2nd 2031", date(2031, 8, 2)), ("the 4th of January 2030", date(2030, 1, 4))],
)
def test_a_date_with_its_year_is_read_with_no_reference(text: str, day: date) -> None:
    assert find_date(text, None) == day == find_date(text, SAID_ON)


def test_a_text_with_a_dated_and_an_undated_day_reads_no_date_without_a_reference() -> None:
    assert find_date("August 2nd 2031, or else tomorrow", None) is None


def test_the_schema_resolver_leaves_a_relative_date_missing_without_a_reference() -> None:
    resolver = SchemaResolver(VISIT)
    without = resolver(Event("plan_visit", text="plan a visit for the day after tomorrow"))
    said_on = {"now": SAID_ON.isoformat()}
    given = resolver(
        Event("plan_visit", text="plan a visit the day after tomorrow", context=said_on)
    )
    assert (dict(without.arguments), without.missing) == ({}, ("day",))
    assert dict(given.arguments) == {"day": "2031-07-11"}
    pinned = SchemaResolver(VISIT, reference=SAID_ON)
    assert dict(pinned(Event("plan_visit", text="a visit on friday")).arguments) == {
        "day": "2031-07-11"
    }


def _logged(timestamp: str | None) -> LoggedRequest:
    return LoggedRequest(
        where="visits.jsonl:1",
        format=LogFormat.PAIRS,
        messages=({"role": "user", "content": "plan a visit the day after tomorrow"},),
        tools=(TOOL,),
        calls=(LoggedToolCall(name="plan_visit", arguments={"day": "2031-07-11"}, raw=""),),
        timestamp=timestamp,
    )


def test_replay_reads_a_relative_date_against_the_requests_own_time_and_counts_those_without() -> (
    None
):
    answerer = Answerer()
    dated = replay(_logged(SAID_ON.isoformat()), answerer)
    undated = replay(_logged(None), answerer)
    assert isinstance(dated, Replayed)
    assert isinstance(undated, Replayed)
    assert (dated.covered, dated.agreed, dated.reference) == (True, True, SAID_ON.isoformat())
    assert (undated.covered, undated.reference) == (False, None)
    figures = ShadowFigures()
    figures.add(dated)
    figures.add(undated)
    assert figures.undated == 1
    assert figures.as_json()["reference_date"] == {
        "read_against": "each request's own time, as its log gives it",
        "requests_without_one": 1,
    }
