"""Names in the user's words for free-form properties: a place, a title, a person, one or none.

A free-form value (a city, a restaurant, a recipient) has no form to check it
against, so it is read only where English marks it twice: the words are a
name (capitalised, ``San Jose``, ``Atami Sushi Bar & Grill``, not a weekday
nor a month), and a cue says which property it fills:

* a preposition of the property's role: ``from`` a place for an origin
  (``origin_city``, ``from_location``, ``pickup``), ``to`` a place for a
  destination, ``in``/``at``/``near`` for a location (a city, an area), and
  for a destination when the tool has no location nor origin (a hotel's
  ``destination``), ``by`` for who made a work (an ``artist``, a director:
  ``directed_by``);
* the property's own noun before it (``the city of Atlanta``, ``restaurant
  Sino``), or ``called``/``named`` for a property that is a name;
* the assistant's question just before (``What city are you traveling to?``):
  the user's reply then holds the one name, when the question's words point at
  one free-form property.

Each cue must point at one property (two origins: none) and hold one name
(two names after ``in``: none). The role of a property comes from its name's
and description's words, never from a list of any dataset's slots.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType
from typing import TYPE_CHECKING

from agent_lab.resolvers.cues import name_words
from agent_lab.resolvers.english import stems
from agent_lab.resolvers.name_forms import value_form
from agent_lab.resolvers.name_runs import KIN, doubtful_names, names_in
from agent_lab.resolvers.regions import is_region

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

__all__ = ["FreeForm", "NameRole", "asked_for", "name_role", "named_after", "read_name"]

NameRole = str
"""``origin``, ``destination``, ``location``, ``creator``, ``recipient``, ``name`` or ``other``."""

_ROLE_WORDS: dict[str, frozenset[str]] = {
    "origin": frozenset(["origin", "from", "source", "departure", "depart", "departing", "start"]),
    "destination": frozenset(["destination", "to", "arrival", "arrive", "arriving", "dest"]),
    "location": frozenset(
        ["location", "city", "area", "town", "place", "where", "region", "locality", "venue",
         "district", "neighborhood", "neighbourhood", "suburb", "borough", "village", "locale",
         "near", "station", "branch", "port", "airport", "terminal"]
    ),
    "creator": frozenset(["artist", "author", "director", "directed", "composer", "singer",
                          "band", "performer", "writer", "creator", "musician"]),
    "recipient": frozenset(["recipient", "payee", "beneficiary", "receiver", "addressee"]),
    "name": frozenset(["name", "title", "called", "named"]),
}  # fmt: skip
_CUES: dict[str, tuple[str, ...]] = {
    "origin": ("from", "leaving", "departing from", "leaving from", "out of"),
    "destination": ("to", "going to", "traveling to", "travelling to", "headed to", "heading to",
                    "into"),
    "location": ("in", "at", "near", "around", "within"),
    "creator": ("by",),
    "recipient": ("to",),
    "name": ("called", "named", "titled"),
}  # fmt: skip
# What a name of a being is the name of: "Book a groom for Biscuit" names the pet, "a
# table for Anna" the guest. A title ("tickets for Hamlet") or a place is named otherwise.
_BEINGS = frozenset(
    ["pet", "dog", "cat", "guest", "patient", "passenger", "child", "kid", "customer",
     "attendee", "person", "owner", "student", "member", "traveler", "traveller", "player",
     "client", "visitor", "holder", "recipient", "contact", "friend"]
)  # fmt: skip
_FILLER = re.compile(r"(?:the\s+)?(?:(?:city|town)\s+of\s+)?", re.IGNORECASE)


_PLACE_NOUNS = frozenset(["location", "point", "place", "city", "town", "station", "address"])


def name_role(name: str, description: str) -> NameRole:
    """What a free-form property names, from its name's words first, then its description's."""
    named = set(name_words(name))
    if "end" in named and (named & _PLACE_NOUNS or named == {"end"}):
        return "destination"  # "end_location", "end": where a route ends; not "end_reason"
    for role in ("origin", "destination", "location", "creator", "recipient", "name"):
        if named & _ROLE_WORDS[role]:
            return role
    said = {w.lower() for w in re.findall(r"[A-Za-z]+", description)}
    for role in ("origin", "destination", "location"):
        if said & _ROLE_WORDS[role] - {"to", "from", "start", "place", "where"}:
            return role
    return "other"


# Words in quotes, as a value is quoted: "the note 'rent'", 'titled "Blue Hour"'. Not an
# apostrophe within a word ("Priya's", "don't"): a quote opens and closes beside no letter.
_QUOTED = re.compile(
    "(?<!\\w)(['\"\u201c\u2018])([^'\"\u201c\u201d\u2018\u2019\\n]{1,80}?)['\"\u201d\u2019](?!\\w)"
)


def named_after(text: str, cues: Iterable[str], *, quoted: bool = False) -> set[str]:
    """The names that follow one of ``cues`` in ``text`` (``in San Jose``: San Jose).

    A name is capitalised; with ``quoted``, words in quotes count too, as a value is
    quoted after the property's own noun (``the note 'rent'``: rent), not after a
    preposition (``in "my hometown"``).
    """
    found: set[str] = set()
    names = _quoted_by_start(text) if quoted else _names_by_start(text)
    if not names:
        return found
    lowered = text.lower()
    for cue in cues:
        if cue.lower() not in lowered:  # a substring test first: most cues are not said
            continue
        for match in _cue_pattern(cue).finditer(text):
            filler = _FILLER.match(text, match.end())
            at = filler.end() if filler else match.end()
            # "to Brandon Lee and Bruce Lee's Grave Site": one name, or two? Neither is read.
            if at in names and not _AND_NAME.match(text, at + len(names[at])):
                found.add(names[at])
    return found


_WORDS = re.compile(r"[a-z]+")
_AND_NAME = re.compile(r"\s+and\s+(?!I\b)[A-Z]")


# Every resolver reads the same texts for each of its properties: the names of a text
# and the pattern of a cue are made once (the reader's hot path, by cProfile on SGD dev).
@lru_cache(maxsize=2048)
def _names_by_start(text: str) -> Mapping[int, str]:
    """Where each name of ``text`` starts: its capitalised runs."""
    return MappingProxyType({start: name for name, start, _ in names_in(text)})


@lru_cache(maxsize=2048)
def _quoted_by_start(text: str) -> Mapping[int, str]:
    """Where each name of ``text`` starts, its quoted words with a letter among them."""
    names = dict(_names_by_start(text))
    for match in _QUOTED.finditer(text):
        quoted = match.group(2).strip()
        if any(char.isalpha() for char in quoted):
            names[match.start()] = quoted
    return MappingProxyType(names)


@lru_cache(maxsize=1024)
def _cue_pattern(cue: str) -> re.Pattern[str]:
    """``cue`` as a word, then "is", "'s", ":" or "=" perhaps ("name is Tom", "ref: X")."""
    return re.compile(rf"\b{re.escape(cue)}(?:\s+is|'s|\s*[:=])?\s+", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class FreeForm:
    """What a free-form property is, for reading its name."""

    name: str
    role: NameRole
    nouns: tuple[str, ...]
    """Its name's words that say what it is (``city``, ``restaurant``), not its role's."""
    own: frozenset[str]
    """Stems of its name's and description's words (``resolvers.cues.own_words``)."""
    labels: tuple[str, ...] = ()
    """Phrases of two words or more its name ends with, that may label its value ("last
    name Okafor", "surname Okafor"); and "name" for the one property that is a name."""
    qualified: bool = False
    """Its description's example is a place and its region ("e.g. San Francisco, CA"): a
    place is read with the region the words give it ("Boston, MA"), or not at all."""
    examples: frozenset[str] = frozenset()
    """Values its description quotes, in lower case ("'Celsius' or 'Fahrenheit'"): a name
    one of them is, is this property's, not another's ("in Austin ... in Celsius")."""
    city: bool = False
    """Its name or description says it is a city or a town: "Vegas" is read "Las Vegas"."""

    @classmethod
    def of(cls, name: str, description: str, own: frozenset[str]) -> FreeForm | None:
        """A property's role and nouns, from its name and description.

        ``None`` for a property whose words say its value is no name (an email, a path,
        an id) or prescribe its form by example ("The city, e.g. Boston, MA"): a name
        read as written may not be in that form.
        """
        form = value_form(name_words(name), description)
        if form is None:
            return None
        role = name_role(name, description)
        skip = {"of", "the", "a", "an", "new", "number", *_ROLE_WORDS["name"]}
        skip |= _ROLE_WORDS["origin"] | _ROLE_WORDS["destination"]
        nouns = tuple(w for w in name_words(name) if len(w) > 2 and w not in skip)
        examples = frozenset(m.group(2).strip().lower() for m in _QUOTED.finditer(description))
        return cls(
            name,
            role,
            nouns,
            own,
            _labels(name_words(name)),
            qualified=form == "qualified",
            examples=examples,
            city=bool({"city", "town"} & {*name_words(name), *_WORDS.findall(description.lower())}),
        )


# Labels people say for the same thing: "surname" for a last name.
_SAME_LABELS = {"last name": ("surname", "family name"), "first name": ("given name",)}


def _labels(words: Sequence[str]) -> tuple[str, ...]:
    """``passenger_last_name``: "passenger last name", "last name", "surname", "family name"."""
    found = [" ".join(words[start:]) for start in range(len(words) - 1)]
    for label, same in _SAME_LABELS.items():
        if label in found:
            found.extend(same)
    # "My name is Sarah" is the speaker's: "name" alone labels only a name the speaker
    # may give as theirs (a guest's, a customer's), not a pet's nor a recipient's; it is
    # kept where no other property of the tool says it.
    if words and words[-1] == "name" and set(words[:-1]) <= _SPEAKERS:
        found.append("name")
    if words and words[-1] == "title":
        found.append("title")  # "the sculpture with title 'David'"
    return tuple(found)


_SPEAKERS = frozenset(
    ["guest", "customer", "client", "user", "contact", "patient", "passenger", "traveler",
     "traveller", "member", "holder", "lead", "booker", "booking", "reservation", "party",
     "full", "your", "my"]
)  # fmt: skip


def read_name(
    prop: FreeForm, others: Sequence[FreeForm], text: str, *, asked: bool = False
) -> str | None:
    """The one name ``text`` gives ``prop``, or ``None``.

    ``others`` are the tool's other free-form properties: a cue one of them
    shares says nothing. ``asked``: the assistant's question just before ``text``
    asked for ``prop`` (``asked_for``), so a reply holding one name gives it.
    """
    roles = [other.role for other in others]
    found: set[str] = set()
    cues: list[str] = []
    alone = prop.role not in roles
    if prop.role in _CUES and alone:
        cues.extend(_CUES[prop.role])
    if prop.role == "location" and {"name", "other"} & set(roles):
        # "at the Grand Cinema": a venue, which the tool names apart.
        cues = [cue for cue in cues if cue != "at"]
    if prop.role == "destination" and alone and not {"location", "origin"} & set(roles):
        cues.extend(_CUES["location"])  # a hotel's destination: "a hotel in Atlanta"
    if cues:
        # "a case titled 'Roe v. Wade'": a name's cue takes words in quotes too.
        named = named_after(text, cues, quoted=prop.role == "name")
        if prop.role == "name":
            # "an alarm called Leave for home": a title runs on in lower case, past its
            # capitals; read as "Leave" it would be cut short.
            named = {n for n in named if not _runs_on(text, n)}
        found |= named
    if prop.role == "name" and alone and _BEINGS & set(prop.nouns):
        # "a table under Marcus"; "a groom for Biscuit" for an animal, as a guest "for" a
        # date is no guest ("for Valentine's", "for Table 12"); not "for Mother's Day".
        cue = ("for", "under") if _ANIMALS & set(prop.nouns) else ("under",)
        found |= {n for n in named_after(text, cue) if not _OCCASION.search(n)}
    theirs = {noun for other in others for noun in other.nouns}
    nouns = [noun for noun in prop.nouns if noun not in theirs]
    labels = [label for label in prop.labels if all(label not in o.labels for o in others)]
    if nouns or labels:
        found |= named_after(text, [*nouns, *labels], quoted=True)
    if nouns and not found:
        # "the Metropolitan Museum of Art" for a museum: a name that says what it names.
        found |= {name for name, _, _ in names_in(text) if _says(name, nouns)}
    if not found and asked:
        names = names_in(text)
        if len(names) == 1 and not doubtful_names(text):
            found.add(names[0][0])
    found = {n for n in found if all(n.lower() not in other.examples for other in others)}
    if prop.qualified:
        # The form asks for a place and its region: one said so, and no other place.
        places = _places_with_regions(text, [*cues, *nouns])
        found = places if {p.split(",")[0] for p in places} >= found else set()
    return _owned(text, found.pop(), prop.role) if len(found) == 1 else None


_KIN_BEFORE = re.compile(rf"{KIN}\s+$", re.IGNORECASE)


def _owned(text: str, name: str, role: NameRole) -> str | None:
    """``name``, or its owner when it is a possessive before a noun ("to Amir's account").

    The owner is a recipient's name; for any other role, "Joe's place" may be the name
    of a place or the place of Joe: neither is read. A name after a word of kin is not
    read either: "aunt Jenny" is saved as Jenny or as "Aunt Jenny".
    """
    if _KIN_BEFORE.search(text, max(0, text.find(name) - 16), max(0, text.find(name))):
        return None  # "my aunt Jenny": Jenny, or "aunt Jenny" as the contact is saved?
    if not re.search(r"['\u2019]s$", name):
        return name
    if not re.search(re.escape(name) + r"\s+[a-z]", text):
        return name  # "a table at Luigi's.": the name of the place
    return name[:-2] if role == "recipient" else None


def _says(name: str, nouns: Sequence[str]) -> bool:
    """Whether a capitalised ``name`` holds one of ``nouns`` inside it ("Museum of Art").

    Not as its last word: "the Hilton Hotel" for a hotel chain, "Beef Lasagna Recipe" for a
    recipe may or may not be written with it.
    """
    words = {word.lower().rstrip("s") for word in name.split()[1:-1] if word[:1].isupper()}
    return any(noun.rstrip("s") in words for noun in nouns)


_ANIMALS = frozenset(["pet", "dog", "cat", "horse", "animal"])

# Days and seasons "for" may name: "flowers for Mother's Day", "a groom for Easter".
_OCCASION = re.compile(
    r"\b(?:day|eve|night|weekend|week|morning|afternoon|evening|easter|christmas|xmas|"
    r"thanksgiving|halloween|hanukkah|diwali|ramadan|eid|passover|new year)\b",
    re.IGNORECASE,
)


# A place and its region after a cue: "in Boston, MA", "near Austin, Texas".
# Bounded: five words of a place, three of a region, matched at each cue only.
_PLACE_AND_REGION = re.compile(
    r"([A-Z][\w'.-]{0,40}(?:\s(?:[A-Z][\w'.-]{0,40}|of|de|del|la|le)){0,4}),\s*"
    r"([A-Z][A-Za-z]{0,40}(?:\s[A-Z][a-z]{0,40}){0,2})\b(?!\s*(?:,|and\b|or\b))"
)


def _places_with_regions(text: str, cues: Sequence[str]) -> set[str]:
    """Each place said with its region after one of ``cues``, as written ("Boston, MA")."""
    found: set[str] = set()
    for cue in cues:
        for match in _cue_pattern(cue).finditer(text):
            filler = _FILLER.match(text, match.end())
            at = filler.end() if filler else match.end()
            place = _PLACE_AND_REGION.match(text, at)
            if place is None or not is_region(place.group(2), expected=True):
                continue
            # "in Paris, OK?": a code that is a word, asked, is the word.
            asked = text[place.end() : place.end() + 1] == "?"
            if asked and place.group(2).lower() in _TAGS:
                continue
            found.add(f"{place.group(1)}, {place.group(2)}")
    # "in Boston, MA - sorry, I mean Denver, CO": another place with a region, cued or
    # not, leaves it to the model.
    said = {
        f"{m.group(1)}, {m.group(2)}"
        for m in _PLACE_AND_REGION.finditer(text)
        if is_region(m.group(2), expected=True)
    }
    if len(said) > 1 or _CORRECTION.search(text):
        return set()  # "Springfield, IL? my bad, Springfield Missouri"
    return found


_CORRECTION = re.compile(
    r"\b(?:sorry|my bad|i mean|i meant|actually|correction|scratch that|no,|not)\b", re.I
)


_TAGS = frozenset(["ok", "no", "so", "do", "is", "it", "me", "hi", "am", "on", "at", "by", "to",
                   "as", "be", "in", "oh"])  # fmt: skip


# After a title's capitals, what may end it: a value's cue, a number, a clause's end.
_TITLE_ENDS = frozenset(
    ["at", "on", "in", "by", "with", "from", "to", "and", "or", "please", "for", "every",
     "each", "tomorrow", "today", "tonight", "that", "which", "is", "was", "will"]
)  # fmt: skip
_AFTER_NAME = re.compile(r"\s+([a-z][a-z']*)(?:\s+([A-Za-z][\w']*))?")


def _runs_on(text: str, name: str) -> bool:
    """Whether a title after its cue goes on in lower case ("called Leave for home")."""
    for match in re.finditer(re.escape(name), text):
        after = _AFTER_NAME.match(text, match.end())
        if after is None:
            continue
        word, following = after.group(1), after.group(2)
        if word not in _TITLE_ENDS:
            return True  # "Leave home now", "Gym time"
        if (
            word == "for"
            and following
            and following[0].islower()
            and not _TIME_AFTER.match(following)
        ):
            return True  # "Leave for home", not "for 7 pm" nor "for tomorrow"
    return False


_TIME_AFTER = re.compile(r"(?:\d|tomorrow|today|tonight|noon|midnight|morning|evening|"
                         r"afternoon|monday|tuesday|wednesday|thursday|friday|saturday|sunday)",
                         re.IGNORECASE)  # fmt: skip


def asked_for(
    own: Mapping[str, frozenset[str]], asked: str, roles: Mapping[str, NameRole] | None = None
) -> str | None:
    """The one property the assistant's question points at, by its words, or ``None``.

    ``own`` holds every property's words (``resolvers.cues.own_words``): the
    question must share more of them with one property than with any other. A
    ``from`` or ``to`` in it counts for an origin's or a destination's ``roles``, a
    ``where`` or an ``area`` for a place's.
    """
    if "?" not in asked:
        return None
    words = re.findall(r"[A-Za-z]+", asked.lower())
    said = stems(words)
    cued = {role for role, cues in _QUESTION_CUES.items() if cues & set(words)}

    def score(name: str) -> int:
        bonus = 1 if roles is not None and roles.get(name) in cued else 0
        return len(said & own[name]) + bonus

    shared = sorted(((score(name), name) for name in own), reverse=True)
    if not shared or shared[0][0] == 0 or (len(shared) > 1 and shared[1][0] == shared[0][0]):
        return None
    return shared[0][1]


_QUESTION_CUES: dict[str, frozenset[str]] = {
    "origin": frozenset(["from", "departing", "leaving", "origin", "start"]),
    "destination": frozenset(["to", "going", "heading", "headed", "destination", "arriving"]),
    # "What's your desired pickup area?": the place, where pickup's date and time tie.
    "location": frozenset(["where", "area", "city", "town", "place", "location", "locality",
                           "region", "neighborhood", "neighbourhood", "district", "suburb"]),
}  # fmt: skip
