"""A booking the user confirms after the assistant summarised it, for every wrapper's loop.

The conversation so far: a search for tables in Ghent, its result, the user's
choice with the party and the time, then the assistant's summary. The user's
"Yes, that's right." completes ``reserve_table`` from the whole conversation.
"""

from __future__ import annotations

from datetime import date, time
from typing import Any

NOW = {"now": "2026-04-01T09:00"}
"""The reference date the wrappers read "Friday, April 3rd" against."""
ASKED_FIRST = "Could you find a restaurant in Ghent for Friday?"
FOUND: list[dict[str, Any]] = [{"restaurant": "De Vitrine"}, {"restaurant": "Pakhuis"}]
OFFERED = "De Vitrine or Pakhuis have tables. Which one?"
CHOSEN = "Pakhuis, for four of us at half past seven in the evening."
SUMMARY = (
    "Please confirm: a table for 4 at Pakhuis in Ghent on Friday, April 3rd, at 7:30 pm. "
    "Is that right?"
)
YES = "Yes, that's right."
BOOKED = {"restaurant": "Pakhuis", "city": "Ghent", "guests": 4, "day": "2026-04-03",
          "time": "19:30"}  # fmt: skip
"""The call the confirmation makes."""


def find_tables_doc() -> str:
    return "Find restaurants with a free table in a city."


def reserve_table_doc() -> str:
    return "Reserve a table at a restaurant."


def booking(restaurant: str, city: str, guests: int, day: date, at: time) -> dict[str, Any]:
    """What a framework's ``reserve_table`` was called with, as ``BOOKED`` says it."""
    return {"restaurant": restaurant, "city": city, "guests": guests, "day": day.isoformat(),
            "time": at.isoformat(timespec="minutes")}  # fmt: skip
