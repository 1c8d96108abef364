"""The simulated model's slips: a value made up, of another type, or a near miss."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    import random
    from collections.abc import Mapping

    from agent_lab.strict_json import JSONValue

__all__ = ["invented", "other_type", "other_value"]


def invented(schema: Mapping[str, Any], rng: random.Random) -> JSONValue:
    """A plausible value a model makes up for a field it was never told."""
    enum: Any = schema.get("enum")
    if isinstance(enum, list) and enum:
        return cast("JSONValue", rng.choice(cast("list[Any]", enum)))
    kind = schema.get("type")
    if kind == "integer":
        return rng.randint(1, 10)
    if kind == "number":
        return float(rng.randint(1, 10))
    if kind == "boolean":
        return rng.random() < 0.5
    return "the usual"


def other_type(value: JSONValue) -> JSONValue:
    """The value as another JSON type: what a model sends when it misreads the schema."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, str):
        return 0
    return "?"


def other_value(value: JSONValue) -> JSONValue:
    """A near miss of the same type: what a model sends when it misreads the words."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 1
    if isinstance(value, str):
        return value + "x"
    return None
