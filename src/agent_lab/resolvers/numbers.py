"""A number property's value from the words: one reading or none.

In order, the first that finds something decides:

* ``name=value`` with the property's own name (``a=2``, ``max_depth = 5``);
* the number beside the property's words (``3 checked bags``, ``height of 7``:
  ``resolvers.cues``), or beside what its description says it counts;
* the number said in the unit the property is measured in ("The time in
  seconds": "within 5 seconds"), where no other property is measured in it
  (``resolvers.units``);
* a percentage, for the one property whose description says how a percentage
  is written ("as a decimal": 5% is 0.05; "as a percentage": 5);
* a year, for the one property that holds a year, when the text says one year
  after a word that places it ("in 1940", "from 1985"; not "after 2015");
* the text's only number, for a property whose name has no noun.

Each reading keeps the doubts of ``resolvers.cues``: a number only asked about,
or taken back afterwards, is none.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent_lab.resolvers.cues import (
    counted_in,
    counted_pair,
    cued_number,
    head,
    nouns,
    stated,
)
from agent_lab.resolvers.units import LARGEST, numbers_in_unit

if TYPE_CHECKING:
    from collections.abc import Sequence

    from agent_lab.resolvers.properties import Property

__all__ = ["Measures", "percent_form", "read_number", "year_property"]


@dataclass(frozen=True, slots=True)
class Measures:
    """What a tool's number properties share: a word, a unit, a percentage, a year."""

    heads: Counter[str | None]
    units: Counter[str]
    percents: int
    years: int

    @classmethod
    def of(cls, properties: Sequence[Property]) -> Measures:
        """The measures of a tool's properties."""
        numbers = [p for p in properties if p.kind == "number"]
        return cls(
            heads=Counter(head(p.name) for p in properties),
            units=Counter(p.unit for p in numbers if p.unit is not None),
            percents=sum(1 for p in numbers if percent_form(p.schema) is not None),
            years=sum(1 for p in numbers if year_property(p.name)),
        )


def read_number(
    prop: Property, text: str, numbers: list[float], same_kind_left: int, measures: Measures
) -> float | None:
    """The one number ``text`` gives ``prop`` (see the module docstring), or ``None``.

    A number no one says as a measure ("1e999", 400 digits) is none: as JSON it may
    not even be a number.
    """
    value = _read(prop, text, numbers, same_kind_left, measures)
    return value if value is None or (math.isfinite(value) and abs(value) < LARGEST) else None


def _read(
    prop: Property, text: str, numbers: list[float], same_kind_left: int, measures: Measures
) -> float | None:
    assigned = _assigned(prop.name, text)
    if assigned is not None:
        return assigned
    counted = counted_in(prop.schema.get("description"))
    cued = cued_number(
        prop.name,
        text,
        head_alone=measures.heads[head(prop.name)] == 1,
        own=prop.own_words,
        money=counted is None and prop.unit is None,
    )
    if cued is None and counted is not None and not measures.heads[head(counted)]:
        # "riders: number of bikes" is cued by bikes ("3 city bikes").
        cued = cued_number(counted, text, own=prop.own_words, money=False)
    pair = counted_pair(prop.schema.get("description")) if cued is None else None
    if pair is not None:
        # "Number of bed rooms": "3 bedrooms", "3 bed rooms"; not "3 rooms".
        cued = cued_number(pair, text, own=prop.own_words, head_alone=False, money=False)
    if cued is not None:
        return cued
    if prop.unit is not None and measures.units[prop.unit] == 1:
        found = numbers_in_unit(text, prop.unit)
        if found is None:
            return None  # "1 hour 30 minutes" for minutes: the quantity is not one number
        if found:
            return stated(found, text, prop.own_words)
    form = percent_form(prop.schema)
    if form is not None and measures.percents == 1:
        found = _percentages(text)
        if found is None:
            return None  # "down by 20%", "between 3 and 4%": no level of its own
        if found:
            value = stated(found, text, prop.own_words)
            return None if value is None else (value / 100 if form == "decimal" else value)
    if year_property(prop.name) and measures.years == 1:
        found = _years(text)
        if found:
            return stated(found, text, prop.own_words)
    if not nouns(prop.name) and same_kind_left == 1 and len(numbers) == 1:
        return numbers[0]
    return None


# A number that ends there: not "1/2", "2^3", "5%" nor "1 000".
_NUMBER = r"(-?\d+(?:\.\d+)?)(?![\w.]|,\d|\s*[/^%*]|\s\d)"


def _assigned(name: str, text: str) -> float | None:
    """The number ``name=`` assigns in the text (``a=2``, ``c = -4``), if it assigns one."""
    if name not in text:  # a substring test first: most texts assign nothing
        return None
    found = {
        float(match.group(1))
        for match in re.finditer(rf"(?<![\w.]){re.escape(name)}\s*=\s*{_NUMBER}", text)
    }
    return found.pop() if len(found) == 1 else None


# How a description says a percentage is written: "as a decimal", "in decimal form"; not
# "a decimal number", "two decimal places", "decimal degrees", which say nothing of it.
_AS_DECIMAL = re.compile(
    r"\b(?:as an? decimal|in decimal form|decimal fraction|expressed as a decimal)\b"
    r"(?!\s+(?:number|places?|degrees|point))",
    re.IGNORECASE,
)
_AS_PERCENTAGE = re.compile(r"\b(?:as a percentage|in percent|percentage\s+(?:value|form))\b", re.I)
# Words that say the value is a share of something: only such a value is a percentage.
_SHARE = re.compile(
    r"\b(?:rate|percent|percentage|yield|return|interest|growth|discount|tax|tip|share|ratio|"
    r"fraction|probability|apr|apy)\b",
    re.IGNORECASE,
)


def percent_form(schema: dict[str, object]) -> str | None:
    """``decimal`` or ``percentage``: how the property's description writes "5%"; or ``None``."""
    described = schema.get("description")
    if not isinstance(described, str) or schema.get("type") == "integer":
        return None
    if not _SHARE.search(described):
        return None  # "Minimum rating as a decimal": no percentage at all
    decimal = _AS_DECIMAL.search(described) is not None
    percentage = _AS_PERCENTAGE.search(described) is not None
    if decimal == percentage:
        return None  # neither said, or both: no one reading
    return "decimal" if decimal else "percentage"


_PERCENT = re.compile(r"(?<![\w.,-])(-?\d+(?:\.\d+)?)\s*(?:%|percent\b|per cent\b)", re.I)


# A percentage of change or a bound of a range: "down by 20%", "between 3 and 4%".
_RELATIVE_PERCENT = re.compile(r"\b(?:by|between|and|to|from|up|down|off)\s+$", re.IGNORECASE)


def _percentages(text: str) -> list[tuple[float, int, int]] | None:
    """The percentages of ``text``; ``None`` when one is a change or a range's bound."""
    found: list[tuple[float, int, int]] = []
    for match in _PERCENT.finditer(text):
        if _RELATIVE_PERCENT.search(text, max(0, match.start(1) - 12), match.start(1)):
            return None
        found.append((float(match.group(1)), match.start(1), match.end(1)))
    return found


def year_property(name: str) -> bool:
    """Whether the property holds a year: ``year``, ``release_year``, ``season_year``."""
    return head(name) == "year"


# A year placed by the word before it: "in 1940", "from 1985", "during 1998". Not a bound
# ("after 2015", "since 2010": the year is where a span starts), a range ("from 1500 to
# 3000") nor a sum ("from 1500 euros").
_YEAR = re.compile(
    r"\b(?:in|from|during|year)\s+([12]\d{3})(?![\w.,]|-\d|\s*(?:to|and|-)\s*\d)"
    r"(?!\s*(?:dollars?|euros?|pounds?|bucks|usd|eur|gbp|yen|\$|€|£))",
    re.IGNORECASE,
)


def _years(text: str) -> list[tuple[float, int, int]]:
    return [(float(match.group(1)), match.start(1), match.end(1)) for match in _YEAR.finditer(text)]
