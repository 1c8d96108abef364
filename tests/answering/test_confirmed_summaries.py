"""A summary the user confirms, worded as people word it: its name goes to the tool it speaks of."""

from __future__ import annotations

from typing import Any

import pytest

from agent_lab.answering import Answerer
from agent_lab.answering.answers import LocalAnswer
from agent_lab.answering.asked import Asked
from agent_lab.answering.utterances import accepts, confirms

NOW = "2026-06-01T10:00:00+00:00"


def _tool(name: str, description: str, properties: dict[str, Any], required: list[str]) -> Any:
    parameters = {"type": "object", "properties": properties, "required": required}
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": parameters},
    }


def _text(description: str) -> dict[str, str]:
    return {"type": "string", "description": description}


DAY = {"type": "string", "format": "date", "description": "Day of the gig"}
FIND = _tool(
    "find_gigs",
    "Find live music gigs happening in a town on a day",
    {"town": _text("Town of the gig"), "day": DAY},
    ["town"],
)
BUY = _tool(
    "purchase_gig_tickets",
    "Purchase tickets for a gig",
    {
        "performer": _text("Who is performing"),
        "town": _text("Town of the gig"),
        "day": DAY,
        "seats": {"type": "integer", "description": "How many tickets"},
    },
    ["performer", "town", "day", "seats"],
)
OPENING = [
    "I need a hand with my weekend plans.",
    "Happy to help. What would you like?",
    "We want to see Nadine Shah in Leeds on the 6th of June, 2 people.",
]
PURCHASE = {"performer": "Nadine Shah", "town": "Leeds", "day": "2026-06-06", "seats": 2}


def answer(*said: str) -> LocalAnswer | None:
    messages = tuple(
        {"role": "user" if n % 2 == 0 else "assistant", "content": text}
        for n, text in enumerate(said)
    )
    found = Answerer().answer(Asked(messages=messages, tools=(FIND, BUY)), now=NOW)
    return found if isinstance(found, LocalAnswer) else None


@pytest.mark.parametrize(
    "summary",
    [
        "Please confirm: 2 tickets for Nadine Shah in Leeds on June 6th.",
        "Just to check: 2 tickets for Nadine Shah in Leeds on June 6th?",
        "Let me double-check: 2 tickets for Nadine Shah in Leeds on June 6th, yes?",
    ],
)
@pytest.mark.parametrize(
    "reply",
    ["Yes, that's right.", "That is confirmed.", "All correct.", "That seems great.",
     "Everything sounds right to me.", "You've got it.", "Sounds really good, thanks."],
)  # fmt: skip
def test_a_confirmed_summary_buys_with_the_name_it_states(summary: str, reply: str) -> None:
    """The words never routed to the purchase; the summary the user accepted speaks of it."""
    found = answer(*OPENING, summary, reply)
    assert found is not None
    assert [(call.name, call.arguments) for call in found.calls] == [
        ("purchase_gig_tickets", PURCHASE)
    ]


@pytest.mark.parametrize(
    "reply",
    ["That seems wrong.", "It is good, but make it three of us.", "All correct except the day.",
     "Not quite, it's Nadine Shah in York.", "Hmm, let me think about it.",
     # A reviewer's: words of praise or assent that agree to nothing.
     "Excellent question.", "It is good to know.", "I approve of nothing.",
     "That is confirmed as wrong.", "Lovely."],
)  # fmt: skip
def test_no_purchase_where_the_reply_takes_something_back(reply: str) -> None:
    summary = "Please confirm: 2 tickets for Nadine Shah in Leeds on June 6th."
    found = answer(*OPENING, summary, reply)
    assert found is None or all(call.name != "purchase_gig_tickets" for call in found.calls)


@pytest.mark.parametrize(
    "summary",
    [
        "Booking 2 tickets for Nadine Shah in Leeds on June 6th is not possible right now.",
        "You want 2 tickets for Nadine Shah in Leeds on June 6th? Those are sold out, sorry.",
        "Just to check: you don't want 2 tickets for Nadine Shah in Leeds on June 6th?",
        "Please confirm: 2 tickets for Nadine Shah in Leeds on June 6th cannot be bought.",
    ],
)
def test_a_summary_it_negates_or_says_cannot_be_done_buys_nothing(summary: str) -> None:
    found = answer(*OPENING, summary, "Yes.")
    assert found is None or all(call.name != "purchase_gig_tickets" for call in found.calls)


def test_a_summary_that_speaks_of_no_one_tool_gives_its_name_to_none() -> None:
    """No word of the purchase in it: the name left is not the purchase's to take."""
    found = answer(*OPENING, "Please confirm: Nadine Shah in Leeds on June 6th.", "Yes.")
    assert found is None or all(call.name != "purchase_gig_tickets" for call in found.calls)


@pytest.mark.parametrize(
    ("text", "accepted"),
    [
        ("That is confirmed, please go ahead.", True),
        ("It is good.", True),
        ("Sounds really good!", True),
        ("I'm happy with that.", True),
        ("That would be lovely.", True),
        ("That is not confirmed.", False),
        ("That seems wrong to me.", False),
        ("Everything is fine but the date.", False),
    ],
)
def test_assents_worded_otherwise(text: str, *, accepted: bool) -> None:
    assert accepts(text) is accepted


def test_a_booking_spoken_of_is_no_summary() -> None:
    """ "Booking is not possible" states no act to confirm: its capital is no performer."""
    assert not confirms("Sorry, Booking is not possible right now. Anything else?")
    found = answer(
        *OPENING,
        "Sorry, Booking is not possible right now. Anything else?",
        "Proceed with Nadine Shah then.",
    )
    assert found is None or all(call.name != "purchase_gig_tickets" for call in found.calls)


def test_a_check_is_a_request_to_confirm_but_a_search_to_check_is_not() -> None:
    assert confirms("Just to check: a table for 2 at Sino at 7 pm?")
    assert confirms("Let me double check: you want 3 seats?")
    assert not confirms("I'll check what is on in Leeds.")
