"""Reading English deterministically: numbers in words, durations, dates, clock times, weekdays."""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta
from functools import lru_cache

__all__ = [
    "DATE_WORDS",
    "MONTHS",
    "NUMBER",
    "TIME_WORDS",
    "WEEKDAYS",
    "WORD",
    "clauses",
    "find_date",
    "find_duration_seconds",
    "find_number",
    "find_time",
    "numbers_in",
    "parse_now",
    "reference_date",
    "relative_date",
    "stems",
    "words_to_number",
]

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
"""The days in ``datetime.weekday()`` order."""
MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august",
          "september", "october", "november", "december")  # fmt: skip
"""The months in calendar order."""
WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
"""A word: letters, inner apostrophes and hyphens."""

_UNITS = {
    "zero": 0, "one": 1, "a": 1, "an": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90, "a couple of": 2, "a couple": 2, "a few": 3,
}  # fmt: skip
_NUMBER_WORD = (
    r"(?:a couple of|a couple|a few|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|"
    r"zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|"
    r"fifteen|sixteen|seventeen|eighteen|nineteen|an|a)"
)
# Two words make one number only as tens and ones ("twenty five"): "a three bedroom flat"
# holds three, not "a three".
_TENS_ONES = (
    r"(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)[ -]"
    r"(?:one|two|three|four|five|six|seven|eight|nine)"
)
NUMBER = rf"(?:\d++(?:\.\d++)?+|{_TENS_ONES}|{_NUMBER_WORD})"
"""A number in digits or words (``7.5``, ``twenty five``, ``a couple of``), as a regex."""
_SECONDS = {
    "second": 1, "sec": 1, "s": 1, "minute": 60, "min": 60, "m": 60,
    "hour": 3600, "hr": 3600, "h": 3600, "day": 86400,
}  # fmt: skip
_DURATION = re.compile(
    rf"\b(?P<number>{NUMBER}|half an|half a|a quarter of an|quarter of an)\s*"
    r"(?P<unit>seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|[smh])\b"
    r"(?:\s+and\s+a\s+half)?",
    re.IGNORECASE,
)


def words_to_number(text: str) -> float | None:
    """``"twenty five"`` -> 25, ``"a couple of"`` -> 2, ``"7.5"`` -> 7.5; None if not a number."""
    text = text.strip().lower()
    try:
        return float(text)
    except ValueError:
        pass
    if text in _UNITS:
        return float(_UNITS[text])
    parts = re.split(r"[ -]", text)
    if len(parts) == 2 and parts[0] in _UNITS and parts[1] in _UNITS:
        tens, ones = _UNITS[parts[0]], _UNITS[parts[1]]
        if tens >= 20 and tens % 10 == 0 and 0 < ones < 10:
            return float(tens + ones)
    return None


def find_number(text: str) -> float | None:
    """The first number in ``text``, in digits or words."""
    match = re.search(rf"\b{NUMBER}\b", text, re.IGNORECASE)
    return words_to_number(match.group(0)) if match else None


def find_duration_seconds(text: str) -> int | None:
    """Total seconds of every duration mentioned: ``"1 hour and 30 minutes"`` -> 5400."""
    quarters = re.search(rf"\b({NUMBER}) quarters of an hour\b", text, re.IGNORECASE)
    if quarters:
        count = words_to_number(quarters.group(1))
        if count is not None:
            return round(count * 900)
    total = 0.0
    found = False
    for match in _DURATION.finditer(text):
        number_text = match.group("number").lower()
        unit = match.group("unit").lower().rstrip("s") or "s"
        unit = unit if unit in _SECONDS else unit[:1]
        seconds = _SECONDS.get(unit)
        if seconds is None:
            continue
        if number_text in ("half an", "half a"):
            amount = 0.5
        elif number_text in ("a quarter of an", "quarter of an"):
            amount = 0.25
        else:
            value = words_to_number(number_text)
            if value is None:
                continue
            amount = value
        if match.group(0).lower().endswith("and a half"):
            amount += 0.5
        total += amount * seconds
        found = True
    return round(total) if found else None


def reference_date(value: object) -> datetime | None:
    """A reference date given as ISO 8601 text (``context["now"]``), or ``None``."""
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value)
        except ValueError:
            return None
    return None


def parse_now(value: object) -> datetime:
    """The clock a case injects (``context["now"]``), or a fixed default for reproducibility."""
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value)
        except ValueError:
            pass
    return datetime(2026, 12, 1, 9, 0)


def relative_date(text: str, now: datetime) -> date | None:
    """Read ``today``, ``tomorrow``, ``the day after tomorrow``, ``in 3 days``, ``next friday``."""
    lowered = text.lower()
    if "day after tomorrow" in lowered:
        return now.date() + timedelta(days=2)
    if "tomorrow" in lowered:
        return now.date() + timedelta(days=1)
    if "today" in lowered or "tonight" in lowered or "this evening" in lowered:
        return now.date()
    match = re.search(rf"\bin ({NUMBER}) days?\b", lowered)
    if match:
        days = words_to_number(match.group(1))
        if days is not None:
            return now.date() + timedelta(days=int(days))
    match = re.search(r"\b(?:on |next |this )?(" + "|".join(WEEKDAYS) + r")\b", lowered)
    if match:
        target = WEEKDAYS.index(match.group(1))
        ahead = (target - now.weekday()) % 7 or 7
        return now.date() + timedelta(days=ahead)
    match = re.search(r"\b(\d{4})-(\d{2})-(\d{2})\b", lowered)
    if match:
        try:
            return date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
        except ValueError:
            return None
    return None


def find_time(text: str) -> str | None:
    """A clock time as ``HH:MM``: ``5pm``, ``5:30 pm``, ``17:30``, ``noon``, ``half past seven``."""
    lowered = text.lower()
    if re.search(r"\bnoon\b|\bmidday\b", lowered):
        return "12:00"
    if re.search(r"\bmidnight\b", lowered):
        return "00:00"
    match = re.search(r"\b(\d{1,2})(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)", lowered)
    if match:
        hour, minute = int(match.group(1)), int(match.group(2) or 0)
        if not 1 <= hour <= 12 or minute > 59:
            return None
        pm = match.group(3).startswith("p")
        hour = (hour % 12) + (12 if pm else 0)
        return f"{hour:02d}:{minute:02d}"
    match = re.search(r"\b(?:at )?(\d{1,2}):(\d{2})\b", lowered)
    if match:
        hour, minute = int(match.group(1)), int(match.group(2))
        if hour <= 23 and minute <= 59:
            return f"{hour:02d}:{minute:02d}"
        return None
    match = re.search(rf"\bhalf past ({_NUMBER_WORD}|\d{{1,2}})\b", lowered)
    if match:
        hour = words_to_number(match.group(1))
        if hour is not None and 1 <= hour <= 12:
            return f"{int(hour) % 12 + (12 if int(hour) < 8 else 0):02d}:30"
    return None


def stems(words: list[str]) -> set[str]:
    """Lower-cased words of three letters or more, a final ``s`` dropped: signs to compare."""
    return {w.lower().rstrip("s") for w in words if len(w) >= 3}


def numbers_in(text: str) -> list[float]:
    """Every number in ``text``, in digits or words (``a`` and ``an`` aside), in order."""
    values: list[float] = []
    for match in re.finditer(rf"(?<![\w.]){NUMBER}(?![\w]|\.\d)", text, re.IGNORECASE):
        if match.group(0).lower() in ("a", "an"):
            continue
        value = words_to_number(match.group(0))
        if value is not None:
            values.append(value)
    return values


def clauses(text: str) -> list[str]:
    """Each value mentioned counts: the text is read clause by clause, not first match only."""
    return [c for c in re.split(r"[.?!;,]|\b(?:and|but|till|until|or)\b", text, flags=re.I) if c]


_MONTH_DAY = re.compile(
    r"\b("
    + "|".join(MONTHS)
    + r"|"
    + "|".join(m[:3] for m in MONTHS)
    + r"|sept)(?:\.\s*|\s+)(\d{1,2})(?:st|nd|rd|th)?\b"
    r"|\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(" + "|".join(MONTHS) + r")\b",
    re.IGNORECASE,
)
_YEAR_AFTER = re.compile(r"(?:,\s*|\s+)(\d{4})\b")
# A date written with its year first, in numbers: "2022-04-27", "2022/08/16". Written the
# other way ("08/04/2022") it is the 4th of August or the 8th of April: not read.
# Not "version 2024.1.2" nor "order #2024-05-06": no dots, nothing that numbers a thing.
_YEAR_FIRST = re.compile(r"(?<![\d/.#-])(\d{4})([-/])(\d{1,2})\2(\d{1,2})(?![\d/.-]|\.\d)")
_ORDINAL_DAY = re.compile(r"\b(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)\b", re.IGNORECASE)
_NEXT_MONTH = re.compile(r"\s+of\s+next\s+month\b", re.IGNORECASE)
_MONTH_AFTER = re.compile(r"\s+(?:of\s+)?(?:" + "|".join(MONTHS) + r")\b", re.IGNORECASE)


_ANY_DAY = datetime(2000, 1, 3, 12, 0)
"""A stand-in reference date, only to ask whether the text holds a relative date at all."""


# A weekday after a capitalised word inside a sentence ends a name ("Taking Back Sunday",
# "Bloody Sunday"), unless the word says when ("On Sunday", "Next Friday").
_NAMED_WEEKDAY = re.compile(
    r"(?<=[a-z,;:] )([A-Z][a-z']+)\s+((?i:mon|tues|wednes|thurs|fri|satur|sun)day)\b"
)
_WHEN_WORDS = frozenset(
    ["on", "next", "this", "last", "every", "by", "until", "till", "before", "after", "from",
     "to", "coming", "following", "and", "or", "through", "thru", "since"]
)  # fmt: skip


def _in_names(text: str) -> str:
    """``text`` with a weekday that ends a name masked: it names no day."""

    def mask(match: re.Match[str]) -> str:
        if match.group(1).lower() in _WHEN_WORDS:
            return match.group(0)
        return f"{match.group(1)} {'_' * len(match.group(2))}"

    return _NAMED_WEEKDAY.sub(mask, text)


def find_date(text: str, now: datetime | None) -> date | None:
    """The one date the text names (see ``_find_date``); ``now``'s zone is part of the key.

    Each request of a conversation reads its earlier messages again, so recent answers
    are kept; two equal instants in different zones are different days to count from.
    """
    return _find_date(text, now, None if now is None else now.utcoffset())


@lru_cache(maxsize=4096)
def _find_date(text: str, now: datetime | None, _zone: object) -> date | None:
    """The one date the text names (relative, weekday, ``March 5th``), or ``None`` if not one.

    ``now`` is the conversation's reference date. Without one only a date that
    needs none is read (``March 5th 2019``): ``tomorrow``, ``friday``, ``the
    6th`` or ``March 5th`` with no year name a day that depends on when they
    were said, so a text holding any of them reads as no date, never as a day
    counted from the machine's clock or a default.
    """
    text = _in_names(text)
    if now is None:
        return _absolute_date(text)
    found: set[date] = {
        day for clause in clauses(text) if (day := relative_date(clause, now)) is not None
    }
    found |= _years_first(text)
    named_days: set[int] = set()
    for match in _MONTH_DAY.finditer(text):
        named_days.add(match.end())
        month_name = (match.group(1) or match.group(4) or "").lower()
        day = int(match.group(2) or match.group(3))
        month = next(i for i, m in enumerate(MONTHS, 1) if m.startswith(month_name[:3]))
        year = _YEAR_AFTER.match(text, match.end())
        try:
            candidate = date(int(year[1]) if year else now.year, month, day)
            if not year and candidate < now.date():
                candidate = date(now.year + 1, month, day)
        except ValueError:
            continue
        found.add(candidate)
    # "the 6th" or "6th of this month" with no month names a day of this month (or of the
    # next, once passed): one more date, so "on the 6th ... return on March 12th" is two
    # and fills nothing.
    for match in _ORDINAL_DAY.finditer(text):
        if match.end() in named_days or _MONTH_AFTER.match(text, match.end()):
            continue  # "March 12th", "the 12th of March" were read above
        day = int(match.group(1))
        month, year = now.month, now.year
        if day < now.day or _NEXT_MONTH.match(text, match.end()):
            month, year = (1, year + 1) if month == 12 else (month + 1, year)
        try:
            found.add(date(year, month, day))
        except ValueError:
            continue
    return found.pop() if len(found) == 1 else None


def _absolute_date(text: str) -> date | None:
    """The one date the text names with its year; ``None`` if any it names needs a reference.

    A relative day, a weekday, a day of the month or a month with no year needs one.
    """
    found: set[date] = _years_first(text)
    text = _YEAR_FIRST.sub(" ", text)  # read: "2021-11-30" needs no reference
    if any(relative_date(clause, _ANY_DAY) is not None for clause in clauses(text)):
        return None
    named = {match.end() for match in _MONTH_DAY.finditer(text)}
    for match in _ORDINAL_DAY.finditer(text):
        if match.end() not in named and not _MONTH_AFTER.match(text, match.end()):
            return None  # "the 6th": of the month it is said in
    for match in _MONTH_DAY.finditer(text):
        year = _YEAR_AFTER.match(text, match.end())
        if not year:
            return None
        month_name = (match.group(1) or match.group(4) or "").lower()
        month = next(i for i, m in enumerate(MONTHS, 1) if m.startswith(month_name[:3]))
        try:
            found.add(date(int(year[1]), month, int(match.group(2) or match.group(3))))
        except ValueError:
            return None
    return found.pop() if len(found) == 1 else None


def _years_first(text: str) -> set[date]:
    """The dates written with their year first ("2022-04-27"), where they are days."""
    found: set[date] = set()
    for match in _YEAR_FIRST.finditer(text):
        try:
            found.add(date(int(match[1]), int(match[3]), int(match[4])))
        except ValueError:
            continue
    return found


DATE_WORDS = re.compile(
    r"\b(?:today|tonight|tomorrow|yesterday|week|weekend|month|day|"
    + "|".join([*MONTHS, *WEEKDAYS])
    + r")s?\b",
    re.IGNORECASE,
)
"""Words that speak of a day, read or not: a sign that a date is stated."""
TIME_WORDS = re.compile(
    r"\b(?:morning|afternoon|evening|night|noon|midnight|o'clock|am|pm|\d{1,2}:\d{2})\b",
    re.IGNORECASE,
)
"""Words that speak of a time of day, read or not: a sign that a clock time is stated."""
