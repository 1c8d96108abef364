"""Names in the user's words for free-form properties: a place, a title, a person, one or none.

A free-form value (a city, a restaurant, a recipient) has no form to check it
against, so it is read only where English marks it twice: the words are a
name (capitalised, ``San Jose``, ``Atami Sushi Bar & Grill``, not a weekday
nor a month), and a cue says which property it fills:

* a preposition of the property's role: ``from`` a place for an origin
  (``origin_city``, ``from_location``, ``pickup``), ``to`` a place for a
  destination, ``in``/``at``/``near`` for a location (a city, an area), and
  for a destination when the tool has no location nor origin (a hotel's
  ``destination``);
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
from typing import TYPE_CHECKING

from agent_lab.resolvers.cues import name_words
from agent_lab.resolvers.english import MONTHS, WEEKDAYS, stems

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

__all__ = [
    "FreeForm",
    "NameRole",
    "asked_for",
    "may_name",
    "name_role",
    "named_after",
    "names_in",
    "names_unread",
    "read_name",
]

NameRole = str
"""``origin``, ``destination``, ``location``, ``name`` or ``other``."""

_ROLE_WORDS: dict[str, frozenset[str]] = {
    "origin": frozenset(["origin", "from", "source", "departure", "depart", "departing", "start"]),
    "destination": frozenset(["destination", "to", "arrival", "arrive", "arriving", "dest"]),
    "location": frozenset(
        ["location", "city", "area", "town", "place", "where", "region", "locality", "venue",
         "district", "neighborhood", "neighbourhood", "suburb", "borough", "village"]
    ),
    "name": frozenset(["name", "title", "called", "named"]),
}  # fmt: skip
_CUES: dict[str, tuple[str, ...]] = {
    "origin": ("from", "leaving", "departing from", "leaving from", "out of"),
    "destination": ("to", "going to", "traveling to", "travelling to", "headed to", "heading to",
                    "into"),
    "location": ("in", "at", "near", "around", "within"),
    "name": ("called", "named", "titled"),
}  # fmt: skip
# Words a name may hold between its capitalised ones: "Bank of America", "Rocknwraps And
# Kabobs", "Tom & Jerry", "Salt Lake City".
_JOINERS = frozenset(["of", "de", "del", "la", "le", "du", "da", "van", "von", "&", "y", "el",
                      "los", "las", "upon", "-"])  # fmt: skip
# Words of a property's name or description that say its value is not a name: an email, a
# path, an identifier, a number; or that its form is prescribed ("e.g. Boston, MA").
_NOT_A_NAME = re.compile(
    r"\b(?:e-?mail|url|uri|link|path|file|filename|directory|folder|id|ids|identifier|uuid|"
    r"code|number|phone|address|key|token|password|username|handle|hash|format|"
    r"e\.g\.|eg|i\.e\.|for example|such as|for instance)",
    re.IGNORECASE,
)
_NOT_NAMES = frozenset(
    [*MONTHS, *WEEKDAYS, "i", "i'm", "i'd", "i'll", "i've", "today", "tomorrow", "tonight",
     "mon", "tue", "tues", "wed", "thu", "thurs", "fri", "sat", "sun", "jan", "feb", "mar",
     "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "am", "pm", "ok", "okay",
     "yes", "no", "please", "thanks", "thank", "hi", "hello", "hey"]
)  # fmt: skip
# Words English capitalises at a sentence's start that begin no name.
_STARTERS = frozenset(
    ["a", "an", "the", "can", "could", "would", "will", "shall", "should", "may", "might",
     "must", "do", "does", "did", "is", "are", "was", "were", "be", "have", "has", "had",
     "what", "which", "who", "whom", "whose", "when", "where", "why", "how", "i", "you",
     "he", "she", "it", "we", "they", "me", "my", "your", "our", "their", "its", "this",
     "that", "these", "those", "there", "here", "and", "but", "or", "so", "if", "then",
     "also", "just", "great", "good", "sure", "okay", "ok", "yeah", "yep", "alright",
     "perfect", "cool", "nice", "awesome", "fine", "sounds", "find", "search", "look",
     "get", "book", "make", "show", "tell", "give", "let", "let's", "lets", "i'd", "i'm",
     "i'll", "i've", "it's", "that's", "what's", "how's", "actually", "any", "anything",
     "something", "some", "no", "not", "none", "nothing", "all", "both", "either", "for",
     "to", "from", "in", "on", "at", "with", "about", "by", "of", "now", "well", "hmm",
     "oh", "right", "correct", "excellent", "wonderful", "thanks", "thank", "please",
     "near", "around", "inside", "within", "after", "before", "until", "till", "maybe",
     "perhaps", "preferably", "probably", "definitely", "try", "only", "somewhere",
     "anywhere", "yes", "sorry", "hello", "hi", "hey"]
)  # fmt: skip
# A count that starts a sentence ("Three of us") begins no name.
_COUNTS = frozenset(
    ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
     "twelve", "just", "only"]
)  # fmt: skip
_SHOUTED = re.compile(r"^[A-Z][A-Z0-9'&-]+\.?$")
_COURTESY = re.compile(
    r"\b(?:please|thanks|thank you|maybe|perhaps|how about|what about|ok|okay)\b", re.I
)
# Words that may follow a name without being part of it: "in Seattle on the 6th".
_FUNCTION = frozenset(
    ["on", "in", "at", "for", "to", "from", "by", "with", "and", "or", "but", "please",
     "today", "tomorrow", "tonight", "now", "then", "too", "instead", "as", "is", "are",
     "was", "were", "will", "would", "can", "could", "should", "the", "a", "an", "this",
     "that", "next", "around", "near", "area", "if", "so", "because", "since", "before",
     "after", "during", "until", "till", "again", "also", "thanks", "thank", "which",
     "where", "when", "who", "what", "how", "it", "i", "me", "my", "we", "us", "our",
     "you", "your", "they", "them", "there", "here", "do", "does", "did", "be", "been",
     "have", "has", "had", "not", "no", "yes", "about", "over", "under", "up", "down",
     "out", "off", "into", "onto", "than", "via", "per", "all", "any", "some", "one",
     "right", "please.", "okay", "ok", "though", "either", "else", "just", "only", "very",
     "really", "maybe", "perhaps", "later", "soon", "first", "last", "instead"]
)  # fmt: skip
_ABBREVIATION = re.compile(r"^(?:[A-Za-z]\.){2,}$|^[A-Z]\.$|^(?:St|Mt|Ft|Dr|Jr|Sr|Mr|Mrs|Ms)\.$")
_INITIAL = re.compile(r"^[A-Z]\.$")
"""A middle initial: "Herbert C. Berquist"."""
_TOKEN = re.compile(r"[A-Za-z0-9][\w'.&-]*|&|-")
_FILLER = re.compile(r"(?:the\s+)?(?:(?:city|town)\s+of\s+)?", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class _Name:
    text: str
    start: int
    end: int


def _capital(token: str) -> bool:
    return token[:1].isupper() and token.lower().rstrip(".,") not in _NOT_NAMES


def names_in(text: str) -> list[tuple[str, int, int]]:
    """Every run of capitalised words (joined by ``of``, ``&``...) in ``text``: its text and span.

    A run is cut at punctuation that ends a clause; a month, a weekday or ``I`` is no
    name, nor a word English capitalises at a sentence's start (``Can``, ``Please``).
    Runs whose text may not be the value (``SFO``, ``Redwood city``, ``Paris, France``)
    are left out (``_doubtful_names``).
    """
    return list(_scanned(text)[0])


@lru_cache(maxsize=4096)
def _scanned(text: str) -> tuple[tuple[tuple[str, int, int], ...], int]:
    """``_scan``, once per text.

    Every free-form property of a tool asks for the same text's names, and a
    conversation's messages are read again with every later request.
    """
    names, doubtful = _scan(text)
    return tuple(names), doubtful


def _scan(text: str) -> tuple[list[tuple[str, int, int]], int]:
    """The names of ``text``, and how many runs were left out as doubtful."""
    found: list[tuple[str, int, int]] = []
    doubtful = 0
    tokens = list(_TOKEN.finditer(text))
    index = 0
    qualifier = False
    while index < len(tokens):
        token = tokens[index]
        word = token.group()
        if (
            not _capital(word)
            or (word.lower().rstrip(".,!?") in _STARTERS and not _opens_title(text, tokens, index))
            or (word.lower() in _COUNTS and _sentence_start(text, token.start()))
        ):
            index += 1
            continue
        last = index
        probe = index + 1
        while probe < len(tokens) and _continues(tokens[probe - 1].group()):
            gap = text[tokens[probe - 1].end() : tokens[probe].start()]
            if gap.strip(" "):
                break  # punctuation between the words: the name ended
            word = tokens[probe].group()
            if _INITIAL.match(tokens[probe - 1].group()) and (
                word.lower().rstrip(".,!?") in _STARTERS or not _capital(word)
            ):
                break  # "plan B. Then": an initial goes on only into a name
            if _capital(word) or _INITIAL.match(word):
                last = probe
            elif word.lower() not in _JOINERS:
                break
            probe += 1
        start = tokens[index].start()
        qualified = last + 1 < len(tokens) and _qualified(text, tokens[last], tokens[last + 1])
        if (
            qualifier
            or qualified
            or (last + 1 < len(tokens) and _runs_on(text, tokens[last], tokens[last + 1]))
            or any(_SHOUTED.match(tokens[at].group()) for at in range(index, last + 1))
        ):
            # "Redwood city": the name may go on in lower case. "Paris, France": the value
            # may be either or both. "SFO", "NYC", "OAKLAND": an acronym may stand for a
            # longer name, and shouted words are not written as the value is. Either way
            # the text is not surely the value: no name.
            doubtful += 1
            qualifier = qualified
            index = last + 1
            continue
        if (
            last == index
            and _sentence_start(text, tokens[index].start())
            and not _alone(text, tokens[index])
        ):
            # "Check it in DC", "Hmmm, look for sports": English capitalises a sentence's
            # first word, so one capitalised word there is a name only when said alone.
            index += 1
            continue
        if last == index and len(tokens[index].group().rstrip(".,")) < 2:
            index += 1
            continue  # "C" of "C:/data": a letter is no name
        name = tokens[last].group()
        if not _ABBREVIATION.match(name):
            name = name.rstrip(".,")
        end = tokens[last].start() + len(name)
        found.append((text[start:end], start, end))
        index = last + 1
    return found, doubtful


def _runs_on(text: str, last: re.Match[str], after: re.Match[str]) -> bool:
    """Whether the lower-case word right after a name may be part of it (``Redwood city``)."""
    if not _continues(last.group()) or text[last.end() : after.start()].strip(" "):
        return False
    word = after.group().lower().rstrip(".,!?")
    return (
        word[:1].isalpha()
        and word not in _FUNCTION
        and after.group()[:1].islower()
        # "Blue Moon played on the radio": a verb's or an adverb's form ends no name.
        and not word.endswith(("ed", "ing", "ly"))
    )


def may_name(text: str) -> bool:
    """Whether ``text`` may hold a name.

    A capitalised word that is not a month, a weekday or a word English capitalises at
    a sentence's start, a shouted word (``SFO``), or a digit. Generous, for doubt: a
    false alarm costs a request, a miss a wrong value.
    """
    if any(ch.isdigit() for ch in text) or _doubtful_names(text):
        return True
    for token in _TOKEN.finditer(text):
        word = token.group()
        if _capital(word) and word.lower().rstrip(".,!?") not in _STARTERS:
            return True
    return False


def names_unread(text: str, read: Iterable[object]) -> bool:
    """Whether ``text`` holds a name that is none of the values ``read`` from it.

    Narrower than ``may_name``, for a reading already made: "I need a Gynecologist" read
    as the doctor's type names no other place; "Seattle, WA", a name left in doubt, may.
    """
    rest = text
    for value in read:
        if isinstance(value, str) and value.strip():
            rest = re.sub(re.escape(value), " ", rest, flags=re.IGNORECASE)
    return bool(names_in(rest)) or _doubtful_names(rest)


def _doubtful_names(text: str) -> bool:
    """Whether ``text`` holds a run that may be a name ``names_in`` leaves out (``SFO``)."""
    return _scanned(text)[1] > 0


def _opens_title(text: str, tokens: list[re.Match[str]], index: int) -> bool:
    """Whether a capitalised "The" inside a sentence opens a title: "the album The Beginning"."""
    return (
        tokens[index].group() == "The"
        and index + 1 < len(tokens)
        and _capital(tokens[index + 1].group())
        and not _sentence_start(text, tokens[index].start())
        and not text[tokens[index].end() : tokens[index + 1].start()].strip(" ")
    )


def _sentence_start(text: str, at: int) -> bool:
    before = text[:at].rstrip()
    return not before or before[-1] in ".!?\n:;"


def _alone(text: str, token: re.Match[str]) -> bool:
    """Whether the message holds nothing but this word (and courtesy): "Chi-town", "Seattle."."""
    rest = _COURTESY.sub(" ", text[: token.start()] + " " + text[token.end() :])
    return not re.search(r"[A-Za-z0-9]", rest)


def _qualified(text: str, last: re.Match[str], after: re.Match[str]) -> bool:
    """Whether a comma and another name follow (``Manhattan, New York``).

    The value may be the name alone or both, as the tool's convention has it.
    """
    gap = text[last.end() : after.start()]
    ended = last.group().endswith(",") or gap.strip() == ","
    return ended and _capital(after.group())


def _continues(token: str) -> bool:
    """Whether a name may go on past ``token``: not when it ends a sentence or a clause."""
    if token.endswith(","):
        return False
    return not token.endswith(".") or _ABBREVIATION.match(token) is not None


def name_role(name: str, description: str) -> NameRole:
    """What a free-form property names, from its name's words first, then its description's."""
    named = set(name_words(name))
    for role in ("origin", "destination", "location", "name"):
        if named & _ROLE_WORDS[role]:
            return role
    said = {w.lower() for w in re.findall(r"[A-Za-z]+", description)}
    for role in ("origin", "destination", "location"):
        if said & _ROLE_WORDS[role] - {"to", "from", "start", "place", "where"}:
            return role
    return "other"


def named_after(text: str, cues: Iterable[str]) -> set[str]:
    """The names that follow one of ``cues`` in ``text`` (``in San Jose``: San Jose)."""
    found: set[str] = set()
    names = {start: name for name, start, _ in names_in(text)}
    for cue in cues:
        for match in re.finditer(rf"\b{re.escape(cue)}\s+", text, re.IGNORECASE):
            filler = _FILLER.match(text, match.end())
            at = filler.end() if filler else match.end()
            if at in names:
                found.add(names[at])
    return found


@dataclass(frozen=True, slots=True)
class FreeForm:
    """What a free-form property is, for reading its name."""

    name: str
    role: NameRole
    nouns: tuple[str, ...]
    """Its name's words that say what it is (``city``, ``restaurant``), not its role's."""
    own: frozenset[str]
    """Stems of its name's and description's words (``resolvers.cues.own_words``)."""

    @classmethod
    def of(cls, name: str, description: str, own: frozenset[str]) -> FreeForm | None:
        """A property's role and nouns, from its name and description.

        ``None`` for a property whose words say its value is no name (an email, a path,
        an id) or prescribe its form by example ("The city, e.g. Boston, MA"): a name
        read as written may not be in that form.
        """
        if _NOT_A_NAME.search(" ".join(name_words(name))) or _NOT_A_NAME.search(description):
            return None
        role = name_role(name, description)
        skip = {"of", "the", "a", "an", "new", "number", *_ROLE_WORDS["name"]}
        skip |= _ROLE_WORDS["origin"] | _ROLE_WORDS["destination"]
        nouns = tuple(w for w in name_words(name) if len(w) > 2 and w not in skip)
        return cls(name, role, nouns, own)


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
    if prop.role in ("origin", "destination", "location", "name") and alone:
        cues.extend(_CUES[prop.role])
    if prop.role == "location" and {"name", "other"} & set(roles):
        # "at the Grand Cinema": a venue, which the tool names apart.
        cues = [cue for cue in cues if cue != "at"]
    if prop.role == "destination" and alone and not {"location", "origin"} & set(roles):
        cues.extend(_CUES["location"])  # a hotel's destination: "a hotel in Atlanta"
    if cues:
        found |= named_after(text, cues)
    theirs = {noun for other in others for noun in other.nouns}
    nouns = [noun for noun in prop.nouns if noun not in theirs]
    if nouns:
        found |= named_after(text, nouns)
    if not found and asked:
        names = names_in(text)
        if len(names) == 1 and not _doubtful_names(text):
            found.add(names[0][0])
    return found.pop() if len(found) == 1 else None


def asked_for(
    own: Mapping[str, frozenset[str]], asked: str, roles: Mapping[str, NameRole] | None = None
) -> str | None:
    """The one property the assistant's question points at, by its words, or ``None``.

    ``own`` holds every property's words (``resolvers.cues.own_words``): the
    question must share more of them with one property than with any other. A
    ``from`` or ``to`` in it counts for an origin's or a destination's ``roles``.
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
}
