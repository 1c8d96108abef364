"""Reading a clock time from English: the one time the text names, or none at all.

Every mention of a time of day is found, read or not, and a time is taken
only when each mention is read and all of them agree:

* read: ``5pm``, ``5:30 p.m.``, ``17:30``, ``07:30``, ``noon``, ``midnight``;
  an hour with its part of the day on either side (``6 in the evening``,
  ``eleven o'clock in the morning``, ``quarter to 6 in the evening``, ``in
  the evening 6:45``, ``tonight at 8``); ``1:30`` alone with the text's one
  part of the day (``1:30 ... in the afternoon``);
* not read, so nothing is taken: an hour whose half of the day is not said
  (``at 5``, ``half past 7``, ``quarter to 6``, ``7 o'clock``), a bare hour
  that may count people (``a table for 6 in the evening``, ``2 tonight``),
  and a time that bounds rather than states (``by 5pm``, ``after 6 pm``,
  ``between 4 and 6``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agent_lab.resolvers.doubts import Sentences, acceptances_after
from agent_lab.resolvers.english import words_to_number

__all__ = ["TimeMention", "find_clock", "stated_time", "time_mentions"]

_HOUR_WORDS = "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"
_HOUR = rf"(?:\d{{1,2}}|{_HOUR_WORDS})"
_OCLOCK = r"o\W{0,2}\s*clock"  # o'clock, o"clock, o clock
_MINUTE_WORDS = {"fifteen": 15, "thirty": 30, "forty five": 45}
_MERIDIEM = re.compile(
    rf"(?<![\w:.])(?P<h>{_HOUR})(?:[:.](?P<m>\d\d))?\s*(?P<ap>[ap])\.?\s?m(?![a-z])\.?",
    re.IGNORECASE,
)
# "6 in the evening", "6:45 tomorrow evening", "eleven o'clock in the morning".
_WITH_PART = re.compile(
    rf"(?<![\w:.])(?P<h>{_HOUR})"
    rf"(?P<said>[:.](?P<m>\d\d)|\s+(?P<mw>fifteen|thirty|forty[\s-]five)|\s*{_OCLOCK})?"
    r"\s+(?:(?P<link>in\s+the|at|this|tomorrow|today)\s+)?"
    r"(?:(?P<part>morning|afternoon|evening|night)|(?P<tonight>tonight))\b",
    re.IGNORECASE,
)
_QUARTER = re.compile(
    rf"\b(?P<q>quarter|half)\s+(?P<dir>past|after|to|of|till|til)\s+(?P<h>{_HOUR})\b"
    rf"(?:\s*{_OCLOCK})?(?:\s+(?:(?:in\s+the|at|this|tomorrow|today)\s+)?"
    r"(?:(?P<part>morning|afternoon|evening|night)|(?P<tonight>tonight))\b)?",
    re.IGNORECASE,
)
# "in the evening 6:45", "tonight at 8": the part of the day first. A bare hour after
# it counts only where nothing follows that it could count ("evening 4 people").
_PART_FIRST = re.compile(
    r"\b(?:(?P<part>morning|afternoon|evening|night)|(?P<tonight>tonight))\s*,?\s+"
    rf"(?:(?:at|around|about)\s+)?(?P<h>{_HOUR})(?:[:.](?P<m>\d\d))?(?![\w:])"
    r"(?P<end>\s*(?:$|[.,;!?]|(?:on|at|in|and|or|please|with|so|if|is|would|will|then)\b))?",
    re.IGNORECASE,
)
_COLON = re.compile(r"(?<![\w:.])(?P<h>\d{1,2}):(?P<m>\d\d)(?![\w:])")
_NOON = re.compile(r"\b(?:12\s*)?(?P<w>noon|midday|midnight)\b", re.IGNORECASE)
# Mentions of a time of day that are never read: the half of the day is not said.
_UNREAD = re.compile(
    rf"(?<![\w:.])(?:{_HOUR})\s*{_OCLOCK}"
    r"|\b(?:at|around|about|by|before|after|until|till|til|between|from|past|than|to)\s+"
    rf"(?:(?:about|around|roughly)\s+)?{_HOUR}\b(?![:.,]?\d)",
    re.IGNORECASE,
)
# A time these come before bounds the one meant rather than stating it.
_BOUND = re.compile(
    r"\b(?:by|before|after|until|till|til|than|between|past|since)\s+"
    r"(?:(?:about|around|roughly)\s+)?$",
    re.IGNORECASE,
)
# "a table for 6 in the evening": six people, or six o'clock?
_COUNTED = re.compile(r"\bfor\s+$", re.IGNORECASE)
_TIMED = re.compile(r"\b(?:at|around|about)\s+$", re.IGNORECASE)
# After the last time said, a time moved or taken back: "a little earlier", "later".
_MOVED = re.compile(r"\b(?:earlier|later|sooner)\b(?!\s+(?:today|tonight|this)\b)", re.IGNORECASE)
# What speaks of a time of day after a correction ("no, make it 7", "actually at 6 pm").
_CLOCK_WORDS = re.compile(
    r"\b(?:time|earlier|later|noon|midnight|morning|afternoon|evening|night|tonight)\b"
    rf"|(?<![\w:.])(?:\d{{1,2}}(?::\d\d)?|{_HOUR_WORDS})\b"
    rf"(?=\s*(?:$|[.,;!?]|(?:instead|please|then|in\s+the|at\s+night)\b|{_OCLOCK}|[ap]\.?\s?m\b))",
    re.IGNORECASE,
)
_PARTS = re.compile(r"\b(?:(morning|afternoon|evening|night)|tonight)\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class TimeMention:
    """Where the text speaks of a time of day, and what it reads as."""

    start: int
    end: int
    value: str | None
    """``HH:MM``, or ``None`` when the mention has two readings or is not read."""
    bound: bool = False
    """A limit (``by 5pm``, ``after 6``), not the time itself."""


def _hour(token: str) -> int | None:
    number = words_to_number(token)
    return int(number) if number is not None and number.is_integer() else None


def _on_the_clock(hour: int | None, minute: int, part: str | None) -> str | None:
    """An hour in its part of the day, as ``HH:MM``; ``None`` where that is unsure."""
    if hour is None or minute > 59 or hour > 23:
        return None
    if hour == 0 or hour > 12:  # a 24-hour clock says it all, if the part agrees
        agrees = part is None or (part == "morning") == (hour < 12)
        return f"{hour:02d}:{minute:02d}" if agrees else None
    match part:
        case "morning":
            read = None if hour == 12 else hour
        case "afternoon":
            read = hour % 12 + 12
        case "evening":
            read = None if hour == 12 else hour + 12
        case "night":
            # "12 at night" is midnight, "9 at night" 21:00; "2 at night" could be either.
            read = 0 if hour == 12 else (hour + 12 if hour >= 6 else None)
        case _:
            read = None
    return None if read is None else f"{read:02d}:{minute:02d}"


def _part(match: re.Match[str]) -> str | None:
    if match["tonight"]:
        return "evening"
    return match["part"].lower() if match["part"] else None


def _meridiem(match: re.Match[str]) -> str | None:
    hour, minute = _hour(match["h"]), int(match["m"] or 0)
    if hour is None or not 1 <= hour <= 12 or minute > 59:
        return None
    return f"{hour % 12 + (12 if match['ap'].lower() == 'p' else 0):02d}:{minute:02d}"


def _with_part(match: re.Match[str], text: str) -> str | None:
    # A bare number may count people: "a table for 6 in the evening", "2 tonight".
    if match["said"] is None:
        before = text[max(0, match.start() - 10) : match.start()]
        linked = (match["link"] or "").lower().startswith(("in", "at")) or _TIMED.search(before)
        if not linked or _COUNTED.search(before):
            return None
    spoken = re.sub(r"[\s-]+", " ", (match["mw"] or "").lower())
    minute = int(match["m"]) if match["m"] else _MINUTE_WORDS.get(spoken, 0)
    return _on_the_clock(_hour(match["h"]), minute, _part(match))


def _quarter(match: re.Match[str]) -> str | None:
    hour, part = _hour(match["h"]), _part(match)
    quarter, direction = match["q"].lower(), match["dir"].lower()
    forward = direction in ("past", "after")
    if hour is None or not 1 <= hour <= 12 or part is None or not (quarter == "quarter" or forward):
        return None
    whole = _on_the_clock(hour, 0, part)
    if whole is None:
        return None
    minutes = int(whole[:2]) * 60 + ((15 if quarter == "quarter" else 30) if forward else -15)
    minutes %= 24 * 60
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def _colon(match: re.Match[str], parts: set[str]) -> str | None:
    hour, minute = int(match["h"]), int(match["m"])
    if match["h"].startswith("0") and minute <= 59:  # "07:30": a 24-hour clock
        return f"{hour:02d}:{minute:02d}"
    if hour == 0 or hour > 12:
        return _on_the_clock(hour, minute, None)
    # "1:30" alone is one of two times; the text's one part of the day says which.
    return _on_the_clock(hour, minute, next(iter(parts))) if len(parts) == 1 else None


def _read(text: str) -> list[TimeMention]:
    """Every mention each pattern finds, overlapping ones included."""
    found = [TimeMention(m.start(), m.end(), _meridiem(m)) for m in _MERIDIEM.finditer(text)]
    found += [
        TimeMention(m.start(), m.end(), _with_part(m, text)) for m in _WITH_PART.finditer(text)
    ]
    found += [TimeMention(m.start(), m.end(), _quarter(m)) for m in _QUARTER.finditer(text)]
    for match in _PART_FIRST.finditer(text):
        stated = match["m"] is not None or match["end"] is not None
        value = _on_the_clock(_hour(match["h"]), int(match["m"] or 0), _part(match))
        found.append(TimeMention(match.start(), match.end(), value if stated else None))
    parts = {(m[1] or "evening").lower() for m in _PARTS.finditer(text)}
    found += [TimeMention(m.start(), m.end(), _colon(m, parts)) for m in _COLON.finditer(text)]
    for match in _NOON.finditer(text):
        value = "00:00" if match["w"].lower() == "midnight" else "12:00"
        found.append(TimeMention(match.start(), match.end(), value))
    found += [TimeMention(m.start(), m.end(), None) for m in _UNREAD.finditer(text)]
    return found


def time_mentions(text: str) -> list[TimeMention]:
    """Each mention of a time of day, in order; one inside a longer one is not kept.

    A mention not read that overlaps one read (``at 5`` in ``at 5 pm``) is
    covered by it and dropped.
    """
    spans = sorted(_read(text), key=lambda m: (m.start, -m.end, m.value is None))
    kept: list[TimeMention] = []
    for mention in spans:
        if not kept or mention.end > kept[-1].end:  # else inside a longer one, or read twice
            kept.append(mention)
    # Starts and ends both rise now, so the read mentions that overlap one are
    # the nearest read one on either side: one pass each way.
    covered = [False] * len(kept)
    reach = -1
    for index, mention in enumerate(kept):
        covered[index] = mention.start < reach
        if mention.value is not None:
            reach = mention.end
    start = len(text) + 1
    for index in range(len(kept) - 1, -1, -1):
        mention = kept[index]
        covered[index] = covered[index] or start < mention.end
        if mention.value is not None:
            start = mention.start
    return [
        TimeMention(
            m.start,
            m.end,
            m.value,
            _BOUND.search(text, max(0, m.start - 24), m.start) is not None,
        )
        for m, over in zip(kept, covered, strict=True)
        if m.value is not None or not over
    ]


def find_clock(text: str) -> str | None:
    """The one clock time the text names, as ``HH:MM``; ``None`` unless every mention agrees."""
    found = time_mentions(text)
    values = {m.value for m in found}
    if len(values) != 1 or None in values or any(m.bound for m in found):
        return None
    return values.pop()


def stated_time(text: str) -> str | None:
    """The one clock time the text names and keeps, as ``HH:MM``; else ``None``.

    Beyond ``find_clock``: after the last time said, the user may not accept
    twice (``... at 5:45. Yes. That would be fine.``: the first confirms the
    time said back, the second takes something offered since, maybe another
    time), move it (``a little earlier``) or take it back and speak of a
    time (``4pm. Actually, make it 5``).
    """
    found = time_mentions(text)
    values = {m.value for m in found}
    if len(values) != 1 or None in values or any(m.bound for m in found):
        return None
    last = found[-1].end
    if (
        acceptances_after(text, last) > 1
        or _MOVED.search(text, last) is not None
        or Sentences(text).corrected_after(last, lambda said: _CLOCK_WORDS.search(said) is not None)
    ):
        return None
    return values.pop()
