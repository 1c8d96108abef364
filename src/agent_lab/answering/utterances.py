"""What one message of a conversation does: asks to confirm, asks about what was found, declines.

The conversation's reader (``answering.reading``) asks these of the assistant's
last words (a summary to confirm, a question an assent answers) and of the
user's (a question about the results, a decline, the part that requests
something). English only, by the shapes English gives them; nothing here
knows a dataset's templates.
"""

from __future__ import annotations

import re

__all__ = ["about_results", "asks", "confirms", "declines", "requests", "untagged"]

# "Please confirm", not "Your booking is confirmed": a report of a call made asks nothing.
_CONFIRM = re.compile(
    r"\b(?:confirm(?!ed)|verify|correct\b|right\s*\?|is that (?:ok|okay|fine|alright)\b|"
    r"(?:ok|okay|alright|all right)\s*\?)",
    re.IGNORECASE,
)
# A yes/no question about something ("Is there live music?", "Do they serve alcohol?"),
# not a request ("Can you find...", "Could you book...").
_ABOUT_IT = re.compile(
    r"^\W*(?:(?:ok(?:ay)?|great|cool|nice|alright|and|so|also|hmm+)\W+)?"
    r"(?:is|are|was|were|do|does|did|has|have|had|will (?:it|they|there)|would (?:it|they)|"
    r"can (?:i|we|they|it)|could (?:i|we|they|it)|should (?:i|we))\b[^.!]*\?\s*$"
    # People type questions without the mark: "Is there live music." "Do they deliver"
    r"|^\W*(?:is|are|was|were|do|does|did|has|have) (?:it|they|there|that|this|he|she)\b"
    r"[^!?]*[.]?\s*$"
    r"|\b(?:find out|tell me|let me know|check|see|ask|know) (?:if|whether)\b|\bi bet\b",
    re.IGNORECASE,
)
_TAG_QUESTION = re.compile(
    r"[,\s]*(?:is that |is this )?(?:ok|okay|alright|all right|right|correct|fine)\s*\?\s*$",
    re.IGNORECASE,
)
_SENTENCES = re.compile(r"(?<=[.!?])\s+")
_QUESTION = re.compile(
    r"^\W*(?:(?:can|could|would|will) you (?:tell|let|give|check|confirm whether)|what|where|"
    r"when|which|who|how|is|are|do|does|did)\b",
    re.IGNORECASE,
)
_DECLINES = re.compile(
    r"\b(?:no|not|never|nothing|n't|thanks?|thank you|that(?:'s| is| will be) all)\b|n't\b",
    re.IGNORECASE,
)


def confirms(offer: str | None) -> bool:
    """Whether the assistant's words ask the user to confirm a summary."""
    return offer is not None and _CONFIRM.search(offer) is not None


def asks(offer: str | None) -> bool:
    """Whether the assistant's words ask something an assent answers.

    A question, or a request to confirm: an assent to a statement ("It is a pop song")
    asks for nothing.
    """
    return offer is not None and ("?" in offer or _CONFIRM.search(offer) is not None)


def about_results(text: str) -> bool:
    """Whether the user asks about what was found ("Is there live music?", "find out if...")."""
    return _ABOUT_IT.search(text) is not None


def declines(text: str) -> bool:
    """Whether the user's words hold a no, a not or a thanks: no request for a call."""
    return _DECLINES.search(text) is not None


def requests(text: str) -> str:
    """``text`` without its questions.

    "Yes. Can you tell me if it is refundable?" asks about the call; it sets no value.
    """
    kept = [
        sentence
        for sentence in _SENTENCES.split(text)
        if sentence.strip()
        and not sentence.rstrip().endswith("?")
        and not _QUESTION.match(sentence)
    ]
    return " ".join(kept)


def untagged(offer: str) -> str:
    """A summary without its tag question: "2 tickets to Rouen, okay?" states its values."""
    return _TAG_QUESTION.sub(".", offer)
