"""Reading a named property's value in English: the number beside its words, a flag said or not.

A property's name says what the text calls it: ``number_of_checked_bags``
is cued by "two checked bags" or "bags: 2", ``has_wifi`` by "with wifi" or
"no wifi". Each reader gives a value only when there is one reading.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from agent_lab.resolvers.currencies import (
    codes_after,
    codes_in_words,
    codes_named,
    money_codes,
    money_signs,
    money_units,
)
from agent_lab.resolvers.doubts import Sentences
from agent_lab.resolvers.english import NUMBER, WORD, stems, words_to_number

if TYPE_CHECKING:
    from collections.abc import Set

__all__ = [
    "counted_in",
    "counted_pair",
    "cued_number",
    "head",
    "name_words",
    "nouns",
    "own_words",
    "speaks_of_money",
    "stated",
]

# Words after a number that leave it free to count this property: no noun ("make it
# two please") or people, whom most counts count.
_ANY_COUNT = frozenset(
    ["please", "instead", "then", "for", "on", "at", "in", "of", "and", "or", "but", "to",
     "is", "are", "will", "would", "that", "this", "if", "so", "now", "people", "persons"]
)  # fmt: skip
_COUNT_WORDS = {"number", "num", "of", "count", "total", "the", "a", "an", "n"}
# Description words too common to be a sign of anything.
_STOP_WORDS = {
    "the", "and", "for", "with", "that", "this", "which", "what", "whether", "are", "is",
    "be", "you", "your", "user", "name", "type", "value", "date", "time", "want", "wants",
    "from", "will", "has", "have", "can", "not", "any", "all", "one", "its", "into", "per",
    "event", "like", "default", "preference", "no", "to", "in", "on", "at", "or", "by",
}  # fmt: skip
_RELATIVE = re.compile(r"\s*(?:ago|back|before|earlier|later|from now)\b", re.IGNORECASE)


def name_words(name: str) -> list[str]:
    """``numberOfChecked_bags`` -> ``["number", "of", "checked", "bags"]``."""
    words = re.sub(r"(?<=[a-z])(?=[A-Z])", "_", name).lower().replace("-", "_").split("_")
    return [w for w in words if w]


def nouns(name: str) -> list[str]:
    """``number_of_checked_bags`` -> ``["checked", "bags"]``: the words a count is of."""
    return [w for w in name_words(name) if w not in _COUNT_WORDS]


def head(name: str) -> str | None:
    """The word a property is about: ``speed_of_light`` -> speed, ``checked_bags`` -> bags."""
    words = name_words(name)
    for joint in ("of", "per"):
        if joint in words[1:]:
            before = [w for w in words[: words.index(joint)] if w not in _COUNT_WORDS]
            if before:
                return before[-1]
    found = [w for w in words if w not in _COUNT_WORDS]
    return found[-1] if found else None


_COUNTED = re.compile(
    r"\b(?:number|count|how many) of (?:the |a |an |your |their )?([a-z]+)(?:\s+([a-z]+))?\b",
    re.IGNORECASE,
)
# Words that end what a description counts: "Number of baths in the flat" counts baths.
_NOT_COUNTED = frozenset(
    ["in", "of", "the", "to", "for", "that", "which", "who", "on", "at", "per", "and", "or",
     "with", "from", "by", "is", "are", "be", "will", "you", "user", "a", "an", "default",
     "being", "this", "it", "they", "as", "where", "when"]
)  # fmt: skip


def counted_in(description: object) -> str | None:
    """What a description says a number counts: "Number of bikes, default 1": bikes."""
    if not isinstance(description, str):
        return None
    found = {first.lower() for first, _ in _COUNTED.findall(description[:500])}
    return found.pop() if len(found) == 1 else None


def counted_pair(description: object) -> str | None:
    """Two words a description says a number counts: "Number of bed rooms": ``bed_rooms``.

    ``None`` when the count is of one word ("Number of baths in the flat").
    """
    if not isinstance(description, str):
        return None
    found = {
        f"{first}_{second}".lower()
        for first, second in _COUNTED.findall(description[:500])
        if second and second.lower() not in _NOT_COUNTED
    }
    return found.pop() if len(found) == 1 else None


def own_words(name: str, description: str) -> set[str]:
    """Stems of a property's name and description: signs that a text speaks of it."""
    described = WORD.findall(description)
    return stems(nouns(name)) | (stems(described) - stems(list(_COUNT_WORDS | _STOP_WORDS)))


# Words that may not sit between a number and its noun ("6 and height 10").
_LINKS = r"(?!(?:and|or|to|from|of|by|with|than|per|in|at|for|is|are|the)\b)"
# "1,120" is one number in English, not 1 then 120.
_SIGNED = rf"(?:-?\d{{1,3}}(?:,\d{{3}})+(?:\.\d+)?|-?\d+(?:\.\d+)?(?:e-?\d+)?|{NUMBER})"


# A number read with a unit of scale or as a percentage has two readings
# (5% is 5 or 0.05, "50 million" is 50 or 50000000): not confident.
_SCALED = re.compile(
    r"\s*(?:%|percent\b|per cent\b|hundred\b|million\b|billion\b|thousand\b|k\b)", re.I
)


# A number in words after words it goes on from ("one hundred and sixty"): the last word
# alone is not the number, and this reader does not add them up. Digits after "and" are
# their own number ("2 adults and 3 children").
_SCALED_BEFORE = re.compile(
    r"\b(?:(?:hundred|thousand|million|billion)(?:\s+and)?|one|two|three|four|five|six|seven|"
    r"eight|nine)[\s-]+$",
    re.IGNORECASE,
)


def cued_number(
    name: str,
    text: str,
    *,
    head_alone: bool = True,
    own: frozenset[str] = frozenset(),
    money: bool = True,
) -> float | None:
    """The one number next to the property's words.

    ``two bags``, ``3 checked bags`` (number first, at most one word between),
    ``height 10``, ``c=3``, ``height of 7``, ``x = -2`` (word first). The whole
    name (``decay rate``) is looked for first, then its head word alone. A
    relative number (``six years ago``), a percentage or a scaled one, or two
    different readings give nothing; so does a number only asked about (``is
    that for two people?``) or taken back afterwards (``3 tickets. Actually,
    make it two``): see ``resolvers.doubts``. ``own`` holds the stems of the
    property's own words (``own_words``): a number restated after a
    correction counts when it is bare or beside one of them. ``money``: whether a
    property whose words speak of money may take a sum ("$800"); not one that
    counts or is measured in a unit ("The number of periods the money is invested").
    """
    about = head(name)
    if about is None:
        return None
    words = [w for w in nouns(name) if w != "per"]
    phrases = (
        # "bed rooms" as "bedrooms" too, and "check-in" as "check in".
        [
            r"[\s-]*".join(re.escape(w) for w in words[:-1])
            + rf"[\s-]*{re.escape(words[-1].rstrip('s'))}"
        ]
        if len(words) > 1
        else []
    )
    # When two properties share a head word (start_year, end_year), the head
    # alone cannot say which one a number belongs to.
    alone = [re.escape(about.rstrip("s"))] if head_alone or not phrases else []
    for phrase in [*phrases, *alone]:
        found = _numbers_by(rf"{phrase}(?:s|es)?", text)
        if found is None:
            return None
        if found:
            return stated(found, text, own | stems(words))
    if own & _PEOPLE_STEMS:
        # A count of people for a property that counts them ("guests", "party size"):
        # "4 people", "four of us", "a party of 4".
        found = _numbers_by(_PEOPLE_NOUNS, text)
        if found is None:
            return None
        found += _party_of(text)
        if found:
            return stated(found, text, own | stems(words) | _PEOPLE_STEMS)
    if money and own & _MONEY_STEMS:
        # A sum of money for a property that is one ("amount", "price"): "$800", "1,450
        # bucks", "twenty euros".
        found = _money(text, codes_in_words(own))
        if found is None:
            return None
        if found:
            return stated(found, text, own | stems(words))
    return None


def speaks_of_money(own: Set[str]) -> bool:
    """Whether a property's own words (``own_words``) say it is a sum ("Maximum price")."""
    return bool(own & _MONEY_STEMS)


_MONEY_STEMS = frozenset(
    stems(["amount", "money", "price", "cost", "fee", "sum", "payment", "balance", "fare",
           "budget", "charge", "deposit"])
)  # fmt: skip
_SIGNS = "|".join(re.escape(sign) for sign in money_signs())
_UNITS = "|".join(
    re.escape(unit) for unit in sorted({*money_units(), "bucks"}, key=len, reverse=True)
)
_MONEY = re.compile(
    rf"({_SIGNS})\s?({_SIGNED})|(?<![\w.,-])()({_SIGNED})\s*({_UNITS})\b", re.IGNORECASE
)
# "2,500 NOK": a code after a number, in capitals as codes are written ("2 all" is no sum).
# A number that goes on past a space or a decimal comma, or a sum in cents.
_SPLIT_NUMBER = re.compile(
    r"\s\d{3}\b|,\d|\s*(?:[a-z]+\s+)?(?:cents?|pence|penny|centimes?)\b", re.IGNORECASE
)
_SPLIT_BEFORE = re.compile(r"\d\s$")
# The groups as _MONEY's: sign, number after it, (none), number before a word, the word.
_MONEY_CODE = re.compile(rf"(?<![\w.,-])()()()({_SIGNED})\s*({'|'.join(money_codes())})\b")


def _money(text: str, wanted: frozenset[str] = frozenset()) -> list[tuple[float, int, int]] | None:
    """The sums of money in ``text``, each with its place; ``None`` for a scaled one.

    ``wanted``: the currencies the property is in ("Amount in USD"); a sum in another
    ("2,500 NOK") is none of its.
    """
    found: list[tuple[float, int, int]] = []
    matches = sorted(
        [*_MONEY.finditer(text), *_MONEY_CODE.finditer(text)], key=lambda match: match.start()
    )
    for match in matches:
        group = 2 if match.group(2) else 4
        said = match.group(1) if match.group(1) else match.group(5)
        if _SPLIT_NUMBER.match(text, match.end(group)) or _SPLIT_BEFORE.search(
            text, 0, match.start(group)
        ):
            return None  # "€1 000", "2.500,00 €", "40 euro cents": two readings
        # A currency said after the sum says which its sign or unit is ("$40 CAD").
        named = codes_after(text[match.end() : match.end() + 30])
        if not named and said and said.lower() != "bucks":
            named = codes_named(said)
        if wanted and named and not named & wanted:
            continue  # "2,500 NOK", "$40 CAD" for an amount in US dollars
        token = match.group(group)
        if token.lower() in ("a", "an"):
            continue
        if _SCALED.match(text, match.end(group)) or (
            token.isalpha()
            and _SCALED_BEFORE.search(text, max(0, match.start(group) - 24), match.start(group))
        ):
            return None  # "$5 million", "seven hundred and sixty bucks": not this word alone
        value = _to_number(token)
        if value is not None:
            found.append((value, match.start(group), match.end(group)))
    return found


# Words that name people, by their stems (``resolvers.english.stems``), and as counted.
# A seat or a ticket is one person's: "2 tickets" counts the seats, "for 3 people" the tickets.
_PEOPLE_STEMS = frozenset(
    ["guest", "people", "person", "passenger", "traveler", "traveller", "rider", "attendee",
     "diner", "adult", "party", "group", "seat", "ticket"]
)  # fmt: skip
_PEOPLE_NOUNS = (
    r"(?:people|persons|person|guests?|passengers?|travell?ers?|riders?|attendees?|diners?|"
    r"adults?|of us|tickets?|seats?)"
)
_PARTY_OF = re.compile(
    rf"\b(?:(?:party|group) of|(?:table|reservation|booking) for)\s+({NUMBER})\b"
    r"(?!\s*(?:[ap]\.?m\b|:|o.clock))",
    re.IGNORECASE,
)


def _party_of(text: str) -> list[tuple[float, int, int]]:
    found: list[tuple[float, int, int]] = []
    for match in _PARTY_OF.finditer(text):
        value = _to_number(match.group(1))
        if value is not None:
            found.append((value, match.start(1), match.end(1)))
    return found


def stated(found: list[tuple[float, int, int]], text: str, own: Set[str]) -> float | None:
    """The one value of the readings found, unless only asked about or taken back."""
    sentences = Sentences(text)
    kept = {value for value, start, _ in found if not sentences.asked_about(start)}
    if len(kept) != 1:
        return None
    last = max(end for _, _, end in found)
    if sentences.corrected_after(last, lambda said: _restated(said, own)):
        return None
    return kept.pop()


# A number and the word after it: "make it two.", "3 tickets", "one for Friday".
_COUNT = re.compile(rf"(?<![\w.]){NUMBER}(?![\w])(?:\s+({WORD.pattern}))?", re.IGNORECASE)
_PRONOUN_NUMBERS = frozenset(["a", "an", "one"])


def _restated(said: str, own: Set[str]) -> bool:
    """A number in ``said`` beside one of ``own``'s words, or bare (``make it two``).

    A number beside another noun speaks of something else (``for 2 days``),
    and ``one`` without one of the words is a pronoun (``I want one for Friday``).
    """
    for match in _COUNT.finditer(said):
        after = match.group(1)
        if after is not None and stems([after]) & own:
            return True
        bare = after is None or after.lower() in _ANY_COUNT
        if bare and match.group(0).split()[0].lower() not in _PRONOUN_NUMBERS:
            return True
    return False


def _numbers_by(noun: str, text: str) -> list[tuple[float, int, int]] | None:
    """The numbers next to ``noun``, each with its place in the text.

    ``None`` when one of them has two readings (5%).
    """
    # "2-bed", "3 checked bags", "two tickets"; not "one-way tickets": a number joined to
    # another word by a hyphen says what kind, not how many of the noun.
    forward = rf"(?<![\w.,-])({_SIGNED})(?:\s*-\s*|\s*(?:{_LINKS}[a-z]+(?:-[a-z]+)*\s+)?){noun}\b"
    backward = rf"\b{noun}\s*(?:=|:|\bis\b|\bof\b|\bas\b)?\s*({_SIGNED})(?!\w|[.,]\d)"
    found: list[tuple[float, int, int]] = []
    for pattern in (forward, backward):
        for match in re.finditer(pattern, text, re.IGNORECASE):
            token = match.group(1)
            if token.lower() in ("a", "an"):
                continue
            if pattern is forward and _RELATIVE.match(text, match.end()):
                continue
            if _SCALED.match(text, match.end(1)) or (
                token.isalpha()
                and _SCALED_BEFORE.search(text, max(0, match.start(1) - 24), match.start(1))
            ):
                return None
            value = _to_number(token)
            if value is not None:
                found.append((value, match.start(1), match.end(1)))
    return found


def _to_number(token: str) -> float | None:
    try:
        return float(token.replace(",", ""))
    except ValueError:
        return words_to_number(token)
