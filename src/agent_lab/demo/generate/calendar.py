"""``create_event`` cases: titles, dates, times and lengths."""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any

from agent_lab.demo.generate._slots import NOW, TIMES, spoken, weekday_date
from agent_lab.resolvers.english import WEEKDAYS

if TYPE_CHECKING:
    import random

    from agent_lab.demo.generate._slots import Case

__all__ = ["EVENT", "INVALID", "MISSING", "stated"]

EVENT: str = "create_event"
MISSING: tuple[str, ...] = (
    "schedule a haircut",
    "book a meeting with the team",
    "schedule a dentist appointment for tomorrow",
    "put a call with the bank in my calendar",
    "schedule a review on friday",
)
"""Utterances that leave a required value unsaid: expected ``missing_information``."""
INVALID: tuple[tuple[str, dict[str, Any]], ...] = (
    ("schedule a workshop tomorrow at 9am for 10 hours", {"title": "workshop", "date": "2026-12-02", "time": "09:00", "duration_minutes": 600}),
    ("book a quick sync tomorrow at 10am for 2 minutes", {"title": "quick sync", "date": "2026-12-02", "time": "10:00", "duration_minutes": 2}),
    ("schedule an offsite on friday at 8am for 12 hours", {"title": "offsite", "date": "2026-12-04", "time": "08:00", "duration_minutes": 720}),
    ("book a call tomorrow at 4pm for 3 minutes", {"title": "call", "date": "2026-12-02", "time": "16:00", "duration_minutes": 3}),
)  # fmt: skip
"""Readable utterances the schema refuses, with the values they state: expected
``invalid_arguments`` (the values let a simulated model call the tool as a real one would)."""


def stated(rng: random.Random) -> list[Case]:
    """Calendar cases that state every value (complete or paraphrased)."""
    titles = ["dentist appointment", "team meeting", "haircut", "lunch with Sara", "project review",
              "yoga class", "call with the bank", "parent teacher meeting", "doctor appointment", "budget meeting",
              "tennis match", "guitar lesson", "catch up with Maria"]  # fmt: skip
    out: list[Any] = []
    for title in titles:
        said, time = rng.choice(TIMES)
        kind = rng.randrange(4)
        if kind == 0:
            out.append(
                (
                    "complete",
                    f"schedule a {title} tomorrow at {said}",
                    {"title": title, "date": "2026-12-02", "time": time},
                )
            )
        elif kind == 1:
            day = rng.choice(WEEKDAYS)
            out.append(
                (
                    "complete",
                    f"book a {title} on {day} at {said}",
                    {"title": title, "date": weekday_date(day).isoformat(), "time": time},
                )
            )
        elif kind == 2:
            day, minutes = rng.choice(WEEKDAYS), rng.choice([30, 45, 60, 90])
            out.append(("complete", f"schedule a {title} next {day} at {said} for {minutes} minutes",
                        {"title": title, "date": weekday_date(day).isoformat(), "time": time, "duration_minutes": minutes}))  # fmt: skip
        else:
            out.append(
                (
                    "complete",
                    f"put a {title} in my calendar for today at {said}",
                    {"title": title, "date": "2026-12-01", "time": time},
                )
            )
    for title, days, said, time in (("design workshop", 3, "2pm", "14:00"), ("quarterly review", 5, "11am", "11:00"),
                                    ("gym session", 2, "6:30am", "06:30"), ("piano lesson", 4, "17:00", "17:00"),
                                    ("coffee with Tom", 6, "10am", "10:00"), ("vet appointment", 3, "9:45am", "09:45")):  # fmt: skip
        day = NOW.date() + timedelta(days=days)
        out.append(
            (
                "complete",
                f"schedule a {title} in {spoken(rng, days)} days at {said}",
                {"title": title, "date": day.isoformat(), "time": time},
            )
        )
    out += [
        ("complete", "book a team meeting tomorrow at 14:30 for an hour", {"title": "team meeting", "date": "2026-12-02", "time": "14:30", "duration_minutes": 60}),
        ("complete", "schedule a standup tomorrow at 9:15am for 15 minutes", {"title": "standup", "date": "2026-12-02", "time": "09:15", "duration_minutes": 15}),
        ("paraphrase", "schedule a dentist appointment tomorrow at a quarter past three in the afternoon", {"title": "dentist appointment", "date": "2026-12-02", "time": "15:15"}),
        ("paraphrase", "book a haircut on friday at ten in the morning", {"title": "haircut", "date": weekday_date("friday").isoformat(), "time": "10:00"}),
        ("paraphrase", "schedule lunch with Sara tomorrow at one in the afternoon", {"title": "lunch with Sara", "date": "2026-12-02", "time": "13:00"}),
        ("paraphrase", "put a yoga class in my calendar for tomorrow at seven in the evening", {"title": "yoga class", "date": "2026-12-02", "time": "19:00"}),
        ("paraphrase", "schedule a project review on monday at eleven in the morning", {"title": "project review", "date": weekday_date("monday").isoformat(), "time": "11:00"}),
    ]  # fmt: skip
    return out
