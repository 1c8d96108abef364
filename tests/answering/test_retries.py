"""An act that failed, tried again as the assistant offers and the user accepts."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent_lab.answering import Answerer
from agent_lab.answering.answers import LocalAnswer
from agent_lab.answering.asked import Asked

NOW = "2026-05-04T09:00:00+00:00"  # a Monday


def _tool(name: str, description: str, properties: dict[str, Any], required: list[str]) -> Any:
    parameters = {"type": "object", "properties": properties, "required": required}
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": parameters},
    }


RESERVE = _tool(
    "reserve_court",
    "Reserve a tennis court at the club",
    {
        "club": {"type": "string", "description": "Name of the club"},
        "day": {"type": "string", "format": "date", "description": "Day to play"},
        "time": {"type": "string", "description": "Start time, HH:MM"},
        "players": {"type": "integer", "description": "How many players"},
    },
    ["club", "day", "time", "players"],
)
FIND = _tool(
    "find_courts",
    "Find clubs with free tennis courts in a town",
    {"town": {"type": "string", "description": "Town to search"}},
    ["town"],
)
FIRST = {"club": "Riverside", "day": "2026-05-06", "time": "18:00", "players": 2}


def conversation(offer: str, reply: str) -> tuple[dict[str, Any], ...]:
    return (
        {"role": "user", "content": "Can you book me a court at Riverside on Wednesday?"},
        {"role": "assistant", "content": "Sure. What time, and for how many players?"},
        {"role": "user", "content": "6 pm, two of us."},
        {
            "role": "assistant",
            "content": "Please confirm: a court at Riverside on Wednesday, May 6th at 6 pm "
            "for 2 players.",
        },
        {"role": "user", "content": "Yes."},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "reserve_court", "arguments": json.dumps(FIRST)},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "[]"},
        {"role": "assistant", "content": offer},
        {"role": "user", "content": reply},
    )


def calls(offer: str, reply: str) -> list[tuple[str, dict[str, Any]]]:
    asked = Asked(messages=conversation(offer, reply), tools=(FIND, RESERVE))
    found = Answerer().answer(asked, now=NOW)
    return [(c.name, c.arguments) for c in found.calls] if isinstance(found, LocalAnswer) else []


@pytest.mark.parametrize(
    ("offer", "reply", "time"),
    [
        ("Sorry, the 6 pm slot is taken. How about 7 pm instead?", "Yes, do that.", "19:00"),
        ("I couldn't book it, I'm afraid. Shall I try 5:30 pm?", "Sure.", "17:30"),
        ("That court is not available then. Would 8 pm work?", "That works.", "20:00"),
    ],
)
def test_the_act_again_with_the_value_the_question_changes(
    offer: str, reply: str, time: str
) -> None:
    assert calls(offer, reply) == [("reserve_court", {**FIRST, "time": time})]


@pytest.mark.parametrize(
    ("offer", "reply"),
    [
        # No failure said: a question about another slot is no retry.
        ("Done! Would you like another court at 7 pm too?", "Yes."),
        # The user adds a value of their own: another request, the model's.
        ("Sorry, the 6 pm slot is taken. How about 7 pm instead?", "Yes, but for 4 players."),
        # A no.
        ("Sorry, the 6 pm slot is taken. How about 7 pm instead?", "No, thanks."),
        # The question changes nothing plain code reads.
        ("Sorry, the 6 pm slot is taken. Shall I try again later?", "Yes."),
        # A reviewer's: questions whose yes is no plain retry.
        ("Sorry, the 6 pm slot is taken. Is 7 pm too late for you?", "Yes."),
        ("Sorry, the 6 pm slot is taken. Would 7 pm be a problem?", "Yes."),
        ("Sorry, the 6 pm slot is taken. Do you want me to skip 7 pm as well?", "Yes."),
        ("Sorry, the 6 pm slot is taken. Should I not try 7 pm?", "Yes."),
        ("Sorry, it failed. 7 pm, or should I cancel?", "Yes."),
        ("Sorry, I couldn't book it. Do you know if 7 pm suits your partner?", "Yes."),
        ("Sorry, it failed. Shall I try 7 pm? Or 8 pm?", "Yes."),
        ("Sorry, the 6 pm slot is taken. How about 7 pm instead?", "Wonderful, another failure."),
        # The act went through; the apology is about something else.
        ("Your court at 6 pm is booked. Sorry, the lights are off before 7 pm. Would you "
         "like me to note that you'll arrive at 7 pm?", "Yes."),
    ],
)  # fmt: skip
def test_no_retry_where_the_words_do_not_say_one(offer: str, reply: str) -> None:
    assert all(name != "reserve_court" for name, _ in calls(offer, reply))
