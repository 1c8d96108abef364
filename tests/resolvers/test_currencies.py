"""A currency enum named by its unit or its sign, and sums of money in any currency.

Phrasings are this file's own.
"""

from __future__ import annotations

import pytest

from agent_lab.resolvers.cues import cued_number, own_words
from agent_lab.resolvers.currencies import currency_spellings, money_codes
from agent_lab.resolvers.enums import read_enum, variants

CODES = ["EUR", "USD", "GBP", "SEK", "CHF"]


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("pay the plumber €85", "EUR"),
        ("it came to 85€", "EUR"),
        ("twelve euros for the taxi", "EUR"),
        ("£30 to my brother", "GBP"),
        ("in pounds please", "GBP"),
        ("$19.99", "USD"),
        ("about 40 dollars", "USD"),
        ("600 Swedish kronor", "SEK"),
        ("300 kr", "SEK"),
        ("in Swiss francs", "CHF"),
        ("200 CHF", "CHF"),
    ],
)
def test_a_unit_or_a_sign_names_the_one_currency_of_the_enum(text: str, code: str) -> None:
    assert read_enum(CODES, text) == code


@pytest.mark.parametrize(
    "text",
    [
        "C$40",  # Canadian dollars: not the enum's dollar
        "euros or pounds?",  # two currencies
        "not in dollars",  # negated
        "a real bargain",  # Brazil's real is no word of this module's
    ],
)
def test_no_currency_where_the_words_do_not_name_one(text: str) -> None:
    assert read_enum([*CODES, "BRL"], text) is None


def test_a_sign_shared_by_two_currencies_of_the_enum_names_neither() -> None:
    assert read_enum(["USD", "CAD"], "send $40") is None
    assert read_enum(["NOK", "DKK"], "500 kroner") is None
    assert read_enum(["NOK", "DKK"], "500 Norwegian kroner") == "NOK"


def test_the_enum_s_own_spelling_comes_first() -> None:
    assert variants("NOK")[0] == "nok"
    assert currency_spellings("XYZ") == ()
    assert currency_spellings("checking") == ()
    assert "ALL" not in money_codes()


@pytest.mark.parametrize(
    ("text", "amount"),
    [
        ("transfer 2,500 NOK to Lars", 2500),
        ("pay 85 euros", 85),
        ("that's ¥1200 right?", 1200),
        ("send her 40 Swiss francs", 40),
    ],
)
def test_a_sum_in_any_currency_is_an_amount(text: str, amount: int) -> None:
    own = frozenset(own_words("amount", "How much to send"))
    assert cued_number("amount", text, own=own) == amount


def test_a_code_in_lower_case_or_a_word_in_capitals_is_no_sum() -> None:
    own = frozenset(own_words("amount", "How much to send"))
    assert cued_number("amount", "book 2 ALL inclusive rooms", own=own) is None


@pytest.mark.parametrize(
    ("codes", "text"),
    [
        (["USD", "EUR"], "40 Canadian dollars"),
        (["GBP", "EUR"], "40 Egyptian pounds"),
        (["NOK", "EUR"], "400 Danish kroner"),
    ],
)
def test_a_unit_another_currency_s_name_ends_names_not_the_enum_s(
    codes: list[str], text: str
) -> None:
    assert read_enum(codes, text) is None


def test_a_sum_in_another_currency_than_the_property_s_is_no_amount_of_it() -> None:
    own = frozenset(own_words("amount", "Amount in USD"))
    assert cued_number("amount", "send 2,500 NOK", own=own) is None
    assert cued_number("amount", "about ¥500", own=own) is None
    assert cued_number("amount", "send $25", own=own) == 25
    assert cued_number("amount", "25 bucks", own=own) == 25


@pytest.mark.parametrize(
    "text",
    ["send €1 000 to Ana", "send 10 000 yen", "send €2.500,00", "send 40 euro cents"],
)
def test_a_sum_with_two_readings_is_no_amount(text: str) -> None:
    own = frozenset(own_words("amount", "How much to send"))
    assert cued_number("amount", text, own=own) is None


@pytest.mark.parametrize("text", ["send $40 CAD to Ana", "$40 (Canadian)", "40 dollars Canadian"])
def test_a_currency_said_after_the_sum_says_whose_it_is(text: str) -> None:
    own = frozenset(own_words("amount", "Amount in USD"))
    assert cued_number("amount", text, own=own) is None
