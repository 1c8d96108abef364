"""An act the user asks for is no look-up, and a summary is the tool's it speaks of.

The tools and phrasings are this file's own: none is SGD's.
"""

from __future__ import annotations

from typing import Any

from agent_lab.answering import Answerer, Asked, LocalAnswer
from tests.answering.messages import assistant, call, tool, user

NOW = "2026-04-01T09:00:00"

DAY = {"type": "string", "format": "date", "description": "The day"}
FIND_SAILINGS = tool(
    "Sailings__FindOnewaySailings",
    "Ferry tickets: find oneway sailings between two ports",
    {
        "port_from": {"type": "string", "description": "Port of departure"},
        "port_to": {"type": "string", "description": "Port of arrival"},
        "day": DAY,
        "passengers": {"type": "integer", "minimum": 1, "description": "Number of passengers"},
    },
    ["port_from", "port_to", "day"],
)
BUY_SAILING = tool(
    "Sailings__ReserveSeat",
    "Ferry tickets: reserve a seat on a sailing",
    {
        "port_from": {"type": "string", "description": "Port of departure"},
        "port_to": {"type": "string", "description": "Port of arrival"},
        "day": DAY,
        "sailing": {"type": "string", "description": "Name of the sailing"},
    },
    ["port_from", "port_to", "day", "sailing"],
)
FIND_RETURNS = tool(
    "Sailings__FindRoundtrips",
    "Ferry tickets: find round trips between two ports",
    {
        **FIND_SAILINGS["function"]["parameters"]["properties"],
        "back": {"type": "string", "format": "date", "description": "Day of the return"},
    },
    ["port_from", "port_to", "day", "back"],
)
BUY_RETURN = tool(
    "Sailings__ReserveRoundtrip",
    "Ferry tickets: reserve a round trip",
    {**BUY_SAILING["function"]["parameters"]["properties"], "back": DAY},
    ["port_from", "port_to", "day", "sailing", "back"],
)
FERRIES = [FIND_SAILINGS, BUY_SAILING, FIND_RETURNS, BUY_RETURN]
TABLE = tool(
    "Dining__ReserveTable",
    "Dining out: reserve a table at a restaurant",
    {
        "restaurant": {"type": "string", "description": "Name of the restaurant"},
        "guests": {"type": "string", "enum": ["1", "2", "3", "4"], "description": "Guests"},
        "day": DAY,
    },
    ["restaurant", "guests", "day"],
)
CAB = tool(
    "Cabs__BookCab",
    "Cabs in town: Book a cab to any place",
    {
        "destination": {"type": "string", "description": "The address the cab drives to"},
        "riders": {"type": "string", "enum": ["1", "2", "3", "4"], "description": "Riders"},
    },
    ["destination", "riders"],
)
BALANCE = tool(
    "Bank__CheckBalance",
    "Banking: check the balance of an account",
    {"account": {"type": "string", "enum": ["checking", "savings"], "description": "Account"}},
    ["account"],
)


def answered(messages: list[dict[str, Any]], tools: list[Any]) -> list[tuple[str, Any]]:
    got = Answerer(ask=False).answer(Asked(messages=messages, tools=tools), now=NOW)
    return [(c.name, c.arguments) for c in got.calls] if isinstance(got, LocalAnswer) else []


SEARCHED = [
    user("Any ferries from Kiel to Oslo on April 3rd?"),
    *call(
        "Sailings__FindOnewaySailings",
        {"port_from": "Kiel", "port_to": "Oslo", "day": "2026-04-03"},
        "c1",
        [{"sailing": "Color Fantasy", "departs": "14:00"}],
    ),
    assistant("The Color Fantasy leaves Kiel at 2 pm."),
]


def test_a_purchase_asked_after_a_search_is_no_search_again() -> None:
    """The act is the model's to confirm: searching again would answer nothing asked."""
    said_so = ("Perfect. Please purchase it for April 5th then.", "Great, buy it for 2 passengers.")
    for said in said_so:
        assert answered([*SEARCHED, user(said)], FERRIES) == []


def test_a_refinement_of_the_search_is_still_one() -> None:
    said = "What about on April 5th instead?"
    expected = {"port_from": "Kiel", "port_to": "Oslo", "day": "2026-04-05"}
    got = answered([*SEARCHED, user(said)], FERRIES)
    assert got == [("Sailings__FindOnewaySailings", expected)]


CONFIRMED_TABLE = [
    user("Book me a table at Quince for 2 on April 4th."),
    assistant("Please confirm: a table at Quince for 2 people on April 4th."),
]


def test_a_question_beside_an_assent_asks_about_what_it_accepts() -> None:
    """ "What is their address?" speaks of a cab's address: not the cab, asked so."""
    retried = [
        *CONFIRMED_TABLE,
        user("Yes, that's right."),
        *call(
            "Dining__ReserveTable",
            {"restaurant": "Quince", "guests": "2", "day": "2026-04-04"},
            "c2",
            [],
        ),
        assistant("Sorry, Quince is full that day. Anything else?"),
        user("Can you try again for April 5th?"),
        assistant("Please confirm: a table at Quince for 2 people on April 5th."),
    ]
    for said in ("Yes, that's right.", "Yes, what is their address?", "Great. Where is it?"):
        got = answered([*retried, user(said)], [TABLE, CAB])
        expected = {"restaurant": "Quince", "guests": "2", "day": "2026-04-05"}
        assert got == [("Dining__ReserveTable", expected)]


def test_a_request_beside_an_assent_is_for_another_tool() -> None:
    """ "Yes, can you check my balance?" asks for the balance, not the table again."""
    done = [
        *CONFIRMED_TABLE,
        user("Yes, that's right."),
        *call(
            "Dining__ReserveTable",
            {"restaurant": "Quince", "guests": "2", "day": "2026-04-04"},
            "c2",
            {"ok": True},
        ),
        assistant("Your table is booked. Anything else?"),
        user("Yes, can you check my account balance?"),
    ]
    assert answered(done, [TABLE, CAB, BALANCE]) == []


def test_a_numbered_address_is_not_lost_to_a_capitalised_noun() -> None:
    """ "to 1 Harbor Road" is in doubt, so "a Cab" is no name left for the destination."""
    messages = [
        user("I need a cab for one."),
        assistant("Please confirm: a Cab for 1 rider to 1 Harbor Road."),
        user("Yes, correct."),
    ]
    assert answered(messages, [CAB]) == []


FORECAST = tool(
    "Skies__GetForecast",
    "Weather: get the forecast for a town on a day",
    {"town": {"type": "string", "description": "The town"}, "day": DAY},
    ["town"],
)


def test_the_last_call_asked_again_keeps_what_it_does_not_restate() -> None:
    """ "How about Whitby?" after the forecast for Leeds on the 12th: Whitby, the 12th."""
    messages = [
        user("What's the forecast in Leeds on April 12th?"),
        *call("Skies__GetForecast", {"town": "Leeds", "day": "2026-04-12"}, "c1", {"rain": 0.4}),
        assistant("Light rain in Leeds on the 12th."),
        user("Okay, how about the forecast in Whitby?"),
    ]
    expected = {"town": "Whitby", "day": "2026-04-12"}
    assert answered(messages, [FORECAST, TABLE]) == [("Skies__GetForecast", expected)]


def test_another_look_up_whose_values_the_call_leaves_is_the_model_s() -> None:
    """One way after return sailings for 2: the 2 passengers hold, or not? The model's."""
    searched = {
        "port_from": "Kiel",
        "port_to": "Oslo",
        "day": "2026-04-03",
        "back": "2026-04-09",
        "passengers": 2,
    }
    messages = [
        user("Return ferries from Kiel to Oslo, April 3rd to the 9th, for 2 passengers?"),
        *call("Sailings__FindRoundtrips", searched, "c1", [{"sailing": "Color Fantasy"}]),
        assistant("The Color Fantasy sails both days."),
        user("Could you find me oneway sailings instead?"),
    ]
    assert answered(messages, FERRIES) == []
