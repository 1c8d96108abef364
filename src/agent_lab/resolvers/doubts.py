"""Signs in English that a value the user names may not be the one meant.

Every reader of the schema-driven resolver (enums, numbers, flags, times)
asks the same questions of the words around a value before taking it:

* is it only asked about, in a yes-no question about what was offered (``is
  that for four passengers?``), rather than asked for (``can you find
  tickets for 4?``, ``is there a 5pm show?``);
* is it taken back afterwards: a word of correction (``no``, ``actually``,
  ``sorry``, ``instead``, ``I changed my mind``) and, up to the end of the
  next sentence, something of the same sort spoken of (``3 tickets ...
  actually, make it two``);

Sentences end at ``.``, ``!`` or ``?``.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["Sentences"]

_SENTENCE_END = re.compile(r"[.!?]+")
# A yes-no question about "it", "that", "this" or "the ..." checks what was offered ("is
# that in economy?", "is the flight for two?"); the inverted order alone makes it a
# question where the "?" was left out. One that asks for something ("is there an
# economy fare?", "can you find me an economy ticket?") is a request.
_ABOUT_THE_OFFER = re.compile(
    r"\W*(?:(?:and|so|ok|okay|then|also|well|but|actually)\W+)*"
    r"(?:(?:is|are|was|were|does|do|did|will|would|has|have|had)\s+"
    r"(?:it|that|this|they|these|those|the)"
    r"|(?:please\s+)?confirm)\b",
    re.IGNORECASE,
)
_INVERTED = re.compile(
    r"\W*(?:(?:and|so|ok|okay|then|also|well|but|actually)\W+)*"
    r"(?:is|are|was|were|does|did)\s+(?:it|that|this|they|these|those|the)\b",
    re.IGNORECASE,
)
# "This is for 3 passengers, correct?": a tag that asks to confirm what was said.
_TAG = re.compile(
    r"(?:,\s*|\b(?:is|was)\s+(?:that|it|this)\s+)(?:correct|right|true|ok|okay)\W*$|"
    r",\s*(?:isn't|is|wasn't|aren't|don't|doesn't)\s+(?:it|that|this|they)\W*$",
    re.IGNORECASE,
)
_CORRECTION = re.compile(
    r"\b(?:no|nope|nah|actually|sorry|wait|instead)\b|\bchanged? my mind\b",
    re.IGNORECASE,
)
# The context looked at around a value: a few words, so every check is bounded.
WINDOW = 60


class Sentences:
    """A text's sentences, found once, so that each position's is found by bisection.

    Args:
        text: The text whose positions the checks take.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0]
        self.ends: list[tuple[int, str]] = []
        for match in _SENTENCE_END.finditer(text):
            self.ends.append((match.start(), match.group(0)))
            self.starts.append(match.end())
        self.ends.append((len(text), ""))

    def _index(self, position: int) -> int:
        return bisect_right(self.starts, position) - 1

    def asked_about(self, position: int) -> bool:
        """The sentence at ``position`` is a yes-no question that does not ask for something."""
        index = self._index(position)
        end, mark = self.ends[index]
        opening = self.text[self.starts[index] : min(end, self.starts[index] + WINDOW)]
        if "?" in mark and _TAG.search(self.text, max(self.starts[index], end - WINDOW), end):
            return True
        return (_ABOUT_THE_OFFER if "?" in mark else _INVERTED).match(opening) is not None

    def corrected_after(self, position: int, about: Callable[[str], bool]) -> bool:
        """After ``position``, the user takes something back and speaks of ``about``.

        What counts is the rest of the sentence and the sentences after it:
        from a word of correction to the end of the next sentence, the words
        ``about`` is asked of.
        """
        count = len(self.starts)
        index = self._index(position)
        while index < count:
            cue = _CORRECTION.search(self.text, position, self.ends[index][0])
            if cue is not None:
                following = self.ends[index + 1][0] if index + 1 < count else self.ends[index][0]
                if about(self.text[cue.start() : following]):
                    return True
            index += 1
            if index < count:
                position = self.starts[index]
        return False

    def around(self, start: int, end: int) -> str:
        """The words of the sentence beside ``start:end``, a few on each side."""
        index = self._index(start)
        return self.text[
            max(self.starts[index], start - WINDOW) : min(self.ends[index][0], end + WINDOW)
        ]
