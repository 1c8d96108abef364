"""Numbers in words, as ``resolvers.english`` reads them for every property."""

from __future__ import annotations

import pytest

from agent_lab.resolvers.english import numbers_in


@pytest.mark.parametrize(
    ("text", "found"),
    [
        # "a" before a count is no part of it: the count is three, not "a three".
        ("Is there a three bedroom flat in Delft?", [3.0]),
        ("an eight seat table", [8.0]),
        ("twenty five guests", [25.0]),
        ("forty-two", [42.0]),
        ("a couple of nights", [2.0]),
        ("one two", [1.0, 2.0]),
        ("for 4 and then 7.5", [4.0, 7.5]),
    ],
)
def test_numbers_in_words_and_digits(text: str, found: list[float]) -> None:
    assert numbers_in(text) == found
