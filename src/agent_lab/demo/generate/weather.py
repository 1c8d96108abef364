"""``get_weather`` cases: cities, and days ahead in range or not."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent_lab.demo.generate._slots import NOW, spoken, weekday_date
from agent_lab.resolvers.english import WEEKDAYS

if TYPE_CHECKING:
    import random

    from agent_lab.demo.generate._slots import Case

__all__ = ["EVENT", "INVALID", "MISSING", "stated"]

EVENT: str = "get_weather"
MISSING: tuple[str, ...] = (
    "what's the weather like",
    "will it rain tomorrow",
    "what's the forecast for the weekend",
    "do I need an umbrella today",
    "is it going to be sunny on friday",
)
"""Utterances that leave a required value unsaid: expected ``missing_information``."""
INVALID: tuple[tuple[str, dict[str, Any]], ...] = (
    ("weather forecast for Paris in 10 days", {"city": "Paris", "day_offset": 10}),
    ("what's the weather in Oslo in 14 days", {"city": "Oslo", "day_offset": 14}),
    ("will it rain in Berlin in 9 days", {"city": "Berlin", "day_offset": 9}),
    ("forecast for Tokyo in twelve days", {"city": "Tokyo", "day_offset": 12}),
)
"""Readable utterances the schema refuses, with the values they state: expected
``invalid_arguments`` (the values let a simulated model call the tool as a real one would)."""


CITIES = ["Oslo", "Paris", "Tokyo", "Berlin", "Madrid", "New York", "Lisbon", "Rome", "Bergen", "Cairo", "Sydney", "Chicago"]  # fmt: skip


def stated(rng: random.Random) -> list[Case]:
    """Weather cases that state every value (complete or paraphrased)."""
    out: list[Any] = []
    for city in CITIES + CITIES[:8]:
        kind = rng.randrange(5)
        if kind == 0:
            out.append(("complete", f"what's the weather in {city}", {"city": city}))
        elif kind == 1:
            out.append(("complete", f"weather in {city} tomorrow", {"city": city, "day_offset": 1}))
        elif kind == 2:
            day = rng.choice(WEEKDAYS)
            out.append(
                (
                    "complete",
                    f"what's the forecast for {city} on {day}",
                    {"city": city, "day_offset": (weekday_date(day) - NOW.date()).days},
                )
            )
        elif kind == 3:
            out.append(
                ("complete", f"will it rain in {city} today", {"city": city, "day_offset": 0})
            )
        else:
            days = rng.choice([2, 3, 4, 5])
            out.append(
                (
                    "complete",
                    f"weather forecast for {city} in {spoken(rng, days)} days",
                    {"city": city, "day_offset": days},
                )
            )
    for city, days in (
        ("Oslo", 3),
        ("Tokyo", 2),
        ("Madrid", 6),
        ("Rome", 4),
        ("Berlin", 5),
        ("Cairo", 1),
    ):
        out.append(
            (
                "complete",
                f"is it going to snow in {city} in {spoken(rng, days)} days",
                {"city": city, "day_offset": days},
            )
        )
    for city in ("Lisbon", "Chicago", "Bergen", "Sydney", "Paris", "New York"):
        out.append(
            (
                "complete",
                f"do I need an umbrella in {city} tomorrow",
                {"city": city, "day_offset": 1},
            )
        )
    out += [
        ("paraphrase", "do I need an umbrella in the French capital tomorrow", {"city": "Paris", "day_offset": 1}),
        ("paraphrase", "what's the weather doing in the Big Apple today", {"city": "New York", "day_offset": 0}),
        ("paraphrase", "forecast for the capital of Norway tomorrow", {"city": "Oslo", "day_offset": 1}),
        ("paraphrase", "will it rain in the Japanese capital today", {"city": "Tokyo", "day_offset": 0}),
        ("paraphrase", "weather in the Eternal City tomorrow", {"city": "Rome", "day_offset": 1}),
        ("paraphrase", "is it sunny in the German capital today", {"city": "Berlin", "day_offset": 0}),
    ]  # fmt: skip
    return out
