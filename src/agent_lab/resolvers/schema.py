"""A deterministic resolver driven by the JSON Schema alone: confident values or none at all.

It reads, for each top-level property, what the schema says it is (its
``kind``): an enum, a number, a boolean, a date, a time, or free-form text.
A wrong deterministic value is worse than a missing one, because it skips the
fallback; so a value is taken only when there is exactly one reading:

* ``payload``: a value given as structured data, of the right type, is taken.
* ``enum``: the one enum value the text states (case-, spacing- and
  underscore-insensitive, on word boundaries); two candidates, or one
  negated, narrowed, only asked about, taken back afterwards or claimed by
  another property too: nothing (``resolvers.enums``).
* ``number``: the one number beside the property's words (``3 checked
  bags``, ``bags: 2``), or the text's only number for a property whose name
  has no noun, left alone; not one only asked about (``is that for two?``)
  or taken back (``3 tickets. Actually, make it two``) (``resolvers.cues``).
* ``date`` / ``time``: the one date (today, tomorrow, in 3 days, next friday,
  March 5th, the 6th) in the text, against the reference clock the event's
  context injects (``now``); the one clock time, when every time of day the
  text mentions is read and agrees, none is a bound (``by 5pm``), and
  nothing after it moves it, takes it back or accepts a second offer
  (``resolvers.clock``). Either fills only a lone property of its kind.
* ``boolean``: the flag's subject said with or without a negation that
  takes it (``with wifi``, ``no wifi``), nothing leaving it in doubt
  (``resolvers.cues``).
* free-form text: a name the words mark twice, as a name (capitalised, not a
  month nor a weekday) and by a cue that points at this property alone (``from
  Seattle`` for an origin, ``in San Jose`` for a location, ``called Sino`` for a
  name, or the reply to the assistant's question about it): ``resolvers.names``.
  Anything else is left to the fallback.

What makes a value doubtful is shared across kinds (``resolvers.doubts``).

Plugins give hints per property with the ``x-agent-lab`` keyword (an
annotation, ignored by validation): ``{"learned": ...}``, the rules
``agent-lab learn`` kept (``resolvers.learned``: aliases, then a constant,
only where the reading above found nothing), ``{"kind": "date"}``, ``{"format":
"string"}`` to render numbers and booleans as SGD-style canonical strings,
``{"format": "float"}`` to render whole numbers as floats (``5.0``), where the
source's truth is typed that way (BFCL's ``float``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from functools import lru_cache
from typing import TYPE_CHECKING, Any, cast

from agent_lab.kernel.models import Event, Resolution
from agent_lab.resolvers.aliases import Tokens
from agent_lab.resolvers.cues import (
    name_words,
    nouns,
    own_words,
    speaks_of_money,
)
from agent_lab.resolvers.date_forms import date_pattern, write_date
from agent_lab.resolvers.date_pairs import Role, date_role, is_stay, placed_dates
from agent_lab.resolvers.english import (
    WORD,
    find_date,
    numbers_in,
    reference_date,
    stems,
)
from agent_lab.resolvers.enums import mentions, read_enum
from agent_lab.resolvers.flags import boolean_phrase
from agent_lab.resolvers.identifiers import identified, identifies
from agent_lab.resolvers.learned import property_validator
from agent_lab.resolvers.names import FreeForm, asked_for, read_name
from agent_lab.resolvers.numbers import Measures, read_number
from agent_lab.resolvers.places import cities_said
from agent_lab.resolvers.properties import (
    Property,
    evidence,
    learned_hints,
    leftover,
    listed,
    members,
    with_rivals,
    with_signs,
)
from agent_lab.resolvers.spellings import Spellings
from agent_lab.resolvers.times_of_day import stated_time
from agent_lab.resolvers.units import described_unit

if TYPE_CHECKING:
    from collections.abc import Iterable
    from datetime import datetime

    from agent_lab.strict_json import JSONObject, JSONValue

__all__ = ["ASKED", "KINDS", "NAMES", "SchemaResolver", "kind_of"]

KINDS = ("enum", "number", "boolean", "date", "time", "free-form")
HINT = "x-agent-lab"
ASKED = "agent_lab.asked"
"""The event's context key for the assistant's words just before the user's (its question)."""
NAMES = "agent_lab.names"
"""The event's context key that, ``False``, leaves free-form names unread (an assistant's
summary is read for its dates and numbers, not its many names)."""


def kind_of(schema: Mapping[str, Any]) -> str:
    """The kind of a property schema: enum, number, boolean, date, time or free-form."""
    hint = schema.get(HINT)
    if isinstance(hint, Mapping) and cast("Mapping[str, Any]", hint).get("kind") in KINDS:
        return str(cast("Mapping[str, Any]", hint)["kind"])
    if isinstance(schema.get("enum"), list | tuple):  # a registry's frozen schema: a tuple
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
    described = schema.get("description")
    if (
        kind in ("string", None)
        and isinstance(described, str)
        and _HH_MM.search(described)
        and not _LASTING.search(described)
    ):
        return "time"  # "24h clock, HH:MM": a time written as ``stated_time`` writes it
    if kind in ("string", None) and isinstance(described, str) and date_pattern(described):
        return "date"  # "in the format MM-DD-YYYY": written so (``resolvers.date_forms``)
    return "free-form"


_HH_MM = re.compile(r"\bHH:MM\b(?!:)")
_BIRTH = re.compile(r"birth|born|(?<![a-z])dob(?![a-z])", re.IGNORECASE)
_LASTING = re.compile(r"\b(?:duration|length|long|elapsed|lasts?|timer)\b", re.IGNORECASE)


class SchemaResolver:
    """Resolves an event's arguments from its JSON Schema alone (see the module docstring).

    Args:
        schema: The event's parameters schema (top-level ``properties`` are filled).
        reference: The reference date for relative dates when the event's context
            has no ``now`` (SGD's dataset date, for instance). With neither, a
            relative date ("tomorrow", "friday", "March 5th") is not read: it
            is left missing, never counted from the machine's clock.
    """

    def __init__(self, schema: Mapping[str, Any], *, reference: datetime | None = None) -> None:
        self.reference = reference
        # A request's tools are a client's to write: a part of the wrong type reads as absent.
        found: object = schema.get("properties")
        properties: Mapping[str, Any] = (
            cast("Mapping[str, Any]", found) if isinstance(found, Mapping) else {}
        )
        self.required = tuple(n for n in listed(schema.get("required")) if isinstance(n, str))
        properties_read: list[Property] = []
        for name, sub in properties.items():
            if not isinstance(sub, dict):
                continue
            prop = cast("dict[str, Any]", sub)
            given = prop.get(HINT)
            hint = cast("dict[str, Any]", given) if isinstance(given, dict) else {}
            as_string = hint.get("format") == "string" or prop.get("type") == "string"
            values = listed(prop.get("enum"))
            aliases, constant, contexts, spellings = learned_hints(hint)
            kind = kind_of(prop)
            description = str(prop.get("description", ""))
            own = frozenset(own_words(name, description))
            properties_read.append(
                Property(
                    name,
                    prop,
                    kind,
                    as_string,
                    as_float=hint.get("format") == "float",
                    own_words=own,
                    value_words=frozenset(stems([w for v in values for w in WORD.findall(str(v))])),
                    named=frozenset(stems(nouns(name))),
                    aliases=aliases,
                    constant=constant,
                    contexts=contexts,
                    spellings=spellings,
                    accepts=property_validator(prop) if contexts or kind == "free-form" else None,
                    free=FreeForm.of(name, description, own) if kind == "free-form" else None,
                    unit=described_unit(description, money=speaks_of_money(own))
                    if kind == "number"
                    else None,
                    date_pattern=date_pattern(description) if kind == "date" else None,
                )
            )
        self.properties = with_signs(with_rivals(properties_read))
        self._measures = Measures.of(self.properties)
        self._free = tuple(p.free for p in self.properties if p.free is not None)
        self._own = {p.name: p.own_words for p in self.properties}
        dates = {p.name: p for p in self.properties if p.kind == "date"}
        roles = {date_role(name): name for name in dates}
        self._date_props = dates
        # Two date parameters, one that starts and one that ends (pick-up and drop-off).
        self._date_pair: dict[Role, str] | None = (
            {"start": roles["start"], "end": roles["end"]}
            if len(dates) == 2 and "start" in roles and "end" in roles
            else None
        )
        self._roles = {p.name: p.free.role for p in self.properties if p.free is not None}
        self._free_optional = tuple(
            p for p in self.properties if p.free is not None and p.name not in self.required
        )
        # The properties that hold an identifier: each read by a label ("member no 558201"),
        # and the one left by its shape alone ("EV-3310"); with two left, the shape cannot
        # say whose it is.
        self._identifying = tuple(
            p.name
            for p in self.properties
            if p.kind == "free-form" and identifies(p.name, p.schema)
        )
        self._spellings = Spellings.of(schema.get(HINT), self.properties)
        # Every word the tool's properties say of themselves: no sign of a value left unread.
        self._vocabulary = frozenset[str]().union(
            *(p.own_words | p.value_words | p.named for p in self.properties)
        )

    def __call__(self, event: Event) -> Resolution:
        """Find what can be found with confidence; report what is missing."""
        now = reference_date(event.context.get("now")) or self.reference
        text = event.text
        found: JSONObject = {}
        for prop in self.properties:
            if prop.name in event.payload:
                value = self._from_payload(prop, event.payload[prop.name])
                if value is not None:
                    found[prop.name] = value
        self._fill_date_pair(found, text, now)
        left = Counter(p.kind for p in self.properties if p.name not in found)
        numbers = numbers_in(text) if left["number"] else []
        given = event.context.get(ASKED)
        asked = (
            asked_for(self._own, given, self._roles)
            if isinstance(given, str) and self._free
            else None
        )
        names: dict[str, str] = {}
        read_names = event.context.get(NAMES) is not False
        for prop in self.properties:
            if prop.name in found or (prop.free is not None and not read_names):
                continue
            value = self._from_text(prop, text, now, numbers, left[prop.kind], asked=asked)
            if value is not None:
                found[prop.name] = value
                if prop.free is not None and isinstance(value, str):
                    names[prop.name] = value
        if self._identifying and read_names:
            found.update(identified(text, self._identifying, found))
        self._spellings.respell(self.properties, found, names)  # as the calls write them
        # One name is one property's: read for two (a city and a category), or the value
        # of another (the doctor's type read as the city), it is not this one's.
        others = Counter(str(value).lower() for name, value in found.items() if name not in names)
        repeated = Counter(str(found[name]).lower() for name in names)
        for name in names:
            if repeated[str(found[name]).lower()] > 1 or others[str(found[name]).lower()]:
                del found[name]
        self.fill_learned(found, text)
        missing = tuple(name for name in self.required if name not in found)
        # An optional value the text states but this resolver cannot read
        # ("four seats" for passengers, "a small car") would be silently
        # dropped if the required ones are complete; a trace of one asks the
        # fallback instead, which costs a request, not a wrong answer.
        unexplained = tuple(
            prop.name
            for prop in self.properties
            if prop.name not in found
            and prop.name not in missing
            and evidence(
                prop, text, self._spellings.as_said(found.values(), names), _tool_words(event.name)
            )
        ) or tuple(
            prop.name
            for prop in self._free_optional
            if prop.name not in found
            and leftover(
                text,
                self._spellings.as_said(found.values(), names),
                self._vocabulary | _tool_words(event.name),
            )
        )
        # complete=False, not "missing": the fallback is asked for every absent
        # property, and one the user did not state after all may stay absent.
        return Resolution(found, missing=missing, complete=False if unexplained else None)

    def _fill_date_pair(self, found: JSONObject, text: str, now: datetime | None) -> None:
        """A start and an end date parameter: the dates the text places, where unfilled."""
        if self._date_pair is None or all(name in found for name in self._date_pair.values()):
            return
        stay = is_stay(self._date_pair["start"])
        for role, day in placed_dates(text, now, stay=stay).items():
            prop = self._date_props[self._date_pair[role]]
            if prop.name not in found:
                found[prop.name] = self._render(prop, write_date(day, prop.date_pattern))

    def may_state(
        self, name: str, text: str, tool: str | None = None, read: Iterable[object] | None = None
    ) -> bool:
        """Whether ``text`` may state property ``name``'s value in a way this resolver cannot read.

        Generous, as the resolver's own doubt: the property's words, a number for a
        number, date or time words, a word of an enum value, a capitalised word for
        free-form text; the words of the ``tool``'s name are none. Given the values ``read``
        from the text, a name or a number one of them is is none either. ``True`` for a
        property the schema does not have.
        """
        prop = next((p for p in self.properties if p.name == name), None)
        ignore = _tool_words(tool) if tool else frozenset[str]()
        said = None if read is None else self._spellings.as_said(read, cities_said(text, read))
        return prop is None or evidence(prop, text, said, ignore=ignore)

    def fill_learned(self, found: JSONObject, text: str) -> None:
        """Learned rules, where a reading found nothing: aliases, contexts, then constants.

        The schema's own reading calls it last; a resolver of the user's own is
        followed by it (``agents.learned_rules``). ``found`` is filled in place.
        """
        tokens: Tokens | None = None
        for prop in self.properties:
            if prop.name in found:
                continue
            if prop.aliases is not None:
                if tokens is None:  # cut once, for every property with aliases
                    tokens = Tokens.of(text.lower())
                named = prop.aliases.named(tokens)
                if len(named) == 1:  # two phrases naming two values: no reading
                    found[prop.name] = next(iter(named.values()))
                    continue
                if named:
                    continue
            if prop.contexts:
                captured = {
                    match.group(1) for pattern in prop.contexts for match in pattern.finditer(text)
                }
                if len(captured) == 1:
                    (value,) = captured
                    if prop.accepts is None or prop.accepts.is_valid(value):
                        found[prop.name] = value
                        continue
                if captured:
                    continue
            if prop.constant and not evidence(prop, text):
                found[prop.name] = prop.constant[0]

    @staticmethod
    def _render(prop: Property, value: JSONValue) -> JSONValue:
        if prop.as_float and isinstance(value, int) and not isinstance(value, bool):
            return float(value)
        if prop.as_string and not isinstance(value, str):
            if isinstance(value, bool):
                return "True" if value else "False"
            if isinstance(value, float) and value.is_integer():
                return str(int(value))
            return str(value)
        return value

    def _from_payload(self, prop: Property, value: JSONValue) -> JSONValue | None:
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
        self,
        prop: Property,
        text: str,
        now: datetime | None,
        numbers: list[float],
        same_kind_left: int,
        *,
        asked: str | None = None,
    ) -> JSONValue | None:
        """``asked``: the property the assistant's question just before the text asked for."""
        if prop.kind == "enum":
            values = members(prop)
            value = read_enum(values, text, named=prop.named, rivals=prop.rivals, own=prop.distinct)
            if value is not None:
                return value
            if all(str(v).isdigit() for v in values) and not mentions(values, text):
                spoken = (
                    {str(int(n)) for n in numbers if n.is_integer()}
                    if numbers
                    else {str(int(n)) for n in numbers_in(text) if n.is_integer()}
                )
                matches = spoken & {str(v) for v in values}
                if len(matches) == 1:
                    # Taken once: popping inside the generator emptied the set at its second value.
                    (wanted,) = matches
                    return next(v for v in values if str(v) == wanted)
            return None
        if prop.kind == "boolean":
            flag = boolean_phrase(prop.name, text)
            if flag is None:
                return None
            choices = cast("list[Any]", prop.schema.get("enum") or [])
            if choices:  # an enum of "True"/"False" (or true/false) spells the flag its way
                spelled = [m for m in choices if str(m).lower() == str(flag).lower()]
                return spelled[0] if spelled else None
            return self._render(prop, flag)
        if prop.kind == "number":
            value = read_number(prop, text, numbers, same_kind_left, self._measures)
            if value is None or (prop.schema.get("type") == "integer" and not value.is_integer()):
                return None
            number: JSONValue = int(value) if value.is_integer() else value
            return self._render(prop, number)
        # One date (or time) in the text cannot say which of two date
        # properties it is (pick-up or drop-off), so it fills only a lone one; a
        # start and an end are placed by their cues (``_fill_date_pair``).
        if prop.kind == "date" and same_kind_left == 1 and self._date_pair is None:
            # A birthday with no year ("born May 3") is not this year's day: read without a
            # reference, only a date said with its year is read.
            day = find_date(text, None if _BIRTH.search(prop.name) else now)
            return write_date(day, prop.date_pattern) if day else None
        if prop.kind == "time" and same_kind_left == 1:
            return stated_time(text)
        if prop.free is not None and prop.schema.get("type") in ("string", None):
            others = [free for free in self._free if free is not prop.free]
            name = read_name(prop.free, others, text, asked=asked == prop.name)
            if name is not None and (prop.accepts is None or prop.accepts.is_valid(name)):
                return name
        return None


@lru_cache(maxsize=1024)
def _tool_words(name: str) -> frozenset[str]:
    """The stems of a tool's name's words (``square_area``: square, area)."""
    return frozenset(stems(name_words(name)))
