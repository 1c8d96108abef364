"""Phrases of the user's words, and which of them say the most about a value.

A phrase is a run of one to three words of any script, lower case, taken
neither across punctuation nor across where the words spell a value given
to another parameter. Of phrases that went with the same value, one that
another explains is dropped (``most_telling``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping

__all__ = ["STOPWORDS", "TOKEN", "most_telling", "phrases"]

# Words too common to stand for anything alone: a phrase of nothing else is no alias.
STOPWORDS = frozenset(
    [
        "a", "an", "the", "i", "me", "my", "we", "our", "you", "your", "it", "its", "is", "are",
        "was", "be", "to", "of", "in", "on", "at", "for", "from", "with", "by", "and", "or", "but",
        "not", "no", "yes", "please", "can", "could", "would", "will", "want", "like", "need",
        "find", "get", "some", "any", "this", "that", "there", "here", "what", "which", "when",
        "where", "how", "do", "does", "did", "have", "has", "had", "am", "so", "just", "also",
        "too", "thanks", "thank", "ok", "okay", "sure",
    ]
)  # fmt: skip
# Letters and digits of any script ("lumière", "東京"): an ASCII class cut words in two.
TOKEN = re.compile(r"[^\W_]+(?:'[^\W_]+)?")
# A phrase matches only as written, words one space apart, so none is taken across
# punctuation ("apple, please"), where it could never fire.
_BREAK = re.compile(r"[^\w\s']+")
_LONGEST = 3


def phrases(text: str, *, apart: Iterable[str] = ()) -> set[str]:
    """Every run of one to three words of the text, lower case; none of stopwords alone.

    No run takes words from where the text spells one of ``apart`` (any case,
    on word boundaries), or across punctuation: the text is cut there, and runs
    are taken on each side.
    """
    segments = _BREAK.split(text.lower())
    for value in sorted({v.lower() for v in apart if v.strip()}, key=len, reverse=True):
        cut = re.compile(rf"(?<!\w){re.escape(value)}(?!\w)")
        segments = [piece for segment in segments for piece in cut.split(segment)]
    found: set[str] = set()
    for segment in segments:
        words = TOKEN.findall(segment)
        for size in range(1, _LONGEST + 1):
            for start in range(len(words) - size + 1):
                run = words[start : start + size]
                if all(word in STOPWORDS for word in run):
                    continue
                found.add(" ".join(run))
    return found


def most_telling(held: Mapping[str, set[int]], telling: Callable[[str, str], bool]) -> list[str]:
    """The phrases (for one value) that no other explains.

    A phrase is dropped when every training example holding it (``held``)
    also holds another phrase with more telling words (``telling(phrase,
    word)``: the word on its own went with the value), or as many and more
    words: "city", only ever in "the windy city", says no more on the
    training calls than "the windy city", and fires on "Kansas City"; "in
    the big", only ever in "in the big apple", fires on "in the big easy".
    Phrases held by the same examples and ranked alike ("the big apple",
    "big apple in") are all kept: the gate judges each.
    """
    rank = {
        phrase: (sum(telling(phrase, word) for word in phrase.split()), len(phrase.split()))
        for phrase in held
    }

    def explains(other: str, phrase: str) -> bool:
        if not held[phrase] <= held[other]:
            return False
        if rank[other] != rank[phrase]:
            return rank[other] > rank[phrase]
        return held[phrase] < held[other]

    return [p for p in held if not any(explains(o, p) for o in held if o != p)]
