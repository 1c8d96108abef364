"""What one message of a conversation does: assents, asks to confirm, asks about results, declines.

The conversation's reader (``answering.reading``) asks these of the assistant's
last words (a summary to confirm, a question an assent answers) and of the
user's (a question about the results, a decline, the part that requests
something). English only, by the shapes English gives them; nothing here
knows a dataset's templates.
"""

from __future__ import annotations

import re

from agent_lab.agents.tool_specs import ACTING_VERBS

__all__ = [
    "about_results",
    "accepts",
    "asks",
    "asks_to_act",
    "asks_what",
    "assents",
    "confirms",
    "declines",
    "item_offered",
    "last_sentence",
    "offers",
    "proposes",
    "requests",
    "unasked",
    "untagged",
    "withheld",
]

# "Please confirm", not "Your booking is confirmed": a report of a call made asks nothing.
# Where a clause opens: "So you want to...", not "the city where you want me to search?".
_OPENS = r"(?:^|(?<=[.!?:,;] )|(?<=\bso )|(?<=\bok )|(?<=\bokay )|(?<=\bthen )|(?<=\bsure ))"
# A summary stated, not asked: "So you'd like me to book 2 seats...", "Just to make sure:
# ...", "Here's what I have: ...". "Do you want to book it?" offers; it sums nothing up.
_CONFIRM = re.compile(
    r"\b(?:confirm(?!ed)|verify|correct\b|right\s*\?|is that (?:ok|okay|fine|alright)\b|"
    r"just to (?:double[- ])?check\b|double[- ]check|"
    r"(?:ok|okay|alright|all right)\s*\?|make sure|to be (?:sure|clear)|ensure|"
    rf"{_OPENS}you(?:'d| would) like (?:me )?to\b|{_OPENS}you (?:want|wish) (?:me )?to\b|"
    r"you(?: are|'re) (?:saying|asking)|(?:what|here'?s what) i (?:heard|hear|have|got)\b)",
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
    """Whether the assistant's words ask the user to confirm a summary.

    Not one it negates or says cannot be done ("Just to check: you don't want 2
    tickets?", "Please confirm: those are sold out, sorry"): a yes to it is no act.
    """
    return (
        offer is not None and _CONFIRM.search(offer) is not None and _NEGATED.search(offer) is None
    )


_NEGATED = re.compile(
    r"\b(?:not|never|cannot|unable|impossible|unavailable|sold out|sorry|unfortunately|"
    r"unless)\b|n't\b",
    re.IGNORECASE,
)


# A question that asks which, where, when...: the answer is a value, not a yes.
_WH = re.compile(
    r"^\W*(?:(?:and|so|ok(?:ay)?|great|alright|sure)\W+)?(?:what|which|where|when|who|whom|"
    r"whose|why|how)\b",
    re.IGNORECASE,
)


def offers(offer: str | None) -> bool:
    """Whether the assistant's words end with a yes/no question: an offer a yes accepts.

    "Would you like to buy 2 tickets for Hamlet on May 3rd?", "So, play Jolene in the
    kitchen?": not "Which day?" nor "How about Jolene?".
    """
    if offer is None:
        return False
    last = last_sentence(offer)
    return last.endswith("?") and _WH.match(last) is None


# "Do you like Jolene?", "How about the Grand?", "Would you like Night by Einaudi?": an item
# found, offered to pick; not "Would you like to buy ..." (an action).
_ITEM = re.compile(
    r"^\W*(?:(?:ok(?:ay)?|so|great|sure|alright|well)\W+)?(?:(?:do|would) you (?:like|love|"
    r"enjoy|prefer|want)\b(?!\s+(?:to|me|us)\b)|how about|what about|(?:are|would) you (?:be )?"
    r"interested)",
    re.IGNORECASE,
)


def item_offered(offer: str) -> bool:
    """Whether the offer's question offers an item found to pick, not an action to take."""
    last = last_sentence(offer)
    return bool(last) and _ITEM.match(last) is not None


def last_sentence(text: str) -> str:
    """The last sentence of ``text``, without the spaces around it ("" for none)."""
    sentences = [sentence for sentence in _SENTENCES.split(text.strip()) if sentence.strip()]
    return sentences[-1].rstrip() if sentences else ""


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


def unasked(text: str) -> str:
    """``text`` without its questions for words.

    "Yes, what is the address?" asks about what it accepts; "Yes, can you check my
    balance?" asks for another call.
    """
    kept: list[str] = []
    for sentence in _SENTENCES.split(text):
        assent = _ASSENT.match(sentence)
        rest = sentence[assent.end() :] if assent else sentence
        if sentence.strip() and not asks_what(rest.lstrip(" ,.!")):
            kept.append(sentence)
    return " ".join(kept)


def untagged(offer: str) -> str:
    """A summary without its tag question: "2 tickets to Rouen, okay?" states its values."""
    return _TAG_QUESTION.sub(".", offer)


_ASSENT = re.compile(
    r"^\W*(?:yes|yeah|yep|yup|ya|yea|sure|ok|okay|o\.k\.|alright|all right|correct|right|"
    r"perfect|great|good|fine|absolutely|definitely|certainly|exactly|indeed|fantastic|"
    r"please do|(?:please )?(?:go ahead|proceed)|do it|confirm(?:ed)?|"
    r"i (?:do|confirm|accept|agree)|"
    r"you got it|that(?:'s|s| is) (?:all )?(?:right|correct|fine|good|great|perfect)|"
    r"that(?:'s|s| is) (?:the one|what i (?:want|need|said|meant))|"
    r"that (?:would|will) (?:be )?(?:just )?(?:great|fine|good|perfect|awesome|do|work)|"
    r"that suits me|that works|that all sounds (?:good|great|fine|right|correct)|"
    r"sounds (?:good|great|perfect|fine|right)|works for me|"
    r"(?:that )?sounds (?:good|great|perfect|fine|right)|"
    # The same, worded otherwise, and nothing after it but an end: "That is confirmed.",
    # "That seems great.", "All correct.", "Everything sounds right to me."; not "It is
    # good to know", "That is confirmed as wrong", "Excellent question".
    r"(?:(?:that|this|it|everything|all of (?:that|it)(?: information)?)(?:'s|s| is| seems|"
    r" sounds| looks| would be| will be)(?: just| all| perfectly| exactly| really| very)? "
    r"(?:confirmed|correct|right|all right|fine|good|great|perfect|lovely|"
    r"what i (?:want|wanted|need|needed))(?: (?:to|for|with|by) me)?|"
    r"all (?:good|correct|right)|sounds (?:really |very )?(?:good|great|perfect|fine|right|"
    r"amazing|excellent|wonderful|lovely|nice)(?: to me)?|"
    r"i(?:'m| am) (?:good|fine|happy) with (?:that|it)|i approve|you(?:'ve)? got it)"
    r"(?=\s*(?:[.!]|,\s*(?:thanks?|thank you|please|go ahead|proceed)\b|$)))\b",
    re.IGNORECASE,
)
_COURTESY = re.compile(
    r"\b(?:yes|yeah|yep|yup|ya|yea|sure|ok|okay|alright|all right|correct|right|exactly|"
    r"perfect|great|good|fine|absolutely|definitely|certainly|please|thanks?|thank you|"
    r"that(?:'s| is)|it(?:'s| is)|this|that|sounds?|works?|for me|me|is|do it|go ahead|"
    r"confirm(?:ed)?|proceed|with it|book it|by me|cool|awesome|wonderful|super|nice|"
    r"very|so|much|indeed|true|all|of course|the|just|fine with me|i agree|agreed|seems|looks|"
    r"lovely|awesome|excellent|terrific|wonderful|i approve|got it|everything|exactly|really|"
    r"perfectly)\b",
    re.IGNORECASE,
)
_LEFT = re.compile(r"[A-Za-z0-9]")
_DOUBTS = re.compile(
    r"\b(?:no(?! problems?\b)|not|never|nope|nah|but|instead|actually|rather|change|wait|"
    r"however|except|"
    r"unless|cancel|stop|hold on)\b|n't\b",
    re.IGNORECASE,
)


def assents(text: str) -> bool:
    """Whether ``text`` is an assent and nothing more: "Yes, that's right.", "Sounds good".

    Anything else in it (a correction, a question, a value, "but...") is not an
    assent: a word left over once the assent and courtesy words are removed, a
    question mark or a negation makes it none.
    """
    if len(text) > 200 or "?" in text or not _ASSENT.match(text):
        return False
    rest = _COURTESY.sub(" ", text)
    return not _LEFT.search(rest)


def accepts(text: str) -> bool:
    """Whether ``text`` begins with an assent and takes nothing back: "Yes, at 7 pm please".

    More may follow the assent (a value, a question about something else), but
    no negation, correction or "but": those are a change, not an acceptance.
    """
    return len(text) <= 1_000 and _ASSENT.match(text) is not None and not _DOUBTS.search(text)


# A no, or an act held back: "No.", "hold off", "never mind", "scratch that", "not yet".
# A negation anywhere holds an act back, whatever it negates: "Send a $5 tip. Actually,
# no.", "I never asked you to send it", "or maybe not". A reason given with a request
# ("cancel my class, I can't make it") is held back too: the model's to weigh. So are an
# act said done ("I sent $25 to Tomas by mistake") and a value said wrong.
_WITHHELD = re.compile(
    r"\b(?:no|not|never|nope|nah|hold off|hold on|wait|never ?mind|scratch that|scrap that|"
    r"forget it|abort|jk|don'?t|do not|wrong|mistake|already|"
    r"sent|paid|booked|bought|ordered|transferred|reserved|cancell?ed|rented|purchased)\b"
    r"|n't\b",
    re.IGNORECASE,
)
# A question about an act, or a condition on it: "How much would it cost to rent...?",
# "If I send 40 EUR, when does it arrive?", "Is it possible to book...?".
_ABOUT_AN_ACT = re.compile(
    r"^\W*(?:(?:and|so|ok(?:ay)?|hmm+|well)\W+)?(?:how|what|when|where|which|who|why|whether|"
    r"if|is|are|was|were|does|do|did|have|has|had|would it|will it|could it|should i)\b"
    r"|\b(?:if|whether) (?:i|we)\b",
    re.IGNORECASE,
)


_PUT_OFF = re.compile(r"\b(?:remind me|remember) to\b(.*)", re.IGNORECASE | re.DOTALL)


def asks_to_act(text: str, verb: str | None = None, *, acting: bool | None = None) -> bool:
    """Whether ``text`` asks outright for the act ``verb`` names: "Rent an ebike...".

    Not a no, a negation or a hold anywhere ("Don't send it yet", "...actually, hold
    off", "or maybe not"); "cancel" holds back any act but a cancellation. For a tool
    that acts (``acting``; by default, ``verb`` is one of ``ACTING_VERBS``), not a
    question about the act or a condition on it ("How much would it cost to rent
    one?", "Is there space for a camper on S-1230?", "If I send 40 EUR..."). A tool
    that looks up (``forecast``) is asked for by a question.
    """
    if len(text) > 1_000 or _WITHHELD.search(text):
        return False
    if verb != "cancel" and re.search(r"\bcancel\b", text, re.IGNORECASE):
        return False
    # "Remind me to send $25 to Tomas": the act put off is a reminder's, not the sending;
    # "remind me to call mom" asks a reminder tool for its own act.
    put_off = _PUT_OFF.search(text)
    if put_off and verb and re.search(rf"\b{re.escape(verb)}", put_off.group(1), re.I):
        return False
    if not (acting if acting is not None else (verb or "") in ACTING_VERBS):
        return True
    return not any(_ABOUT_AN_ACT.search(sentence) for sentence in _SENTENCES.split(text))


def withheld(text: str) -> bool:
    """Whether ``text`` opens by holding something back: "Don't refill RX-448291...".

    No request, for whatever tool its words name.
    """
    return _HELD_BACK.match(text) is not None


_HELD_BACK = re.compile(r"^\W*(?:please\W+)?(?:don'?t|do not|never|no need to)\b", re.IGNORECASE)


def asks_what(text: str) -> bool:
    """Whether a sentence of ``text`` asks which, who, what...: "Who's in this movie?".

    A question for words about what was found, or for a value: no request for a call.
    """
    return any(
        _WH.match(sentence) and not _WHAT_ABOUT.match(sentence)
        for sentence in _SENTENCES.split(text)
        if sentence.strip()
    )


def proposes(text: str) -> bool:
    """Whether ``text`` opens by proposing a task or a value: "What about the pollen there?"."""
    return _WHAT_ABOUT.match(text) is not None


# "What about the air quality there?", "How about Friday?": a task or a value proposed.
_WHAT_ABOUT = re.compile(
    r"^\W*(?:(?:and|so|ok(?:ay)?|great|alright|sure)\W+)?(?:what|how) about\b", re.IGNORECASE
)
