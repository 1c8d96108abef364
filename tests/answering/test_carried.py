"""Values an earlier call to another tool settled complete the call the user asks for now."""

from __future__ import annotations

import json
from typing import Any

from agent_lab.answering import Answerer, Asked, LocalAnswer
from agent_lab.answering.carried import carried

CITIES = ["Boston", "Denver", "Austin"]
SEARCH: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "search_trains",
        "description": "Search trains between two cities.",
        "parameters": {
            "type": "object",
            "properties": {
                "origin": {"type": "string", "enum": CITIES},
                "destination": {"type": "string", "enum": CITIES},
            },
            "required": ["origin", "destination"],
        },
    },
}
RESERVE: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "reserve_train",
        "description": "Reserve seats on a train.",
        "parameters": {
            "type": "object",
            "properties": {
                "origin": {"type": "string", "enum": CITIES},
                "destination": {"type": "string", "enum": CITIES},
                "seats": {"type": "integer", "minimum": 1},
            },
            "required": ["origin", "destination", "seats"],
        },
    },
}
TOOLS = [SEARCH, RESERVE]


def call(name: str, arguments: dict[str, Any], ident: str) -> list[dict[str, Any]]:
    return [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": ident,
                    "type": "function",
                    "function": {"name": name, "arguments": json.dumps(arguments)},
                }
            ],
        },
        {"role": "tool", "tool_call_id": ident, "content": '{"trains": 3}'},
        {"role": "assistant", "content": "I found 3 trains. The first leaves at 9."},
    ]


SEARCHED = [
    {"role": "user", "content": "any trains from Boston going to Denver?"},
    *call("search_trains", {"origin": "Boston", "destination": "Denver"}, "c1"),
]


def answered(messages: list[dict[str, Any]]) -> LocalAnswer | None:
    answer = Answerer().answer(Asked(messages=messages, tools=TOOLS))
    return answer if isinstance(answer, LocalAnswer) else None


def test_the_search_settles_the_cities_of_the_reservation() -> None:
    said = [*SEARCHED, {"role": "user", "content": "great, reserve that train with 2 seats"}]
    answer = answered(said)
    assert answer is not None
    assert [(c.name, c.arguments) for c in answer.calls] == [
        ("reserve_train", {"origin": "Boston", "destination": "Denver", "seats": 2})
    ]


def test_a_value_this_turn_may_change_is_never_carried() -> None:
    """'to Austin': a city word the resolver cannot place; carrying Denver could be wrong."""
    said = [*SEARCHED, {"role": "user", "content": "reserve the train to Austin with 2 seats"}]
    assert carried(said, TOOLS, "reserve_train", ["/origin", "/destination"]) == {}
    assert answered(said) is None


def test_nothing_is_carried_to_a_tool_called_before_nor_without_a_missing_value() -> None:
    again = [
        *SEARCHED,
        *call("reserve_train", {"origin": "Boston", "destination": "Denver", "seats": 1}, "c2"),
    ]
    assert carried(again, TOOLS, "reserve_train", ["/origin", "/destination"]) == {}
    assert carried(SEARCHED, TOOLS, "reserve_train", []) == {}
    assert answered([*again, {"role": "user", "content": "reserve a train with 2 seats"}]) is None


def test_a_value_the_schema_does_not_allow_is_not_carried() -> None:
    odd = [
        {"role": "user", "content": "trains from Boston to Paris?"},
        *call("search_trains", {"origin": "Boston", "destination": "Paris"}, "c1"),
        {"role": "user", "content": "reserve that train, 2 seats"},
    ]
    assert carried(odd, TOOLS, "reserve_train", ["/origin", "/destination"]) == {"origin": "Boston"}
    assert answered(odd) is None
