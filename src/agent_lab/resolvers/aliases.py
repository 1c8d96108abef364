"""Learned alias phrases found in a text in one pass, as ``learned.phrase_pattern`` finds each.

An ``alias`` rule names its value where the user's words hold its phrase, on
word boundaries, any case (``resolvers.learned``). Searched one pattern at a
time, a parameter of 100,000 aliases cost 100,000 searches per request
(issue 36). Here the lowered text and each lowered phrase are cut into
tokens, each a run of word characters or one other character. A phrase is
where its tokens follow one another among the text's, with no word token
just before it or just after it (a word token there could only border a
phrase that begins or ends with another character: the lookarounds of
``phrase_pattern``). Every phrase, and each of its beginnings that ends a
token, is a key of one dict; the text is walked from each token for as long
as some phrase goes on, so the work is linear in the text for phrases of
bounded length (``learned.MAX_PHRASE_CHARS``), whatever their number.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from agent_lab.strict_json import JSONValue

__all__ = ["AliasIndex", "Tokens"]

_TOKEN = re.compile(r"(\w+)|(\W)")
"""A run of word characters (the first group), or any other character alone (the second)."""
_PIECE = re.compile(r"\w+|\W")
"""``_TOKEN`` without its groups: the tokens alone."""


@dataclass(frozen=True, slots=True)
class Tokens:
    """A lowered text cut into tokens, and which of them are words."""

    tokens: tuple[str, ...]
    words: tuple[bool, ...]

    @classmethod
    def of(cls, lowered: str) -> Tokens:
        """The tokens of ``lowered`` (a text already lower case, as the phrases are)."""
        found: list[tuple[str, str]] = _TOKEN.findall(lowered)
        return cls(
            tokens=tuple(word or other for word, other in found),
            words=tuple(bool(word) for word, _ in found),
        )


@dataclass(frozen=True, slots=True)
class AliasIndex:
    """Alias phrases and the values they stand for, found in a text's tokens in one walk."""

    keys: Mapping[str, Mapping[str, JSONValue]]
    """Each lowered phrase, and each beginning of one that ends a token: the values the
    phrase stands for, by their JSON text (none for a beginning that is no phrase)."""

    @classmethod
    def of(cls, aliases: Iterable[tuple[str, JSONValue]]) -> AliasIndex:
        """The index of ``(phrase, value)`` pairs, in their order (a later equal value wins)."""
        keys: dict[str, dict[str, JSONValue]] = {}
        for phrase, value in aliases:
            lowered = phrase.lower()
            start = ""
            for token in _PIECE.findall(lowered)[:-1]:
                start += token
                keys.setdefault(start, {})
            keys.setdefault(lowered, {})[json.dumps(value, sort_keys=True)] = value
        return cls(keys=keys)

    def named(self, text: Tokens) -> dict[str, JSONValue]:
        """The values the phrases ``text`` holds stand for, by their JSON text."""
        named: dict[str, JSONValue] = {}
        tokens, words = text.tokens, text.words
        count = len(tokens)
        for start in range(count):
            if start and words[start - 1]:
                continue  # within a word, or just after one: no phrase begins here
            key = ""
            for end in range(start, count):
                key += tokens[end]
                values = self.keys.get(key)
                if values is None:
                    break
                if values and (end + 1 == count or not words[end + 1]):
                    named.update(values)
        return named
