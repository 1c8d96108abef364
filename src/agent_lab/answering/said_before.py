"""Values from before the message answered: earlier calls' arguments, earlier user words.

The conversation's reader (``answering.reading``) lays them under what the last
message and an accepted summary say: an earlier call's value where the tool asked
for requires it, or where the last call is refined; what the user said in each
earlier message since the last call, as it was read then.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent_lab.agents.tool_specs import acts
from agent_lab.answering.known_values import fits
from agent_lab.answering.restatements import may_change, unnumbered
from agent_lab.answering.utterances import about_results, untagged
from agent_lab.resolvers.names import name_role
from agent_lab.resolvers.schema import ASKED, kind_of

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from agent_lab.answering.conversation import Conversation, EarlierCall
    from agent_lab.answering.kept_readings import Reader
    from agent_lab.strict_json import JSONObject

__all__ = ["asks_about_results", "earlier_calls", "said_before", "still_held"]


def asks_about_results(conversation: Conversation, text: str) -> bool:
    """Whether an earlier message asks about what a call found.

    Before any call there is nothing found: "Could I have the forecast for tomorrow?"
    asks for one.
    """
    return conversation.last_call is not None and about_results(text)


def earlier_calls(
    conversation: Conversation,
    event: str,
    properties: Mapping[str, Any],
    required: Sequence[str],
) -> JSONObject:
    """Earlier calls' values for ``event``, the most recent call's last.

    Another tool's values carry only to what this one requires (the search's city to
    the booking); an optional one (a genre) may be another task's. The last call's own
    values carry whole when it is the tool asked for again (a refinement of it).
    """
    last = conversation.last_call
    earlier: JSONObject = {}
    for call in conversation.calls:
        # The last call's own values carry whole to a refinement of it, and to the action
        # on what it found: a bus booked keeps the fare the search asked for.
        own = call is last and (call.name == event or (acts(event) and not acts(call.name)))
        for name, value in call.arguments.items():
            if name in properties and (name in required or own) and fits(value, properties[name]):
                earlier[name] = value
    if last is not None and last.name != event:
        earlier.update(_gone_to(last, properties, required, earlier))
    return earlier


def still_held(
    event: str,
    properties: Mapping[str, Any],
    reader: Reader,
    said: Sequence[str],
    *,
    offer: str | None,
    context: Mapping[str, object],
    earlier: JSONObject,
    grounded: JSONObject,
) -> JSONObject:
    """Earlier calls' values (``earlier``), less those the words since may change.

    ``said`` are the words since the last call, the accepted ``offer`` last when there
    is one. The user's words may restate a value in lower case or in part: any sign
    counts. The assistant's accepted summary names things as they are: only a name it
    holds that is none of the values known counts.
    """
    theirs = [
        (unnumbered(text), reader.read(event, text, context))
        for text in (said[:-1] if offer else said)
    ]
    summary_read = {**reader.read(event, untagged(offer), context), **grounded} if offer else {}
    return {
        name: value
        for name, value in earlier.items()
        if name not in grounded
        # A name read as another value ("anything by Pitbull?" for the artist), or held
        # by a result, is no sign of this one; read as this one, it changes it.
        and not any(
            read.get(name, value) != value
            or reader.may_state(name, text, [*read.values(), *grounded.values()])
            for text, read in theirs
        )
        and not (
            offer
            and may_change(
                kind_of(properties[name]), name, reader, offer, {**summary_read, name: value}
            )
        )
    }


def _gone_to(
    last: EarlierCall, properties: Mapping[str, Any], required: Sequence[str], known: JSONObject
) -> JSONObject:
    """The place the last call's trip goes to, for a place this tool requires and lacks.

    A flight to Atlanta, then "I need a hotel room": the hotel is where the trip goes.
    Only a destination (not where a car is picked up, nor where a restaurant is), only
    one, and only for a place the tool requires: its location or its destination.
    """
    gone = {
        value
        for name, value in last.arguments.items()
        if isinstance(value, str) and name_role(name, "") == "destination"
    }
    if len(gone) != 1:
        return {}
    place = gone.pop()
    return {
        name: place
        for name in required
        if name not in known
        and name in properties
        and kind_of(properties[name]) == "free-form"
        and name_role(name, _description(properties[name])) in ("location", "destination")
        and fits(place, properties[name])
    }


def _description(schema: Mapping[str, Any]) -> str:
    described = schema.get("description")
    return described if isinstance(described, str) else ""


def said_before(
    conversation: Conversation,
    event: str,
    properties: Mapping[str, Any],
    reader: Reader,
    context: Mapping[str, object],
) -> JSONObject:
    """What the user said in earlier messages since the last call.

    Each is read as it came (the assistant's question before it in view); a later
    reading wins. A question about what was found sets nothing, and a value is dropped
    where a later message may state it in words plain code cannot read
    (``restatements.may_change``).
    """
    texts = conversation.since_call
    readings: list[JSONObject] = []
    for index, text in enumerate(texts):
        asked = conversation.asked[index] if index < len(conversation.asked) else None
        if index == len(texts) - 1:
            asked = conversation.offer
        if asks_about_results(conversation, text) and index < len(texts) - 1:
            readings.append({})  # a question about what was found ("is it furnished?")
            continue
        readings.append(reader.read(event, text, {**context, ASKED: asked} if asked else context))
    found: JSONObject = {}
    for index, read in enumerate(readings[:-1]):
        for name, value in read.items():
            # A later message that may state it in words plain code cannot read
            # ("Actually, pick it up in Seattle, WA") may be changing it.
            if name in properties and not any(
                name not in after
                and may_change(kind_of(properties[name]), name, reader, text, after)
                for text, after in zip(texts[index + 1 :], readings[index + 1 :], strict=True)
            ):
                found[name] = value
    return found
