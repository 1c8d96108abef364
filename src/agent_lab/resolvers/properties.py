"""What the schema says each property is, as the schema-driven resolver reads it.

A property's kind, its own words, its enum's rivals, the rules ``agent-lab learn``
wrote into its hint, and the signs that a text may state it: built once per schema
(``SchemaResolver``), read for every event.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from agent_lab.resolvers.aliases import AliasIndex
from agent_lab.resolvers.english import DATE_WORDS, TIME_WORDS, WORD, numbers_in, stems
from agent_lab.resolvers.enums import Rival, variants
from agent_lab.resolvers.learned import context_pattern
from agent_lab.resolvers.name_runs import may_name, names_unread

if TYPE_CHECKING:
    from collections.abc import Iterable

    from agent_lab.resolvers.names import FreeForm
    from agent_lab.strict_json import JSONValue

    Learned = tuple[
        AliasIndex | None,
        tuple[JSONValue, ...],
        tuple[re.Pattern[str], ...],
        Mapping[str, JSONValue] | None,
    ]

__all__ = [
    "Property",
    "evidence",
    "learned_hints",
    "leftover",
    "listed",
    "members",
    "spellings_of",
    "with_rivals",
    "with_signs",
]


def evidence(
    prop: Property,
    text: str,
    read: Iterable[object] | None = None,
    ignore: frozenset[str] = frozenset(),
) -> bool:
    """Whether the text may state this property's value in a way not read here.

    Deliberately generous: a false alarm costs one fallback request, a miss a
    wrong answer. The signs: the property's own words (``seats`` is not
    needed: ``passengers``'s description says ``seats``), any number for a
    numeric property, date or time words for those, a word of an enum value,
    and for free-form text a word that may be a name (``resolvers.names.may_name``);
    given the values ``read`` from the text, a name none of them is. Words to ``ignore``
    (the tool's own name's: "movies" for ``FindMovies``) are no sign of a property,
    unless its own name has them.
    """
    said = stems([part for word in WORD.findall(text) for part in word.split("-")])
    if read is not None:
        # A word of a value read is accounted for: "music events" read as the event type
        # says nothing of a category whose description says "music".
        read = list(read)
        said -= stems([w for value in read if isinstance(value, str) for w in WORD.findall(value)])
    if said & ((prop.signs - ignore) | prop.named):
        return True
    if prop.kind == "number":
        return bool(_numbers_unread(text, read))
    if prop.kind in ("date", "time"):
        # A digit is a sign, unless it is a number read for another value ("3 seats"), or,
        # for a date, a clock time read for a time ("at 10:30 am").
        if prop.kind == "date" and read is not None:
            read = list(read)
            if any(isinstance(value, str) and _CLOCK_VALUE.fullmatch(value) for value in read):
                text = _CLOCK.sub(" ", text)
        words = DATE_WORDS if prop.kind == "date" else TIME_WORDS
        digits = re.search(r"\d", text) is not None
        return bool(
            words.search(text)
            or (digits and (read is None or _numbers_unread(text, read) or _digits_left(text)))
        )
    if prop.kind == "enum":
        # A count in words ("a three bedroom flat") is as much a sign of an enum of counts
        # as its digits are.
        if said & prop.value_words:
            return True
        counts = {count for value in members(prop) if (count := _as_count(value)) is not None}
        if counts:
            return not counts.isdisjoint(_numbers_unread(text, read))
        # "a small car" for a car's type: a kind of the subject no member's word says.
        return _modifies(text, prop.subject, read)
    if prop.kind == "free-form":
        named = may_name(text) if read is None else names_unread(text, read)
        return named or _modifies(text, prop.subject)
    return False


_CLOCK_VALUE = re.compile(r"\d{1,2}:\d{2}(?::\d{2})?")
"""A time as a schema writes it: ``19:30``."""
_CLOCK = re.compile(r"\b\d{1,2}(?::\d{2})?\s*(?:[ap]\.?m\b\.?)|\b\d{1,2}:\d{2}\b", re.IGNORECASE)
"""A clock time as people write it: "10:30 am", "7pm", "19:30"."""


def _numbers_unread(text: str, read: Iterable[object] | None) -> list[float]:
    """The numbers of ``text`` no value ``read`` accounts for, one each ("3 beds": none)."""
    numbers = numbers_in(text)
    for value in read or ():
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            continue
        try:
            number = float(value)
        except ValueError:
            continue
        if number in numbers:
            numbers.remove(number)
    return numbers


def _as_count(value: object) -> float | None:
    """An enum member as the count it writes ("3" -> 3.0), or ``None``."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        return None
    try:
        return float(value)
    except ValueError:
        return None


def _digits_left(text: str) -> bool:
    """Digits that are no whole number: "7:30", "3/4", "5pm" may be a time or a date."""
    return re.search(r"\d[:/.-]\d|\d(?:st|nd|rd|th|am|pm)\b", text, re.IGNORECASE) is not None


def leftover(text: str, read: Iterable[object], vocabulary: frozenset[str]) -> bool:
    """Whether ``text`` holds a word in lower case that nothing read or known explains.

    Not a common word of English nor of requests ("please find me something"), not a
    word of the tool's properties (``vocabulary``), not a word of a value read, a
    number, a day or a time of day: what is left ("a radius of 4 inches", "in red") may
    be a free-form value no name reading sees.
    """
    known = stems([w for value in read if isinstance(value, str) for w in WORD.findall(value)])
    for word in WORD.findall(text):
        lowered = word.lower()
        if (
            word[:1].isupper()
            or len(lowered) < 3
            or lowered in _COMMON
            or DATE_WORDS.fullmatch(lowered)
            or TIME_WORDS.fullmatch(lowered)
            or numbers_in(lowered)
        ):
            continue
        stem = lowered.rstrip("s")
        if stem not in vocabulary and stem not in known and stem not in _COMMON:
            return True
    return False


# English's function words, and the words of asking for something.
_COMMON = frozenset(
    ["the", "and", "but", "for", "nor", "yet", "are", "was", "were", "been", "being", "have",
     "has", "had", "having", "does", "did", "doing", "done", "will", "shall", "should",
     "would", "could", "can't", "won't", "don't", "doesn't", "didn't", "isn't", "aren't",
     "wasn't", "weren't", "haven't", "hasn't", "wouldn't", "couldn't", "shouldn't", "you",
     "your", "yours", "yourself", "him", "his", "her", "hers", "she", "they", "them",
     "their", "theirs", "our", "ours", "ourselves", "myself", "its", "itself", "this",
     "that", "these", "those", "there", "here", "who", "whom", "whose", "what", "which",
     "when", "where", "why", "how", "all", "both", "each", "few", "more", "most", "such",
     "only", "own", "same", "than", "too", "very", "not", "now", "then", "once", "about",
     "above", "after", "again", "against", "before", "below", "between", "during", "from",
     "into", "off", "over", "under", "until", "with", "within", "without", "through",
     "across", "along", "around", "near", "onto", "upon", "because", "while", "since",
     "though", "although", "unless", "whether", "either", "neither", "out", "down",
     "further", "you're", "you've", "you'll", "you'd", "he's", "she's", "isn", "aren",
"want", "wants", "wanted", "need", "needs", "like", "love", "please",
     "find", "search", "look", "looking", "get", "getting", "help", "show", "tell", "give",
     "make", "thanks", "thank", "hello", "hey", "yes", "okay", "sure", "great", "good",
     "nice", "perfect", "fine", "something", "anything", "someone", "anyone", "one", "ones",
     "also", "maybe", "really", "actually", "well", "let", "lets", "let's", "know", "think",
     "see", "use", "try", "check", "can", "may", "might", "must", "i'm", "i'd",
     "i'll", "i've", "it's", "that's", "what's", "there's", "here's", "we're", "we'd",
     "we'll", "they're", "us", "kind", "sort", "type", "some", "any", "many", "much",
     "lot", "lots", "bit", "little", "else", "other", "another", "different", "new",
     "available", "option", "options", "possible", "able", "sounds", "sound", "works",
     "work", "going", "go", "come", "take", "put", "set", "keep", "way", "thing", "things",
     "time", "day", "place", "instead", "still", "already", "just", "even",
     "ever", "never", "always", "often", "usually", "probably", "definitely", "exactly",
     "right", "correct", "ok", "alright", "cool", "awesome", "wonderful", "excellent",
     "interested", "prefer", "preferably", "ideally", "hopefully", "wondering", "wonder",
     "trying", "planning", "plan", "hoping", "hope", "wish", "mind", "sorry", "calculate",
     "compute", "determine", "given", "using", "based", "value",
     "values", "number", "numbers", "result", "total", "please.", "told",
     # The words of a summary to confirm and of asking: "please confirm the following details".
     "confirm", "confirming", "confirmation", "verify", "details", "detail", "following",
     "information", "info", "preference", "preferences", "preferred", "problem", "apologies",
     "final", "provide", "hear", "listen", "wanting", "begin", "last", "next"]
)  # fmt: skip


# Words before a noun that say which one, not what kind: "a dentist", "some songs".
_DETERMINERS = frozenset(
    ["a", "an", "the", "some", "any", "my", "our", "your", "their", "his", "her", "its",
     "this", "that", "these", "those", "other", "another", "more", "same", "new", "one",
     "what", "which", "of", "for", "to", "in", "at", "on", "with", "and", "or", "find",
     "search", "get", "book", "see", "need", "want", "like", "about", "many", "few",
     "good", "best", "better", "nice", "great", "top", "local", "decent", "different",
     "particular", "specific", "popular", "interesting", "fun", "cool", "all"]
)  # fmt: skip


def _modifies(text: str, subject: frozenset[str], read: Iterable[object] | None = None) -> bool:
    """Whether a word qualifies the tool's subject: "pop songs", "a vegan restaurant".

    The kind of thing asked for, in lower case, may be a free-form value ("Pop",
    "Vegan") no name reading sees.
    """
    if not subject:
        return False
    words = WORD.findall(text)
    known = {w.lower() for v in read or () if isinstance(v, str) for w in WORD.findall(v)}
    return any(
        len(noun) >= 3
        and noun.lower().rstrip("s") in subject
        and word.lower() not in _DETERMINERS
        and word.lower().rstrip("s") not in subject
        and word.lower() not in known
        for word, noun in itertools.pairwise(words)
    )


@dataclass(frozen=True, slots=True)
class Property:
    """One top-level property: its schema, its kind, and what reads it."""

    name: str
    schema: dict[str, Any]
    kind: str
    as_string: bool
    as_float: bool
    own_words: frozenset[str]
    """Stems of the property's name and description: signs that the text speaks of it."""
    value_words: frozenset[str]
    """Stems of the words of its enum values."""
    named: frozenset[str] = frozenset()
    """Stems of the words of its name (``subtitle_language``: subtitle, language)."""
    rivals: tuple[Rival, ...] = ()
    """The event's other enum properties that share values with this one."""
    distinct: frozenset[str] = frozenset()
    """Stems of its name's words that no rival's name has."""
    aliases: AliasIndex | None = None
    """Learned phrases and the value each stands for (``resolvers.learned``)."""
    constant: tuple[JSONValue, ...] = ()
    """The learned constant, when there is one: the value when the words say nothing of it."""
    contexts: tuple[re.Pattern[str], ...] = ()
    """Learned words before a free-form value, each capturing the name that follows."""
    spellings: Mapping[str, JSONValue] | None = None
    """Learned spellings: a value read (case folded) and how the calls write it."""
    accepts: Any = None
    """The property's own schema as a validator, for values the words give a rule."""
    free: FreeForm | None = None
    """For free-form text: what it names, to read a name for it (``resolvers.names``)."""
    signs: frozenset[str] = frozenset()
    """Its own words that say the text speaks of it (``with_signs``): ``evidence`` reads them."""
    subject: frozenset[str] = frozenset()
    """Its description's words other properties share: the tool's subject ("dentist")."""
    unit: str | None = None
    """For a number, the unit its description says it is in (``resolvers.units``)."""
    date_pattern: str | None = None
    """For a date, the pattern its description prescribes (``resolvers.date_forms``)."""


def members(prop: Property) -> list[str | int]:
    """The enum's values that text can name: strings and integers."""
    values = prop.schema.get("enum")
    if not isinstance(values, list):
        return []
    return [v for v in cast("list[Any]", values) if isinstance(v, str | int)]


def with_rivals(properties: list[Property]) -> list[Property]:
    """Each enum property with the others whose values it shares (``checking`` for two accounts)."""
    spelled = {
        p.name: frozenset(variants(v)[0] for v in members(p))
        for p in properties
        if p.kind == "enum"
    }
    holders: dict[str, list[Property]] = {}
    for prop in properties:
        for value in spelled.get(prop.name, ()):
            holders.setdefault(value, []).append(prop)
    done: list[Property] = []
    for prop in properties:
        others = {
            other.name: other
            for value in spelled.get(prop.name, ())
            for other in holders[value]
            if other.name != prop.name
        }
        if not others:
            done.append(prop)
            continue
        rivals = tuple(
            Rival(values=spelled[name], words=frozenset(other.named - prop.named))
            for name, other in others.items()
        )
        theirs = frozenset[str]().union(*(other.named for other in others.values()))
        done.append(dataclasses.replace(prop, rivals=rivals, distinct=prop.named - theirs))
    return done


def with_signs(properties: list[Property]) -> list[Property]:
    """Each property with the words that are signs of it alone.

    Its name's words, and the words of its description no other property's name or
    description has. A word every description shares names the tool's subject ("City
    where the dentist is located", "if the dentist offers cosmetic services"): "a
    dentist in Hayward" speaks of the tool, not of its cosmetic services.
    """
    seen: dict[str, int] = {}
    for prop in properties:
        for word in prop.own_words | prop.named:
            seen[word] = seen.get(word, 0) + 1
    return [
        dataclasses.replace(
            prop,
            signs=prop.named | frozenset(w for w in prop.own_words if seen[w] == 1),
            subject=frozenset(w for w in prop.own_words if seen[w] > 1) - prop.named,
        )
        for prop in properties
    ]


def listed(value: object) -> list[Any]:
    """A list a schema or its hint holds (a tuple when frozen); anything else is none.

    A client's odd spec (``"aliases": 5``) reads as absent rather than raising.
    """
    return list(cast("list[Any]", value)) if isinstance(value, list | tuple) else []


def spellings_of(hint: object) -> dict[str, JSONValue]:
    """The spellings a hint's ``learned`` holds, by their phrase case folded.

    A client's odd hint (not a list, a pair of the wrong shape) reads as none.
    """
    learned = cast("Mapping[str, Any]", hint).get("learned") if isinstance(hint, Mapping) else None
    return {phrase.casefold(): value for phrase, value in _pairs(learned, "spellings")}


def _pairs(learned: object, key: str) -> list[tuple[str, JSONValue]]:
    """The ``[phrase, value]`` pairs a hint's ``learned`` lists under ``key``; odd ones none."""
    found: list[tuple[str, JSONValue]] = []
    given = cast("Mapping[str, Any]", learned).get(key) if isinstance(learned, Mapping) else None
    for item in listed(given):
        if isinstance(item, list | tuple) and len(cast("list[Any]", item)) == 2:
            phrase, value = cast("list[Any]", item)
            if isinstance(phrase, str) and phrase.strip():
                found.append((phrase, cast("JSONValue", value)))
    return found


def learned_hints(hint: Mapping[str, Any]) -> Learned:
    """The learned rules of a property's hint (``RuleBook.annotate`` wrote them)."""
    learned = hint.get("learned")
    if not isinstance(learned, Mapping):
        return None, (), (), None
    rules = cast("Mapping[str, Any]", learned)
    aliases = _pairs(rules, "aliases")
    constant = (cast("JSONValue", rules["constant"]),) if "constant" in rules else ()
    contexts = tuple(
        context_pattern(words)
        for words in listed(rules.get("contexts"))
        if isinstance(words, str) and words.strip()
    )
    spellings = spellings_of(hint)
    return AliasIndex.of(aliases) if aliases else None, constant, contexts, spellings or None
