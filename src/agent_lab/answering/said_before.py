"""Values from before the message answered: earlier calls' arguments, earlier user words.

The conversation's reader (``answering.reading``) lays them under what the last
message and an accepted summary say: an earlier call's value where the tool asked
for requires it, or where the last call is refined; what the user said in each
earlier message since the last call, as it was read then.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from agent_lab.agents.tool_specs import acts, tool_acts
from agent_lab.answering.known_values import fits
from agent_lab.answering.restatements import may_change, unnumbered
from agent_lab.answering.utterances import about_results, untagged
from agent_lab.resolvers.cues import name_words
from agent_lab.resolvers.names import name_role
from agent_lab.resolvers.schema import ASKED, kind_of

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from agent_lab.answering.conversation import Conversation, EarlierCall
    from agent_lab.answering.kept_readings import Reader
    from agent_lab.strict_json import JSONObject

__all__ = [
    "asks_about_results",
    "earlier_calls",
    "leaves_another",
    "pointed_to",
    "said_before",
    "still_held",
]


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


def leaves_another(
    conversation: Conversation,
    event: str,
    properties: Mapping[str, Any],
    arguments: JSONObject,
    *,
    tools: Sequence[Mapping[str, object]],
) -> bool:
    """Whether a look-up leaves a value the last call, another tool's, had for it.

    Oneway sailings after round trips for 2: the passengers hold, or were the other
    search's? An optional value of another task does not carry (``earlier_calls``), and
    the call without it may not be the one asked. An act carries what it acts on whole.
    """
    last = conversation.last_call
    return (
        last is not None
        and last.name != event
        and not tool_acts(tools, event)
        and any(name in properties and name not in arguments for name in last.arguments)
    )


# Words that point back at a place: "the weather there", "that area". Not "there is",
# "are there any", "hi there", "over there": no place. Not "the same city", which may be
# the one the user comes from.
_THERE = re.compile(
    r"(?<!\bis )(?<!\bare )(?<!\bwas )(?<!\bwere )(?<!\bhi )(?<!\bhello )(?<!\bany )"
    r"(?<!\bhey )(?<!\bover )\bthere\b(?!\s*(?:is|are|was|were|['\u2019]s|['\u2019]re|will|"
    r"would|be|should|might|may|could|must|has|have|had|isn't|aren't)\b)"
    r"|\bthat (?:city|area|town|place)\b",
    re.IGNORECASE,
)


# A place that is a point in a town, not the town a stay or a forecast is for: a train to
# a station goes to a city the words do not name.
_POINTS = frozenset(
    ["station", "airport", "terminal", "stop", "port", "address", "street", "venue", "stadium"]
)


def pointed_to(
    conversation: Conversation,
    event: str,
    properties: Mapping[str, Any],
    reader: Reader,
    known: JSONObject,
) -> JSONObject:
    """The one place of the last call the last message points back at ("the weather there").

    Where the call went, if it went somewhere (a flight's destination); else the city it
    was in (a car's pick-up city, not its pick-up station: a station is in a city the
    words do not name); one value only, for a place ``event`` requires and ``known``
    lacks, and only when the message names no place of its own.
    """
    last, said = conversation.last_call, conversation.last_user
    pointer = _THERE.search(said)
    if last is None or last.name == event or pointer is None:
        return {}
    rest = said[: pointer.start()] + said[pointer.end() :]
    found = _placed_by(last)
    if found is None:
        return {}
    placed = _placed(found, properties, reader.required, known)
    return {name: value for name, value in placed.items() if not reader.may_state(name, rest)}


def _placed_by(last: EarlierCall) -> str | None:
    """Where ``last`` went, or the city it was in; ``None`` for none or two."""
    places: dict[str, set[str]] = {"destination": set(), "city": set()}
    for name, value in last.arguments.items():
        words = set(name_words(name))
        if not isinstance(value, str) or _POINTS & words:
            continue
        if name_role(name, "") == "destination":
            places["destination"].add(value)
        elif words & {"city", "town"}:
            places["city"].add(value)
    found = places["destination"] or places["city"]
    return found.pop() if len(found) == 1 else None


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
    conversation: Conversation,
) -> tuple[JSONObject, JSONObject]:
    """Earlier calls' values that still hold, with the place the last message points at.

    The values are ``earlier``'s, less those the words since may change, and the place
    the last message points back at (``pointed_to``), which is also given apart.

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
    held = {
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
    pointed = pointed_to(conversation, event, properties, reader, held)
    return {**held, **pointed}, pointed


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
        if isinstance(value, str)
        and name_role(name, "") == "destination"
        and not _POINTS & set(name_words(name))  # a station is in a town, not the town
    }
    if len(gone) != 1:
        return {}
    return _placed(gone.pop(), properties, required, known)


def _placed(
    place: str, properties: Mapping[str, Any], required: Sequence[str], known: JSONObject
) -> JSONObject:
    """``place`` for each place this tool requires and lacks: its location or destination."""
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
