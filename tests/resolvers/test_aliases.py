"""The alias index finds what each alias's own pattern finds, in one walk of the text."""

from __future__ import annotations

import json
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_lab.resolvers.aliases import AliasIndex, Tokens
from agent_lab.resolvers.learned import phrase_pattern

# Word characters, others, and the cases where lower() and \w disagree with the eye:
# "İ" lowers to two characters, the second no word character; "_" and digits are word ones.
PIECES = ["new", "york", "NY", "a", "b1", "_", " ", "  ", "-", ".", "#", "'", "é", "İ", "ß", "\n"]
phrases = st.lists(st.sampled_from(PIECES), min_size=1, max_size=5).map("".join)


def one_at_a_time(aliases: list[tuple[str, int]], text: str) -> dict[str, int]:
    """What the resolver did, alias by alias: each value whose phrase's pattern matches."""
    lowered = text.lower()
    return {
        json.dumps(value, sort_keys=True): value
        for phrase, value in aliases
        if phrase_pattern(phrase).search(lowered)
    }


@settings(max_examples=400, deadline=None)
@given(
    aliases=st.lists(st.tuples(phrases, st.integers(0, 3)), min_size=1, max_size=8),
    text=st.lists(st.sampled_from(PIECES), max_size=12).map("".join),
)
def test_the_index_names_what_each_pattern_finds(aliases: list[tuple[str, int]], text: str) -> None:
    """Any phrases, any text: the values named are those of the phrases whose patterns match."""
    index = AliasIndex.of(aliases)
    assert index.named(Tokens.of(text.lower())) == one_at_a_time(aliases, text)


@settings(max_examples=100, deadline=None)
@given(aliases=st.lists(st.tuples(phrases, st.integers(0, 3)), min_size=1, max_size=8))
def test_a_text_holding_a_phrase_names_its_value(aliases: list[tuple[str, int]]) -> None:
    """Each phrase, said in a sentence, is found (the random texts above rarely hold one)."""
    index = AliasIndex.of(aliases)
    for phrase, value in aliases:
        text = f"please, {phrase} ; thanks"
        named = index.named(Tokens.of(text.lower()))
        assert named == one_at_a_time(aliases, text)
        if phrase_pattern(phrase).search(text.lower()):
            assert json.dumps(value) in named


def test_many_aliases_cost_a_walk_of_the_text_not_a_search_each() -> None:
    """30,000 phrases, a long text: found in one walk (issue 36: many aliases cost minutes)."""
    aliases = [(f"place number {i} of ours", i % 3) for i in range(30_000)]
    aliases.append(("the eternal city", 9))
    index = AliasIndex.of(aliases)
    text = Tokens.of(("weather in the eternal city please, place number 7 of ours " * 200).lower())
    started = time.perf_counter()
    named = index.named(text)
    assert time.perf_counter() - started < 1.0  # a search per phrase: minutes
    assert named == {"9": 9, "1": 1}
