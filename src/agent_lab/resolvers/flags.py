"""A flag's value in English: its subject said with or without a negation that takes it.

``has_wifi`` is True for "with wifi", False for "no wifi needed", and unread for
"I don't know if they have wifi", "I don't care about wifi" or "has little wifi":
each reader gives a value only when there is one reading.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right

from agent_lab.resolvers.cues import nouns
from agent_lab.resolvers.doubts import Sentences

__all__ = ["boolean_phrase"]


# Words in a flag's name that say nothing about what it is about.
_FLAG_WORDS = {"is", "has", "have", "allowed", "allow", "good", "for", "can", "with", "needs"}
# "I don't care about wifi" is no preference, not False; "I wouldn't mind a shared ride"
# leans to True but does not say it.
_INDIFFERENT = re.compile(
    r"\b(?:don't|do not|doesn't|dont)\s+care\b|(?:\bnot|n't)\s+mind\b|\bdoesn't matter\b"
    r"|\beither way\b",
    re.I,
)
_NEGATION = re.compile(r"\b(?:no|not|without|never|nor|off)\b|n't\b", re.I)
# A negation that takes the flag's subject: up to three words before it ("no wifi",
# "don't want subtitles", "without a shared ride", "turn off the subtitles"), none of
# them a preposition ("no restriction for smoking" negates the restriction), or right
# after it ("wifi not needed", "subtitles off").
_NEGATED_BEFORE = re.compile(
    r"(?:\b(?:no|not|without|never|nor|off)|n't)"
    r"(?:\W+(?!(?:for|of|on|in|at|to|about|with|from|by|around)\b)[\w'-]+){0,3}\W*$",
    re.I,
)
# Words of a scant amount before the flag's subject: neither yes nor no.
_SCANT_BEFORE = re.compile(
    r"\b(?:few|little|hardly|barely|rarely|seldom|scarcely|less|fewer)"
    r"(?:\W+[\w'-]+){0,2}\W*$",
    re.I,
)
_NEGATED_AFTER = re.compile(r"\W*(?:(?:is|are|be)\W+)?(?:not|off)\b|\W*\w+n't\b", re.I)
_CLAUSE_BREAK = re.compile(r"[.?!;,]|\b(?:and|but|till|until|or)\b", re.I)


# A question that asks for something: "Can you find one with wifi?", "Any others with a
# pool?", "Is there one that allows pets?". Others ask about what was offered ("Would there
# be live music?", "Are pets okay?", "Any live music there?"): no flag is asked for.
_ASKS_FOR = re.compile(
    r"\W*(?:(?:and|so|ok|okay|then|also|well|but|hmm+)\W+)*"
    r"(?:(?:can|could|would|will)\s+(?:you|u)\b|please\b|find\b|search\b|show\b|look\b|get\b"
    r"|any\b|are there\b|is there (?:a|an|one|any)\b|do you have\b)",
    re.IGNORECASE,
)
_THE_OFFER = re.compile(r"\b(?:it|they|them|there|its|their)\b", re.IGNORECASE)
# "Tell me if it has wifi", "whether pets are allowed": a question inside a sentence.
_EMBEDDED = re.compile(r"\b(?:if|whether)\b", re.IGNORECASE)


def _asks_only(question: str | None) -> bool:
    """Whether a question asks about something rather than for it."""
    return question is not None and (
        _ASKS_FOR.match(question) is None or _THE_OFFER.search(question) is not None
    )


def boolean_phrase(name: str, text: str) -> bool | None:
    """``has_wifi`` + "with wifi" -> True; + "no wifi needed" -> False; else None.

    The flag's subject (its name without words like ``has`` or ``allowed``)
    must be in the text. In each clause that names it, a negation that takes
    it makes it False, none makes it True, and one elsewhere in the clause
    (``I don't know if they have wifi``) leaves it unsure. Every clause must
    agree, and nothing may leave the flag in doubt: a question, indifference
    (``don't care``, ``wouldn't mind``), or a correction after it (``with no
    subtitles. Actually, play Gloria Bell``), for the request it belonged
    to was taken back.
    """
    subject = [w for w in nouns(name) if w not in _FLAG_WORDS]
    if not subject:
        return None
    pattern = r"\b" + r"[\s_-]*".join(re.escape(w.rstrip("s")) for w in subject) + r"s?\b"
    named = list(re.finditer(pattern, text, re.IGNORECASE))
    if not named or _INDIFFERENT.search(text):
        return None
    # Clause bounds and negations found once, then looked up by bisection: linear in the text.
    spans = [(m.start(), m.end()) for m in _CLAUSE_BREAK.finditer(text)]
    starts = [0, *(end for _, end in spans)]
    ends = [*(start for start, _ in spans), len(text)]
    negations = [m.start() for m in _NEGATION.finditer(text)]
    readings: set[bool | None] = set()
    for match in named:
        clause = bisect_right(starts, match.start()) - 1
        start, end = starts[clause], ends[clause]
        before = text[max(start, match.start() - 40) : match.start()]
        reading: bool | None = True
        if _SCANT_BEFORE.search(before):
            reading = None  # "has few artistic interests": some, or as good as none?
        elif _NEGATED_BEFORE.search(before) or _NEGATED_AFTER.match(text, match.end(), end):
            reading = False
        elif bisect_left(negations, start) < bisect_left(negations, end):
            reading = None  # a negation in the clause, not of the flag: its scope is unsure
        readings.add(reading)
    sentences = Sentences(text)
    if (
        len(readings) != 1
        or any(sentences.asked_about(m.start()) for m in named)
        or any(_asks_only(sentences.question(m.start())) for m in named)
        or any(_EMBEDDED.search(text, max(0, m.start() - 40), m.start()) for m in named)
        or sentences.corrected_after(named[-1].end(), lambda _: True)
    ):
        return None
    return readings.pop()
