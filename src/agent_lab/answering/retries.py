"""An act that failed, tried again as the assistant offers and the user accepts.

"Sorry, I couldn't book that table. How about 7:30 pm instead?" "Yes, try
that." The assistant said the last call failed and asked, in one question,
to make it again with a value changed; the user's yes makes that call: the
last call's arguments with the values the question states laid over them.
Only where plain code reads the question whole (no name left unread), the
question changes at least one value, the yes adds nothing of its own, and
the tool acts (a search is refined, ``answering.reading``, not retried).
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING

from agent_lab.agents.tool_specs import tool_acts, tool_properties
from agent_lab.answering.utterances import last_sentence, requests, untagged
from agent_lab.kernel.ledger import ValueSource, first_sources
from agent_lab.resolvers.name_runs import unread_doubt

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from agent_lab.agents.decider import Decider
    from agent_lab.agents.decision import Decision
    from agent_lab.agents.turn import Turn
    from agent_lab.answering.conversation import Conversation
    from agent_lab.answering.kept_readings import ReaderOf

__all__ = ["retried"]

# The assistant's words that the last act did not go through.
_FAILED = re.compile(
    r"\b(?:sorry|unable|couldn't|could not|can't|cannot|wasn't able|was not able|failed|"
    r"(?:is|was|are|were) not (?:available|possible)|(?:is|was|are|were)n't (?:available|"
    r"possible)|unavailable|no longer available|fully booked|sold out)\b",
    re.IGNORECASE,
)


# The question offers the act again, in a form whose yes means do it: "How about 7 pm?",
# "Shall I try 7 pm?", "Would 7 pm work?"; not "Is 7 pm too late?" nor "Do you know if...".
_OFFERS = re.compile(
    r"(?:^|,\s*)(?:(?:so|ok(?:ay)?|then|well|alternatively)\W+)?(?:how about|what about|"
    r"would you like|(?:do you )?want (?:me )?to|shall i|should i|can i|could i|may i|"
    r"would (?:you be )?.{1,60}?\b(?:work|suit|do|be (?:ok|okay|fine|alright))\b|"
    r"is .{1,60}?\b(?:ok|okay|fine|alright)\b)",
    re.IGNORECASE,
)
# A yes to these is no plain retry: a negation, a choice, a drop, "too late", "a problem".
_NOT_OFFERED = re.compile(
    r"\b(?:not|never|no|skip|cancel|drop|remove|avoid|too|problem|rather|or)\b|n't\b",
    re.IGNORECASE,
)
# The last act went through ("Your court is booked. Sorry, the café is closed..."): no retry.
_DONE = re.compile(
    r"\b(?:is|are|was|were|has been|have been|all) (?:booked|reserved|confirmed|purchased|"
    r"bought|scheduled|set|done)\b|\bsuccessfully\b",
    re.IGNORECASE,
)


def retried(
    decider: Decider,
    conversation: Conversation,
    tools: Sequence[Mapping[str, object]],
    turn: Turn,
    reader_of: ReaderOf,
) -> Decision | None:
    """The failed act made again with the values the accepted question changes, or ``None``.

    The caller has checked that the user accepted the assistant's question.
    """
    last, offer = conversation.last_call, conversation.offer or ""
    if last is None or not offer.rstrip().endswith("?") or not _FAILED.search(offer):
        return None
    question = last_sentence(offer)
    if _DONE.search(offer) or not _OFFERS.search(question) or _NOT_OFFERED.search(question):
        return None  # it went through, or the question offers no one retry plainly
    if turn.candidates is not None and last.name not in turn.candidates:
        return None
    properties = tool_properties(tools, last.name)
    if not properties or not tool_acts(tools, last.name):
        return None
    reader = reader_of(last.name)
    question = untagged(question)
    stated = dict(reader.read(last.name, question, turn.context))
    changed = {k: v for k, v in stated.items() if last.arguments.get(k) != v}
    if not changed or any(k not in properties for k in stated):
        return None
    if unread_doubt(question, [*stated.values(), *last.arguments.values()]):
        return None  # a name in the question plain code cannot place
    if reader.read(last.name, requests(conversation.last_user), turn.context):
        return None  # "Yes, but for 3 of us": the user's own values are another request
    arguments = {**last.arguments, **stated}
    decision = decider.decide(
        dataclasses.replace(turn, text="", event=last.name, prefill={**turn.prefill, **arguments})
    )
    if not decision.local or decision.arguments != arguments:
        return None
    layers = [(stated, ValueSource.SUMMARY), (last.arguments, ValueSource.EARLIER_CALL)]
    return dataclasses.replace(decision, read_from=first_sources(arguments, layers))
