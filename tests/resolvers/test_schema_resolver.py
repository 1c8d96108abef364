"""The schema-driven resolver: a value only when there is exactly one reading."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_lab import Event, EventDefinition, EventKernel, EventRegistry, Status
from agent_lab.resolvers.schema import SchemaResolver, kind_of

NOW = datetime(2019, 3, 1, 9, 0)  # a Friday

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "flight_class": {"type": "string", "enum": ["Economy", "Premium Economy", "Business"]},
        "number_checked_bags": {"type": "integer", "minimum": 0},
        "departure_date": {"type": "string", "format": "date"},
        "departure_time": {"type": "string", "format": "time"},
        "refundable": {"type": "boolean"},
        "destination": {"type": "string"},
    },
    "required": ["flight_class", "departure_date", "destination"],
    "additionalProperties": False,
}


def resolve(text: str, payload: dict[str, Any] | None = None, schema: Any = None) -> Any:
    resolver = SchemaResolver(schema or SCHEMA, reference=NOW)
    return resolver(Event("book", text=text, payload=payload or {}))


@pytest.mark.parametrize(
    ("schema", "kind"),
    [
        ({"type": "string", "enum": ["a", "b"]}, "enum"),
        ({"type": "string", "enum": ["True", "False"]}, "boolean"),
        ({"type": "integer"}, "number"),
        ({"type": "number"}, "number"),
        ({"type": "boolean"}, "boolean"),
        ({"type": "string", "format": "date"}, "date"),
        ({"type": "string", "format": "time"}, "time"),
        ({"type": "string"}, "free-form"),
        ({}, "free-form"),
        ({"type": "string", "x-agent-lab": {"kind": "date"}}, "date"),
        ({"type": "string", "x-agent-lab": {"kind": "nonsense"}}, "free-form"),
    ],
)
def test_kind_of_reads_the_schema_and_the_hint(schema: dict[str, Any], kind: str) -> None:
    assert kind_of(schema) == kind


def test_one_enum_value_named_is_taken_and_two_are_not() -> None:
    assert resolve("fly business class").arguments["flight_class"] == "Business"
    assert resolve("premium economy please").arguments["flight_class"] == "Premium Economy"
    assert "flight_class" not in resolve("economy or business?").arguments


def test_a_number_needs_its_noun_and_is_not_a_relative_amount() -> None:
    assert resolve("I have two bags").arguments["number_checked_bags"] == 2
    assert resolve("3 checked bags").arguments["number_checked_bags"] == 3
    assert "number_checked_bags" not in resolve("two seats please").arguments
    year = {"type": "object", "properties": {"year": {"type": "integer"}}}
    assert "year" not in resolve("a song from six years ago", schema=year).arguments
    assert resolve("a song from 4 years", schema=year).arguments["year"] == 4


def test_a_nounless_number_property_takes_the_only_number() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
    assert resolve("make it 7", schema=schema).arguments == {"n": 7}
    assert resolve("7 or 8", schema=schema).arguments == {}
    assert resolve("make it 7.5", schema=schema).arguments == {}


def test_dates_against_the_reference_clock() -> None:
    assert resolve("tomorrow").arguments["departure_date"] == "2019-03-02"
    assert resolve("on March 5th").arguments["departure_date"] == "2019-03-05"
    assert resolve("the 5th of March").arguments["departure_date"] == "2019-03-05"
    # A month-day already past is next year's.
    assert resolve("february 2").arguments["departure_date"] == "2020-02-02"
    assert "departure_date" not in resolve("tomorrow, or march 9").arguments


def test_the_events_context_now_wins_over_the_reference() -> None:
    resolver = SchemaResolver(SCHEMA, reference=NOW)
    event = Event("book", text="tomorrow", context={"now": "2024-12-31T10:00"})
    assert resolver(event).arguments["departure_date"] == "2025-01-01"


def test_one_date_cannot_fill_two_date_properties() -> None:
    schema = {
        "type": "object",
        "properties": {
            "pickup_date": {"type": "string", "format": "date"},
            "dropoff_date": {"type": "string", "format": "date"},
        },
    }
    assert resolve("on March 9th", schema=schema).arguments == {}
    # "from" starts: with the pick-up given, it says nothing of the drop-off...
    given = {"pickup_date": "2019-03-08"}
    assert resolve("from March 9th", given, schema=schema).arguments == given
    # ...and a drop-off's own cue places it (``resolvers.date_pairs``).
    done = resolve("and return it March 9th", given, schema=schema)
    assert done.arguments == {"pickup_date": "2019-03-08", "dropoff_date": "2019-03-09"}


@pytest.mark.parametrize(
    ("text", "time"),
    [
        ("at 5pm", "17:00"),
        ("at 17:30", "17:30"),
        ("half past 11 in the morning", "11:30"),
        ("in the afternoon 1:30", "13:30"),
        ("6 in the evening", "18:00"),
        ("at 1:30", None),  # am or pm: not said
        ("5pm or 6pm", None),
    ],
)
def test_clock_times_only_when_unambiguous(text: str, time: str | None) -> None:
    assert resolve(text).arguments.get("departure_time") == time


def test_payload_values_of_the_right_type_are_taken_others_ignored() -> None:
    taken = resolve("", {"destination": "Paris", "refundable": True, "flight_class": "Economy"})
    assert taken.arguments == {
        "destination": "Paris",
        "refundable": True,
        "flight_class": "Economy",
    }
    ignored = resolve("", {"destination": 3, "refundable": "yes", "flight_class": "First"})
    assert ignored.arguments == {}
    assert set(ignored.missing) == {"flight_class", "departure_date", "destination"}


def test_free_form_text_is_read_only_as_a_name_its_cue_points_at() -> None:
    assert resolve("to Paris, refundable").arguments["destination"] == "Paris"
    # No name (lower case), or two names after the cue's words: nothing.
    assert "destination" not in resolve("to paris, refundable").arguments
    assert "destination" not in resolve("to Paris or to Rome").arguments


def test_string_hint_renders_canonical_strings() -> None:
    schema = {
        "type": "object",
        "properties": {
            "seats": {"type": "string", "x-agent-lab": {"kind": "number", "format": "string"}},
        },
    }
    assert resolve("for 4 seats", schema=schema).arguments == {"seats": "4"}


def test_missing_lists_required_properties_not_found() -> None:
    result = resolve("business class tomorrow")
    assert result.missing == ("destination",)


def _dispatch(text: str, payload: dict[str, Any]) -> Status:
    registry = EventRegistry()
    resolver = SchemaResolver(SCHEMA, reference=NOW)
    registry.register(EventDefinition("book", parameters=SCHEMA, resolver=resolver))
    kernel = EventKernel(registry, allow_fallback=False)
    return kernel.dispatch(Event("book", text=text, payload=payload)).status


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_values_read_from_any_text_pass_the_schema(text: str) -> None:
    """What the resolver reads from text is schema-valid: it never invents a bad value."""
    assert _dispatch(text, {}) in (Status.SUCCESS, Status.MISSING_INFORMATION)


PAYLOAD_VALUES = st.none() | st.booleans() | st.integers() | st.text(max_size=10)


@settings(max_examples=300, deadline=None)
@given(
    st.text(max_size=80),
    st.dictionaries(st.sampled_from(list(SCHEMA["properties"])), PAYLOAD_VALUES, max_size=4),
)
def test_a_bad_payload_is_the_users_mistake_never_a_definition_error(
    text: str, payload: dict[str, Any]
) -> None:
    """A payload value out of range is INVALID_ARGUMENTS; the resolver itself never breaks."""
    assert _dispatch(text, payload) in (
        Status.SUCCESS,
        Status.MISSING_INFORMATION,
        Status.INVALID_ARGUMENTS,
    )


def test_a_trace_of_an_unread_optional_value_asks_the_fallback() -> None:
    """Required values found, but the text states more than was read: not complete."""
    schema = {
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "passengers": {"type": "integer", "description": "Number of seats to book"},
            "airline": {"type": "string", "enum": ["United Airlines", "Delta Airlines"]},
        },
        "required": ["city"],
    }
    payload = {"city": "Paris"}
    quiet = resolve("yes please, go ahead", payload, schema=schema)
    assert (quiet.missing, quiet.complete) == ((), None)
    for text in ("a seat each for my brothers", "something with Delta"):
        hinted = resolve(text, payload, schema=schema)
        assert (hinted.missing, hinted.complete) == ((), False), text
    # A count of people reads for a property that counts them, and a seat or a ticket is
    # one person's.
    assert dict(resolve("for 3 of us", payload, schema=schema).arguments)["passengers"] == 3
    assert dict(resolve("I want four seats", payload, schema=schema).arguments)["passengers"] == 4


def test_a_number_read_for_one_property_is_no_trace_of_another() -> None:
    """ "two bedrooms" says nothing of the bathrooms; "two bedrooms and 2 baths" does."""
    schema = {
        "type": "object",
        "properties": {
            "bedrooms": {"type": "integer", "description": "Number of bedrooms"},
            "bathrooms": {"type": "integer", "description": "Number of bathrooms"},
        },
        "required": ["bedrooms"],
    }
    found = resolve("a cottage with two bedrooms, please", schema=schema)
    assert (dict(found.arguments), found.complete) == ({"bedrooms": 2}, None)
    more = resolve("two bedrooms, and the other count is 2", schema=schema)
    assert more.complete is False


def test_a_count_read_is_no_trace_of_a_date_or_a_time() -> None:
    """ "3 seats" fills the seats; its digit says nothing of the day, "7:30" would."""
    schema = {
        "type": "object",
        "properties": {
            "seats": {"type": "integer", "description": "Seats to book"},
            "day": {"type": "string", "format": "date"},
            "at": {"type": "string", "format": "time"},
        },
        "required": ["seats"],
    }
    found = resolve("3 seats, please", schema=schema)
    assert (dict(found.arguments), found.complete) == ({"seats": 3}, None)
    assert resolve("3 seats, the 7:30 one", schema=schema).complete is False


def test_a_capitalised_name_hints_at_free_form_text() -> None:
    schema = {
        "type": "object",
        "properties": {"city": {"type": "string"}, "cuisine": {"type": "string"}},
        "required": ["city"],
    }
    assert resolve("Somewhere in Oakland", {"city": "x"}, schema=schema).complete is False
    assert resolve("sounds good", {"city": "x"}, schema=schema).complete is None


@pytest.mark.parametrize(
    ("text", "flag"),
    [
        ("a place with wifi", True),
        ("no wifi needed", False),
        ("without wifi is fine", False),
        ("I don't care about wifi", None),  # no preference
        ("is there wifi?", None),  # a question states nothing
        ("would there be wifi?", None),
        ("Is wifi included, and what's the price?", None),
        # A question that asks for something does; a question elsewhere is another's.
        ("Could you find me a place with wifi?", True),
        ("Any others with wifi?", True),
        ("What's the price? I need wifi.", True),
        # Asked inside a sentence, or of what was offered: unsure.
        ("Can you tell me the price and if it has wifi?", None),
        ("Any wifi there?", None),
        ("Would wifi be included.", None),
        ("wifi, or no wifi", None),  # two readings
        ("a quiet room", None),
    ],
)
def test_booleans_from_phrasings_of_the_flags_subject(text: str, flag: bool | None) -> None:
    schema = {"type": "object", "properties": {"has_wifi": {"type": "boolean"}}}
    assert resolve(text, schema=schema).arguments.get("has_wifi") == flag
    canonical = {"type": "object", "properties": {"has_wifi": {"enum": ["True", "False"]}}}
    expected = None if flag is None else str(flag)
    assert resolve(text, schema=canonical).arguments.get("has_wifi") == expected


def test_a_number_at_the_end_of_a_sentence_is_still_a_number() -> None:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"rooms": {"type": "integer"}},
        "required": [],
    }
    assert resolve("I need 3 rooms.", schema=schema).arguments == {"rooms": 3}
    assert resolve("I need 3.", schema=schema).complete is False


@pytest.mark.parametrize("spoken", ["1", "2", "3", "three"])
def test_a_spoken_member_of_an_integer_enum_is_read_whichever_it_is(spoken: str) -> None:
    """An integer enum read through the spoken number raised KeyError past its first member."""
    schema = {
        "type": "object",
        "properties": {"seats": {"type": "string", "enum": ["1", "2", "3"]}},
    }
    found = resolve(f"a table for {spoken} people", schema=schema)
    assert found.arguments.get("seats") in (None, "3" if spoken == "three" else spoken)


@pytest.fixture(scope="module")
def imported_schemas(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    from agent_lab.lab.importers.bfcl import import_bfcl
    from agent_lab.lab.importers.sgd import import_sgd
    from agent_lab.lab.run.plugin_sets import load_plugins
    from tests.conftest import corpus

    root = tmp_path_factory.mktemp("imported")
    import_sgd(corpus("sgd", "dev"), root / "sgd")
    import_bfcl(corpus("bfcl"), root / "bfcl")
    return [
        dict(definition.parameters)  # type: ignore[arg-type]
        for name in ("sgd", "bfcl")
        for definition in load_plugins(str(root / name)).definitions
    ]


TEXTS = st.text(max_size=120) | st.lists(
    st.sampled_from(
        ["3", "three", "at", "5pm", "tomorrow", "on", "the", "12", "with", "no", "for", "2 people",
         "March 3rd", "$20", "%", "-", "10:30", "Economy", "true", "next friday", "x=4", "."]
    ),
    max_size=14,
).map(" ".join)  # fmt: skip


@given(data=st.data(), text=TEXTS)
@settings(max_examples=300, deadline=None)
def test_the_schema_resolver_never_raises_on_any_imported_schema_and_any_text(
    imported_schemas: list[dict[str, Any]], data: st.DataObject, text: str
) -> None:
    schema = data.draw(st.sampled_from(imported_schemas))
    payload = data.draw(
        st.dictionaries(st.text(max_size=8), st.integers() | st.text(max_size=8), max_size=3)
    )
    SchemaResolver(schema, reference=NOW)(Event("e", text=text, payload=payload))


def test_a_bare_ordinal_day_is_a_date_and_two_dates_fill_nothing() -> None:
    """'the 6th' names a day of this month; with 'March 12th' beside it, the date is unsure."""
    schema = {"type": "object", "properties": {"day": {"type": "string", "format": "date"}}}
    assert resolve("a table on the 6th", schema=schema).arguments == {"day": "2019-03-06"}
    assert "day" not in resolve("out on the 6th, back on March 12th", schema=schema).arguments
    assert resolve("the 12th of March", schema=schema).arguments == {"day": "2019-03-12"}


def test_a_time_the_user_then_accepts_something_after_is_left_to_the_fallback() -> None:
    """One yes confirms the time said back; a second accepts something offered since."""
    schema = {"type": "object", "properties": {"at": {"type": "string", "format": "time"}}}
    assert resolve("book it at 4:15 pm please", schema=schema).arguments == {"at": "16:15"}
    confirmed = resolve("book it at 4:15 pm. Yes, that works for me.", schema=schema)
    assert confirmed.arguments == {"at": "16:15"}
    accepted = resolve("book it at 4:15 pm. Yes, that's right. That would be fine.", schema=schema)
    assert "at" not in accepted.arguments
    unpunctuated = resolve("book it at 4:15 pm Yes please Yeah that works", schema=schema)
    assert "at" not in unpunctuated.arguments


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("starting on 7th of this month", "2019-03-07"),
        ("Starting on 7th of this month and returning on the 13th", None),
        ("on 3rd of this month and back on March 12th", None),
        ("on the 3rd of next month", "2019-04-03"),
        ("on March 12th", "2019-03-12"),
    ],
    ids=[
        "an ordinal day without 'the'",
        "two days, one without 'the'",
        "an ordinal day and a month-day",
        "of next month",
        "a month-day is one date, not also an ordinal day",
    ],
)
def test_every_ordinal_day_counts_so_two_dates_fill_nothing(text: str, day: str | None) -> None:
    """ "7th of this month" went unread, so the other date said filled the property."""
    schema = {"type": "object", "properties": {"day": {"type": "string", "format": "date"}}}
    assert resolve(text, schema=schema).arguments.get("day") == day
    later = SchemaResolver(schema, reference=datetime(2019, 5, 20, 9, 0))
    assert later(Event("e", text="on March 12th")).arguments == {"day": "2020-03-12"}


VET: dict[str, Any] = {
    "type": "object",
    "properties": {
        "town": {"type": "string", "description": "Town where the vet practises"},
        "open_sundays": {
            "type": "boolean",
            "description": "Whether the vet is open on Sundays (default: any)",
        },
        "speciality": {"type": "string", "description": "What animals the vet treats"},
    },
    "required": ["town"],
}


def test_a_word_every_description_shares_names_the_subject_not_a_value() -> None:
    # "vet" is in all three descriptions: it speaks of the tool, not of Sunday opening.
    found = resolve("I need a vet in Utrecht.", schema=VET)
    assert found.arguments == {"town": "Utrecht"}
    assert found.complete is None


@pytest.mark.parametrize(
    "text",
    [
        "I need an exotic vet in Utrecht.",  # a kind of vet: maybe the speciality
        "A vet open on sundays in Utrecht.",  # the flag's own words
    ],
)
def test_a_word_qualifying_the_subject_or_a_propertys_own_word_leaves_it_open(text: str) -> None:
    assert resolve(text, schema=VET).complete is False


def test_a_word_nothing_explains_leaves_an_optional_free_form_value_open() -> None:
    schema = {
        "type": "object",
        "properties": {
            "side": {"type": "number", "description": "Length of the square's side"},
            "unit": {"type": "string", "description": "Unit of the length"},
        },
        "required": ["side"],
    }

    def area(text: str) -> Any:
        return SchemaResolver(schema)(Event("square_area", text=text))

    # "metres" may be the unit, in lower case: no name reading sees it.
    assert area("The area of a square whose side is 4 metres?").complete is False
    plain = area("What is the area of a square with side 4, please?")
    assert plain.arguments == {"side": 4}
    assert plain.complete is None


def test_the_tools_own_name_is_no_sign_of_an_optional_value() -> None:
    schema = {
        "type": "object",
        "properties": {
            "town": {"type": "string", "description": "Town of the cinema"},
            "genre": {"type": "string", "description": "Genre of the film"},
        },
        "required": ["town"],
    }
    resolver = SchemaResolver(schema)
    found = resolver(Event("find_films", text="Search for films in Leiden."))
    assert (found.arguments, found.complete) == ({"town": "Leiden"}, None)
    assert not resolver.may_state("genre", "search for films", "find_films")
    assert resolver.may_state("genre", "search for films", "find_cinemas")
    # Another tool's name says nothing of it: "films" is the genre's word there.
    assert resolver(Event("find_cinemas", text="Search for films in Leiden.")).complete is False


def test_a_count_in_words_is_a_sign_of_a_numeric_enum() -> None:
    # An enum of counts written as strings ("1".."4"): "a three bedroom flat" may state it
    # though no reading here takes "bedroom" for "rooms"; a value carried from before
    # must not stand over it.
    schema = {
        "type": "object",
        "properties": {
            "town": {"type": "string", "description": "Town of the flat"},
            "rooms": {
                "type": "string",
                "description": "How many sleeping rooms",
                "enum": ["1", "2", "3", "4"],
            },
        },
        "required": ["town", "rooms"],
    }
    resolver = SchemaResolver(schema)
    assert resolver.may_state("rooms", "Any three bedroom flats in Delft?")
    assert resolver.may_state("rooms", "Any 3 bedroom flats in Delft?")
    assert not resolver.may_state("rooms", "Any flats in Delft?")
    # A number read for another value is none of this one's.
    assert not resolver.may_state("rooms", "Any flats in Delft for 3?", read=["3"])


def test_a_clock_time_read_for_a_time_is_no_sign_of_a_date() -> None:
    schema = {
        "type": "object",
        "properties": {
            "day": {"type": "string", "format": "date", "description": "Day of the booking"},
            "hour": {"type": "string", "format": "time", "description": "Time of the booking"},
        },
    }
    resolver = SchemaResolver(schema)
    assert not resolver.may_state("day", "Book it at 10:30 am please.", read=["10:30"])
    assert not resolver.may_state("day", "Book it for 7pm please.", read=["19:00"])
    # Unread, the digits may be a date's; a day of the month still is one.
    assert resolver.may_state("day", "Book it at 10:30 am please.")
    assert resolver.may_state("day", "Book it at 10:30 am on the 9th.", read=["10:30"])


def test_a_word_of_a_value_read_is_no_sign_of_another_property() -> None:
    schema = {
        "type": "object",
        "properties": {
            "kind": {"type": "string", "enum": ["Music", "Theatre"], "description": "Kind"},
            "style": {"type": "string", "description": "Style of the show, like music or drama"},
        },
    }
    resolver = SchemaResolver(schema)
    text = "Any music gigs this week?"
    # "music" read as the kind accounts for the word; unread, it may be the style's.
    assert not resolver.may_state("style", text, read=["Music"])
    assert resolver.may_state("style", text)


def test_a_kind_no_member_says_leaves_an_optional_choice_open() -> None:
    """ "A tiny van": the van's size, said in a word no member has, is the model's to map."""
    schema = {
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "City to collect the van in"},
            "size": {
                "type": "string",
                "enum": ["Compact", "Medium", "Large"],
                "description": "Size of the van",
            },
        },
        "required": ["city"],
    }
    resolver = SchemaResolver(schema)
    said = resolver(Event("hire_van", text="I need a tiny van in Leith"))
    assert said.arguments == {"city": "Leith"}
    assert said.complete is False  # "tiny" may be the size: the fallback is asked
    plain = resolver(Event("hire_van", text="I need a van in Leith"))
    assert plain.arguments == {"city": "Leith"}
    assert plain.complete is None
    named = resolver(Event("hire_van", text="I need a large van in Leith"))
    assert named.arguments == {"city": "Leith", "size": "Large"}
