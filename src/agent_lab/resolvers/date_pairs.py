"""Two dates for a tool's two date parameters, a start and an end, placed by their cues.

One date in a text cannot say which of two date parameters it is (pick-up or
drop-off), so a lone date fills only a lone date parameter. Two dates can,
where English places them: ``from March 10th to the 13th``, ``between the 3rd
and the 5th``, or one date per clause with the clause's own cue (``pick it up
on March 12th and drop it off on the 14th``, ``leaving Friday, returning
Sunday``). A parameter's role comes from its name's words (``pickup_date``,
``departure_date``, ``check_in_date`` start; ``dropoff_date``, ``return_date``,
``check_out_date`` end). Anything else, a third date, an end before its start,
two dates in one clause with no ``from ... to``: nothing.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Literal

from agent_lab.resolvers.cues import name_words
from agent_lab.resolvers.english import find_date

if TYPE_CHECKING:
    from datetime import date, datetime

__all__ = ["Role", "date_role", "is_stay", "placed_dates"]

Role = Literal["start", "end"]

_START_WORDS = frozenset(
    ["pickup", "pick", "departure", "depart", "departing", "leaving", "leave", "start",
     "begin", "outbound", "checkin", "from", "arrival", "arrive", "onward"]
)  # fmt: skip
_END_WORDS = frozenset(
    ["dropoff", "drop", "return", "returning", "end", "until", "inbound", "checkout", "back",
     "to", "till"]
)  # fmt: skip
_CUES: dict[Role, re.Pattern[str]] = {
    "start": re.compile(
        r"\b(?:pick(?:ing)?[ -]?(?:it |the car |them )?up|pickup|depart(?:ing|ure)?|"
        r"leav(?:e|ing)|start(?:ing)?|begin(?:ning)?|check(?:ing)?[ -]?in|outbound|"
        r"go(?:ing)? out|fly(?:ing)? out)\b",
        re.IGNORECASE,
    ),
    "end": re.compile(
        r"\b(?:drop(?:ping)?[ -]?(?:it |the car |them )?off|dropoff|return(?:ing)?|"
        r"com(?:e|ing) back|fly(?:ing)? back|check(?:ing)?[ -]?out|end(?:ing)?|inbound|"
        r"back on|until|till)\b",
        re.IGNORECASE,
    ),
}
_RANGE = re.compile(
    r"\b(?:from|between)\s+(?P<first>.{1,40}?)\s+(?:to|until|till|through|and)\s+"
    r"(?P<second>.{1,40}?)(?=[.,;!?]|\s+(?:and|at|for|in|with)\b|$)",
    re.IGNORECASE,
)
# "March 9th at 1:30 pm until March 14th": a range with no "from", its end said next.
_UNTIL = re.compile(
    r"\s+(?:until|till|through|thru|to)\s+(?=(?:the\s+)?(?:\d|next\b|this\b|tomorrow\b|"
    r"january|february|march|april|may|june|july|august|september|october|november|december|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday))",
    re.IGNORECASE,
)
_CLAUSE_END = re.compile(r"[.;!?]")
# A stay (check-in and check-out, arrival and departure at a hotel) starts when one arrives
# and ends when one leaves: "arriving March 9th and leaving on the 12th".
_STAY_CUES: dict[Role, re.Pattern[str]] = {
    "start": re.compile(r"\b(?:check(?:ing)?[ -]?in|arriv(?:e|ing|al))\b", re.IGNORECASE),
    "end": re.compile(
        r"\b(?:check(?:ing)?[ -]?out|leav(?:e|ing)|depart(?:ing|ure)?|until|till)\b",
        re.IGNORECASE,
    ),
}
_CLAUSE = re.compile(r"[.;!?]|,|\band\b|\bthen\b|\bbut\b", re.IGNORECASE)
_MONTH_OF = re.compile(r"\b(january|february|march|april|may|june|july|august|september|"
                       r"october|november|december)\b", re.IGNORECASE)  # fmt: skip


def date_role(name: str) -> Role | None:
    """Whether a date parameter is a start or an end, by its name's words; ``None`` if neither."""
    words = set(name_words(name))
    if "check" in words and "in" in words:
        words.add("checkin")
    if "check" in words and "out" in words:
        words.add("checkout")
    start, end = bool(words & _START_WORDS), bool(words & _END_WORDS)
    if start == end:
        return None
    return "start" if start else "end"


def is_stay(start: str) -> bool:
    """Whether a start date parameter begins a stay (``check_in_date``), by its name's words."""
    words = set(name_words(start))
    return ("check" in words and "in" in words) or bool(words & {"checkin", "arrival", "arrive"})


def placed_dates(text: str, now: datetime | None, *, stay: bool = False) -> dict[Role, date]:
    """The dates ``text`` places by role: a start, an end, both, or none.

    Both from ``from D1 to D2`` (or ``between D1 and D2``, ``D1 until D2``), else one
    per clause by its own cue; for a ``stay``, arriving starts it and leaving ends it.
    A clause with a date and no cue, or with both cues, a role named twice, or an end
    before its start: nothing at all.
    """
    if now is None or len(text) > 2_000:
        return {}
    ranged = _ranged(text, now)
    if ranged is not None:
        return ranged
    for match in _RANGE.finditer(text):
        first = find_date(match.group("first"), now)
        second_text = match.group("second")
        if first is not None and not _MONTH_OF.search(second_text):
            # "from March 10th to the 13th": the second day is of the first's month.
            second_text = f"{second_text} of {first.strftime('%B')}"
        second = find_date(second_text, now)
        if first is not None and second is not None and first <= second:
            rest = _RANGE.sub(" ", text)
            return {"start": first, "end": second} if find_date(rest, now) is None else {}
    placed: dict[Role, date] = {}
    cues = _STAY_CUES if stay else _CUES
    for clause in _CLAUSE.split(text):
        day = find_date(clause, now)
        if day is None:
            continue
        roles: list[Role] = [role for role, cue in cues.items() if cue.search(clause)]
        if len(roles) != 1 or roles[0] in placed:
            return {}
        placed[roles[0]] = day
    start, end = placed.get("start"), placed.get("end")
    if start is not None and end is not None and end < start:
        return {}
    return placed


def _ranged(text: str, now: datetime) -> dict[Role, date] | None:
    """``D1 until D2`` (or ``to``, ``through``) in one sentence, and no other date: both.

    ``None`` when there is no such range; ``{}`` when one leaves another date unplaced.
    """
    for match in _UNTIL.finditer(text):
        sentence_start = max(
            (m.end() for m in _CLAUSE_END.finditer(text, 0, match.start())), default=0
        )
        ahead = _CLAUSE_END.search(text, match.end())
        before = text[sentence_start : match.start()]
        after = text[match.end() : ahead.start() if ahead else len(text)]
        first, second = _last_date(before, now), find_date(after, now)
        if first is None or second is None or second < first:
            continue
        rest = text[:sentence_start] + " " + (text[ahead.start() :] if ahead else "")
        return {"start": first, "end": second} if find_date(rest, now) is None else {}
    return None


def _last_date(before: str, now: datetime) -> date | None:
    """The one date a sentence names before its range's end, in its last clause or whole."""
    clauses = [c for c in _CLAUSE.split(before) if c.strip()]
    last = find_date(clauses[-1], now) if clauses else None
    return last if last is not None else find_date(before, now)
