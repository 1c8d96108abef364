"""Identifiers read by their shape: an order number, a booking reference, an event's id."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_lab.resolvers.identifiers import identifies, read_identifier


@pytest.mark.parametrize(
    ("name", "schema", "holds"),
    [
        ("rx_number", {"type": "string"}, True),
        ("eventId", {"type": "string"}, True),
        ("bookingRef", {}, True),
        ("confirmation_code", {"type": "string"}, True),
        ("number_of_seats", {"type": "string"}, False),
        ("phone_number", {"type": "string"}, False),
        ("order_id", {"type": "integer"}, False),
        ("status_code", {"type": "string", "enum": ["open", "shut"]}, False),
        ("city", {"type": "string"}, False),
    ],
)
def test_a_property_holds_an_identifier_by_its_name(
    name: str, schema: dict[str, object], holds: bool
) -> None:
    assert identifies(name, schema) is holds


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("Ticket ZK-5512 please", "ZK-5512"),
        ("the loan is 40417-C", "40417-C"),
        ("order 88120391", "88120391"),
        ("3 seats for GIG-77 at 8pm", None),  # two digits: no identifier
        ("in 2026", None),  # a year
        ("call 415-555-0199", None),  # a telephone number
        ("send 2500 dollars", None),  # a sum of money
        ("at 1930 hours", None),  # a clock time
        ("QX-2041 or QX-2042", None),  # two
        ("the 123rd", None),
    ],
)
def test_the_one_token_shaped_as_an_identifier_is_read(text: str, found: str | None) -> None:
    assert read_identifier(text) == found


def test_a_token_read_as_another_value_is_none() -> None:
    assert read_identifier("4 seats for show 1800", read=["1800"]) is None


@given(st.text(max_size=300))
def test_no_text_breaks_the_reading(text: str) -> None:
    found = read_identifier(text)
    assert found is None or found in text
