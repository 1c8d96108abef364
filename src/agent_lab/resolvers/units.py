"""Units of measure: a number said with the unit its property is measured in.

A property described as "The time in seconds" takes the number the text says
in seconds ("within 5 seconds", "5s"), and one described "in kilograms" the
number said in kilograms ("45 kg"). The unit must be the property's own, as
written or in another of its names: a number in another unit of the same
quantity ("100 g" for kilograms) would need converting, and is left alone.

Units are named by Pint's registry (pint.readthedocs.io), which knows their
plurals, symbols and prefixes ("kg", "kilograms", "mH", "m/s^2"). It is loaded
on the first description that may name a unit: about 0.15 s, once a process.
English words Pint reads as units ("a" for a year, "at" for an atmosphere,
"in" for an inch) are none here; a unit of one letter counts only when it is
written against its number ("5m", "298K").
"""

from __future__ import annotations

import math
import re
from functools import lru_cache
from typing import TYPE_CHECKING, Any, cast

from agent_lab.resolvers.currencies import money_units

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = ["LARGEST", "described_unit", "numbers_in_unit", "unit_of"]

# Words that Pint reads as a unit and English as a word ("5 in a row", "at 3").
_WORDS = frozenset(
    ["a", "an", "at", "in", "as", "me", "am", "us", "he", "pm", "is", "it", "to", "of", "or",
     "on", "by", "be", "do", "go", "no", "so", "up", "we", "ft.", "point", "points", "dpi",
     "mb", "t", "b", "the", "per", "each", "and"]
)  # fmt: skip
_UNIT_WORD = r"[A-Za-z\u00b5\u00b0\u03a9][A-Za-z0-9\u00b5\u00b0\u03a9\u00b2\u00b3/^*]{0,15}"
# The unit of a property: "in seconds", "measured in km", "in square feet", ", m/s^2." at
# the end.
_IN_UNIT = re.compile(rf"\bin\s+((?:square\s+|cubic\s+)?{_UNIT_WORD})", re.IGNORECASE)
_TRAILING_UNIT = re.compile(rf",\s*({_UNIT_WORD})\.?\s*$")
_NUMBER = r"(?<![\w.,-])(-?\d+(?:\.\d+)?(?:e-?\d+)?)"
# A number and the unit after it: glued ("5m", "298K") or after a space ("45 kg").
_SAID = re.compile(rf"{_NUMBER}(\s?)((?:square\s+|cubic\s+)?{_UNIT_WORD})", re.IGNORECASE)
# A time unit after "in" ("in 3 days") or before "ago" is a date, not a duration.
_RELATIVE_BEFORE = re.compile(r"\bin\s+$", re.IGNORECASE)
_RELATIVE_AFTER = re.compile(r"\s*(?:ago|back|before|earlier|later|from now)\b", re.IGNORECASE)


@lru_cache(maxsize=1)
def _registry() -> Any:
    import pint  # noqa: PLC0415 - loaded only where a description may name a unit: 0.15 s

    return cast("Any", pint.UnitRegistry())


def _parsed(spelling: str) -> Any:
    """Pint's unit for ``spelling``, or ``None`` for a word it cannot read."""
    try:
        return _registry().parse_units(spelling)
    # Pint's own errors, and what its tokenizer and parser raise on words no unit is
    # made of ("5/", "m^^2", "**"): found by the hypothesis test of this module.
    except Exception:  # noqa: BLE001
        return None


@lru_cache(maxsize=4096)
def unit_of(word: str) -> str | None:
    """The unit ``word`` names, as Pint writes it ("kg": kilogram), or ``None``.

    An English word Pint also reads as a unit is none; so is a unit with no
    dimension (percent, degree, byte): "5%" and "30 degrees" have more than
    one reading.
    """
    said = re.sub(r"\s+", " ", word.strip())
    if not said or said.lower() in _WORDS or said[0].isdigit():
        return None
    for spelling in dict.fromkeys((said, said.lower())):
        unit = _parsed(spelling)
        if unit is None:
            continue
        if unit.dimensionless:
            return None
        return str(unit)
    return None


def described_unit(description: str, *, money: bool = False) -> str | None:
    """The one unit ``description`` says its number is in ("The time in seconds": second).

    ``money``: the property is a sum ("Maximum price in pounds"): a currency's name is
    its currency, not a unit (Pint reads "pounds" as a weight).
    """
    found = {
        unit
        for match in _units_described(description[:500])
        if not (money and match.lower() in _currency_words())
        and (unit := unit_of(match)) is not None
    }
    return found.pop() if len(found) == 1 else None


@lru_cache(maxsize=1)
def _currency_words() -> frozenset[str]:
    return frozenset(word.lower() for word in money_units())


def _units_described(description: str) -> Iterator[str]:
    for match in _IN_UNIT.finditer(description):
        yield match.group(1)
    trailing = _TRAILING_UNIT.search(description)
    if trailing is not None:
        yield trailing.group(1)


def numbers_in_unit(text: str, unit: str) -> list[tuple[float, int, int]] | None:
    """Each number ``text`` says in ``unit``, with its place: "a 150 meter building": 150.

    ``None`` when one is part of a quantity said in two units ("1 hour 30 minutes",
    "5 feet 10 inches"): the number in ``unit`` alone is not the quantity.
    """
    found: list[tuple[float, int, int]] = []
    said = [
        (match, unit_of(match.group(3)))
        for match in _SAID.finditer(text)
        if len(match.group(3)) > 1 or not match.group(2)  # "5 m" may be anything; "5m" is 5 m
    ]
    for index, (match, its_unit) in enumerate(said):
        if its_unit != unit:
            continue
        if _compound(text, said, index):
            return None
        if _is_time(unit) and (
            _RELATIVE_BEFORE.search(text, max(0, match.start() - 8), match.start())
            or _RELATIVE_AFTER.match(text, match.end())
        ):
            continue  # "in 3 days", "two years ago": when, not how long
        value = float(match.group(1))
        if math.isfinite(value) and abs(value) < LARGEST:
            found.append((value, match.start(1), match.end(1)))
    return found


# Beyond this a number is no measure anyone says ("1e999 kg"), and as JSON it may be none.
LARGEST = 1e15
_JOINED = re.compile(r"\s*(?:,|and)?\s*$", re.IGNORECASE)


def _compound(text: str, said: list[tuple[re.Match[str], str | None]], index: int) -> bool:
    """Whether the quantity at ``index`` is said with another unit beside it ("1 hour 30 min")."""
    match, unit = said[index]
    for other in (index - 1, index + 1):
        if not 0 <= other < len(said):
            continue
        its = said[other][1]
        if its is None or its == unit:
            continue
        if unit is None or _dimension(its) != _dimension(unit):
            continue  # "5 kg, 3 m": two quantities
        first, second = sorted((match, said[other][0]), key=lambda m: m.start())
        if _JOINED.fullmatch(text, first.end(), second.start()):
            return True
    return False


@lru_cache(maxsize=1024)
def _dimension(unit: str) -> str:
    """What ``unit`` measures, as Pint writes it ("[length]")."""
    return str(_registry().parse_units(unit).dimensionality)


def _is_time(unit: str) -> bool:
    return unit in ("second", "minute", "hour", "day", "week", "month", "year")
