"""The call the whole conversation asks for: a confirmed summary, values said turns ago, a
refinement of the last call, and every case where the model must answer instead.

The tools and the phrasings are this file's own: none is SGD's.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent_lab.answering import Answerer, Asked, Forward, LocalAnswer
from agent_lab.answering.conversation import Conversation
from agent_lab.answering.utterances import accepts, assents, confirms, item_offered, offers
from agent_lab.kernel.ledger import ValueSource
from tests.answering.messages import assistant, call, tool, user

NOW = "2026-04-01T09:00:00"


CITY = {"type": "string", "description": "The city"}
DAY = {"type": "string", "format": "date", "description": "The day"}
SEARCH = tool(
    "search_trains",
    "Search train connections between two cities on a day.",
    {
        "origin": {"type": "string", "description": "The city the train departs from"},
        "destination": {"type": "string", "description": "The city the train arrives in"},
        "day": DAY,
    },
    ["origin", "destination", "day"],
)
BOOK = tool(
    "book_train",
    "Book seats on a train connection.",
    {
        "origin": {"type": "string", "description": "The city the train departs from"},
        "destination": {"type": "string", "description": "The city the train arrives in"},
        "day": DAY,
        "seats": {"type": "integer", "minimum": 1, "description": "Seats to book"},
        "train": {"type": "string", "description": "The train's name"},
    },
    ["origin", "destination", "day", "seats", "train"],
)
WEATHER = tool(
    "get_forecast",
    "Get the weather forecast for a city.",
    {"city": CITY, "day": DAY},
    ["city"],
)
TOOLS = [SEARCH, BOOK, WEATHER]


def answer(messages: list[dict[str, Any]], tools: list[Any] = TOOLS) -> LocalAnswer | Forward:
    return Answerer(ask=False).answer(Asked(messages=messages, tools=tools), now=NOW)


def calls(messages: list[dict[str, Any]], tools: list[Any] = TOOLS) -> list[tuple[str, Any]]:
    got = answer(messages, tools)
    return [(c.name, c.arguments) for c in got.calls] if isinstance(got, LocalAnswer) else []


SEARCHED = [
    user("Can you find me a train out of Leeds tomorrow?"),
    assistant("Sure. Where are you headed?"),
    user("To Bristol please."),
    *call(
        "search_trains",
        {"origin": "Leeds", "destination": "Bristol", "day": "2026-04-02"},
        "c1",
        [
            {"train": "Northern Star", "departs": "08:10"},
            {"train": "Western Arrow", "departs": "11:45"},
        ],
    ),
    assistant("I found two: the Northern Star at 8:10 am and the Western Arrow at 11:45 am."),
    user("The Western Arrow suits me, can you book it?"),
    assistant("How many seats?"),
    user("Three."),
]
SUMMARY = assistant(
    "Please confirm: 3 seats on the Western Arrow from Leeds to Bristol on April 2nd. Correct?"
)


def test_values_said_over_several_turns_make_one_search() -> None:
    messages = SEARCHED[:3]
    assert calls(messages) == [
        ("search_trains", {"origin": "Leeds", "destination": "Bristol", "day": "2026-04-02"})
    ]


BOOKED = (
    "book_train",
    {
        "origin": "Leeds",
        "destination": "Bristol",
        "day": "2026-04-02",
        "seats": 3,
        "train": "Western Arrow",
    },
)


def test_an_accepted_summary_books_with_the_confirmed_values() -> None:
    messages = [*SEARCHED, SUMMARY, user("Yes, go ahead.")]
    assert calls(messages) == [BOOKED]


@pytest.mark.parametrize(
    "reply",
    [
        "No, make it two seats.",
        "Actually the Northern Star instead",
        "Hmm, not sure yet",
        "Wait, what does it cost?",
    ],
)
def test_a_summary_corrected_or_doubted_is_not_booked(reply: str) -> None:
    assert calls([*SEARCHED, SUMMARY, user(reply)]) == []


def test_a_booking_is_never_made_without_an_accepted_summary() -> None:
    # Every value is in the conversation, but the user accepted no summary of them.
    assert calls(SEARCHED) == []
    vague = assistant("Shall I book it for you?")
    assert calls([*SEARCHED, vague, user("Yes please")]) == []


def test_an_offer_that_says_what_it_would_book_is_a_summary_when_assented_to() -> None:
    """ "Shall I book 3 seats on the Western Arrow?" "Yes please": the offer states the call."""
    offer = assistant("Shall I book 3 seats on the Western Arrow?")
    assert calls([*SEARCHED, offer, user("Yes please")]) == [BOOKED]
    # A value added to the yes is confirmed again: the model's.
    assert calls([*SEARCHED, offer, user("Yes, for 4 seats.")]) == []
    # A question that asks which is no offer a yes accepts.
    which = assistant("Which of the two, the Western Arrow with 3 seats?")
    assert calls([*SEARCHED, which, user("Yes.")]) == []


@pytest.mark.parametrize(
    "stated",
    [
        "So you'd like me to book 3 seats on the Western Arrow from Leeds to Bristol on April 2nd.",
        "Just to be sure: 3 seats on the Western Arrow, Leeds to Bristol, April 2nd.",
        "Here's what I have: 3 seats on the Western Arrow from Leeds to Bristol on April 2nd.",
        "Okay, you want to book 3 seats on the Western Arrow from Leeds to Bristol, April 2nd.",
    ],
)
@pytest.mark.parametrize(
    "reply", ["I do.", "That would be great.", "You got it", "That's what I want.", "I confirm."]
)
def test_a_summary_stated_rather_than_asked_is_confirmed_by_an_assent(
    stated: str, reply: str
) -> None:
    assert calls([*SEARCHED, assistant(stated), user(reply)]) == [BOOKED]


@pytest.mark.parametrize(
    "asked",
    [
        "Do you want to book 3 seats on the Western Arrow?",
        "Can you tell me the day you want me to book 3 seats on the Western Arrow for?",
    ],
)
def test_wanting_asked_about_is_no_summary_stated(asked: str) -> None:
    # "Do you want to...?" offers; "the day you want me to book" asks for a value.
    assert confirms(asked) is False


def test_a_summary_that_barely_leans_to_another_tool_confirms_the_one_it_completes() -> None:
    """ "booking 2 tickets": "booking" is a reservation's word, "tickets" the show's.

    The words lean to the table by less than the router's margin: no lean, and the one
    tool the summary completes is booked.
    """
    seats = tool(
        "buy_tickets",
        "Buy seats for a show or a play.",
        {
            "show": {"type": "string", "description": "Name of the show"},
            "day": {"type": "string", "format": "date", "description": "Day of the show"},
            "tickets": {"type": "integer", "minimum": 1, "description": "Number of tickets"},
        },
        ["show", "day", "tickets"],
    )
    table = tool(
        "reserve_table",
        "Reserve a table at a restaurant.",
        {
            "restaurant": {"type": "string", "description": "Name of the restaurant"},
            "day": {"type": "string", "format": "date", "description": "Day of the reservation"},
            "people": {"type": "integer", "minimum": 1, "description": "Number of people"},
        },
        ["restaurant", "day", "people"],
    )
    messages = [
        user("I'd like tickets for Hamlet please."),
        assistant("For which day, and how many?"),
        user("Two, on May 3rd."),
        assistant("Please confirm: booking 2 tickets for Hamlet on May 3rd."),
        user("Yes, that's right."),
    ]
    assert calls(messages, [seats, table]) == [
        ("buy_tickets", {"show": "Hamlet", "day": "2026-05-03", "tickets": 2})
    ]
    # A clear lean still leaves it to the model.
    dinner = assistant("Please confirm the reservation for 2 people: Hamlet on May 3rd.")
    assert calls([*messages[:3], dinner, user("Yes, that's right.")], [seats, table]) == []


FORECAST = [
    user("What's the forecast for Porto on Friday?"),
    *call("get_forecast", {"city": "Porto", "day": "2026-04-03"}, "w1", {"high": 19}),
    assistant("Porto will reach 19 degrees on Friday."),
]


def test_a_refinement_of_the_last_call_changes_one_value_and_keeps_the_rest() -> None:
    assert calls([*FORECAST, user("And on Saturday?")]) == [
        ("get_forecast", {"city": "Porto", "day": "2026-04-04"})
    ]


def test_a_value_read_since_the_last_call_is_not_overruled_by_the_calls() -> None:
    """ "And in Lisbon?" read as the city changes Porto, even if the call is then refined."""
    messages = [
        *FORECAST,
        user("And in Lisbon?"),
        assistant("For Friday or for Saturday?"),
        user("Saturday"),
    ]
    assert ("get_forecast", {"city": "Porto", "day": "2026-04-04"}) not in calls(messages)


@pytest.mark.parametrize(
    "said",
    [
        "Thanks, that's all for today.",
        "No, nothing else.",
        "Is that in Celsius?",
        "Does it rain?",
        "Great",
    ],
)
def test_words_that_ask_for_no_call_are_the_models(said: str) -> None:
    assert calls([*FORECAST, user(said)]) == []


def test_asking_the_same_call_again_is_the_models() -> None:
    assert calls([*FORECAST, user("What about Friday?")]) == []


def test_a_found_item_is_not_searched_for_again() -> None:
    found = [
        *SEARCHED[:3],
        *call(
            "search_trains",
            {"origin": "Leeds", "destination": "Bristol", "day": "2026-04-02"},
            "c1",
            [{"train": "Western Arrow", "origin": "Leeds", "destination": "Bristol"}],
        ),
        assistant("How about the Western Arrow from Leeds?"),
        user("Sounds good."),
    ]
    assert calls(found) == []


def test_a_message_leaning_to_another_task_is_not_a_refinement() -> None:
    assert calls([*FORECAST, user("I also need a train to Lisbon")]) == []


def test_the_conversation_is_read_for_every_caller_through_the_answerer() -> None:
    got = answer([*SEARCHED, SUMMARY, user("Yes, that's right.")])
    assert isinstance(got, LocalAnswer)
    assert got.decision is not None
    assert got.decision.local


# The parts of a conversation -------------------------------------------------------------


def test_the_conversation_keeps_calls_results_and_the_words_since() -> None:
    conversation = Conversation.of([*SEARCHED, SUMMARY, user("Yes")])
    last = conversation.last_call
    assert last is not None
    assert last.name == "search_trains"
    assert [r["train"] for r in last.records] == ["Northern Star", "Western Arrow"]
    assert conversation.offer == SUMMARY["content"]
    assert conversation.since_call[-1] == "Yes"
    assert conversation.asked[-1] == SUMMARY["content"]
    assert "Western Arrow" in conversation.values_of("train")


@pytest.mark.parametrize(
    ("text", "pure", "accepting"),
    [
        ("Yes, that's right.", True, True),
        ("Sounds good", True, True),
        ("yep", True, True),
        ("Yes, and what time does it leave?", False, True),
        ("Yes but only two seats", False, False),
        ("No", False, False),
        ("Not yet", False, False),
        ("Correct, though I don't need a return", False, False),
        ("Leeds", False, False),
        ("I do.", False, True),
        ("That would be great, thanks.", False, True),
        ("That all sounds correct, no problems there.", False, True),
        ("Do they take cards?", False, False),
        ("That would be a problem", False, False),
    ],
)
def test_assent_is_told_from_a_correction(text: str, pure: bool, accepting: bool) -> None:
    assert assents(text) is pure
    assert accepts(text) is accepting


def test_a_huge_or_deep_result_is_left_unread_never_a_crash() -> None:
    huge = "x" * 2_000_000
    deep = "[" * 5_000 + "]" * 5_000
    for content in (json.dumps([{"train": huge}]), deep, "{not json", "\ud800"):
        messages = [
            *SEARCHED[:3],
            *call("search_trains", {"origin": "Leeds"}, "c1", None),
        ]
        messages[-1] = {"role": "tool", "tool_call_id": "c1", "content": content}
        conversation = Conversation.of([*messages, user("Yes")])
        assert conversation.calls[-1].records == ()
        answer([*messages, assistant("Shall I book?"), user("yes")])


def test_a_long_conversation_reads_only_its_recent_calls() -> None:
    many: list[dict[str, Any]] = []
    for index in range(200):
        many += [user(f"forecast for Porto day {index}")]
        many += call("get_forecast", {"city": "Porto"}, f"w{index}", {"high": index})
        many += [assistant("ok")]
    conversation = Conversation.of([*many, user("and Lisbon?")])
    assert len(conversation.calls) <= 16


# What later words take back, and what they do not ------------------------------------------

VAN = tool(
    "search_vans",
    "Find vans to rent in a town between two days.",
    {
        "town": {"type": "string", "description": "Town where the van is collected"},
        "start_day": {"type": "string", "format": "date", "description": "First day of rental"},
        "end_day": {"type": "string", "format": "date", "description": "Last day of rental"},
        "drivers": {"type": "integer", "description": "Number of drivers"},
    },
    ["town", "start_day", "end_day"],
)
VANS = [VAN, WEATHER]


def test_a_value_said_before_is_dropped_when_a_later_message_restates_it_unread() -> None:
    # "Brussels, BE" is a name in doubt: the town said first may have been changed.
    messages = [
        user("I need to rent a van."),
        assistant("Where would you collect it?"),
        user("In Leuven."),
        assistant("Which days?"),
        user("Actually make it Brussels, BE, from the 3rd to the 5th."),
    ]
    assert calls(messages, VANS) == []
    messages[-1] = user("From the 3rd to the 5th.")
    assert calls(messages, VANS) == [
        ("search_vans", {"town": "Leuven", "start_day": "2026-04-03", "end_day": "2026-04-05"})
    ]


def test_a_count_said_before_survives_a_later_clock_time_or_day() -> None:
    messages = [
        user("I need to rent a van for 2 drivers."),
        assistant("Where would you collect it?"),
        user("In Leuven, from April 3rd to the 5th."),
    ]
    assert calls(messages, VANS) == [
        (
            "search_vans",
            {"town": "Leuven", "start_day": "2026-04-03", "end_day": "2026-04-05", "drivers": 2},
        )
    ]


def test_a_question_about_what_was_found_sets_no_value_for_the_next_search() -> None:
    flat = tool(
        "search_flats",
        "Search flats to rent in a district.",
        {
            "district": {"type": "string", "description": "District of the flat"},
            "garage": {"type": "boolean", "description": "Whether the flat has a garage"},
        },
        ["district"],
    )
    messages = [
        user("Look for flats in Ixelles."),
        *call("search_flats", {"district": "Ixelles"}, "f1", [{"name": "Rue Haute 4"}]),
        assistant("Rue Haute 4 is available."),
        user("Find out whether it has a garage."),
        assistant("It has no garage."),
        user("Then look for flats in Etterbeek please."),
    ]
    assert calls(messages, [flat, WEATHER]) == [("search_flats", {"district": "Etterbeek"})]


def test_an_assent_to_a_statement_that_repeats_what_was_said_is_no_new_call() -> None:
    messages = [
        user("Please look for a van in Leuven from the 3rd to the 5th."),
        assistant("Looking for a van in Leuven from April 3rd to April 5th."),
        user("great"),
    ]
    assert calls(messages, VANS) == []


def test_a_name_another_parameter_took_does_not_take_back_a_town_said_before() -> None:
    clinic = tool(
        "find_clinic",
        "Find a clinic in a town.",
        {
            "town": {"type": "string", "description": "Town of the clinic"},
            "speciality": {
                "type": "string",
                "enum": ["GP", "ENT Surgeon", "Dermatology"],
                "description": "Medical speciality",
            },
        },
        ["town", "speciality"],
    )
    messages = [
        user("I need a clinic in Aalst."),
        assistant("Which speciality?"),
        user("An ENT Surgeon please."),
    ]
    assert calls(messages, [clinic, WEATHER]) == [
        ("find_clinic", {"town": "Aalst", "speciality": "ENT Surgeon"})
    ]


TABLE = tool(
    "reserve_table",
    "Reserve a table at a restaurant.",
    {
        "restaurant": {"type": "string", "description": "Name of the restaurant"},
        "town": {"type": "string", "description": "Town the restaurant is in"},
        "guests": {"type": "integer", "description": "Number of guests"},
        "day": DAY,
    },
    ["restaurant", "town", "guests", "day"],
)


def test_names_said_before_and_repeated_by_the_accepted_summary_are_confirmed() -> None:
    said = [
        user("I'd like to eat at the restaurant Vini Vidi in Namur."),
        assistant("For how many, and which day?"),
        user("Three of us, on April 9th."),
    ]
    summary = "Please confirm: a table for 3 at Vini Vidi in Namur on April 9th."
    assert calls([*said, assistant(summary), user("Yes, that's right.")], [TABLE, WEATHER]) == [
        (
            "reserve_table",
            {"restaurant": "Vini Vidi", "town": "Namur", "guests": 3, "day": "2026-04-09"},
        )
    ]
    # A summary naming another place than was said, unasked: the model's to sort out.
    other = "Please confirm: a table for 3 at Vini Vidi in Dinant on April 9th."
    assert calls([*said, assistant(other), user("Yes, that's right.")], [TABLE, WEATHER]) == []


COACH = tool(
    "buy_coach_tickets",
    "Buy tickets for a coach between two cities.",
    {
        "origin": {"type": "string", "description": "City the coach leaves from"},
        "destination": {"type": "string", "description": "City the coach goes to"},
        "day": DAY,
        "travellers": {"type": "integer", "description": "Number of travellers"},
    },
    ["origin", "destination", "day", "travellers"],
)
MUSEUMS = tool(
    "find_museums",
    "Find museums to visit in a city.",
    {"city": {"type": "string", "description": "City to visit"}},
    ["city"],
)


def test_an_accepted_summary_gives_the_names_its_cues_place() -> None:
    messages = [
        user("I need coach tickets."),
        assistant("Please confirm: 2 tickets from Lille to Rouen on April 8th. Is that right?"),
        user("Yes, that's right. When does it arrive?"),
    ]
    assert calls(messages, [COACH, MUSEUMS]) == [
        (
            "buy_coach_tickets",
            {"origin": "Lille", "destination": "Rouen", "day": "2026-04-08", "travellers": 2},
        )
    ]


def test_an_accepted_offer_is_not_made_a_call_of_a_tool_it_does_not_speak_of() -> None:
    # The offer completes the museum search (a city), but it speaks of coach tickets.
    messages = [
        user("Hello there."),
        assistant("Shall I look for coach tickets in Rouen?"),
        user("Yes please."),
    ]
    assert calls(messages, [COACH, MUSEUMS]) == []


def test_a_question_after_an_assent_does_not_route_the_call_elsewhere() -> None:
    offer = "So that's 2 tickets from Lille to Rouen on April 8th, okay?"
    messages = [
        user("I need coach tickets."),
        assistant(offer),
        user("Yes, good. Which museums are there in Rouen?"),
    ]
    assert calls(messages, [COACH, MUSEUMS]) == [
        (
            "buy_coach_tickets",
            {"origin": "Lille", "destination": "Rouen", "day": "2026-04-08", "travellers": 2},
        )
    ]


def test_each_value_says_where_the_conversation_gave_it() -> None:
    """The ledger records per argument its source; the summary, a search, a found name."""
    search = tool(
        "find_restaurants",
        "Find restaurants in a town.",
        {"town": {"type": "string", "description": "Town the restaurant is in"}},
        ["town"],
    )
    messages = [
        user("Find me a restaurant in Ghent."),
        *call("find_restaurants", {"town": "Ghent"}, "r1", [{"restaurant": "Het Pakhuis"}]),
        assistant("Het Pakhuis is a good one."),
        user("Book it for April 9th please."),
        assistant("Please confirm: a table for 4 at Het Pakhuis on April 9th. Correct?"),
        user("Yes, correct."),
    ]
    got = answer(messages, [search, TABLE])
    assert isinstance(got, LocalAnswer)
    assert got.decision is not None
    assert got.calls[0].arguments == {
        "restaurant": "Het Pakhuis",
        "town": "Ghent",
        "guests": 4,
        "day": "2026-04-09",
    }
    assert got.decision.sources == {
        "restaurant": ValueSource.NAMED_RESULT,
        "town": ValueSource.EARLIER_CALL,
        "guests": ValueSource.SUMMARY,
        "day": ValueSource.SUMMARY,
    }
    assert got.decision.ledger.as_json()["sources"] == {
        "/restaurant": "named_result",
        "/town": "earlier_call",
        "/guests": "summary",
        "/day": "summary",
    }
    # A call from the last message alone: every value is the message's.
    alone = answer([user("Find me a restaurant in Namur.")], [search, TABLE])
    assert isinstance(alone, LocalAnswer)
    assert alone.decision is not None
    assert alone.decision.sources == {"town": ValueSource.MESSAGE}


def test_an_assent_to_an_offer_of_another_tool_is_not_a_call_of_the_task_before() -> None:
    taxi = tool(
        "order_taxi",
        "Order a taxi to a destination.",
        {"destination": {"type": "string", "description": "Where the taxi goes"}},
        ["destination"],
    )
    search = tool(
        "find_restaurants",
        "Find restaurants in a town.",
        {"town": {"type": "string", "description": "Town the restaurant is in"}},
        ["town"],
    )
    messages = [
        user("Find me restaurants in Ghent."),
        assistant("Before I search, shall I order you a taxi to Ghent?"),
        user("Yes please."),
    ]
    assert calls(messages, [search, taxi]) == []


GIG = tool(
    "buy_gig_tickets",
    "Buy tickets for a gig.",
    {
        "gig": {"type": "string", "description": "Name of the gig"},
        "town": {"type": "string", "description": "Town of the gig"},
        "tickets": {"type": "integer", "description": "Number of tickets"},
    },
    ["gig", "town", "tickets"],
)


def test_the_summarys_one_name_left_fills_the_one_name_the_call_still_needs() -> None:
    messages = [
        user("Can you buy gig tickets for me? The gig is in Utrecht."),
        assistant("Which gig, and how many tickets?"),
        user("Two for Golden Earring please."),
        assistant("Please confirm: 2 tickets for Golden Earring in Utrecht."),
        user("Yes, that's right."),
    ]
    assert calls(messages, [GIG, WEATHER]) == [
        ("buy_gig_tickets", {"gig": "Golden Earring", "town": "Utrecht", "tickets": 2})
    ]
    # Two names left for one parameter: which is the gig's? The model's.
    two = "Please confirm: 2 tickets for Golden Earring with Doe Maar in Utrecht."
    assert calls([*messages[:3], assistant(two), user("Yes, that's right.")], [GIG, WEATHER]) == []


def test_a_name_left_that_an_earlier_result_held_as_something_else_is_not_taken() -> None:
    search = tool(
        "find_bars",
        "Find bars in a town.",
        {"town": {"type": "string", "description": "Town of the bar"}},
        ["town"],
    )
    messages = [
        user("Find bars in Utrecht."),
        *call("find_bars", {"town": "Utrecht"}, "b1", [{"bar": "Ekko", "town": "Utrecht"}]),
        assistant("Ekko has a gig tonight."),
        user("I'd like two tickets for that gig."),
        assistant("Please confirm: 2 tickets for the gig at Ekko in Utrecht."),
        user("Yes, that's right."),
    ]
    assert calls(messages, [search, GIG]) == []


def test_the_capitals_of_a_question_accepted_are_its_words_not_values() -> None:
    messages = [
        user("What will the forecast be on April 8th?"),
        assistant("Sure. Is there a particular City you have in mind?"),
        user("Yes, in PORTO."),  # a shouted name may be written otherwise: in doubt
    ]
    assert calls(messages) == []


def test_a_report_of_a_call_made_asks_nothing_an_assent_could_answer() -> None:
    messages = [
        *SEARCHED,
        assistant(
            "Your 3 seats on the Western Arrow from Leeds to Bristol on April 2nd are confirmed."
        ),
        user("Great, thanks."),
    ]
    assert calls(messages) == []


@pytest.mark.parametrize(
    "said",
    ["Is it raining there on Saturday.", "Does it rain on Saturday", "Is there sun Saturday"],
)
def test_a_question_typed_without_its_mark_is_still_a_question(said: str) -> None:
    assert calls([*FORECAST, user(said)]) == []


def test_a_lone_tool_spoken_of_turns_ago_is_the_task_in_view() -> None:
    """One tool offered, asked for as people speak; its value given in the reply to a question."""
    forecast = [user("Could I have the forecast for tomorrow?"), assistant("Where?")]
    assert calls([*forecast, user("In Harrogate.")], [WEATHER]) == [
        ("get_forecast", {"city": "Harrogate", "day": "2026-04-02"})
    ]


SONGS = tool(
    "find_songs",
    "Find songs to listen to.",
    {
        "artist": {"type": "string", "description": "Who performs them"},
        "genre": {"type": "string", "description": "The kind of music"},
    },
    [],
)


def test_a_name_read_as_one_value_keeps_the_others_of_the_last_search() -> None:
    """ "Anything by Nina Simone?" changes the artist; the genre searched stays."""
    searched = [
        user("Find me some jazz songs, please. Something by Chet Baker, in the Jazz genre."),
        *call("find_songs", {"artist": "Chet Baker", "genre": "Jazz"}, "c1", [{"song": "Alone"}]),
        assistant("How about Alone by Chet Baker?"),
    ]
    assert calls([*searched, user("What about something by Nina Simone?")], [SONGS]) == [
        ("find_songs", {"artist": "Nina Simone", "genre": "Jazz"})
    ]
    # A name nothing reads may be the genre's: the model's.
    assert (
        calls([*searched, user("What about something by Nina Simone, or Bossa Nova?")], [SONGS])
        == []
    )


@pytest.mark.parametrize(
    ("offer", "yes_no", "item"),
    [
        ("Shall I book 3 seats on the Western Arrow?", True, False),
        ("Would you like to buy 2 tickets for Hamlet on May 3rd?", True, False),
        ("I found two. Do you like the Western Arrow?", True, True),
        ("How about the Northern Star at 8:10 am?", False, True),
        ("Which day would suit you?", False, False),
        ("I booked it.", False, False),
    ],
)
def test_an_offer_a_yes_accepts_is_told_from_an_item_offered(
    offer: str, yes_no: bool, item: bool
) -> None:
    assert (offers(offer), item_offered(offer)) == (yes_no, item)


FILMS = tool(
    "find_films",
    "Find films showing in a town.",
    {
        "town": {"type": "string", "description": "Town of the cinema"},
        "genre": {"type": "string", "description": "Genre of the film"},
    },
    ["town"],
)


def test_a_name_the_call_holds_is_no_sign_of_another_value() -> None:
    """ "Search films in Leiden": Leiden is the town, and says nothing of a genre."""
    asked = [user("I'd like to see a film tonight."), assistant("In which town?")]
    assert calls([*asked, user("Search films in Leiden.")], [FILMS]) == [
        ("find_films", {"town": "Leiden"})
    ]
    # A name no value holds may be the genre's: the model's.
    assert calls([*asked, user("Search for a Western in Leiden.")], [FILMS]) == []


SEARCH_SONGS = tool(
    "search_songs",
    "Search songs.",
    {
        "artist": {"type": "string", "description": "Who sings it"},
        "genre": {"type": "string", "description": "Genre of the song"},
    },
    [],
)
PLAY = tool(
    "play_song",
    "Play a song on a device.",
    {
        "song": {"type": "string", "description": "Name of the song"},
        "artist": {"type": "string", "description": "Who sings it"},
        "device": {"type": "string", "enum": ["TV", "kitchen speaker"]},
    },
    ["song", "device"],
)
FOUND = [
    {"song": "Bad Habit", "artist": "Ben Platt", "genre": "Pop"},
    {"song": "Grow as We Go", "artist": "Ben Platt", "genre": "Pop"},
]


def played(search: dict[str, Any]) -> list[tuple[str, Any]]:
    return calls(
        [
            user("Find me some songs."),
            *call("search_songs", search, "s1", FOUND),
            assistant("How about Bad Habit by Ben Platt?"),
            user("Yes, play it on the kitchen speaker."),
            assistant("Playing Bad Habit on the kitchen speaker, right?"),
            user("Yes."),
        ],
        [SEARCH_SONGS, PLAY],
    )


def test_what_the_user_asked_of_the_item_picked_goes_with_it() -> None:
    """The search asked for Ben Platt; the song picked is his: the call names him too."""
    assert played({"artist": "Ben Platt"}) == [
        ("play_song", {"song": "Bad Habit", "device": "kitchen speaker", "artist": "Ben Platt"})
    ]
    # What the assistant found and told is not what the user asked for.
    assert played({"genre": "Pop"}) == [
        ("play_song", {"song": "Bad Habit", "device": "kitchen speaker"})
    ]


def test_a_summary_with_a_tag_question_is_read_as_stated() -> None:
    """ "Playing Bad Habit on the TV, right?" states the device: no sign of another artist."""
    messages = [
        user("Find me some songs by Ben Platt."),
        *call("search_songs", {"artist": "Ben Platt"}, "s1", FOUND),
        assistant("How about Bad Habit by Ben Platt?"),
        user("Yes, play it on the TV."),
        assistant("Playing Bad Habit on the TV, right?"),
        user("Yes."),
    ]
    assert calls(messages, [SEARCH_SONGS, PLAY]) == [
        ("play_song", {"song": "Bad Habit", "device": "TV", "artist": "Ben Platt"})
    ]


HOTELS = tool(
    "find_hotels",
    "Find hotels in a town.",
    {"town": {"type": "string", "description": "Town of the hotel"}},
    ["town"],
)


def test_a_place_a_trip_goes_to_is_where_the_next_search_is() -> None:
    """A train to Bristol, then "a hotel there too": the hotel is in Bristol."""
    trip = [
        user("Find me a train from Leeds to Bristol tomorrow."),
        *call(
            "search_trains",
            {"origin": "Leeds", "destination": "Bristol", "day": "2026-04-02"},
            "t1",
            [{"train": "Western Arrow", "departs": "11:45"}],
        ),
        assistant("The Western Arrow leaves at 11:45 am."),
    ]
    hotel = user("Great. Can you find me hotels there too?")
    assert calls([*trip, hotel], [SEARCH, HOTELS]) == [("find_hotels", {"town": "Bristol"})]
    # A forecast's city is where the user asked about, not where they go: only words that
    # point back at it ("there") make it the hotel's.
    assert calls([*FORECAST, user("Great. Can you find me hotels too?")], [WEATHER, HOTELS]) == []
    assert calls([*FORECAST, hotel], [WEATHER, HOTELS]) == [("find_hotels", {"town": "Porto"})]
    # Words that name two tasks ask for neither on their own.
    both = user("Great. Any more trains or hotels there?")
    assert calls([*trip, both], [SEARCH, HOTELS]) == []


BUS_PLACES = {
    "origin": {"type": "string", "description": "The city the bus leaves from"},
    "destination": {"type": "string", "description": "The city the bus goes to"},
    "day": DAY,
    "fare": {"type": "string", "enum": ["economy", "flexible"], "description": "Fare"},
}
BUSES = tool("search_buses", "Search buses.", BUS_PLACES, ["origin", "destination", "day"])
BUY_BUS = tool(
    "buy_bus_tickets",
    "Buy bus tickets.",
    {**BUS_PLACES, "seats": {"type": "integer", "minimum": 1, "description": "Seats"}},
    ["origin", "destination", "day", "seats"],
)


def test_the_action_on_what_a_search_found_keeps_what_the_search_asked_for() -> None:
    """An economy fare searched for is the fare bought, though the summary leaves it out."""
    searched = {"origin": "Leeds", "destination": "York", "day": "2026-04-02", "fare": "economy"}
    messages = [
        user("Find me an economy bus from Leeds to York on April 2nd."),
        *call(
            "search_buses",
            searched,
            "b1",
            [{"departs": "09:00", **searched}, {"departs": "11:30", **searched}],
        ),
        assistant("There is one at 9 am. Shall I buy tickets?"),
        user("Yes, 2 please."),
        assistant("Please confirm: 2 tickets from Leeds to York on April 2nd."),
        user("Yes."),
    ]
    assert calls(messages, [BUSES, BUY_BUS]) == [("buy_bus_tickets", {**searched, "seats": 2})]


BIKES = [
    tool(
        "rent_bike",
        "rent bikes at a dock station",
        {
            "station": {"type": "string"},
            "bike_kind": {"type": "string", "enum": ["city", "ebike"]},
            "hours": {"type": "integer", "minimum": 1, "maximum": 12},
        },
        ["station", "bike_kind", "hours"],
    ),
    tool("stations_near", "dock stations near a place", {"place": {"type": "string"}}, ["place"]),
]


@pytest.mark.parametrize(
    ("said", "made"),
    [
        ("Rent an ebike at station Central Park for 3 hours.", True),
        ("Can you rent me an ebike at station Central Park for 3 hours?", True),
        ("How much would it cost to rent an ebike at station Central Park for 3 hours?", False),
        ("If I rent an ebike at station Central Park for 3 hours, is a helmet included?", False),
        ("Rent an ebike at station Central Park for 3 hours... actually, hold off.", False),
        ("Don't rent an ebike at station Central Park for 3 hours yet.", False),
        ("Any ebikes left at station Central Park for 3 hours?", False),
    ],
)
def test_an_act_is_made_from_one_message_only_when_it_asks_for_it(said: str, made: bool) -> None:
    """Every value of the rental said, in a question about it, a condition or a no: none."""
    rental = ("rent_bike", {"station": "Central Park", "bike_kind": "ebike", "hours": 3})
    assert calls([user(said)], BIKES) == ([rental] if made else [])


ORDERS = [
    tool(
        "track_order",
        "Where a parcel is.",
        {"order_number": {"type": "string", "description": "As printed on the receipt"}},
        ["order_number"],
    ),
    tool(
        "cancel_order",
        "Cancel an order.",
        {"order_number": {"type": "string"}},
        ["order_number"],
    ),
]


@pytest.mark.parametrize(
    ("said", "made"),
    [
        ("Where's my parcel? Order number QX-20417.", [("track_order", "QX-20417")]),
        ("track order 5531907 please", [("track_order", "5531907")]),
        # Held back, whatever the tool: no call.
        ("Don't track order QX-20417, it arrived.", []),
        # A year, a time or two codes are no order number.
        ("Track my order from 2025 please.", []),
        ("Track orders QX-20417 and QX-20418.", []),
    ],
)
def test_an_identifier_is_read_by_its_shape(said: str, made: list[tuple[str, str]]) -> None:
    expected = [(name, {"order_number": code}) for name, code in made]
    assert calls([user(said)], ORDERS) == expected


def test_the_same_search_again_or_less_of_it_is_a_question_for_words() -> None:
    """ "What about the other songs?" after a search is answered from what it found."""
    searched = [
        user("Find me songs by Ben Platt."),
        *call("search_songs", {"artist": "Ben Platt"}, "s1", FOUND),
        assistant("How about Bad Habit by Ben Platt?"),
    ]
    for said in ("What about the other songs?", "Any other songs?"):
        assert calls([*searched, user(said)], [SEARCH_SONGS, PLAY]) == []
    # A value changed is a new search.
    assert calls([*searched, user("Find songs by Adele instead.")], [SEARCH_SONGS, PLAY]) == [
        ("search_songs", {"artist": "Adele"})
    ]


def test_a_question_for_words_names_no_new_task() -> None:
    """ "Which hotel is the station near?" names hotels, and asks for words."""
    trip = [
        user("Find me a train from Leeds to Bristol tomorrow."),
        *call(
            "search_trains",
            {"origin": "Leeds", "destination": "Bristol", "day": "2026-04-02"},
            "t1",
            [{"train": "Western Arrow", "departs": "11:45"}],
        ),
        assistant("The Western Arrow leaves at 11:45 am."),
    ]
    assert calls([*trip, user("Which hotels are near the station?")], [SEARCH, HOTELS]) == []


def test_an_accepted_offer_of_another_task_refines_no_search() -> None:
    """ "Shall I book you a train there?" "Yes, on Saturday": no forecast for Saturday."""
    offer = assistant("Would you like me to book a train to Porto?")
    assert calls([*FORECAST, offer, user("Yes, on Saturday.")]) == []


def test_stopping_is_an_act_of_its_own_not_a_hold() -> None:
    timers = [tool("stop_timer", "Stop a running timer.", {"timer_id": {"type": "string"}}, [])]
    assert calls([user("Stop timer T-4410 please.")], timers) == [
        ("stop_timer", {"timer_id": "T-4410"})
    ]


CARS = tool(
    "hire_car",
    "Hire a car to collect in a town.",
    {
        "collect_at": {"type": "string", "description": "The depot or station to collect it at"},
        "collect_city": {"type": "string", "description": "The town to collect it in"},
    },
    ["collect_at", "collect_city"],
)


@pytest.mark.parametrize(
    ("said", "expected"),
    [
        (
            "Tell me the weather forecast there on Friday.",
            [("get_forecast", {"city": "Utrecht", "day": "2026-04-03"})],
        ),
        (
            "Now the weather forecast for that city, please.",
            [("get_forecast", {"city": "Utrecht"})],
        ),
        # "Is there", "there are": no place pointed at.
        ("Is there a weather forecast?", []),
        ("Hi there, the weather forecast please", []),
        ("Hey there, tell me the weather forecast", []),
        ("There\u2019s a storm coming, tell me the weather forecast", []),
    ],
)
def test_words_that_point_back_at_a_place_take_the_last_call_s_town(
    said: str, expected: list[tuple[str, Any]]
) -> None:
    hired = [
        user("I need a car in Utrecht from the central station."),
        *call("hire_car", {"collect_at": "Central Station", "collect_city": "Utrecht"}, "h1", {}),
        assistant("Done: a car waits for you at Central Station."),
    ]
    assert calls([*hired, user(said)], [CARS, WEATHER]) == expected


def test_a_point_in_a_town_is_not_where_there_is() -> None:
    """A car collected at a station: "the weather there" is not the station's."""
    hired = [
        user("I need a car from the central station."),
        *call("hire_car", {"collect_at": "Central Station", "collect_city": "Utrecht"}, "h1", {}),
        assistant("Done."),
    ]
    at_station = tool(
        "hire_car",
        "Hire a car.",
        {"destination_station": {"type": "string", "description": "The station"}},
        ["destination_station"],
    )
    only_station = [
        user("I need a car from the central station."),
        *call("hire_car", {"destination_station": "Central Station"}, "h1", {}),
        assistant("Done."),
    ]
    assert (
        calls([*only_station, user("Tell me the weather forecast there.")], [at_station, WEATHER])
        == []
    )
    assert calls([*hired, user("Tell me the weather forecast there.")], [CARS, WEATHER]) == [
        ("get_forecast", {"city": "Utrecht"})
    ]
