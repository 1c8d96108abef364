"""What a simulated model can see of a value, in the words and data it was actually sent.

The sighted model uses the ground truth only to decide this, never to fill
what it could not have read: a value is ``VERBATIM`` when it, or one of the
workload's listed alternatives, is in the request as written; ``DERIVED``
when a capable model could work it out from what it was sent (a number said
in words, a relative date, an enum member, a flag from a phrasing); and
``UNSEEN`` otherwise (a name nobody mentioned): then it can only ask, or
invent.
"""

from __future__ import annotations

import json
import re
from enum import StrEnum
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from collections.abc import Mapping

    from agent_lab.strict_json import JSONValue

__all__ = ["Sight", "sight", "visible_text"]

_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_ISO_DATE_OR_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}|^\d{1,2}:\d{2}")
_SPACES = re.compile(r"\s+")
_FORMATS = frozenset({"date", "time", "date-time", "duration"})


class Sight(StrEnum):
    """How a value appears in a request."""

    VERBATIM = "verbatim"
    DERIVED = "derived"
    UNSEEN = "unseen"


def visible_text(text: str, payload: object, known: object) -> str:
    """Everything the model was sent that can hold a value: the words, the data, the known facts."""
    parts = [text, *(json.dumps(value, ensure_ascii=False) for value in (payload, known) if value)]
    return _SPACES.sub(" ", " ".join(parts)).casefold()


def _numbers(text: str) -> set[float]:
    return {float(token) for token in _NUMBER.findall(text)}


def _one(value: JSONValue, seen: str, schema: Mapping[str, Any]) -> Sight:
    if isinstance(value, bool) or value is None:
        return Sight.DERIVED  # flags are read from phrasings, never written out
    if isinstance(value, int | float):
        return Sight.VERBATIM if float(value) in _numbers(seen) else Sight.DERIVED
    if isinstance(value, str):
        wanted = _SPACES.sub(" ", value).strip().casefold()
        if wanted and wanted in seen:
            return Sight.VERBATIM
        if (
            "enum" in schema
            or schema.get("format") in _FORMATS
            or _ISO_DATE_OR_TIME.match(value)
            or _NUMBER.fullmatch(value.strip())
        ):
            return Sight.DERIVED
        return Sight.UNSEEN
    if isinstance(value, list):
        declared: Any = schema.get("items")
        items = cast("dict[str, Any]", declared) if isinstance(declared, dict) else {}
        return _worst([_one(item, seen, items) for item in value])
    properties: Any = schema.get("properties")
    inner = cast("dict[str, Any]", properties) if isinstance(properties, dict) else {}
    return _worst([_one(item, seen, inner.get(key, {})) for key, item in value.items()])


def _worst(sights: list[Sight]) -> Sight:
    if Sight.UNSEEN in sights:
        return Sight.UNSEEN
    if Sight.DERIVED in sights:
        return Sight.DERIVED
    return Sight.VERBATIM


def sight(
    value: JSONValue,
    seen: str,
    schema: Mapping[str, Any],
    alternatives: list[Any] | None = None,
) -> Sight:
    """How ``value`` (or, failing it, an acceptable alternative) appears in ``seen``."""
    best = _one(value, seen, schema)
    if best is not Sight.VERBATIM and alternatives:
        for option in alternatives:
            if (
                option != ""
                and not isinstance(option, dict)
                and _one(option, seen, schema) is Sight.VERBATIM
            ):
                return Sight.VERBATIM
    return best
