"""A look-up and the act on the same thing, told apart by the verb the message says.

``SearchHotel`` and ``ReserveHotel``, ``find_flights`` and ``book_flights``:
the words of the thing are the same, so a lexical score cannot tell them
apart ("a one way flight" ties the search and the booking). The verb can:
"find me a hotel" asks for the look-up, "book the hotel" for the act. A pair
is two tools whose names hold the same words past their first verb, or the
words of one all in the other's (``FindEvents`` and ``BuyEventTickets``), one
that looks up and one that acts (``tool_specs.acts``), and no third tool of
either kind on that thing. A message with verbs of both
kinds, or of neither ("I need a one way flight"), chooses neither.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from agent_lab.agents.tool_specs import acts

if TYPE_CHECKING:
    from agent_lab.kernel.registry import EventDefinition

__all__ = ["ActPair", "asks_for_act", "by_verb", "singular"]

# What people say to look something up, and to act (as words, lower case).
_LOOK_UP = re.compile(
    r"\b(?:find|finding|search|searching|look(?:ing)? (?:for|up)|show|list|browse|"
    r"are there any|is there any|any available|what are|which)\b",
    re.IGNORECASE,
)
# Verbs that ask for the act, not nouns of one ("I have a booking", "in order of date",
# "on my schedule") nor past ones ("thanks for booking").
_ACT = re.compile(
    r"\b(?:book|reserve|buy|purchase|"
    r"(?<!\bmy )(?<!\bthe )(?<!\byour )(?<!\ba )(?:schedule|arrange) (?:a|an|the|my|it|this)\b|"
    r"make (?:a|the|my) (?:booking|reservation|purchase))\b",
    re.IGNORECASE,
)
# A verb of either kind negated ("I don't want to book"): the verb chooses nothing.
_NEGATED = re.compile(
    r"(?:\b(?:not|no|never)|n't)\W+(?:\w+\W+){0,3}?(?:find|search|look|book|reserve|buy|"
    r"purchase|make)\b",
    re.IGNORECASE,
)
_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


class ActPair:
    """The look-up and act pairs among a plugin set's events."""

    def __init__(self, definitions: tuple[EventDefinition, ...]) -> None:
        things = {d.name: frozenset(_thing(d.name)) for d in definitions}
        acting = {d.name: acts(d.name, d.description) for d in definitions}
        self._partner: dict[str, tuple[str, str]] = {}
        for look in (name for name in things if things[name] and not acting[name]):
            # The act on the same thing, or on a part of it (FindEvents, BuyEventTickets;
            # GetCarsAvailable, ReserveCar); with two such acts, or two such look-ups,
            # the verb cannot choose.
            does = [name for name in things if acting[name] and _same(things[look], things[name])]
            looks = [
                name
                for name in things
                if not acting[name] and len(does) == 1 and _same(things[name], things[does[0]])
            ]
            if len(does) == 1 and looks == [look]:
                self._partner[look] = self._partner[does[0]] = (look, does[0])

    def choose(self, first: str, second: str, text: str) -> str | None:
        """Which of ``first`` and ``second`` the verb of ``text`` asks for, if they pair."""
        pair = self._partner.get(first)
        if pair is None or second not in pair:
            return None
        return by_verb(text, *pair)


def by_verb(text: str, look_up: str, act: str) -> str | None:
    """``look_up`` or ``act``, by the one kind of verb ``text`` says; ``None`` otherwise."""
    if _NEGATED.search(text):
        return None
    looks, does = _LOOK_UP.search(text) is not None, _ACT.search(text) is not None
    if looks == does:
        return None
    return look_up if looks else act


def asks_for_act(text: str) -> bool:
    """Whether ``text`` says a verb that asks for an act, and none that looks up.

    "Please purchase the ticket", "I'd like to arrange a visit": not "find and book".
    """
    return not _NEGATED.search(text) and by_verb(text, "look", "act") == "act"


def _thing(name: str) -> tuple[str, ...]:
    """The words of a tool's name past its namespace and first verb, singular, lower case.

    ``Flights_1__SearchOnewayFlight``: (oneway, flight); ``book_flights``: (flight,).
    """
    own = name.rsplit("__", 1)[-1]
    words = [w.lower() for w in _WORDS.findall(own) if not w.isdigit()]
    return tuple(singular(word) for word in words[1:])


def _same(one: frozenset[str], other: frozenset[str]) -> bool:
    """Whether two tools' things are one: the words of either are all the other's."""
    return bool(one) and bool(other) and (one <= other or other <= one)


def singular(word: str) -> str:
    """A word's singular, as plain English writes most ("flights": flight; not "bus")."""
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word
