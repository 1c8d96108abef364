"""Ground truth with several acceptable values per argument (BFCL's format)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_lab.kernel.models import Status
from agent_lab.log_replay.case import Case, Expectation
from agent_lab.log_replay.scoring import (
    Matching,
    Produced,
    acceptable,
    field_counts,
    matches,
    score,
)
from agent_lab.log_replay.trial_status import TrialStatus
from agent_lab.strict_json import same_json

TRUTH: dict[str, list[Any]] = {"base": [10], "height": [5], "unit": ["units", ""]}


@pytest.mark.parametrize(
    ("arguments", "right"),
    [
        ({"base": 10, "height": 5}, True),
        ({"base": 10, "height": 5, "unit": "units"}, True),
        ({"base": 10, "height": 5, "unit": "cm"}, False),
        ({"base": 10}, False),  # a required argument left out
        ({"base": 10, "height": 5, "colour": "red"}, False),  # one not in the truth
        ({"base": 10.0, "height": 5}, False),  # type-sensitive: 10.0 is not 10
        ({"base": True, "height": 5}, False),
    ],
)
def test_matches(arguments: dict[str, Any], right: bool) -> None:
    assert matches(arguments, TRUTH) is right


def test_nested_objects_and_arrays_of_objects() -> None:
    truth: dict[str, list[Any]] = {
        "filter": [{"year": [2020, 2021], "genre": ["", "rock"]}],
        "items": [[{"id": [1]}, {"id": [2, 3]}]],
    }
    assert matches({"filter": {"year": 2021}, "items": [{"id": 1}, {"id": 3}]}, truth)
    assert not matches({"filter": {"year": 2019}, "items": [{"id": 1}, {"id": 3}]}, truth)
    assert not matches({"filter": {"year": 2020}, "items": [{"id": 1}]}, truth)
    assert not matches({"filter": {"year": 2020, "x": 1}, "items": [{"id": 1}, {"id": 2}]}, truth)


def test_field_counts() -> None:
    assert field_counts({"base": 10, "height": 6, "x": 1}, TRUTH) == (1, 2, 1)
    assert field_counts(None, TRUTH) == (0, 0, 2)
    assert field_counts({"base": 10, "height": 5, "unit": "units"}, TRUTH) == (3, 0, 0)


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=10,
)


# In the answer format an object is always a map of lists, so plain values have none.
PLAIN = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3),
    max_leaves=10,
)


@given(st.dictionaries(st.text(min_size=1, max_size=4), PLAIN, max_size=4))
def test_the_truth_itself_is_always_accepted(arguments: dict[str, Any]) -> None:
    """Listing each value as its only option accepts exactly those arguments."""
    assert matches(arguments, {k: [v] for k, v in arguments.items()})


@given(JSON, JSON)
def test_a_single_option_agrees_with_same_json(value: Any, option: Any) -> None:
    if isinstance(option, dict | list):
        return
    assert acceptable(value, [option]) is same_json(value, option)


# The fair protocol: the event counts, asking is right where information is missing.

CASES = {
    status: Case(
        id=status,
        event=None if status == "unknown_event" else "set_timer",
        text="t",
        expected=Expectation(
            Status(status), arguments={"duration_seconds": 60} if status == "success" else None
        ),
    )
    for status in ("success", "missing_information", "unknown_event", "invalid_arguments")
}
S = TrialStatus


@pytest.mark.parametrize(
    ("expected", "status", "event", "arguments", "right"),
    [
        ("success", S.SUCCESS, "set_timer", {"duration_seconds": 60}, True),
        # A wrong tool with the right arguments is wrong.
        ("success", S.SUCCESS, "set_reminder", {"duration_seconds": 60}, False),
        ("success", S.UNKNOWN_EVENT, None, None, False),  # no tool call on a complete case: a miss
        ("missing_information", S.MISSING_INFORMATION, "set_timer", None, True),
        ("missing_information", S.UNKNOWN_EVENT, None, None, True),  # the model asked
        ("missing_information", S.MISSING_INFORMATION, "set_reminder", None, False),
        ("missing_information", S.SUCCESS, "set_timer", {"duration_seconds": 60}, False),
        ("unknown_event", S.UNKNOWN_EVENT, None, None, True),
        ("unknown_event", S.SUCCESS, "set_timer", {"duration_seconds": 60}, False),
        ("invalid_arguments", S.INVALID_ARGUMENTS, "set_timer", None, True),
        ("invalid_arguments", S.INVALID_ARGUMENTS, "set_reminder", None, False),
    ],
    ids=[
        "right-event", "wrong-event", "no-call-on-complete", "kernel-asks", "model-asks",
        "asks-for-wrong-event", "guesses", "declines", "acts-out-of-domain", "invalid",
        "invalid-wrong-event",
    ],
)  # fmt: skip
def test_the_event_and_the_kind_of_ending_count(
    expected: str, status: TrialStatus, event: str | None, arguments: Any, right: bool
) -> None:
    scored = score(CASES[expected], status, arguments, event)
    assert (scored.correct, scored.correct_exact) == (right, right)


def test_bfcl_matching_accepts_an_int_for_a_float_and_standardises_strings() -> None:
    truth: dict[str, list[Any]] = {"x": [5.0], "city": ["New York, NY"]}
    given = {"x": 5, "city": "new york ny"}
    assert matches(given, truth, Matching.BFCL)
    assert not matches(given, truth)
    assert not matches({"x": 5.5, "city": "new york ny"}, truth, Matching.BFCL)
    # Not the other way: a float for an int is still wrong.
    assert not matches({"x": 5.0, "city": "NY"}, {"x": [5], "city": ["NY"]}, Matching.BFCL)
    case = Case(
        id="b",
        event="f",
        text="t",
        matching="bfcl",
        expected=Expectation(Status.SUCCESS, arguments={"x": 5.0}, alternatives={"x": [5.0]}),
    )
    scored = score(case, TrialStatus.SUCCESS, {"x": 5}, "f")
    assert (scored.correct, scored.correct_exact) == (True, False)


def test_several_calls_are_scored_call_by_call_in_any_order() -> None:
    from agent_lab.log_replay.case import ExpectedCall

    calls = (
        ExpectedCall("area", {"side": 3}, {"side": [3]}),
        ExpectedCall("area", {"side": 5}, {"side": [5, 5.0]}),
    )
    case = Case(
        id="p",
        event="area",
        text="areas of squares of side 3 and 5",
        matching="bfcl",
        expected=Expectation(Status.SUCCESS, arguments={"side": 3}, calls=calls),
    )
    ok = S.SUCCESS
    both: list[Produced] = [("area", ok, {"side": 5}), ("area", ok, {"side": 3})]
    assert score(case, ok, {"side": 5}, "area", both) == (True, True, 2, 0, 0)
    one: list[Produced] = [("area", ok, {"side": 3})]
    assert score(case, ok, {"side": 3}, "area", one) == (False, False, 1, 0, 1)
    extra: list[Produced] = [*both, ("area", ok, {"side": 7})]
    assert score(case, ok, {"side": 5}, "area", extra).correct is False
    wrong_event: list[Produced] = [("volume", ok, {"side": 5}), ("area", ok, {"side": 3})]
    assert score(case, ok, {"side": 5}, "volume", wrong_event) == (False, False, 1, 1, 1)
    # A single call, given the classic way, is one of the calls made.
    assert score(case, ok, {"side": 3}, "area") == (False, False, 1, 0, 1)
