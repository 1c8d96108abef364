"""Clock times read from text only when stated: every mention read, all agreeing, kept after."""

from __future__ import annotations

from typing import Any

import pytest

from agent_lab import Event
from agent_lab.resolvers.schema import SchemaResolver
from agent_lab.resolvers.times_of_day import find_clock, time_mentions

TIME: dict[str, Any] = {
    "type": "object",
    "properties": {"appointment_time": {"type": "string", "format": "time"}},
}


def read(text: str) -> str | None:
    found = SchemaResolver(TIME)(Event("e", text=text)).arguments.get("appointment_time")
    assert found is None or isinstance(found, str)
    return found


@pytest.mark.parametrize(
    ("text", "time"),
    [
        ("see a doctor at quarter to 6 in the evening", "17:45"),
        ("a quarter past 4 in the afternoon", "16:15"),
        ("in the evening 6:45 please", "18:45"),
        ("book it at afternoon 2:45 on the 4th", "14:45"),
        ('for 11 o"clock in the morning', "11:00"),
        ("at 12 o'clock in the afternoon", "12:00"),
        ("tonight at 8", "20:00"),
        ("at 8 tonight", "20:00"),
        ("at 9 at night", "21:00"),
        ("ready at 07:30", "07:30"),
        ("at 11 a.m. on Monday", "11:00"),
        ("around 5:30 pm", "17:30"),
        ("from 3:30 in the afternoon on March 4th", "15:30"),
    ],
    ids=[
        "quarter to, with the part of the day",
        "quarter past",
        "the part of the day first",
        "afternoon then the time",
        "o'clock, any quote",
        "noon hour in the afternoon",
        "tonight at",
        "at ... tonight",
        "at night",
        "a leading zero is a 24-hour clock",
        "a.m. with dots",
        "around",
        "from: the start of a period is its time",
    ],
)
def test_a_time_said_in_full_is_read(text: str, time: str) -> None:
    assert read(text) == time


@pytest.mark.parametrize(
    "text",
    [
        "at 5",
        "half past 7",
        "quarter to 6",
        "at 7 o'clock",
        "a table for 6 in the evening",
        "2 tonight",
        "Saturday evening 4 people",
        "at 2 at night",
        "by 5 pm",
        "after 6 pm",
        "no later than 9:30 am",
        "between 4 and 6 pm",
    ],
    ids=[
        "an hour alone: morning or evening",
        "half past, no part of the day",
        "quarter to, no part of the day",
        "o'clock alone",
        "six people, or six o'clock",
        "two people, or two o'clock",
        "an hour that may count people",
        "2 at night: before or after midnight",
        "by: a limit",
        "after: a limit",
        "no later than: a limit",
        "between: a range",
    ],
)
def test_a_time_with_two_readings_or_a_bound_is_left_to_the_fallback(text: str) -> None:
    assert read(text) is None


@pytest.mark.parametrize(
    "text",
    [
        "See if there's a 4 pm slot. And make it quarter to 6 in the evening",
        "At 1 pm. Make it this Saturday. Book it at evening 4 Give me their number",
        "at 4:30 PM. How about quarter to 10 in the morning?",
        "I want it at half past 2 in the afternoon. From NY at around 1:30 in the afternoon.",
        'at 11 in the morning. Change it to 12 o"clock',
    ],
    ids=[
        "a second time, in quarters",
        "a second time, part of the day first, nothing after",
        "a second time, asked for",
        "half past with its part, then another time with its part",
        "a second time, o'clock alone",
    ],
)
def test_a_second_time_read_or_not_leaves_the_time_unsure(text: str) -> None:
    """Each of these once filled the first time read; the user meant the other."""
    assert read(text) is None


def test_the_last_mention_wins_nothing_only_agreement_does() -> None:
    assert read("at 6 pm. Yes, 6 in the evening, that's it") == "18:00"
    assert find_clock("5pm or 6pm") is None


@pytest.mark.parametrize(
    ("text", "time"),
    [
        ("at 4 pm. Actually, make it a little earlier", None),
        ("at 4 pm. No, make it 5", None),
        ("at 4 pm. Sorry, at 6 in the evening instead", None),
        ("at 4 pm. Actually, I'd rather see Dr. Lee on the 7th.", "16:00"),
        ("at 4 pm. No, the 12th of March. That's right.", "16:00"),
        ("at 4 pm later today", "16:00"),
    ],
    ids=[
        "moved earlier",
        "taken back for a bare hour",
        "taken back for another time",
        "a correction of the doctor keeps the time",
        "a correction of the day keeps the time",
        "later today is a day, not a move",
    ],
)
def test_a_time_taken_back_or_moved_afterwards_is_left_to_the_fallback(
    text: str, time: str | None
) -> None:
    assert read(text) == time


@pytest.mark.parametrize(
    ("text", "time"),
    [
        ("book it at 5:45 pm. Yes, that's right.", "17:45"),
        ("book it at 5:45 pm. That would be fine. That would be all right.", None),
        ("at 6:45 in the evening Yes, thanks Yeah that'll be fine", None),
        ("at 3:30 in the afternoon. That is correct. That would work.", None),
        ("at 3:30 in the afternoon. Yes, that is correct.", "15:30"),
        ("at 3:30 in the afternoon. That is correct, yes.", "15:30"),
        ("at 7:15 am. that's fine with me. what station? that'll work for me.", None),
        ("at 3:45 pm. Indeed. What station do I leave from? That works out for me.", None),
        ("at 5:30 in the evening yes that is fine yes that is fine", None),
    ],
    ids=[
        "one confirmation",
        "two acceptances",
        "two acceptances, no full stops between the turns",
        "a confirmation, then an offer taken",
        "yes and correct in one sentence are one confirmation",
        "correct and yes in one sentence are one confirmation",
        "that'll work",
        "indeed",
        "a yes again, turns joined in lower case",
    ],
)
def test_a_second_acceptance_after_the_time_leaves_it_to_the_fallback(
    text: str, time: str | None
) -> None:
    """The first yes confirms the time said back; a second takes an offer the text cannot show."""
    assert read(text) == time


def test_a_mention_inside_a_longer_one_counts_once() -> None:
    spans = [(m.value, m.bound) for m in time_mentions("at 5 pm, quarter to 6 in the evening")]
    assert spans == [("17:00", False), ("17:45", False)]
