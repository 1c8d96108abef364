"""What the assistant's summary states, once the user accepted it, and whether it may stand.

"Please confirm: 2 tickets for Golden Earring in Utrecht on May 3rd." The
user's "yes" makes the summary's values the call's, where plain code reads
them (its dates, times, counts, choices and the names its cues place), and
where they agree with what was said before; the reader
(``answering.reading``) lays them over the earlier turns' values.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from agent_lab.agents.tool_specs import action_verb
from agent_lab.answering.restatements import restated
from agent_lab.answering.utterances import requests, untagged
from agent_lab.kernel.models import Event
from agent_lab.resolvers.name_runs import names_left, unread_doubt
from agent_lab.resolvers.schema import NAMES, kind_of

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from agent_lab.answering.kept_readings import Reader
    from agent_lab.strict_json import JSONObject

__all__ = ["accepted_summary", "confirmed_over", "name_left", "stated", "sums_up"]


def accepted_summary(
    reader: Reader,
    event: str,
    properties: Mapping[str, Any],
    offer: str | None,
    *,
    acting: bool,
    confirmed: bool,
    offered: bool,
    last_user: str,
    context: Mapping[str, object],
    prefill: JSONObject,
    grounded: JSONObject,
) -> JSONObject | None:
    """The accepted summary's values over ``prefill``; ``None``: it may not stand.

    Empty with no ``offer``. An offer to act (``acting``: the tool acts) that is no
    summary to confirm (``confirmed``) stands only where it states what it would do
    (``sums_up``) and the user adds nothing to it (``last_user``): "Yes, for four" is
    confirmed again; a question aside is no change. ``offered``: the offer was a yes/no
    question, whose names may be the call's.
    """
    if offer is None:
        return {}
    known = {**prefill, **grounded}
    found = stated(
        reader, event, properties, offer, known=known, context=context, names=confirmed or offered
    )
    if found is None:
        return None
    if (
        acting
        and not confirmed
        and (
            not sums_up(event, properties, offer, found, grounded)
            or reader.read(event, requests(last_user), context)
        )
    ):
        return None
    if not confirmed_over(
        properties, reader, offer, summary=found, prefill=prefill, grounded=grounded
    ):
        return None
    return found


def stated(
    reader: Reader,
    event: str,
    properties: Mapping[str, Any],
    offer: str,
    *,
    known: JSONObject,
    context: Mapping[str, object],
    names: bool,
) -> JSONObject | None:
    """The values an accepted summary states; its names only with ``names``.

    ``None`` when, with what is known so far given, it states one plain code cannot read.
    A question ("Is there a City you have in mind?") is read for names only when it asks
    to confirm a summary: otherwise its capitals are its own words, not values.
    """
    context = context if names else {**context, NAMES: False}
    # "2 tickets to Rouen, okay?" states what it asks to confirm: its values are not
    # merely asked about.
    offer = untagged(offer)
    if reader(Event(event, text=offer, payload=known, context=dict(context))).complete is False:
        return None
    read = reader.read(event, offer, context)
    return {k: v for k, v in read.items() if k in properties}


def confirmed_over(
    properties: Mapping[str, Any],
    reader: Reader,
    offer: str,
    *,
    summary: JSONObject,
    prefill: JSONObject,
    grounded: JSONObject,
) -> bool:
    """Whether the summary may stand over what was known before; ``prefill`` is updated.

    A value it states otherwise than the words before, which nobody asked to change,
    is the model's to sort out. A value said before that it may restate in words plain
    code cannot read is dropped (a correction the user made); the summary's own values
    are laid over the rest.
    """
    if any(name in prefill and prefill[name] != value for name, value in summary.items()):
        return False
    known = [*summary.values(), *prefill.values(), *grounded.values()]
    for name in list(prefill):
        kind = kind_of(properties[name])
        if name not in summary and restated(kind, name, reader, offer, known):
            del prefill[name]
    prefill.update(summary)
    return True


def name_left(
    offer: str,
    properties: Mapping[str, Any],
    reader: Reader,
    known: JSONObject,
    held_as: Callable[[str], set[str]] | None = None,
) -> JSONObject:
    """The accepted summary's one name left, for the one required name left unfilled.

    "3 tickets for Mandy Harvey on March 14th in Napa", the date, the count and the
    city known: the one name no value is, for the one free-form parameter the call
    still needs. Two names left, or two parameters: nothing. ``held_as`` gives the
    parameters earlier calls held a name under (``Conversation.held_as``): a name held
    as another is not this one (a restaurant's name is no event's name).
    """
    open_names = [
        name
        for name in reader.required
        if name not in known and name in properties and kind_of(properties[name]) == "free-form"
    ]
    if len(open_names) != 1 or unread_doubt(offer, known.values()):
        return {}
    left = names_left(offer, known.values())
    if len(left) != 1 or (held_as is not None and not held_as(left[0]) <= {open_names[0]}):
        return {}
    return {open_names[0]: left[0]}


def sums_up(
    event: str,
    properties: Mapping[str, Any],
    offer: str,
    summary: JSONObject,
    grounded: JSONObject,
) -> bool:
    """Whether an offer to act (not a summary to confirm) states the action it proposes.

    Two of its values and the action's verb ("Shall I book 3 seats on the Arrow?"), or,
    without the verb, two values that are no names ("So 1 ticket to Hamlet on May
    3rd?"): "One Last Time by Ariana Grande?" offers a song, not to play it. ``summary``
    holds the values read from it, ``grounded`` the names results held.
    """
    verb = action_verb(event)
    if verb is not None and re.search(rf"\b{re.escape(verb)}", offer, re.IGNORECASE):
        said = {**summary, **{name: v for name, v in grounded.items() if str(v) in offer}}
        return len(said) >= 2
    plain = [name for name in summary if kind_of(properties[name]) != "free-form"]
    return len(plain) >= 2
