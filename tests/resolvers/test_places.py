"""Cities said by another of their names are written by their own.

The phrasings and tools are this file's own.
"""

from __future__ import annotations

import json
from importlib import resources

import pytest

from agent_lab.answering import Answerer, Asked, LocalAnswer
from agent_lab.kernel.models import Event
from agent_lab.resolvers.places import cities_said, city_name
from agent_lab.resolvers.schema import SchemaResolver
from tests.answering.messages import tool, user


@pytest.mark.parametrize(
    ("said", "own"),
    [
        ("Vegas", "Las Vegas"),
        ("philly", "Philadelphia"),
        ("Bombay", "Mumbai"),
        ("Ciudad de Mexico", "Mexico City"),
        # A city's own name, a small town's name, a state's, a longer form: as said.
        ("Boston", "Boston"),
        ("Sebastopol", "Sebastopol"),
        ("New York", "New York"),
        ("Washington D.C.", "Washington D.C."),
        ("Frisco", "Frisco"),
        ("Cologne", "Cologne"),  # GeoNames writes "Köln": an English tool does not
        ("Harbor Point", "Harbor Point"),
    ],
)
def test_a_city_is_written_by_its_own_name(said: str, own: str) -> None:
    assert city_name(said) == own


def test_the_table_says_where_it_comes_from_and_holds_plain_names() -> None:
    text = resources.files("agent_lab.resolvers").joinpath("place_aliases.json").read_text()
    table = json.loads(text)
    assert "GeoNames" in table["source"]
    assert "CC BY 4.0" in table["source"]
    aliases = table["aliases"]
    assert len(aliases) > 10_000
    assert all(other == other.lower() and own.isascii() for other, own in aliases.items())
    assert not {own.lower() for own in aliases.values()} & set(aliases)


def resolver(description: str) -> SchemaResolver:
    return SchemaResolver(
        {
            "type": "object",
            "properties": {"where": {"type": "string", "description": description}},
            "required": ["where"],
        }
    )


def test_only_a_city_property_takes_the_city_name() -> None:
    said = "What's the forecast in Philly?"
    city = resolver("The city to forecast")(Event("forecast", text=said))
    assert city.arguments == {"where": "Philadelphia"}
    venue = resolver("The venue to meet at")(Event("meet", text="Meet me at Vegas"))
    assert venue.arguments.get("where") != "Las Vegas"


def test_the_words_said_are_read_all_the_same() -> None:
    """ "Vegas" read as Las Vegas is no name left unread for another property."""
    assert cities_said("a bus to Vegas on Friday", ["Las Vegas"]) == {"Vegas": "Vegas"}
    assert cities_said("a bus to Vegas on Friday", ["Reno"]) == {}
    bus = tool(
        "find_bus",
        "Find a bus between two cities.",
        {
            "from_city": {"type": "string", "description": "City the bus leaves from"},
            "to_city": {"type": "string", "description": "City the bus goes to"},
            "operator": {"type": "string", "description": "Bus company"},
        },
        ["from_city", "to_city"],
    )
    stay = tool(
        "find_stay",
        "Find a place to stay.",
        {"area": {"type": "string", "description": "Where to stay"}},
        ["area"],
    )
    asked = Asked(messages=[user("Find me a bus from Boston to Philly")], tools=[bus, stay])
    got = Answerer(ask=False).answer(asked, now="2026-04-01T09:00:00")
    assert isinstance(got, LocalAnswer)
    expected = {"from_city": "Boston", "to_city": "Philadelphia"}
    assert [(c.name, c.arguments) for c in got.calls] == [("find_bus", expected)]
