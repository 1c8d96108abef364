"""Free-form names whose form a description prescribes, and names marked in other ways.

The phrasings are this file's own (issue 34: tool schemas worded as BFCL's are, and
as nobody here wrote them).
"""

from __future__ import annotations

from typing import Any

import pytest

from agent_lab.kernel.models import Event
from agent_lab.resolvers.names import FreeForm, name_role
from agent_lab.resolvers.schema import SchemaResolver


def resolve(properties: dict[str, Any], text: str) -> dict[str, Any]:
    schema = {"type": "object", "properties": properties, "required": list(properties)}
    return dict(SchemaResolver(schema)(Event("tool", text=text)).arguments)


@pytest.mark.parametrize(
    "description",
    [
        "Where the claim was filed.",  # "filed" is no file
        "The keyword's town.",  # "keyword" is no key
        "The town to identify.",  # "identify" is no id
        "The town, in the format of city name.",
        "The town. It should be formatted as city name such as Leeds.",
        "The town, e.g. Leeds.",
        "The town, for example Leeds or Hull.",
    ],
)
def test_a_form_that_is_a_name_as_said_leaves_the_property_read(description: str) -> None:
    assert FreeForm.of("town", description, frozenset()) is not None


@pytest.mark.parametrize(
    "description",
    [
        "The town's file name.",
        "The town, in the format of City, County.",
        "The town and county, e.g. Leeds, UK",
        "The ticker, e.g. MSFT",
        "The town, e.g. 'the old harbour'",
        "The town, in the format of city and county.",
    ],
)
def test_a_form_that_is_no_name_as_said_leaves_the_property_to_the_model(
    description: str,
) -> None:
    assert (
        FreeForm.of("town", description, frozenset()) is None
        or FreeForm.of("town", description, frozenset()).qualified  # type: ignore[union-attr]
    )


def test_an_end_is_where_the_journey_goes() -> None:
    assert name_role("end_point", "") == "destination"
    assert name_role("end", "Where the ride stops.") == "destination"
    route = {
        "start_point": {"type": "string", "description": "Where the ride begins."},
        "end_point": {"type": "string", "description": "Where the ride stops."},
    }
    assert resolve(route, "cycle from Utrecht to Gouda") == {
        "start_point": "Utrecht",
        "end_point": "Gouda",
    }


def test_a_name_another_property_quotes_as_its_value_is_that_property_s() -> None:
    forecast = {
        "town": {"type": "string", "description": "The town to forecast."},
        "scale": {"type": "string", "description": "The scale ('Kelvin' or 'Rankine')."},
    }
    assert resolve(forecast, "frost in Tromso tonight in Kelvin")["town"] == "Tromso"


def test_a_title_in_quotes_after_its_cue() -> None:
    paintings = {"title": {"type": "string", "description": "The painting's title."}}
    assert resolve(paintings, "the canvas with title 'Wheat field'") == {"title": "Wheat field"}
    ruling = {"ruling_name": {"type": "string", "description": "The ruling."}}
    assert resolve(ruling, "the ruling titled 'Smith v. Jones'") == {
        "ruling_name": "Smith v. Jones"
    }


def test_a_name_that_holds_the_property_s_noun_inside_it() -> None:
    gallery = {"gallery_name": {"type": "string", "description": "Which gallery."}}
    assert resolve(gallery, "tickets for the National Gallery of Ireland") == {
        "gallery_name": "National Gallery of Ireland"
    }
    # As its last word, the noun may or may not be written with the name: none.
    assert resolve(gallery, "tickets for the Hugh Lane Gallery") == {}


def test_from_is_no_cue_of_a_pickup_place() -> None:
    """ "Rent a van from Hertz" names a firm; "from Dundee" may be where the user comes from."""
    hire = {
        "collection_town": {"type": "string", "description": "Town to collect the van in"},
        "van_size": {"type": "string", "description": "The size", "enum": ["small", "large"]},
    }
    assert "collection_town" not in resolve(hire, "rent a large van from Hertz")
    assert resolve(hire, "I'll collect the van in Dundee")["collection_town"] == "Dundee"


def test_an_end_is_a_place_only_when_its_name_says_a_place() -> None:
    assert name_role("end_reason", "Why the membership ends, such as Relocation") == "other"
    assert name_role("end_city", "") == "destination"
    assert name_role("finish", "The color or type of finish on the guitar") == "other"


PAY = {
    "payee": {"type": "string", "description": "Who receives the money"},
    "venue": {"type": "string", "description": "The venue's name"},
}


def test_a_recipient_said_as_an_owner_is_the_owner() -> None:
    payee = {"payee": PAY["payee"]}
    assert resolve(payee, "send 40 euros to Mireille's checking account") == {"payee": "Mireille"}
    # A name with 's at the end of the words is the name ("to Luigi's").
    assert resolve(payee, "send 40 euros to Luigi's") == {"payee": "Luigi's"}
    # A word of kin before it: the contact may be saved with it or not.
    assert resolve(payee, "send 40 euros to my aunt Mireille") == {}


def test_a_place_said_as_an_owner_is_read_as_neither() -> None:
    venue = {"venue": {"type": "string", "description": "Where, a venue name"}}
    assert resolve(venue, "a table at Luigi's") == {"venue": "Luigi's"}
    assert resolve(venue, "a table at Luigi's place") == {}
