"""``convert_units``: a value and two units of one family (length, weight, temperature)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from agent_lab.agents.plugins import Route
from agent_lab.demo.events._common import closed_object
from agent_lab.kernel.models import EventDefinition, Resolution
from agent_lab.resolvers.english import NUMBER, words_to_number

if TYPE_CHECKING:
    from collections.abc import Mapping

    from agent_lab.kernel.models import Event
    from agent_lab.strict_json import JSONObject, JSONValue

__all__ = ["EVENT", "ROUTE", "UNITS", "convert", "read_conversion"]

UNITS = {
    "length": {"m": ("meters", "meter", "metres", "m"), "km": ("kilometers", "kilometres", "km"),
               "mi": ("miles", "mile", "mi"), "ft": ("feet", "foot", "ft")},
    "weight": {"kg": ("kilograms", "kilos", "kg"), "lb": ("pounds", "pound", "lbs", "lb"),
               "g": ("grams", "gram", "g"), "oz": ("ounces", "ounce", "oz")},
    "temperature": {"c": ("celsius", "centigrade", "c"), "f": ("fahrenheit", "f")},
}  # fmt: skip
"""Each family's unit codes and the words that name them."""
_UNIT_WORDS = {
    word: code for family in UNITS.values() for code, words in family.items() for word in words
}
_FACTORS = {"m": 1.0, "km": 1000.0, "mi": 1609.344, "ft": 0.3048, "kg": 1.0, "lb": 0.45359237,
            "g": 0.001, "oz": 0.028349523125}  # fmt: skip
_UNIT_ALTERNATION = "|".join(sorted((w for w in _UNIT_WORDS if len(w) > 1), key=len, reverse=True))
# Each match starts at a word boundary and its runs are possessive: on a long
# run of digits or letters, a pattern free to start anywhere and to backtrack
# was quadratic (68 s on "convert " + 40,000 nines).
_CONVERT = re.compile(
    rf"(?<![\w.-])(?P<value>-?{NUMBER})\s*+(?:degrees\s+)?(?P<from>[a-z]++)\s++(?:to|in|into)\s++(?:degrees\s+)?(?P<to>[a-z]++)\b",
    re.I,
)
_HOW_MANY = re.compile(
    rf"\bhow many (?P<to>[a-z]++) (?:is|are|in) (?P<value>-?{NUMBER})\s*+(?P<from>[a-z]++)\b", re.I
)


def read_conversion(event: Event) -> Resolution:
    """``convert 5 km to miles``, ``how many pounds is 3 kg``, ``20 celsius in fahrenheit``."""
    arguments: JSONObject = {}
    match = _CONVERT.search(event.text) or _HOW_MANY.search(event.text)
    if match:
        value = words_to_number(match.group("value"))
        source = _UNIT_WORDS.get(match.group("from").lower())
        target = _UNIT_WORDS.get(match.group("to").lower())
        if value is not None and source and target:
            arguments["value"] = int(value) if value == int(value) else value
            arguments["from_unit"] = source
            arguments["to_unit"] = target
    return Resolution(arguments)


def convert(arguments: Mapping[str, JSONValue]) -> JSONValue:
    """Converts, for real."""
    value = float(arguments["value"])  # type: ignore[arg-type]
    source, target = str(arguments["from_unit"]), str(arguments["to_unit"])
    if source in _FACTORS:
        result = value * _FACTORS[source] / _FACTORS[target]
    else:
        celsius = value if source == "c" else (value - 32) * 5 / 9
        result = celsius if target == "c" else celsius * 9 / 5 + 32
    return {"value": round(result, 4), "unit": target}


_CODES = [code for family in UNITS.values() for code in family]
EVENT = EventDefinition(
    "convert_units",
    description="Convert a length, a weight or a temperature between units.",
    parameters={
        **closed_object(
            {
                "value": {"type": "number"},
                "from_unit": {"enum": _CODES},
                "to_unit": {"enum": _CODES},
            },
            required=["value", "from_unit", "to_unit"],
        ),
        # Both units from one family.
        "anyOf": [
            {"properties": {"from_unit": {"enum": list(codes)}, "to_unit": {"enum": list(codes)}}}
            for codes in UNITS.values()
        ],
    },
    resolver=read_conversion,
    handler=convert,
)
ROUTE = Route(
    "convert_units",
    patterns=(
        r"\bconvert\b",
        rf"\bhow many (?:{_UNIT_ALTERNATION})\b",
        # From the start of a run of digits and dots only, and possessive (see _CONVERT).
        rf"(?<![\w.])[\d.]++\s*+(?:degrees )?(?:{_UNIT_ALTERNATION}) (?:in|to|into) (?:degrees )?(?:{_UNIT_ALTERNATION})\b",
    ),
)
