"""A deterministic resolver driven by the JSON Schema alone: confident values or none at all.

It reads, for each top-level property, what the schema says it is (its
``kind``): an enum, a number, a boolean, a date, a time, or free-form text.
A wrong deterministic value is worse than a missing one, because it skips the
fallback; so a value is taken only when there is exactly one reading:

* ``payload``: a value given as structured data, of the right type, is taken.
* ``enum``: the one enum value the text names (case-, spacing- and
  underscore-insensitive, on word boundaries); two candidates: nothing.
* ``number``: the one number in the text (digits or words) when the schema
  has one numeric property left to fill; otherwise nothing.
* ``date`` / ``time``: the one date (today, tomorrow, in 3 days, next friday,
  March 5th) or clock time (5pm, 17:30, half past 11 in the morning) in the
  text, against the reference clock the event's context injects (``now``).
* ``boolean`` and free-form text: only from the payload; the text is left
  to the fallback.

Plugins give hints per property with the ``x-agent-lab`` keyword (an
annotation, ignored by validation): ``{"kind": "date"}``, ``{"format":
"string"}`` to render numbers and booleans as SGD-style canonical strings,
``{"format": "float"}`` to render whole numbers as floats (``5.0``), where the
source's truth is typed that way (BFCL's ``float``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime
from typing import TYPE_CHECKING, Any, cast

from agent_lab.application.events.models import Event, Resolution
from agent_lab.resolvers.english import NUMBER, find_time, parse_now, relative_date, words_to_number

if TYPE_CHECKING:
    from agent_lab.strict_json import JSONObject, JSONValue

__all__ = ["KINDS", "SchemaResolver", "kind_of"]

KINDS = ("enum", "number", "boolean", "date", "time", "free-form")
HINT = "x-agent-lab"
_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august",
           "september", "october", "november", "december"]  # fmt: skip
_MONTH_DAY = re.compile(
    r"\b("
    + "|".join(_MONTHS)
    + r"|"
    + "|".join(m[:3] for m in _MONTHS)
    + r")\.?\s+(\d{1,2})(?:st|nd|rd|th)?\b"
    r"|\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(" + "|".join(_MONTHS) + r")\b",
    re.IGNORECASE,
)
_YEAR_AFTER = re.compile(r",?\s+(\d{4})\b")
_TIME_WORDS = re.compile(
    rf"\b(?:at\s+)?(?<!past )(?<!to )(?P<hour>{NUMBER}|\d{{1,2}})"
    r"(?:\s*(?P<half>thirty|fifteen|forty five|o'clock))?"
    r"\s+(?:in the\s+)?(?P<part>morning|afternoon|evening|night|am|pm)\b",
    re.IGNORECASE,
)


def kind_of(schema: Mapping[str, Any]) -> str:
    """The kind of a property schema: enum, number, boolean, date, time or free-form."""
    hint = schema.get(HINT)
    if isinstance(hint, Mapping) and cast("Mapping[str, Any]", hint).get("kind") in KINDS:
        return str(cast("Mapping[str, Any]", hint)["kind"])
    if "enum" in schema:
        values = cast("list[Any]", schema["enum"])
        if {str(v) for v in values} <= {"True", "False", "true", "false"}:
            return "boolean"
        return "enum"
    kind = schema.get("type")
    if kind in ("integer", "number"):
        return "number"
    if kind == "boolean":
        return "boolean"
    fmt = schema.get("format")
    if fmt == "date":
        return "date"
    if fmt == "time":
        return "time"
    return "free-form"


def _variants(value: str) -> list[str]:
    text = value.lower().replace("_", " ")
    spaced = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", value).lower()
    return sorted({text, spaced, text.replace(" ", "")}, key=len, reverse=True)


def _find_date(text: str, now: datetime) -> date | None:
    found: set[date] = {
        day for clause in _clauses(text) if (day := relative_date(clause, now)) is not None
    }
    for match in _MONTH_DAY.finditer(text):
        month_name = (match.group(1) or match.group(4) or "").lower()
        day = int(match.group(2) or match.group(3))
        month = next(i for i, m in enumerate(_MONTHS, 1) if m.startswith(month_name[:3]))
        year = _YEAR_AFTER.match(text, match.end())
        try:
            candidate = date(int(year[1]) if year else now.year, month, day)
            if not year and candidate < now.date():
                candidate = date(now.year + 1, month, day)
        except ValueError:
            continue
        found.add(candidate)
    return found.pop() if len(found) == 1 else None


def _clauses(text: str) -> list[str]:
    """Each value mentioned counts: the text is read clause by clause, not first match only."""
    return [c for c in re.split(r"[.?!;,]|\b(?:and|but|till|until|or)\b", text, flags=re.I) if c]


def _with_part_of_day(hour: int, minute: int, text: str) -> str | None:
    if hour == 0 or hour > 12:
        return f"{hour:02d}:{minute:02d}"
    parts = {m.lower() for m in re.findall(r"\b(morning|afternoon|evening|night)\b", text, re.I)}
    if len(parts) != 1:
        return None
    afternoon = parts != {"morning"}
    return f"{hour % 12 + (12 if afternoon else 0):02d}:{minute:02d}"


def _find_clock(text: str) -> str | None:
    found: set[str] = set()
    plain = None
    for clause in _clauses(text):
        plain = find_time(clause)
        bare = re.search(r"\b(\d{1,2}):(\d{2})\b(?!\s*(?:am|pm|a\.m\.|p\.m\.))", clause, re.I)
        if plain is not None and bare is not None and plain == f"{int(bare[1]):02d}:{bare[2]}":
            # "1:30" alone is one of two clock times; a part of the day says which.
            plain = _with_part_of_day(int(bare[1]), int(bare[2]), text)
        if plain is not None:
            found.add(plain)
    for match in _TIME_WORDS.finditer(text):
        hour = words_to_number(match.group("hour"))
        if hour is None or not 1 <= hour <= 12 or hour != int(hour):
            continue
        minute = {"thirty": 30, "fifteen": 15, "forty five": 45}.get(
            (match.group("half") or "").lower(), 0
        )
        part = match.group("part").lower()
        afternoon = part in ("afternoon", "evening", "night", "pm")
        hour24 = int(hour) % 12 + (12 if afternoon else 0)
        found.add(f"{hour24:02d}:{minute:02d}")
    half = re.search(
        rf"\bhalf past ({NUMBER}|\d{{1,2}})\s+(?:in the\s+)?(morning|afternoon|evening|night)\b",
        text,
        re.I,
    )
    if half:
        hour = words_to_number(half.group(1))
        if hour is not None and 1 <= hour <= 12:
            afternoon = half.group(2).lower() != "morning"
            found = {f"{int(hour) % 12 + (12 if afternoon else 0):02d}:30"} | (
                found - {plain} if plain else found
            )
    return found.pop() if len(found) == 1 else None


_COUNT_WORDS = {"number", "num", "of", "count", "total", "the", "a", "an", "n"}
# Description words too common to be a sign of anything.
_STOP_WORDS = {
    "the", "and", "for", "with", "that", "this", "which", "what", "whether", "are", "is",
    "be", "you", "your", "user", "name", "type", "value", "date", "time", "want", "wants",
    "from", "will", "has", "have", "can", "not", "any", "all", "one", "its", "into", "per",
    "event", "like", "default", "preference", "no", "to", "in", "on", "at", "or", "by",
}  # fmt: skip
_RELATIVE = re.compile(r"\s*(?:ago|back|before|earlier|later|from now)\b", re.IGNORECASE)


def _name_words(name: str) -> list[str]:
    """``numberOfChecked_bags`` -> ``["number", "of", "checked", "bags"]``."""
    words = re.sub(r"(?<=[a-z])(?=[A-Z])", "_", name).lower().replace("-", "_").split("_")
    return [w for w in words if w]


def _nouns(name: str) -> list[str]:
    """``number_of_checked_bags`` -> ``["checked", "bags"]``: the words a count is of."""
    return [w for w in _name_words(name) if w not in _COUNT_WORDS]


def _head(name: str) -> str | None:
    """The word a property is about: ``speed_of_light`` -> speed, ``checked_bags`` -> bags."""
    words = _name_words(name)
    for joint in ("of", "per"):
        if joint in words[1:]:
            before = [w for w in words[: words.index(joint)] if w not in _COUNT_WORDS]
            if before:
                return before[-1]
    nouns = [w for w in words if w not in _COUNT_WORDS]
    return nouns[-1] if nouns else None


# Words that may not sit between a number and its noun ("6 and height 10").
_LINKS = r"(?!(?:and|or|to|from|of|by|with|than|per|in|at|for|is|are|the)\b)"
_SIGNED = rf"(?:-?\d+(?:\.\d+)?(?:e-?\d+)?|{NUMBER})"


# A number read with a unit of scale or as a percentage has two readings
# (5% is 5 or 0.05, "50 million" is 50 or 50000000): not confident.
_SCALED = re.compile(r"\s*(?:%|percent\b|per cent\b|million\b|billion\b|thousand\b|k\b)", re.I)


def _cued_number(name: str, text: str, *, head_alone: bool = True) -> float | None:
    """The one number next to the property's words.

    ``two bags``, ``3 checked bags`` (number first, at most one word between),
    ``height 10``, ``c=3``, ``height of 7``, ``x = -2`` (word first). The whole
    name (``decay rate``) is looked for first, then its head word alone. A
    relative number (``six years ago``), a percentage or a scaled one, or two
    different readings give nothing.
    """
    head = _head(name)
    if head is None:
        return None
    words = [w for w in _nouns(name) if w != "per"]
    phrases = (
        [r"\s+".join(re.escape(w) for w in words[:-1]) + rf"\s+{re.escape(words[-1].rstrip('s'))}"]
        if len(words) > 1
        else []
    )
    # When two properties share a head word (start_year, end_year), the head
    # alone cannot say which one a number belongs to.
    alone = [re.escape(head.rstrip("s"))] if head_alone or not phrases else []
    for phrase in [*phrases, *alone]:
        found = _numbers_by(rf"{phrase}(?:s|es)?", text)
        if found is None:
            return None
        if found:
            return found.pop() if len(found) == 1 else None
    return None


def _numbers_by(noun: str, text: str) -> set[float] | None:
    """The numbers next to ``noun``; ``None`` when one of them has two readings (5%)."""
    forward = rf"(?<![\w.-])({_SIGNED})\s*-?\s*(?:{_LINKS}[a-z]+\s+)?{noun}\b"
    backward = rf"\b{noun}\s*(?:=|:|\bis\b|\bof\b|\bas\b)?\s*({_SIGNED})(?!\w|\.\d)"
    found: set[float] = set()
    for pattern in (forward, backward):
        for match in re.finditer(pattern, text, re.IGNORECASE):
            token = match.group(1)
            if token.lower() in ("a", "an"):
                continue
            if pattern is forward and _RELATIVE.match(text, match.end()):
                continue
            if _SCALED.match(text, match.end(1)):
                return None
            value = _to_number(token)
            if value is not None:
                found.add(value)
    return found


def _to_number(token: str) -> float | None:
    try:
        return float(token)
    except ValueError:
        return words_to_number(token)


_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
_WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_DATE_WORDS = re.compile(
    r"\b(?:today|tonight|tomorrow|yesterday|week|weekend|month|day|"
    + "|".join([*_MONTHS, *_WEEKDAYS])
    + r")s?\b",
    re.IGNORECASE,
)
_TIME_WORDS_ANY = re.compile(
    r"\b(?:morning|afternoon|evening|night|noon|midnight|o'clock|am|pm|\d{1,2}:\d{2})\b",
    re.IGNORECASE,
)


def _stems(words: list[str]) -> set[str]:
    return {w.lower().rstrip("s") for w in words if len(w) >= 3}


def _evidence(prop: _Property, text: str) -> bool:
    """Whether the text may state this property's value in a way not read here.

    Deliberately generous: a false alarm costs one fallback request, a miss a
    wrong answer. The signs: the property's own words (``seats`` is not
    needed: ``passengers``'s description says ``seats``), any number for a
    numeric property, date or time words for those, a word of an enum value,
    and for free-form text a capitalised word past the sentence start.
    """
    stems = _stems(_WORD.findall(text))
    if stems & prop.own_words:
        return True
    if prop.kind == "number":
        return bool(_numbers(text))
    if prop.kind == "date":
        return bool(_DATE_WORDS.search(text) or re.search(r"\d", text))
    if prop.kind == "time":
        return bool(_TIME_WORDS_ANY.search(text) or re.search(r"\d", text))
    if prop.kind == "enum":
        return bool(stems & prop.value_words)
    if prop.kind == "free-form":
        after_start = re.split(r"(?:^|[.!?]\s+)\S+", text)
        return any(
            w[0].isupper() and w != "I" and not w.startswith("I'")
            for part in after_start
            for w in _WORD.findall(part)
        ) or bool(re.search(r"\d", text))
    return False


# Words in a flag's name that say nothing about what it is about.
_FLAG_WORDS = {"is", "has", "have", "allowed", "allow", "good", "for", "can", "with", "needs"}
# "I don't care about wifi" is no preference, not False.
_INDIFFERENT = re.compile(
    r"\b(?:don't|do not|doesn't|dont)\s+(?:care|mind)\b|\bdoesn't matter\b|\beither way\b", re.I
)
_NEGATION = re.compile(r"\b(?:no|not|without|don't|doesn't|dont|never|nor)\b|n't\b", re.I)


def _boolean_phrase(name: str, text: str) -> bool | None:
    """``has_wifi`` + "with wifi" -> True; + "no wifi needed" -> False; else None.

    The flag's subject (its name without words like ``has`` or ``allowed``)
    must be in the text, once; a negation in the same clause makes it False.
    """
    subject = [w for w in _nouns(name) if w not in _FLAG_WORDS]
    if not subject:
        return None
    pattern = r"\b" + r"[\s_-]*".join(re.escape(w.rstrip("s")) for w in subject) + r"s?\b"
    readings = {
        not _NEGATION.search(clause)
        for clause in _clauses(text)
        if re.search(pattern, clause, re.IGNORECASE)
    }
    if len(readings) != 1 or "?" in text or _INDIFFERENT.search(text):
        return None
    return readings.pop()


def _numbers(text: str) -> list[float]:
    values: list[float] = []
    for match in re.finditer(rf"(?<![\w.]){NUMBER}(?![\w]|\.\d)", text, re.IGNORECASE):
        if match.group(0).lower() in ("a", "an"):
            continue
        value = words_to_number(match.group(0))
        if value is not None:
            values.append(value)
    return values


@dataclass(frozen=True, slots=True)
class _Property:
    name: str
    schema: dict[str, Any]
    kind: str
    as_string: bool
    as_float: bool
    own_words: frozenset[str]
    """Stems of the property's name and description: signs that the text speaks of it."""
    value_words: frozenset[str]
    """Stems of the words of its enum values."""


class SchemaResolver:
    """Resolves an event's arguments from its JSON Schema alone (see the module docstring).

    Args:
        schema: The event's parameters schema (top-level ``properties`` are filled).
        reference: The clock for relative dates when the event's context has
            no ``now`` (SGD's dataset date, for instance).
    """

    def __init__(self, schema: Mapping[str, Any], *, reference: datetime | None = None) -> None:
        self.reference = reference
        properties = cast("dict[str, Any]", schema.get("properties") or {})
        required = cast("list[str]", schema.get("required") or [])
        self.required = tuple(required)
        self.properties: list[_Property] = []
        for name, sub in properties.items():
            if not isinstance(sub, dict):
                continue
            prop = cast("dict[str, Any]", sub)
            hint = cast("dict[str, Any]", prop.get(HINT) or {})
            as_string = hint.get("format") == "string" or prop.get("type") == "string"
            description = _WORD.findall(str(prop.get("description", "")))
            own = _stems(_nouns(name)) | (
                _stems(description) - _stems(list(_COUNT_WORDS | _STOP_WORDS))
            )
            values = cast("list[Any]", prop.get("enum") or [])
            self.properties.append(
                _Property(
                    name,
                    prop,
                    kind_of(prop),
                    as_string,
                    as_float=hint.get("format") == "float",
                    own_words=frozenset(own),
                    value_words=frozenset(
                        _stems([w for v in values for w in _WORD.findall(str(v))])
                    ),
                )
            )
        self._heads = Counter(_head(p.name) for p in self.properties)

    def __call__(self, event: Event) -> Resolution:
        """Find what can be found with confidence; report what is missing."""
        now = (
            parse_now(event.context.get("now"))
            if "now" in event.context
            else (self.reference or parse_now(None))
        )
        text = event.text
        found: JSONObject = {}
        for prop in self.properties:
            if prop.name in event.payload:
                value = self._from_payload(prop, event.payload[prop.name])
                if value is not None:
                    found[prop.name] = value
        left = Counter(p.kind for p in self.properties if p.name not in found)
        numbers = _numbers(text) if left["number"] else []
        for prop in self.properties:
            if prop.name in found:
                continue
            value = self._from_text(prop, text, now, numbers, left[prop.kind])
            if value is not None:
                found[prop.name] = value
        missing = tuple(name for name in self.required if name not in found)
        # An optional value the text states but this resolver cannot read
        # ("four seats" for passengers, "a small car") would be silently
        # dropped if the required ones are complete; a trace of one asks the
        # fallback instead, which costs a request, not a wrong answer.
        unexplained = tuple(
            prop.name
            for prop in self.properties
            if prop.name not in found and prop.name not in missing and _evidence(prop, text)
        )
        # complete=False, not "missing": the fallback is asked for every absent
        # property, and one the user did not state after all may stay absent.
        return Resolution(found, missing=missing, complete=False if unexplained else None)

    @staticmethod
    def _render(prop: _Property, value: JSONValue) -> JSONValue:
        if prop.as_float and isinstance(value, int) and not isinstance(value, bool):
            return float(value)
        if prop.as_string and not isinstance(value, str):
            if isinstance(value, bool):
                return "True" if value else "False"
            if isinstance(value, float) and value.is_integer():
                return str(int(value))
            return str(value)
        return value

    def _from_payload(self, prop: _Property, value: JSONValue) -> JSONValue | None:
        schema = prop.schema
        if "enum" in schema:
            return value if value in cast("list[Any]", schema["enum"]) else None
        kind = schema.get("type")
        if kind == "string":
            return value if isinstance(value, str) else None
        if kind == "integer":
            return value if isinstance(value, int) and not isinstance(value, bool) else None
        if kind == "number":
            return value if isinstance(value, int | float) and not isinstance(value, bool) else None
        if kind == "boolean":
            return value if isinstance(value, bool) else None
        return value

    def _from_text(
        self, prop: _Property, text: str, now: datetime, numbers: list[float], same_kind_left: int
    ) -> JSONValue | None:
        lowered = f" {text.lower()} "
        if prop.kind == "enum":
            values = [v for v in cast("list[Any]", prop.schema["enum"]) if isinstance(v, str | int)]
            spans = {
                (match.start(), match.end(), value)
                for value in values
                for variant in _variants(str(value))
                if variant
                for match in re.finditer(rf"(?<![\w]){re.escape(variant)}(?![\w])", lowered)
            }
            # "premium economy" names one class, not also "economy": a match
            # inside a longer one does not count.
            hits = {
                value
                for start, end, value in spans
                if not any(s <= start and end <= e and (e - s) > (end - start) for s, e, _ in spans)
            }
            if len(hits) == 1:
                return hits.pop()
            if not hits and all(str(v).isdigit() for v in values):
                spoken = (
                    {str(int(n)) for n in numbers if n.is_integer()}
                    if numbers
                    else {str(int(n)) for n in _numbers(text) if n.is_integer()}
                )
                matches = spoken & {str(v) for v in values}
                if len(matches) == 1:
                    return next(v for v in values if str(v) == matches.pop())
            return None
        if prop.kind == "boolean":
            flag = _boolean_phrase(prop.name, text)
            if flag is None:
                return None
            members = cast("list[Any]", prop.schema.get("enum") or [])
            if members:  # an enum of "True"/"False" (or true/false) spells the flag its way
                spelled = [m for m in members if str(m).lower() == str(flag).lower()]
                return spelled[0] if spelled else None
            return self._render(prop, flag)
        if prop.kind == "number":
            cued = _cued_number(prop.name, text, head_alone=self._heads[_head(prop.name)] == 1)
            if cued is not None:
                value = cued
            elif not _nouns(prop.name) and same_kind_left == 1 and len(numbers) == 1:
                value = numbers[0]
            else:
                return None
            if prop.schema.get("type") == "integer" and not value.is_integer():
                return None
            number: JSONValue = int(value) if value.is_integer() else value
            return self._render(prop, number)
        # One date (or time) in the text cannot say which of two date
        # properties it is (pick-up or drop-off), so it fills only a lone one.
        if prop.kind == "date" and same_kind_left == 1:
            day = _find_date(text, now)
            return day.isoformat() if day else None
        if prop.kind == "time" and same_kind_left == 1:
            return _find_clock(text)
        return None
