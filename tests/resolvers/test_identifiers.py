"""Identifiers read by their shape: an order number, a booking reference, an event's id."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_lab.kernel.models import Event
from agent_lab.resolvers.identifiers import identifies, read_identifier, read_labelled
from agent_lab.resolvers.schema import SchemaResolver


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


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("sign me up: lesson TR-07, pupil no 44817", {"lesson_id": "TR-07", "pupil_no": "44817"}),
        ("pupil number is 44817", {"pupil_no": "44817"}),
        # The identifying word alone labels only where no other property has it.
        ("no 44817", {}),
        # Two values for one label: none.
        ("lesson TR-07 or lesson TR-09", {}),
        # A year or a plain word is no identifier.
        ("lesson 2026", {}),
        ("lesson tomorrow", {}),
    ],
)
def test_a_label_says_whose_an_identifier_is(text: str, found: dict[str, str]) -> None:
    assert read_labelled(text, ["lesson_id", "pupil_no"]) == found


def test_labelled_identifiers_and_the_one_left_by_its_shape_fill_a_call() -> None:
    schema = {
        "type": "object",
        "properties": {
            "lesson_id": {"type": "string"},
            "pupil_no": {"type": "string"},
            "bookingRef": {"type": "string"},
        },
    }
    text = "pupil no 44817 and booking ref QX7TPL for TR-0712"
    resolved = SchemaResolver(schema)(Event("e", text=text, context={})).arguments
    assert resolved == {"pupil_no": "44817", "bookingRef": "QX7TPL", "lesson_id": "TR-0712"}


def test_a_labelled_date_is_no_identifier() -> None:
    assert read_labelled("reorder order 2025-11-03 please", ["order_id"]) == {}
    assert read_labelled("order 11/03 again", ["order_id"]) == {}


@pytest.mark.parametrize(
    "text",
    [
        "where is order 55123, wait, no, it's 55124",
        "order 55123 or 55124, not sure which",
        "my zip 94107, where's my stuff",
        "member id 558201 here, status please",
    ],
)
def test_an_identifier_corrected_or_labelled_as_another_thing_s_is_none(text: str) -> None:
    schema = {"type": "object", "properties": {"order_id": {"type": "string"}}}
    assert SchemaResolver(schema)(Event("e", text=text, context={})).arguments == {}
