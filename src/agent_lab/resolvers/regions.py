"""Countries and their first-level regions, by name and by code: what may qualify a place.

"Seattle, WA", "Paris, France", "Vancouver, BC": after a comma, a region says
which place the name before it is, and is no value of its own. The names and
codes come from ISO 3166 as ``pycountry`` ships it (countries, and every
country's subdivisions), read once, on first use.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, cast

import pycountry

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = ["is_region"]


@cache
def _regions() -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """Region names (lower case), codes (as written: upper case), and codes as words.

    The last are codes that are words or titles as often ("MA", "OK").
    """
    names: set[str] = set()
    codes: set[str] = set()
    for country in pycountry.countries:
        for field in ("name", "common_name", "official_name"):
            value = getattr(country, field, None)
            if isinstance(value, str):
                names.add(value.lower())
        codes.update((country.alpha_2, country.alpha_3))
    # pycountry's subdivisions are untyped records: read their two fields as text.
    subdivisions = cast("Iterable[object]", pycountry.subdivisions)
    for subdivision in subdivisions:
        names.add(str(getattr(subdivision, "name", "")).lower())
        codes.add(str(getattr(subdivision, "code", "-")).split("-", 1)[1])
    codes.update(("UK", "USA", "UAE"))  # as people write them, beside ISO's GB, US, AE
    # Codes that are words or titles as often: "Alchemy John, MD", "Sino, OK?".
    wordlike = {"OK", "MD", "DO", "ME", "HI", "ID", "OH", "NO", "SO", "TO", "AS", "IT", "AT",
                "BE", "BY", "IS", "IN", "ON", "AM", "PM", "MA", "PA", "JR", "SR"}  # fmt: skip
    return frozenset(names), frozenset(codes - wordlike), frozenset(codes & wordlike)


def is_region(words: str, *, expected: bool = False) -> bool:
    """Whether ``words`` name a country or a region of one ("WA", "Ontario", "France").

    ``expected``: a region is what the words should hold there (a property whose example
    is "San Francisco, CA"), so a code that is also a word or a title counts ("MA", "OH").
    """
    names, codes, wordlike = _regions()
    cleaned = words.strip().rstrip(".,!?;:")
    if expected and cleaned in wordlike:
        return True
    return cleaned in codes or (not cleaned.isupper() and cleaned.lower() in names)
