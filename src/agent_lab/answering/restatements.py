"""Whether later words may restate a value said before, in a way plain code cannot read.

A value carried from an earlier turn skips the model, so it is dropped where
the words since may change it ("Actually, pick it up in Seattle, WA"). Doubt
is generous for the user's words, which may restate a name in lower case or
in part; it is narrower where the words were read already, by what is left
unread in them: a name no value read is, a number no count read is, a clock
time. ``answering.reading`` asks these.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from agent_lab.resolvers.english import MONTHS, TIME_WORDS, WEEKDAYS, numbers_in
from agent_lab.resolvers.name_runs import names_unread

if TYPE_CHECKING:
    from collections.abc import Sequence

    from agent_lab.answering.kept_readings import Reader
    from agent_lab.strict_json import JSONObject, JSONValue

__all__ = ["may_change", "restated", "unnumbered", "weekday_back"]

# A number in a clock time or a day of the month counts nothing ("at half past 6", "the 4th").
_CLOCKS_AND_DAYS = re.compile(
    r"\b(?:(?:a\s+)?(?:half|quarter)\s+(?:past|to|after)\s+\w+"
    r"|\w+\s+(?:o'clock|in the (?:morning|afternoon|evening|night)|[ap]\.?m\b\.?)"
    r"|\d{1,2}:\d{2}|\d+(?:st|nd|rd|th)\b"
    rf"|(?:{'|'.join(MONTHS)})\w*\.?\s+\d{{1,2}}\b|\d{{1,2}}\s+(?:of\s+)?(?:{'|'.join(MONTHS)}))",
    re.IGNORECASE,
)
_COUNT_NUMBER = re.compile(r"\b\d+(?:[.,]\d+)?\b")
_BARE_NUMBER = re.compile(r"\b\d+(?!\d|st\b|nd\b|rd\b|th\b)")


def may_change(kind: str, name: str, reader: Reader, text: str, read: JSONObject) -> bool:
    """Whether ``text``, read as ``read``, may state ``name`` (of ``kind``) unread.

    For a name, one the reading did not take ("Seattle, WA"), not any capital; for a
    count, a number no value read is; for a time, a clock word or a number no value read
    is, that is no day of the month; for the rest, a sign no value read explains.
    """
    if kind == "free-form":
        return names_unread(text, read.values())
    if kind == "number":
        numbers = {n for v in read.values() if (n := _number(v)) is not None}
        return any(n not in numbers for n in numbers_in(_CLOCKS_AND_DAYS.sub(" ", text)))
    if kind == "time":
        numbers = {n for v in read.values() if (n := _number(v)) is not None}
        bare = (float(match.group()) for match in _BARE_NUMBER.finditer(text))
        return bool(TIME_WORDS.search(text) or any(n not in numbers for n in bare))
    return reader.may_state(name, text, read.values())


def restated(kind: str, name: str, reader: Reader, offer: str, known: Sequence[JSONValue]) -> bool:
    """Whether an accepted summary may restate ``name`` otherwise than as it was said before.

    A name the summary repeats verbatim is confirmed; one it may state in other words
    is a name of the summary's that no known value is. Not a count: a summary holds
    numbers of every kind (a price, a day, a time).
    """
    if kind == "number":
        return False
    if kind == "free-form":
        return names_unread(offer, known)
    return reader.may_state(name, offer, known)


def unnumbered(text: str) -> str:
    """``text`` without its clock times, days of the month and counts.

    "Book it for April 9th" names no place; "Pier 39" is still a name by its capital.
    """
    return _COUNT_NUMBER.sub(" ", _CLOCKS_AND_DAYS.sub(" ", text))


def _number(value: JSONValue) -> float | None:
    """A read value as a number (``"4"`` as a string-typed count), or ``None``."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str) and value.replace(".", "", 1).isdigit():
        return float(value)
    return None


_WEEKDAY = re.compile(rf"\b(?:{'|'.join(WEEKDAYS)})\b", re.IGNORECASE)
# A day said beside the weekday: "the 9th", "9/4", "April 9", "next", "this"; not a clock
# time ("around 3pm").
_DAY_SAID = re.compile(
    rf"\b\d{{1,2}}(?:st|nd|rd|th)\b|\b\d{{1,2}}[/.-]\d{{1,2}}\b|\b\d{{4}}-\d\d-\d\d\b"
    rf"|\b(?:{'|'.join(MONTHS)})\b\W*\d|\d\W*\b(?:{'|'.join(MONTHS)})\b"
    r"|\b(?:next|this|coming|following)\b",
    re.IGNORECASE,
)


def weekday_back(text: str, value: JSONValue, before: JSONValue) -> bool:
    """Whether a weekday alone moves a date back from the one in view: two readings.

    "What about Thursday instead?" after a search for next Wednesday: the Thursday
    after it, or the one before, which the reading from today gives. A weekday with a
    date or a "next" ("next Thursday", "Thursday the 9th") is read as said.
    """
    if not (isinstance(value, str) and isinstance(before, str) and value < before):
        return False
    return _WEEKDAY.search(text) is not None and _DAY_SAID.search(text) is None
