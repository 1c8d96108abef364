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
* how often does the user accept or confirm something after it: the first
  ``yes`` confirms what was said back; a second (``... 5:45. Yes. That
  would be fine.``) accepts something offered since, which the user's words
  do not show (``acceptances_after``).

Sentences end at ``.``, ``!`` or ``?``.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["Sentences", "acceptances_after"]

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
# A yes-no question typed without its mark: "Would pets be allowed.", "Is it furnished."
_ASKING = re.compile(
    r"\W*(?:(?:and|so|ok|okay|then|also|well|but|cool|great)\W+)*"
    r"(?:is|are|was|were|does|do|did|will|would|has|have|had|can|could)\s+(?!you\b|u\b)\w",
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
# Words that accept or confirm what the other side said: "yes", "sure", "that works",
# "this is perfect", "that time will work", "sounds good", "I can do that".
_YES = r"yes|yeah|yep|yup|sure|ok|okay|alright|all right"
_ACCEPTANCE = re.compile(
    rf"\b(?:(?P<yes>{_YES})|affirmative|exactly|correct|perfect|great|cool|fine|excellent"
    r"|fantastic|awesome|wonderful|indeed|absolutely|definitely|of course|you're right"
    r"|(?:that|this|it)(?:'s|s|'ll|'d|\s+time)?(?:\s+(?:is|would|will|sounds|seems|works))?"
    r"\s+(?:be\s+)?(?:still\s+)?(?:totally\s+|very\s+|really\s+|all\s+)?"
    r"(?:fine|great|good|perfect|ok|okay|alright|all right|work|works|do|correct|right|"
    r"wonderful|nice)"
    r"|(?:that\s+)?(?:still\s+)?works|sounds?\s+(?:good|great|perfect|fine|ok|okay|wonderful|nice)"
    r"|go ahead|please do|i can do that|let's do (?:it|that)"
    r")\b",
    re.IGNORECASE,
)
# What may sit between two words of one acceptance: "Yes, that's right", "fine with me".
_BETWEEN = re.compile(
    r"[\s,]*(?:(?:please|thanks|thank you|for me|with me|to me|by me|then|so|and|really|very|"
    r"totally|it|do|me)[\s,]+)*[\s,]*",
    re.IGNORECASE,
)
# The context looked at around a value: a few words, so every check is bounded.
WINDOW = 60


def acceptances_after(text: str, position: int) -> int:
    """How many times the user accepts or confirms something after ``position``.

    Words of acceptance side by side are one act (``Yes, that's right``,
    ``That is correct, yes``); a sentence end, a capitalised new turn, other
    words between them, or a ``yes`` again without a comma before it (``yes
    that is fine yes that is fine``: turns joined without punctuation) start
    another.
    """
    count = 0
    last = None
    for match in _ACCEPTANCE.finditer(text, position):
        gap = text[last : match.start()] if last is not None else None
        again = True
        # A long gap is never only filler; the bound keeps the check linear.
        if gap is not None and len(gap) <= WINDOW and _BETWEEN.fullmatch(gap):
            turn = gap.strip() == "" and match.group(0)[0].isupper()
            again = turn or (match.group("yes") is not None and not gap.rstrip().endswith(","))
        count += again
        last = match.end()
    return count


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

    def question(self, position: int) -> str | None:
        """The sentence at ``position`` when it is a question, else ``None``.

        Marked, or inverted ("Would pets be allowed."); its first ``4 * WINDOW`` characters.
        """
        index = self._index(position)
        end, mark = self.ends[index]
        sentence = self.text[self.starts[index] : min(end, self.starts[index] + 4 * WINDOW)]
        return sentence if "?" in mark or _ASKING.match(sentence) else None

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
