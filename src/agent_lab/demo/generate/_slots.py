"""What every case template draws on: the injected clock, numbers said in words, weekday dates."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Any

from agent_lab.resolvers.english import WEEKDAYS

if TYPE_CHECKING:
    import random

__all__ = ["NOW", "TIMES", "Case", "spoken", "weekday_date"]

NOW = datetime(2026, 12, 1, 9, 0)  # a Tuesday, 09:00: the clock every case injects
WORDS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 10: "ten",
         12: "twelve", 15: "fifteen", 20: "twenty", 25: "twenty five", 30: "thirty", 45: "forty five"}  # fmt: skip
Case = tuple[str, str, Any]
"""(category, text, expected arguments)."""
TIMES = [("5pm", "17:00"), ("7:30am", "07:30"), ("noon", "12:00"), ("18:45", "18:45"),
         ("9am", "09:00"), ("3:15 pm", "15:15"), ("8pm", "20:00"), ("10:30", "10:30")]  # fmt: skip
"""Clock times as said, and as ``HH:MM``."""


def spoken(rng: random.Random, value: int) -> str:
    """``value`` in digits, or sometimes in words."""
    return WORDS[value] if value in WORDS and rng.random() < 0.4 else str(value)


def weekday_date(name: str) -> date:
    """The date ``on friday`` means, said at ``NOW`` (today's weekday means a week ahead)."""
    ahead = (WEEKDAYS.index(name) - NOW.weekday()) % 7 or 7
    return NOW.date() + timedelta(days=ahead)
