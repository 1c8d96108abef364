"""How a property writes a date: ISO 8601, or the pattern its description prescribes.

"The date of the flight, in the format MM-DD-YYYY" or "Use format
'YYYY-MM-DD'": a string property whose description names a pattern of day,
month and year is a date, written that way ("07-10-2022"). A pattern without a
four-digit year, or with no separator, is left alone: "MM-DD-YY" or "YYYYMMDD"
prescribe a form this reader does not write, and so does a date with a time
("YYYY-MM-DD HH:MM:SS"): a moment, not a day.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from datetime import date

__all__ = ["date_pattern", "write_date"]

_PARTS = {"yyyy": "%Y", "mm": "%m", "dd": "%d"}
_PATTERN = re.compile(
    r"(?<![A-Za-z])(?:(yyyy)([-/.])(mm)\2(dd)|(mm)([-/.])(dd)\6(yyyy)|(dd)([-/.])(mm)\10(yyyy))"
    r"(?![A-Za-z])",
    re.IGNORECASE,
)


_TIME_OF_DAY = re.compile(r"(?<![A-Za-z])hh[:.]?mm(?![A-Za-z])|'T'", re.IGNORECASE)


@lru_cache(maxsize=1024)
def date_pattern(description: str) -> str | None:
    """The ``strftime`` pattern ``description`` prescribes ("MM-DD-YYYY": ``%m-%d-%Y``).

    Two different patterns in one description prescribe none.
    """
    if _TIME_OF_DAY.search(description[:500]):
        return None  # "YYYY-MM-DD HH:MM:SS": a moment, of which a date is only a part
    found: set[str] = set()
    for match in _PATTERN.finditer(description[:500]):
        first, separator, second, third = [part for part in match.groups() if part]
        found.add(separator.join(_PARTS[part.lower()] for part in (first, second, third)))
    return found.pop() if len(found) == 1 else None


def write_date(day: date, pattern: str | None) -> str:
    """``day`` as ``pattern`` writes it; ISO 8601 without one."""
    return day.isoformat() if pattern is None else day.strftime(pattern)
