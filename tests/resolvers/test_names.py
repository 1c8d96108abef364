"""Names for free-form properties: marked twice (a name, and a cue for one property) or none.

The phrasings are this file's own.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_lab.kernel.models import Event
from agent_lab.resolvers.name_runs import may_name, names_in, names_left, unread_doubt
from agent_lab.resolvers.names import FreeForm, NameRole, asked_for, name_role, read_name
from agent_lab.resolvers.schema import ASKED, NAMES, SchemaResolver


def names(text: str) -> list[str]:
    return [name for name, _, _ in names_in(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "fly me from Glasgow to Santa Cruz de Tenerife tomorrow",
            ["Glasgow", "Santa Cruz de Tenerife"],
        ),
        ("a table at Noodle & Co in Leith, please", ["Noodle & Co", "Leith"]),
        ("Washington D.C. is where I live", ["Washington D.C."]),
        ("St. Albans or Mt. Hood", ["St. Albans", "Mt. Hood"]),
        # Sentence starts, months, weekdays, "I": no names.
        ("Please find one. Can you? I think so", []),
        ("on Monday in March", []),
        # A shouted word may stand for a longer name; a name going on in lower case is unsure.
        ("somewhere in SFO", []),
        ("near Redwood city", []),
        # A verb's or an adverb's form after a name does not run it on.
        ("put Blue Velvet played loudly", ["Blue Velvet"]),
        # A capitalised word alone is a name (a reply to a question).
        ("Lisbon.", ["Lisbon"]),
        # A preposition or hedge that starts the sentence begins no name.
        ("Near Ghent Sint-Pieters.", ["Ghent Sint-Pieters"]),
        ("Maybe Utrecht then", ["Utrecht"]),
        ("Check Kortrijk.", ["Kortrijk"]),
        # A count said alone is no name.
        ("Three.", []),
        # A country or a region after a comma qualifies the place: the place is the name.
        ("fly me from Seattle, WA tomorrow", ["Seattle"]),
        ("a week in Braga, Portugal.", ["Braga"]),
        ("near Kelowna, British Columbia, please", ["Kelowna"]),
        # Not a list of places, nor a title after a name.
        ("trains from Lisbon, Porto and Faro", ["Faro"]),
        ("a visit to Nora Kim, MD", []),
        # A number just before it may be the name's: an address, a title.
        ("drop me at 42 Rue Cler, then home", []),
        ("tickets for 12 Angry Men", []),
        ("3 tickets, for Hamlet", ["Hamlet"]),
        # A word no name begins with capitalised mid-sentence, or a day's name next to it,
        # may be the title's own: the run is unsure.
        ("could you play If I Were A Boy for me", []),
        ("put on Here Comes The Sun by The Beatles", ["The Beatles"]),
        ("a flight to Paris on March 3rd", ["Paris"]),
        # A period with no space after it ends a word: the writer missed the space.
        ("a gym in Fairview Park.Can you find one?", ["Fairview Park"]),
        ("meet at Lakeside Mall.then dinner", ["Lakeside Mall"]),
        ("fly to St.Louis today", ["St.Louis"]),
        # An address's end alone, after an ordinal or words in lower case, is no name.
        ("a cab to 14 willow Lane, please", []),
        ("drop me at 41st Street", []),
        # A word of kin may be written with the name or not ("Uncle Bob", "uncle Bob").
        ("send $20 to Uncle Bob tonight", []),
    ],
)
def test_names_are_runs_of_capitalised_words(text: str, expected: list[str]) -> None:
    assert names(text) == expected


@pytest.mark.parametrize(
    ("name", "description", "role"),
    [
        ("origin_airport", "", "origin"),
        ("from_city", "", "origin"),
        ("arrival_city", "", "destination"),
        ("to", "", "destination"),
        ("city", "", "location"),
        ("venue", "", "location"),
        ("guest_name", "", "name"),
        ("artist", "Name of the artist", "creator"),
        ("directed_by", "Who made the film", "creator"),
        ("where", "The town to search in", "location"),
        ("notes", "Anything else", "other"),
    ],
)
def test_a_property_role_comes_from_its_own_words(name: str, description: str, role: str) -> None:
    assert name_role(name, description) == role


SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "origin_city": {"type": "string", "description": "City of departure"},
        "arrival_city": {"type": "string", "description": "City of arrival"},
        "passenger_name": {"type": "string", "description": "Who flies"},
    },
}


def read(text: str, asked: str | None = None, schema: Any = SCHEMA) -> dict[str, Any]:
    context = {ASKED: asked} if asked else {}
    return dict(SchemaResolver(schema)(Event("fly", text=text, context=context)).arguments)


def test_cues_place_each_name() -> None:
    assert read("leaving from Oslo to Bergen, the ticket is for a guest named Ada Byron") == {
        "origin_city": "Oslo",
        "arrival_city": "Bergen",
        "passenger_name": "Ada Byron",
    }


def test_the_reply_to_a_question_gives_the_one_name_it_holds() -> None:
    assert read("Trondheim.", asked="Which city are you departing from?") == {
        "origin_city": "Trondheim"
    }
    # The question points at no one property: nothing.
    assert read("Trondheim.", asked="Which city?") == {}
    # Not a question: nothing.
    assert read("Trondheim.", asked="Trondheim is lovely.") == {}


def test_no_cue_two_names_or_one_name_for_two_properties_is_nothing() -> None:
    assert read("Oslo and Bergen") == {}
    assert read("to Bergen or to Tromso") == {}
    lone: dict[str, Any] = {
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "area": {"type": "string", "description": "the area of the city"},
        },
    }
    # Two location properties share the cue "in": neither gets the name.
    assert read("something in Oslo", schema=lone) == {}


def test_names_are_not_read_when_the_caller_says_so() -> None:
    resolver = SchemaResolver(SCHEMA)
    event = Event("fly", text="from Oslo", context={NAMES: False})
    assert dict(resolver(event).arguments) == {}


def test_a_name_read_must_fit_the_schema() -> None:
    short: dict[str, Any] = {
        "type": "object",
        "properties": {"city": {"type": "string", "maxLength": 4}},
    }
    assert read("weather in Copenhagen", schema=short) == {}
    assert read("weather in Oslo", schema=short) == {"city": "Oslo"}


def test_asked_for_needs_a_question_pointing_at_one_property() -> None:
    own = {
        "origin_city": frozenset({"origin", "city", "departure"}),
        "arrival_city": frozenset({"arrival", "city"}),
    }
    assert asked_for(own, "What is your city of departure?") == "origin_city"
    assert asked_for(own, "Which city?") is None
    assert asked_for(own, "City of departure.") is None


def test_a_question_about_a_place_points_at_the_one_place() -> None:
    """Pick-up's date, time and place share "pickup": "area" says which one is asked."""
    own = {
        "pickup_spot": frozenset({"pickup", "spot", "van"}),
        "pickup_day": frozenset({"pickup", "day", "van"}),
        "pickup_hour": frozenset({"pickup", "hour", "van"}),
    }
    roles: dict[str, NameRole] = {"pickup_spot": "location"}
    assert asked_for(own, "Which pickup area suits you?", roles) == "pickup_spot"
    assert asked_for(own, "Where would you like the pickup?", roles) == "pickup_spot"
    assert asked_for(own, "When is the pickup?", roles) is None


def test_read_name_alone() -> None:
    city = FreeForm.of("city", "", frozenset({"city"}))
    assert city is not None
    assert FreeForm.of("email", "The recipient's address", frozenset()) is None
    assert FreeForm.of("location", "The city, e.g. Boston, MA", frozenset()) is None
    assert read_name(city, [], "the forecast in Accra please") == "Accra"
    assert read_name(city, [], "the forecast please") is None


def test_may_name_is_generous() -> None:
    assert may_name("in Accra")
    assert may_name("room 12")
    assert may_name("near SFO")
    assert not may_name("And on Saturday?")
    assert not may_name("Please, what about tomorrow?")


@given(st.text(max_size=300))
def test_any_text_reads_without_error(text: str) -> None:
    for name, start, end in names_in(text):
        assert text[start:end] == name
    read(text, asked=text)
    may_name(text)


def test_hostile_shapes_stay_linear() -> None:
    # Long runs of capitalised words, joiners and dots: bounded work, no backtracking.
    for text in (
        "A " * 20_000,
        "Of " * 20_000 + "Oslo",
        "A." * 20_000,
        "in " * 10_000 + "X",
        "\u202eOslo\u202c in \ud800 Bergen",
        "9" * 5_000,
    ):
        names_in(text)
        read(text, asked=text + "?")


def test_a_title_opened_by_the_inside_a_sentence_keeps_it() -> None:
    assert names("play something from the record The Long Way Home") == ["The Long Way Home"]
    assert names("The Hague is lovely") == ["Hague"]  # a sentence's start: no telling


def test_at_names_a_venue_when_the_tool_has_one_apart_from_the_place() -> None:
    place = {"type": "string", "description": "Town to look in"}
    schema = {
        "type": "object",
        "properties": {
            "place": place,
            "hall_name": {"type": "string", "description": "Name of the concert hall"},
        },
    }
    found = SchemaResolver(schema)(Event("gigs", text="Any gigs at the Rose Hall in Leiden?"))
    assert found.arguments.get("place") == "Leiden"
    alone = {"type": "object", "properties": {"place": place}}
    found = SchemaResolver(alone)(Event("gigs", text="Any gigs at Leiden?"))
    assert found.arguments == {"place": "Leiden"}


def test_a_middle_initial_goes_on_into_the_name() -> None:
    assert names("an appointment with Dr. Ada K. Lovelace tomorrow") == ["Dr. Ada K. Lovelace"]
    assert names("I'll take plan B. Then Lyon") == ["Lyon"]


def test_the_names_left_are_those_no_value_read_is_nor_holds() -> None:
    said = "Please confirm: a room at the Grand Hotel Ghent in Ghent for 2 nights."
    assert names_left(said, ["Ghent"]) == []  # "the Grand Hotel Ghent" or "Grand Hotel Ghent"?
    said = "Please confirm: a room at Grand Hotel Ghent in Ghent for 2 nights."
    assert names_left(said, ["Ghent"]) == ["Grand Hotel Ghent"]
    assert names_left("a taxi to 1532 Ocean Avenue", []) == []  # the number may be its start


def test_by_names_who_made_a_work() -> None:
    """ "songs by Nina Simone": the artist; two properties of that role: neither."""
    songs = {
        "type": "object",
        "properties": {
            "artist": {"type": "string", "description": "Who performs it"},
            "genre": {"type": "string", "description": "The kind of music"},
        },
    }
    assert read("any songs by Nina Simone?", schema=songs) == {"artist": "Nina Simone"}
    both = {
        "type": "object",
        "properties": {
            "artist": {"type": "string"},
            "composer": {"type": "string"},
        },
    }
    assert read("a piece by Clara Schumann", schema=both) == {}


def _resolved(properties: dict[str, Any], text: str) -> dict[str, Any]:
    schema = {"type": "object", "properties": properties}
    resolution = SchemaResolver(schema)(Event("e", text=text, context={}))
    return dict(resolution.arguments)


@pytest.mark.parametrize(
    ("text", "memo"),
    [
        ("pay the invoice with the memo 'March hosting'", "March hosting"),
        ("the memo \u201cdeposit for the flat\u201d please", "deposit for the flat"),
    ],
)
def test_a_quoted_value_after_the_property_s_noun_is_its_value(text: str, memo: str) -> None:
    properties = {"memo": {"type": "string", "description": "Shown to the payee"}}
    assert _resolved(properties, text) == {"memo": memo}


def test_an_apostrophe_is_no_quote() -> None:
    properties = {"memo": {"type": "string", "description": "Shown to the payee"}}
    assert _resolved(properties, "the memo's text is Lena's rent, don't change it") == {}


def test_a_count_is_cued_by_what_the_description_says_it_counts() -> None:
    properties = {
        "party": {"type": "integer", "description": "Number of kayaks, default 1"},
        "hours": {"type": "integer"},
    }
    assert _resolved(properties, "two tandem kayaks for 3 hours") == {"party": 2, "hours": 3}


def test_for_names_the_being_a_name_is_of() -> None:
    properties = {
        "petName": {"type": "string"},
        "clinic": {"type": "string", "description": "Clinic location"},
    }
    assert _resolved(properties, "a check-up for Ilse at the Oostkamp clinic") == {
        "petName": "Ilse"
    }
    # A guest "for" something may be a date or a table: "under" names one.
    guest = {"guestName": {"type": "string"}}
    assert _resolved(guest, "a table for Valentine's") == {}
    assert _resolved(guest, "a table under Ilse") == {"guestName": "Ilse"}
    # A show's title is no being's name: "for" says nothing of it.
    assert _resolved({"show_title": {"type": "string"}}, "two seats for Medea") == {}


def test_a_string_the_description_writes_as_hh_mm_is_a_time() -> None:
    properties = {"slot": {"type": "string", "description": "Start, HH:MM (24h)"}}
    assert _resolved(properties, "around half past four in the afternoon") == {"slot": "16:30"}
    seconds = {"slot": {"type": "string", "description": "Start, HH:MM:SS"}}
    assert _resolved(seconds, "at 4:30 pm") == {}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("swap to the aisle - surname Achterberg", {"travellerLastName": "Achterberg"}),
        ("last name is Achterberg, first name Wim", {"travellerLastName": "Achterberg",
                                                     "travellerFirstName": "Wim"}),
        # "name" alone could be either: neither.
        ("name's Wim", {}),
    ],
)  # fmt: skip
def test_a_label_that_ends_the_property_s_name_labels_its_value(
    text: str, expected: dict[str, str]
) -> None:
    properties = {"travellerLastName": {"type": "string"}, "travellerFirstName": {"type": "string"}}
    assert _resolved(properties, text) == expected


def test_name_alone_labels_the_one_property_that_is_a_name() -> None:
    properties = {"guestName": {"type": "string"}, "party": {"type": "integer"}}
    assert _resolved(properties, "party of 3, name's Wim") == {"guestName": "Wim", "party": 3}
    assert _resolved(properties, "a table under Wim") == {"guestName": "Wim"}


WHERE = {"location": {"type": "string", "description": "The city and state, e.g. Tucson, AZ"}}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("is it windy in Duluth, MN right now?", {"location": "Duluth, MN"}),
        ("any rain near Salem, Oregon?", {"location": "Salem, Oregon"}),
        # A code that is also a word is a state where one is expected.
        ("weather in Toledo, OH", {"location": "Toledo, OH"}),
        # The form asks for the region: a place without one is the model's to complete.
        ("weather in Duluth", {}),
        # Two places, or a list: none.
        ("in Duluth, MN or Fargo, ND?", {}),
        ("in Lyon, Nice and Paris", {}),
    ],
)
def test_a_place_is_read_in_the_form_the_description_s_example_shows(
    text: str, expected: dict[str, str]
) -> None:
    assert _resolved(WHERE, text) == expected


def test_an_example_of_another_form_still_leaves_the_name_to_the_model() -> None:
    properties = {"team": {"type": "string", "description": "Team name, e.g. Boston Celtics"}}
    assert _resolved(properties, "scores for the Boston Celtics") == {}


@pytest.mark.parametrize(
    ("properties", "text"),
    [
        # The speaker's name is no pet's, nor a recipient's.
        ({"pet_name": {"type": "string"}}, "My name is Sarah. A groom please"),
        ({"recipient_name": {"type": "string"}}, "a parcel to my sister, my name is Sarah"),
        # An occasion is no being.
        ({"pet_name": {"type": "string"}}, "a groom for Easter"),
        ({"guest_name": {"type": "string"}}, "a table for Mother's Day"),
        # A quote after a preposition is no name.
        ({"city": {"type": "string"}}, 'the weather in "my hometown"'),
    ],
)
def test_names_that_are_not_the_property_s(properties: dict[str, Any], text: str) -> None:
    assert _resolved(properties, text) == {}


@pytest.mark.parametrize(
    "text",
    [
        "I live in Tucson, AZ. Weather in Denver right now?",
        "in Tucson, AZ - sorry, I mean Denver, CO",
        "what's the weather in Paris, OK?",
        "weather in Springfield, IL? my bad, Springfield Missouri",
    ],
)
def test_a_place_with_its_region_is_read_only_as_the_one_place_said(text: str) -> None:
    assert _resolved(WHERE, text) == {}


def test_the_place_with_its_region_stays_linear_in_the_text() -> None:
    # Each cue is matched once, over a bounded number of words: no square of the length.
    assert _resolved(WHERE, ("In " * 4000)[:12000]) == {}


def test_a_duration_written_hh_mm_is_no_clock_time() -> None:
    properties = {"duration": {"type": "string", "description": "Duration as HH:MM"}}
    assert _resolved(properties, "a timer until 5 pm") == {}


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("set an alarm for 6:10 called Walk the dog", None),  # "the dog": the title runs on
        ("set an alarm for 6:10 called Feed cat", None),
        ("an alarm named Leave for work at 8", None),
        ("an alarm named Standup at 9:45", "Standup"),
        ("an alarm named Standup for 9:45", "Standup"),
        ("an alarm called Pilates for tomorrow", "Pilates"),
        ("an alarm called Team Sync, at 10", "Team Sync"),
    ],
)
def test_a_title_that_runs_on_in_lower_case_is_not_read_short(text: str, name: str | None) -> None:
    alarm = FreeForm.of("alarm_name", "Name of the alarm", frozenset({"alarm", "name"}))
    assert alarm is not None
    assert read_name(alarm, [], text) == name


def test_a_name_joined_to_another_by_and_is_not_read_for_one() -> None:
    """ "to Lewis and Clark Landing": one place, or two? Neither is read."""
    resolver = SchemaResolver(
        {
            "type": "object",
            "properties": {"destination": {"type": "string", "description": "Where to go"}},
        }
    )
    for said in ("Take me to Lewis and Clark Landing.", "a ride to Ann and Bob, please"):
        assert resolver(Event("ride", text=said)).arguments.get("destination") is None
    said = "Take me to Harbor Point and I will pay cash."
    assert resolver(Event("ride", text=said)).arguments == {"destination": "Harbor Point"}


def test_a_count_read_leaves_a_numbered_name_in_doubt() -> None:
    """The "1" read as a count is not cut out of "1 Harbor Road", which stays unsure."""
    assert unread_doubt("Please confirm a Cab for 1 rider to 1 Harbor Road.", ["1"])
