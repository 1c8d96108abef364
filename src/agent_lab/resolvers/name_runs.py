"""Runs of capitalised words in a text: the names in it, and the runs left in doubt.

A name for a free-form value is a run of capitalised words (``San Jose``,
``Atami Sushi Bar & Grill``, ``Dr. Ada K. Lovelace``), not a month nor a
weekday, nor a word English capitalises at a sentence's start. A run whose
text may not be the value is left out and counted as doubtful: shouted or an
acronym (``SFO``), running on in lower case (``Redwood city``), qualified by
another (``Paris, France``). ``resolvers.names`` says which property a name
fills; this module only finds them, once per text.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

from agent_lab.resolvers.english import MONTHS, WEEKDAYS
from agent_lab.resolvers.regions import is_region

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = [
    "KIN",
    "doubtful_names",
    "may_name",
    "names_in",
    "names_left",
    "names_unread",
    "unread_doubt",
]

# Words a name may hold between its capitalised ones: "Bank of America", "Rocknwraps And
# Kabobs", "Tom & Jerry", "Salt Lake City".
_JOINERS = frozenset(["of", "de", "del", "la", "le", "du", "da", "van", "von", "&", "y", "el",
                      "los", "las", "upon", "-"])  # fmt: skip
_NOT_NAMES = frozenset(
    [*MONTHS, *WEEKDAYS, "i", "i'm", "i'd", "i'll", "i've", "today", "tomorrow", "tonight",
     "mon", "tue", "tues", "wed", "thu", "thurs", "fri", "sat", "sun", "jan", "feb", "mar",
     "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "am", "pm", "ok", "okay",
     "yes", "no", "please", "thanks", "thank", "hi", "hello", "hey"]
)  # fmt: skip
_DAYS = frozenset(
    [*MONTHS, *WEEKDAYS, "mon", "tue", "tues", "wed", "thu", "thurs", "fri", "sat", "sun", "jan",
     "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec"]
)  # fmt: skip
"""Names of days and months, whole and cut short: capitalised, yet no name's words alone."""
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
     "anywhere", "yes", "sorry", "hello", "hi", "hey", "check", "play", "call", "order",
     "reserve", "buy", "add", "schedule", "send", "transfer", "rent", "need", "want",
     "go", "visit", "see", "watch", "listen", "put", "set"]
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
# Words of kin before a name, which people write as part of it or not ("aunt Jenny" or
# "Aunt Jenny" as a contact is saved, or Jenny).
KIN = (
    r"\b(?:aunt|auntie|uncle|cousin|grandma|grandpa|granny|grandmother|grandfather|nana|"
    r"nephew|niece)"
)
_UNSURE_START = re.compile(rf"(?:\d\w*|\bthe|{KIN})\s+$", re.IGNORECASE)
# A period is a word's only with no space after it when it ends an initial or an
# abbreviation ("D.C.", "M.y."): "Menlo Park.Can you" and "Park.a" lack a space.
_TOKEN = re.compile(r"[A-Za-z0-9](?:[\w'&-]|\.(?!(?<=[a-z]{2}\.)[A-Za-z]))*|&|-")


def _capital(token: str) -> bool:
    return token[:1].isupper() and token.lower().rstrip(".,") not in _NOT_NAMES


def names_in(text: str) -> list[tuple[str, int, int]]:
    """Every run of capitalised words (joined by ``of``, ``&``...) in ``text``: its text and span.

    A run is cut at punctuation that ends a clause; a month, a weekday or ``I`` is no
    name, nor a word English capitalises at a sentence's start (``Can``, ``Please``).
    Runs whose text may not be the value (``SFO``, ``Redwood city``, ``Paris, Lyon``)
    are left out (``_doubtful_names``); a country or a region after a comma qualifies
    the place before it, which is the name (``Paris, France``, ``Seattle, WA``).
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
            or (word.lower().rstrip(".,!?") in _COUNTS and _sentence_start(text, token.start()))
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
        region = _region_after(text, tokens, last) if qualified and not qualifier else None
        if region is not None:
            # "Seattle, WA", "Paris, France": the place, which a region after it qualifies.
            qualified = False
        if (
            qualifier
            or qualified
            or (last + 1 < len(tokens) and _runs_on(text, tokens[last], tokens[last + 1]))
            or any(_SHOUTED.match(tokens[at].group()) for at in range(index, last + 1))
            # "168 South Murphy Avenue", "3 Idiots": a number before it may be the name's.
            or (index > 0 and _numbered(text, tokens[index - 1], tokens[index]))
            # "play If I Killed Someone For You", "O Father O Satan O Sun by Behemoth": a word
            # no name begins with, or a day's, capitalised next to it may be the name's too.
            or _cut(text, tokens, index, last)
            or _unsure(text[tokens[index].start() : tokens[last].end()])
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
            index = index + 1 if region is None else region + 1
            continue
        if last == index and len(tokens[index].group().rstrip(".,")) < 2:
            index += 1
            continue  # "C" of "C:/data": a letter is no name
        name = tokens[last].group()
        if not _ABBREVIATION.match(name):
            name = name.rstrip(".,")
        end = tokens[last].start() + len(name)
        found.append((text[start:end], start, end))
        index = last + 1 if region is None else region + 1
    return found, doubtful


def _region_after(text: str, tokens: list[re.Match[str]], last: int) -> int | None:
    """The last token of a region that follows the name ending at ``last``, if one does.

    One to three capitalised words after the comma, up to the end of the clause: "WA",
    "British Columbia", "New South Wales".
    """
    for end in range(last + 1, min(last + 4, len(tokens))):
        words = text[tokens[last + 1].start() : tokens[end].end()]
        after = tokens[end + 1].group() if end + 1 < len(tokens) else ""
        listed = (
            after.lower() in ("and", "or", "&")
            and end + 2 < len(tokens)
            and _capital(tokens[end + 2].group())
        )
        if (
            is_region(words)
            # "Lisbon, Porto and Faro": a list of places, not a place and its region.
            and not tokens[end].group().endswith(",")
            and not listed
            and (tokens[end].group().endswith((".", "!", "?")) or not _capital(after))
        ):
            return end
    return None


def _cut(text: str, tokens: list[re.Match[str]], first: int, last: int) -> bool:
    """Whether a capitalised word no run holds touches it: before it mid-sentence, or after."""
    after = last + 1
    if (
        after < len(tokens)
        and text[tokens[last].end() : tokens[after].start()] == " "
        and not tokens[last].group().endswith((".", ","))
        and tokens[after].group().lower().rstrip(".,!?") in _DAYS
        and not (after + 1 < len(tokens) and tokens[after + 1].group()[:1].isdigit())
    ):
        return True  # "O Sun by Behemoth", not "San Francisco March 1st"
    before = first - 1
    while before >= 0 and text[tokens[before].end() : tokens[before + 1].start()] == " ":
        word = tokens[before].group()
        if not word[:1].isupper():
            return False
        if word != "I":
            # Capitalised where a sentence may start ("plan B. Then Lyon"): no sign.
            return not (
                _sentence_start(text, tokens[before].start())
                or (before > 0 and tokens[before - 1].group().endswith("."))
            )
        before -= 1
    return False


def _numbered(text: str, before: re.Match[str], first: re.Match[str]) -> bool:
    """Whether the word just before a name is a number in digits ("9th"), a space apart."""
    return (
        _NUMBER.fullmatch(before.group()) is not None and text[before.end() : first.start()] == " "
    )


_NUMBER = re.compile(r"\d+(?:st|nd|rd|th)?", re.IGNORECASE)


def _unsure(run: str) -> bool:
    """Whether a run may be part of a name, or the name with more.

    "Drive" alone is an address's end; "Aunt Jenny" may be saved as "aunt Jenny".
    """
    first = run.split(" ", 1)[0]
    return run.rstrip(".,").lower() in _STREET_ENDS or _KIN_WORD.fullmatch(first) is not None


_KIN_WORD = re.compile(KIN.removeprefix(r"\b"), re.IGNORECASE)
_STREET_ENDS = frozenset(
    ["street", "st", "avenue", "ave", "road", "rd", "drive", "dr", "boulevard", "blvd",
     "lane", "ln", "way", "court", "ct", "place", "pl", "terrace", "parkway", "highway"]
)  # fmt: skip


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
    if any(ch.isdigit() for ch in text) or doubtful_names(text):
        return True
    for token in _TOKEN.finditer(text):
        word = token.group()
        if _capital(word) and word.lower().rstrip(".,!?") not in _STARTERS:
            return True
    return False


def names_left(text: str, read: Iterable[object]) -> list[str]:
    """The names of ``text`` that none of the values ``read`` from it is, nor holds.

    A name whose start is unsure is left out too: after a number ("1532 20th Street")
    or after "the" ("the Cantina", or "The Cantina"?).
    """
    values = [value.lower() for value in read if isinstance(value, str) and value.strip()]
    left: list[str] = []
    for name, start, _ in names_in(text):
        lowered = name.lower()
        if any(lowered == value or lowered in value for value in values):
            continue
        if _UNSURE_START.search(text[:start]):
            return []
        left.append(name)
    return left


def unread_doubt(text: str, read: Iterable[object]) -> bool:
    """Whether ``text`` holds a doubtful run (``SFO``) none of the values ``read`` is."""
    return doubtful_names(_without(text, read))


def _without(text: str, read: Iterable[object]) -> str:
    # A count read ("1") is no name, and is not cut out of one ("to 1 Embarcadero Center").
    for value in read:
        if isinstance(value, str) and value.strip() and not value.strip().isdigit():
            text = re.sub(re.escape(value), " ", text, flags=re.IGNORECASE)
    return text


def names_unread(text: str, read: Iterable[object]) -> bool:
    """Whether ``text`` holds a name that is none of the values ``read`` from it.

    Narrower than ``may_name``, for a reading already made: "I need a Gynecologist" read
    as the doctor's type names no other place; "Seattle, WA", a name left in doubt, may.
    """
    rest = _without(text, read)
    return bool(names_in(rest)) or doubtful_names(rest)


def doubtful_names(text: str) -> bool:
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
