"""``set_reminder`` cases: tasks at dates and times relative to the injected clock."""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any

from agent_lab.demo.generate._slots import NOW, TIMES, spoken, weekday_date
from agent_lab.resolvers.english import WEEKDAYS

if TYPE_CHECKING:
    import random

    from agent_lab.demo.generate._slots import Case

__all__ = ["EVENT", "INVALID", "MISSING", "stated"]

EVENT: str = "set_reminder"
MISSING: tuple[str, ...] = (
    "remind me to buy milk",
    "remind me to call the dentist",
    "set a reminder for tomorrow",
    "remind me about the meeting",
    "remind me to renew the insurance",
    "remind me tomorrow",
)
"""Utterances that leave a required value unsaid: expected ``missing_information``."""
INVALID: tuple[tuple[str, dict[str, Any]], ...] = ()
"""Readable utterances the schema refuses, with the values they state: expected
``invalid_arguments`` (the values let a simulated model call the tool as a real one would)."""


def stated(rng: random.Random) -> list[Case]:
    """Reminder cases that state every value (complete or paraphrased) (dates against NOW)."""
    tasks = ["call mom", "buy milk", "take the pills", "water the plants", "pay the rent",
             "send the invoice", "pick up the kids", "book the car service", "renew my passport",
             "call the landlord", "buy a birthday card", "check the mail", "charge the car"]  # fmt: skip
    out: list[Any] = []
    for task in tasks:
        said, time = rng.choice(TIMES)
        kind = rng.randrange(5)
        if kind == 0:
            out.append(
                (f"remind me to {task} tomorrow at {said}", {"date": "2026-12-02", "time": time})
            )
        elif kind == 1:
            out.append((f"remind me to {task} at {said}", {"date": "2026-12-01", "time": time}))
        elif kind == 2:
            hours = rng.choice([1, 2, 3, 4])
            moment = NOW + timedelta(hours=hours)
            out.append((f"remind me to {task} in {spoken(rng, hours) if hours > 1 else 'an'} hour{'s' if hours > 1 else ''}",
                        {"date": moment.date().isoformat(), "time": moment.strftime("%H:%M")}))  # fmt: skip
        elif kind == 3:
            day = rng.choice(WEEKDAYS)
            out.append(
                (
                    f"remind me to {task} on {day} at {said}",
                    {"date": weekday_date(day).isoformat(), "time": time},
                )
            )
        else:
            out.append(
                (
                    f"remind me to {task} the day after tomorrow at {said}",
                    {"date": "2026-12-03", "time": time},
                )
            )
    for task, minutes in (
        ("stretch", 20),
        ("check the oven", 45),
        ("move the car", 30),
        ("join the call", 15),
    ):
        moment = NOW + timedelta(minutes=minutes)
        out.append(
            (
                f"remind me to {task} in {spoken(rng, minutes)} minutes",
                {"date": "2026-12-01", "time": moment.strftime("%H:%M")},
            )
        )
    for task, day, said, time in (("call the plumber", "friday", "10am", "10:00"), ("feed the cat", "saturday", "8:15am", "08:15"),
                                  ("submit the report", "monday", "4pm", "16:00"), ("buy flowers", "sunday", "11am", "11:00"),
                                  ("take out the trash", "thursday", "7pm", "19:00"), ("back up the laptop", "wednesday", "21:00", "21:00")):  # fmt: skip
        out.append(
            (
                f"remind me to {task} next {day} at {said}",
                {"date": weekday_date(day).isoformat(), "time": time},
            )
        )
    cases: list[Any] = [("complete", text, {"task": text.split("remind me to ")[1].split(" tomorrow")[0].split(" at ")[0].split(" in ")[0].split(" on ")[0].split(" the day after")[0].split(" next ")[0], **args})
             for text, args in out]  # fmt: skip
    cases += [
        ("paraphrase", "remind me to call mom at six in the evening", {"task": "call mom", "date": "2026-12-01", "time": "18:00"}),
        ("paraphrase", "remind me to water the plants at eight tomorrow morning", {"task": "water the plants", "date": "2026-12-02", "time": "08:00"}),
        ("paraphrase", "remind me to pay the rent at quarter to five in the afternoon", {"task": "pay the rent", "date": "2026-12-01", "time": "16:45"}),
        ("paraphrase", "remind me to ring the bank at ten in the morning tomorrow", {"task": "ring the bank", "date": "2026-12-02", "time": "10:00"}),
        ("paraphrase", "remind me to take the pills at nine tonight", {"task": "take the pills", "date": "2026-12-01", "time": "21:00"}),
        ("complete", "remind me to leave for the airport at half past four on friday", {"task": "leave for the airport", "date": weekday_date("friday").isoformat(), "time": "16:30"}),
    ]  # fmt: skip
    return cases
