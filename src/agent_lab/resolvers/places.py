"""Cities said by another of their names, written by their own: "Philly" is Philadelphia.

A tool that takes a city wants the name it is known by ("Las Vegas"), while people
say the one they use ("Vegas", "Ciudad de Mexico", "the Big Apple"). The table
(``place_aliases.json``) is made from GeoNames (CC BY 4.0) by
``scripts/place_aliases.py``, which says what it keeps: only names that are surely one
big city's and no other place's. A name it does not hold is written as said.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from types import MappingProxyType
from typing import TYPE_CHECKING

from agent_lab.resolvers.name_runs import names_in

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

__all__ = ["cities_said", "city_name"]


def city_name(said: str) -> str:
    """The name the city ``said`` is known by: "Vegas" gives "Las Vegas"; else ``said``."""
    return _aliases().get(said.lower(), said)


def cities_said(text: str, read: Iterable[object]) -> dict[str, str]:
    """The names in ``text`` that are other names of cities ``read`` holds, as said."""
    held = {value for value in read if isinstance(value, str)}
    return {
        name: name
        for name, _, _ in names_in(text)
        if (own := city_name(name)) != name and own in held
    }


@lru_cache(maxsize=1)
def _aliases() -> Mapping[str, str]:
    """The table, read once (25 ms): each other name, in lower case, to the city's own."""
    text = resources.files("agent_lab.resolvers").joinpath("place_aliases.json").read_text("utf-8")
    table = json.loads(text)["aliases"]
    return MappingProxyType({str(other): str(own) for other, own in table.items()})
