"""Reading an enum's value from English: the one value the user states, or none at all.

A wrong enum value skips the fallback and reaches the handler; a missing one
costs a request. So a value named in the text is taken only when nothing
around it says the user may mean something else:

* two values named: nothing (``economy or business``);
* a value negated (``not economy``, ``don't want a museum``);
* a value narrowed by a word before it in its noun phrase, where the enum
  shows that its word takes such words (``an amusement park`` when the enum
  holds ``Park`` and ``Theme Park``: a kind of park, maybe not the plain one);
* a value only asked about, in a yes-no question about what was offered
  (``is that in economy?``); ``is there an economy fare?`` and ``can you
  find me an economy ticket?`` ask for it;
* a value another property of the same event could take, unless the words
  beside it name one of them only (``savings`` for ``account_type`` or
  ``recipient_account_type``);
* a value taken back: after it comes a word of correction (``no``,
  ``actually``, ``sorry``, ``instead``, ``I changed my mind``), and from
  there to the end of the next sentence the property or one of its other
  values is spoken of (``on the kitchen speaker. Sorry, play it on the
  speaker in the bedroom``).

Each rule reads English, never a particular dataset's wording.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent_lab.resolvers.currencies import currency_spellings, is_symbol, named_otherwise
from agent_lab.resolvers.doubts import WINDOW, Sentences
from agent_lab.resolvers.english import WORD, stems, words_to_number

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

__all__ = ["Mention", "Rival", "mentions", "read_enum", "variants"]

# Words that open a noun phrase: what comes between one and the value modifies the value.
_DETERMINERS = frozenset(
    ["a", "an", "the", "my", "your", "our", "their", "his", "her", "its", "this", "that",
     "these", "those", "some", "any", "no", "every", "each", "another", "other"]
)  # fmt: skip
# Words that do not modify a noun: prepositions, conjunctions, pronouns, auxiliaries.
_FUNCTION_WORDS = _DETERMINERS | frozenset(
    ["in", "on", "at", "for", "to", "with", "of", "by", "from", "into", "as", "than", "via",
     "and", "or", "but", "so", "if", "then", "i", "we", "you", "it", "me", "us", "them",
     "is", "are", "was", "were", "be", "been", "am", "do", "does", "did", "have", "has", "had",
     "will", "would", "can", "could", "should", "may", "might", "must", "not", "just", "only",
     "also", "please", "it's", "that's", "i'd", "i'm", "we'd", "we're", "you're"]
)  # fmt: skip
# "not", "never", "without", "except", "n't" up to three words before a value.
_NEGATION = re.compile(
    r"(?:\b(?:not|no|never|without|except|nor|neither|other than|rather than|instead of)"
    r"|n't)(?:\W+[\w'-]+){0,3}\W*$",
    re.IGNORECASE,
)
_CLAUSE_END = re.compile(r"[.,;:!?]|\bbut\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Mention:
    """Where the text names one of the enum's values."""

    start: int
    end: int
    value: str | int


@dataclass(frozen=True, slots=True)
class Rival:
    """Another property of the event whose enum shares values with this one."""

    values: frozenset[str]
    """Its values, as ``variants`` spells them."""
    words: frozenset[str]
    """Stems of its name's words that this property's name lacks."""


def variants(value: str | int) -> list[str]:
    """How a value may be written: lower case, ``_`` as space, camel case split, unspaced."""
    return list(_spellings(value))


# Cached because every request re-reads the same enums: the variants and their
# compiled patterns were a third of a gateway's local answer (cProfile of
# benchmarks/bench_gateway.py's local path). 1 and True hash alike, so the
# value's type is part of the key.
@functools.lru_cache(maxsize=4096)
def _spellings_typed(value: str | int, _: type) -> tuple[str, ...]:
    raw = str(value)
    text = raw.lower().replace("_", " ")
    spaced = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", raw).lower()
    own = sorted({v for v in (text, spaced, text.replace(" ", "")) if v}, key=len, reverse=True)
    # A currency's code is also said by its unit or its sign ("euros", "€" for EUR); they
    # come after the value's own spellings, the first of which stands for the value.
    said = currency_spellings(raw) if isinstance(value, str) else ()
    return (*own, *(spelling for spelling in said if spelling not in own))


def _spellings(value: str | int) -> tuple[str, ...]:
    return _spellings_typed(value, type(value))


@functools.lru_cache(maxsize=4096)
def _pattern(variant: str) -> re.Pattern[str]:
    if is_symbol(variant):  # "€40", "40€"; "C$40" is not "$40"
        return re.compile(rf"(?<![a-z]){re.escape(variant)}")
    return re.compile(rf"(?<!\w){re.escape(variant)}(?!\w)")


def mentions(values: Iterable[str | int], text: str) -> list[Mention]:
    """Each place the text names a value, on word boundaries; a name inside a longer one is not.

    "premium economy" names one class, not also "economy". The positions index
    ``text.lower()``.
    """
    lowered = text.lower()
    spans = sorted(
        {
            (match.start(), match.end(), value)
            for value in values
            for variant in _spellings(value)
            if variant in lowered  # a substring test first: most values are not named
            for match in _pattern(variant).finditer(lowered)
            # "40 Canadian dollars" names no US dollar.
            if not (
                isinstance(value, str)
                and named_otherwise(lowered, match.start(), match.end(), value)
            )
        },
        key=lambda span: (span[0], -span[1]),
    )
    # By start, longest first: a span is inside a longer one exactly when an earlier
    # span of another extent reaches as far. One pass, however many spans.
    kept: list[tuple[int, int, str | int]] = []
    reach = -1
    index = 0
    while index < len(spans):
        start, end, _ = spans[index]
        same = index
        while same < len(spans) and spans[same][:2] == (start, end):
            same += 1
        if reach < end:
            kept += spans[index:same]
        reach = max(reach, end)
        index = same
    return [Mention(s, e, v) for s, e, v in kept]


def read_enum(
    values: Sequence[str | int],
    text: str,
    *,
    named: frozenset[str] = frozenset(),
    rivals: Sequence[Rival] = (),
    own: frozenset[str] = frozenset(),
) -> str | int | None:
    """The one value the text states for this property, or ``None`` (see the module docstring).

    Args:
        values: The enum's values.
        text: What the user said.
        named: Stems of the words of this property's name (``subtitle``, ``language``).
        rivals: The event's other enum properties that share values with this one.
        own: Stems of this property's name's words that no rival's name has.
    """
    text = text.lower()  # the mentions' positions index the lowered text
    found = mentions(values, text)
    way = _way(named, rivals)
    if way is not None:
        # "from my checking to Ana's savings": a value the other way is the rival's.
        found = [m for m in found if _way_said(text, m) in (way, None)]
    if len({m.value for m in found}) != 1:
        return None
    # The enum shows which of its words take a word before them ("Theme Park", "Park").
    heads = {spelled.rsplit(" ", 1)[1] for v in values if " " in (spelled := variants(v)[0])}
    claimants = [r for r in rivals if variants(found[0].value)[0] in r.values]
    sentences = Sentences(text)
    for mention in found:
        if _negated(text, mention):
            return None
        if text[mention.start : mention.end] in heads and _narrowed(text, mention):
            return None
        if (
            claimants
            and (way is None or _way_said(text, mention) != way)
            and _undecided(_words(sentences.around(mention.start, mention.end)), claimants, own=own)
        ):
            return None
    if all(sentences.asked_about(m.start) for m in found):
        return None
    value = found[0].value
    chosen = stems(WORD.findall(str(value)))
    others = named | stems([w for v in values for w in WORD.findall(str(v))])
    about = others - chosen
    if sentences.corrected_after(
        found[-1].end, lambda said: bool(stems(WORD.findall(said)) & about)
    ):
        return None
    return value


# Words of a property's name that say it receives what moves ("recipient_account_type").
_RECEIVING = frozenset(
    stems(["recipient", "receiver", "destination", "target", "to", "payee", "beneficiary"])
)
# The nearest "from" or "to" before a value, two words at most between ("to Ana's savings").
_WAY = re.compile(r"\b(from|out of|to|into)\s+(?:(?!(?:from|out|to|into)\b)[\w']+\s+){0,2}$")


def _way(named: frozenset[str], rivals: Sequence[Rival]) -> str | None:
    """``to`` for the property that receives, ``from`` for its rival that gives; or none.

    Only between one property whose name says it receives and one whose name does not.
    """
    if len(rivals) != 1:
        return None
    if named & _RECEIVING and not rivals[0].words & _RECEIVING:
        return "to"
    if rivals[0].words & _RECEIVING and not named & _RECEIVING:
        return "from"
    return None


def _way_said(text: str, mention: Mention) -> str | None:
    """``from`` or ``to``: the way the words just before a value say it goes ("to my savings")."""
    said = _WAY.search(_clause_before(text, mention))
    if said is None:
        return None
    return "from" if said.group(1) in ("from", "out of") else "to"


def _clause_before(text: str, mention: Mention) -> str:
    window = text[max(0, mention.start - WINDOW) : mention.start]
    return _CLAUSE_END.split(window)[-1]


def _negated(text: str, mention: Mention) -> bool:
    return _NEGATION.search(_clause_before(text, mention)) is not None


def _narrowed(text: str, mention: Mention) -> bool:
    """A value whose noun phrase puts an unknown word before it (``an amusement park``)."""
    before = re.findall(r"[\w'-]+", _clause_before(text, mention))
    if len(before) < 2:
        return False
    opener, modifier = before[-2:]
    # "a national park", "two basic economy seats"; not "to travel economy", "is that in
    # economy", "two economy seats", "a one way economy flight" ("one" is rarely a count there).
    return (
        modifier not in _FUNCTION_WORDS
        and words_to_number(modifier) is None
        and (opener in _DETERMINERS or (opener != "one" and words_to_number(opener) is not None))
    )


def _undecided(around: set[str], claimants: Sequence[Rival], *, own: frozenset[str]) -> bool:
    """The words beside a value another property could take do not name this property alone."""
    return not (own & around) or any(r.words & around for r in claimants)


def _words(around: str) -> set[str]:
    # "the recipient's account" speaks of the recipient.
    return stems([re.sub(r"'s?$", "", w) for w in WORD.findall(around)])
