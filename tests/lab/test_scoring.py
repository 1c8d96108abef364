"""Ground truth with several acceptable values per argument (BFCL's format)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_lab.lab.scoring import acceptable, field_counts, matches
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
