"""Tools the user's words do not name: a name with no verb ("outlook"), a tool told only by
the values it takes, a place for a "locale", a payment's recipient.

Tools and phrasings are this file's own.
"""

from __future__ import annotations

from typing import Any

import pytest

from agent_lab.agents.tool_specs import acts
from agent_lab.answering import Answerer, Asked, Forward, LocalAnswer
from agent_lab.answering.utterances import asks_to_act, asks_what
from tests.answering.messages import assistant, call, tool, user

NOW = "2026-04-01T09:00:00"  # a Wednesday


PLACE = {"type": "string", "description": "Place name"}
OUTLOOK = tool(
    "outlook",
    "Daily outlook.",
    {"locale": PLACE, "day": {"type": "string", "format": "date"}},
    ["locale", "day"],
)
POLLEN = tool("pollen_level", "Pollen level for a place, now.", {"locale": PLACE}, ["locale"])
SKIES = [OUTLOOK, POLLEN]
WIRE = tool(
    "wire",
    "Wire funds to a saved payee.",
    {
        "payee": {"type": "string", "description": "Saved payee's nickname"},
        "amount": {"type": "number"},
    },
    ["payee", "amount"],
)
BALANCE = tool("balance", "Current balance of the wallet.", {}, [])


def answer(messages: list[dict[str, Any]], tools: list[Any]) -> LocalAnswer | Forward:
    return Answerer().answer(Asked(messages=messages, tools=tools), now=NOW)


def calls(answered: LocalAnswer | Forward) -> list[tuple[str, dict[str, Any]]]:
    assert isinstance(answered, LocalAnswer), answered
    return [(c.name, dict(c.arguments)) for c in answered.calls]


@pytest.mark.parametrize(
    ("name", "description", "acting"),
    [
        ("outlook", "Daily outlook.", False),
        ("ferry_timetable", "Timetable of crossings between two harbours.", False),
        ("pollen_level", "Pollen level for a place, now.", False),
        ("catalog", "Searches the catalog by title.", False),
        ("tides", "Returns the tides of a harbour.", False),
        ("crossing", "Reserve places on a crossing.", True),
        ("wire", "Wire funds to a saved payee.", True),
        ("gift_cards", "A service to buy gift cards.", True),
        ("lamps", "Turns the lamps on or off.", True),
        ("outlook", "", True),
        ("front_desk", "Check in a guest on arrival.", True),
        ("check_in_guest", "", True),
        ("venmo", "Venmo payment to a friend.", True),
        ("payments", "Payments endpoint. Moves money between wallets.", True),
    ],
)
def test_a_name_with_no_verb_is_told_by_its_description(
    name: str, description: str, acting: bool
) -> None:
    assert acts(name, description) is acting


def test_names_with_a_verb_are_told_by_the_name_alone() -> None:
    assert acts("find_crossings", "Reserve places.") is False
    assert acts("book_crossing", "Timetable of crossings.") is True


@pytest.mark.parametrize(
    ("name", "description", "acting"),
    [
        ("Taxis__GetCab", "City taxis on demand: Call a taxi to a given address", True),
        ("get_shuttle", "Book a seat on the airport shuttle.", True),
        ("GetDelivery", "Groceries at home. Order a basket for the evening.", True),
        ("get_forecast", "Get the forecast for a city.", False),
        ("get_directions", "Returns directions between two places.", False),
        ("get_invoice", "Fetch an invoice; call it with the invoice number.", False),
    ],
)
def test_get_names_an_act_where_the_description_opens_with_one(
    name: str, description: str, acting: bool
) -> None:
    """ "Get" looks up (a forecast) or obtains (a cab): the description's verb tells."""
    assert acts(name, description) is acting


def test_the_one_tool_that_takes_every_value_said_is_called() -> None:
    answered = answer([user("what's the outlook like in Ghent on Friday?")], SKIES)
    assert calls(answered) == [("outlook", {"locale": "Ghent", "day": "2026-04-03"})]


def test_values_alone_name_no_tool() -> None:
    """A city and a day fit the outlook; a hotel is no outlook."""
    for said in (
        "Is it going to rain in Ghent on Friday?",
        "the cheapest hotel in Ghent on Friday?",
    ):
        assert isinstance(answer([user(said)], SKIES), Forward)


def test_a_value_the_fitting_tool_leaves_unread_leaves_it_to_the_model() -> None:
    tools = [*SKIES, tool("ski_report", "Snow on the slopes.", {"resort": PLACE}, ["resort"])]
    # Both the outlook and the report take Ghent; neither takes both it and a day alone.
    assert isinstance(answer([user("anything for Ghent on Friday or Davos?")], tools), Forward)


def test_words_said_before_the_message_leave_an_unnamed_tool_to_the_model() -> None:
    messages = [
        user("I'm planning a picnic"),
        assistant("Nice! Where and when?"),
        user("in Ghent on Friday"),
    ]
    assert isinstance(answer(messages, SKIES), Forward)


def test_an_unnamed_tool_that_acts_is_not_chosen_by_its_values() -> None:
    assert isinstance(answer([user("Tomas, 25")], [WIRE, BALANCE]), Forward)


def test_a_refinement_of_a_tool_with_no_verb_is_read() -> None:
    messages = [
        user("Is it going to rain in Ghent on Friday?"),
        *call("outlook", {"locale": "Ghent", "day": "2026-04-03"}, "c1", {"ok": True}),
        assistant("Showers on Friday in Ghent."),
        user("and on Sunday?"),
    ]
    assert calls(answer(messages, SKIES)) == [("outlook", {"locale": "Ghent", "day": "2026-04-05"})]


def test_what_about_another_task_there_carries_the_place() -> None:
    messages = [
        user("Is it going to rain in Ghent on Friday?"),
        *call("outlook", {"locale": "Ghent", "day": "2026-04-03"}, "c1", {"ok": True}),
        assistant("Showers on Friday in Ghent."),
        user("What about the pollen there?"),
    ]
    assert calls(answer(messages, SKIES)) == [("pollen_level", {"locale": "Ghent"})]


def test_what_about_proposes_and_which_asks() -> None:
    assert not asks_what("What about the pollen there?")
    assert not asks_what("ok, how about Sunday?")
    assert asks_what("What is the pollen level?")
    assert asks_what("How high is it?")


def test_a_payee_is_whom_the_money_goes_to() -> None:
    answered = answer([user("Wire $25 to Tomas please")], [WIRE, BALANCE])
    assert calls(answered) == [("wire", {"payee": "Tomas", "amount": 25})]


def test_a_locale_is_a_place() -> None:
    answered = answer([user("pollen level in Utrecht right now?")], SKIES)
    assert calls(answered) == [("pollen_level", {"locale": "Utrecht"})]


def test_a_lone_tool_is_not_chosen_by_the_values_it_takes() -> None:
    sunrise = tool(
        "dawn_time",
        "Time of dawn for a place on a day.",
        {"locale": PLACE, "day": {"type": "string", "format": "date"}},
        ["locale"],
    )
    assert isinstance(
        answer([user("When does the sun set in Lagos tomorrow?")], [sunrise]), Forward
    )


def test_one_value_does_not_tell_tools_apart() -> None:
    assert isinstance(answer([user("Is it nice in Ghent?")], SKIES), Forward)


TIDES = tool(
    "tide_table",
    "Tides at a port on a day.",
    {"port": PLACE, "day": {"type": "string", "format": "date"}},
    ["port", "day"],
)
BERTH = tool(
    "berth",
    "Reserve a berth at a port.",
    {"port": PLACE, "nights": {"type": "integer", "minimum": 1}},
    ["port", "nights"],
)


def test_words_of_the_fitting_tool_bear_it_out() -> None:
    answered = answer([user("tides at Brest on Sunday?")], [TIDES, BERTH])
    assert calls(answered) == [("tide_table", {"port": "Brest", "day": "2026-04-05"})]


def test_words_of_another_tool_leave_the_fitting_one_to_the_model() -> None:
    assert isinstance(answer([user("any berths at Brest on Sunday?")], [TIDES, BERTH]), Forward)


LESSONS = [
    tool(
        "cancel_lesson",
        "Cancel a lesson by its reference.",
        {"lesson_ref": {"type": "string"}},
        ["lesson_ref"],
    ),
    tool("lesson_list", "Lessons on a day.", {"day": {"type": "string", "format": "date"}}, []),
]


@pytest.mark.parametrize(
    ("said", "made"),
    [
        ("Please cancel LS-4410", True),
        ("cancel lesson LS-4410 for me", True),
        # A negation anywhere holds the act back, a reason given with it too.
        ("cancel lesson LS-4410, I can't make it after all", False),
        ("I don't want to cancel LS-4410", False),
        ("do not cancel LS-4410 yet", False),
        ("No. LS-4410 stays", False),
        ("Cancel LS-4410. Actually, no.", False),
        ("cancel LS-4410, or maybe not", False),
        ("I never asked you to cancel LS-4410", False),
    ],
)
def test_cancel_is_the_act_of_a_tool_that_cancels_and_a_negation_holds_it(
    said: str, made: bool
) -> None:
    answered = answer([user(said)], LESSONS)
    expected = [("cancel_lesson", {"lesson_ref": "LS-4410"})] if made else []
    assert (calls(answered) if isinstance(answered, LocalAnswer) else []) == expected


SPA = [
    tool(
        "treatment_list",
        "Returns the spa treatment list.",
        {"category": {"type": "string", "enum": ["massage", "facial", "sauna"]}},
        [],
    ),
    tool(
        "spa_booking",
        "Book a treatment.",
        {
            "cabin": {"type": "string", "description": "Cabin number"},
            "treatment": {"type": "string", "enum": ["hot_stone", "deep_tissue", "facial"]},
        },
        ["cabin", "treatment"],
    ),
]


def test_a_value_another_tool_reads_puts_the_router_s_choice_in_doubt() -> None:
    """Routed to the list by its words, the message gives the booking a treatment."""
    answered = answer([user("cabin 7 here, is a hot stone on the treatment list")], SPA)
    assert isinstance(answered, Forward)
    assert answered.decision is not None
    assert answered.decision.reason == "another_tools_values"


def test_the_routed_tool_that_takes_every_value_is_called() -> None:
    assert calls(answer([user("the treatment list, massage ones")], SPA)) == [
        ("treatment_list", {"category": "massage"})
    ]


@pytest.mark.parametrize(
    ("said", "day"),
    [
        # Back from next Wednesday: the Thursday after it, or tomorrow? The model's.
        ("what about thursday instead", None),
        # Said with its date, it is read as said.
        ("what about april 9 instead", "2026-04-09"),
        # On from it, the reading is one.
        ("or friday? no wait, how about saturday", None),
    ],
)
def test_a_weekday_alone_that_moves_a_date_back_is_the_model_s(said: str, day: str | None) -> None:
    messages = [
        user("Is it going to rain in Ghent next Wednesday?"),
        *call("outlook", {"locale": "Ghent", "day": "2026-04-08"}, "c1", {"ok": True}),
        assistant("Showers on Wednesday the 8th in Ghent."),
        user(said),
    ]
    answered = answer(messages, SKIES)
    expected = [("outlook", {"locale": "Ghent", "day": day})] if day else []
    assert (calls(answered) if isinstance(answered, LocalAnswer) else []) == expected


CROSSINGS = [
    tool(
        "passage",
        "Reserve places on a sailing.",
        {"sailing_id": {"type": "string"}, "passengers": {"type": "integer", "minimum": 1}},
        ["sailing_id", "passengers"],
    ),
    tool(
        "sailings",
        "Timetable of sailings on a day.",
        {"day": {"type": "string", "format": "date"}},
        ["day"],
    ),
]


@pytest.mark.parametrize(
    "said",
    [
        "How much is sailing DV-0930 for 2 passengers?",
        "Is DV-0930 OK for 2 passengers?",
    ],
)
def test_a_tool_that_acts_is_asked_for_outright_whatever_its_name(said: str) -> None:
    """``passage`` acts by its description: a question about it asks for nothing."""
    assert isinstance(answer([user(said)], CROSSINGS), Forward)


def test_a_weekday_beside_a_clock_time_still_moves_the_date_back() -> None:
    messages = [
        user("Is it going to rain in Ghent next Wednesday?"),
        *call("outlook", {"locale": "Ghent", "day": "2026-04-08"}, "c1", {"ok": True}),
        assistant("Showers on Wednesday the 8th in Ghent."),
        user("what about thursday, around 3pm?"),
    ]
    assert isinstance(answer(messages, SKIES), Forward)


@pytest.mark.parametrize(
    "said",
    [
        "Remind me to wire $25 to Tomas on Friday",
        "I wired $25 to Tomas by mistake",
        "Have I wired $25 to Tomas this month?",
        "wire $25 to Tomas, the amount I said is wrong",
    ],
)
def test_an_act_put_off_said_done_or_doubted_is_not_made(said: str) -> None:
    assert isinstance(answer([user(said)], [WIRE, BALANCE]), Forward)


def test_remind_me_asks_a_reminder_tool_for_its_own_act() -> None:
    assert asks_to_act("remind me to ring Oma at 18:45", "set", acting=True)
    assert not asks_to_act("Remind me to wire $25 to Tomas on Friday", "wire", acting=True)


SCREENINGS = tool(
    "Cinema__FindFilms",
    "A guide to films, their showtimes and screens: find films by town or screen",
    {
        "town": {"type": "string", "description": "Town of the cinema"},
        "screen": {"type": "string", "enum": ["imax", "3d", "standard"]},
    },
    ["town"],
)
SHOWTIMES = tool(
    "Cinema__GetTimesForFilm",
    "A guide to films, their showtimes and screens: get the times of a film on a day",
    {
        "film": {"type": "string", "description": "Title of the film"},
        "town": {"type": "string", "description": "Town of the cinema"},
        "day": {"type": "string", "format": "date", "description": "The day"},
        "screen": {"type": "string", "enum": ["imax", "3d", "standard"]},
    },
    ["film", "town", "day"],
)


def test_of_two_look_ups_the_words_speak_of_the_one_that_takes_every_value_is_called() -> None:
    """Both are a film's; only the search takes the town and the screen said."""
    said = "Any film in Harrogate with an imax screen?"
    answered = answer([user(said)], [SCREENINGS, SHOWTIMES])
    assert calls(answered) == [("Cinema__FindFilms", {"town": "Harrogate", "screen": "imax"})]
    # One value alone still tells no tool.
    assert isinstance(answer([user("A film in Harrogate?")], [SCREENINGS, SHOWTIMES]), Forward)
