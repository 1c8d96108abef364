"""Values a conversation already holds, and the checks a call made from them must pass.

Earlier calls' values that fit a parameter's type and choices (``fits``), names
that earlier calls or their results held which the words repeat verbatim
(``named_values``), and the checks on the call made: that the last message adds
to it (``said_now``), that it changes the last call (``changes``), that one name
does not fill two parameters (``one_name_twice``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, cast

from agent_lab.answering.restatements import weekday_back
from agent_lab.resolvers.schema import kind_of

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from agent_lab.answering.conversation import Conversation, EarlierCall
    from agent_lab.answering.kept_readings import Reader
    from agent_lab.strict_json import JSONObject, JSONValue

__all__ = [
    "changes",
    "fits",
    "kept_by_pick",
    "named_values",
    "names_verbatim",
    "one_name_twice",
    "said_now",
    "stands",
]

_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
}
_LETTER = re.compile(r"[^\W\d_]")


def one_name_twice(arguments: Mapping[str, JSONValue], properties: Mapping[str, Any]) -> bool:
    """Whether two free-form parameters hold the same name (the hotel read as its city)."""
    names = [
        value
        for name, value in arguments.items()
        if isinstance(value, str) and kind_of(properties.get(name, {})) == "free-form"
    ]
    return len(names) != len(set(names))


def stands(
    conversation: Conversation,
    event: str,
    arguments: Mapping[str, JSONValue],
    properties: Mapping[str, Any],
    *,
    reader: Reader,
    said: Sequence[str],
    refining: bool,
) -> bool:
    """Whether a complete call to ``event`` is one the conversation asks for.

    ``said`` are the words since the last call; ``refining``: the call refines the last.
    """
    last = conversation.last_call
    # A name or a number the call holds is read: "movies in Vallejo" says nothing of a
    # genre once Vallejo is the town.
    values = list(arguments.values())
    if any(
        name not in arguments and any(reader.may_state(name, text, values) for text in said)
        for name in properties
    ):
        return False  # the words since the last call say something plain code cannot read
    if one_name_twice(arguments, properties):
        return False  # one name given to two parameters (the hotel as its city)
    if last is not None and event == last.name and dict(arguments) == dict(last.arguments):
        return False  # the same call again: the model's to answer in words
    if (
        refining
        and last is not None
        and any(
            weekday_back(conversation.last_user, value, last.arguments.get(name))
            for name, value in arguments.items()
            if kind_of(properties[name]) == "date"
        )
    ):
        return False  # "what about Thursday?" after next Wednesday: which Thursday
    # A message that names no task of its own refines the last call only by changing one
    # of its values ("what about March 6th?"); one that only adds a value may be a
    # question about the results ("what's today's date?").
    return not refining or changes(arguments, last)


def changes(arguments: Mapping[str, JSONValue], last: EarlierCall | None) -> bool:
    """Whether ``arguments`` change a value ``last`` had (not only add one)."""
    if last is None:
        return False
    return any(
        name in arguments and arguments[name] != value for name, value in last.arguments.items()
    )


def said_now(
    arguments: Mapping[str, JSONValue],
    earlier: Mapping[str, JSONValue],
    grounded: Mapping[str, JSONValue],
    last_user: str,
) -> bool:
    """Whether the last user message gave one of the call's values: read in it, or named in it."""
    lowered = last_user.lower()
    for name, value in arguments.items():
        if name in grounded:
            if isinstance(value, str) and names_verbatim(lowered, value.lower()):
                return True
        elif name not in earlier or earlier[name] != value:
            return True
    return False


def named_values(
    conversation: Conversation,
    event: str,
    properties: Mapping[str, Any],
    texts: Sequence[str],
    *,
    records: bool,
) -> JSONObject:
    """Names earlier calls held that the words name verbatim: one per free-form parameter.

    ``texts`` are read most recent first: the latest that names a known value decides it
    ("Spanish, not English" after "English" was said). With ``records``, values of the
    results count too, but not of ``event``'s own: what a search found is booked, not
    searched for again.
    """
    lowered = [text.lower() for text in texts]
    found: JSONObject = {}
    for name, schema in properties.items():
        if kind_of(schema) != "free-form":
            continue  # a choice, a date, a number: read from the words, latest first
        known = {
            value
            for value in conversation.values_of(name, records=records, besides=event)
            if isinstance(value, str)
            and len(value) >= 2
            and _LETTER.search(value)
            and fits(value, schema)
        }
        for text in lowered:
            named = {value for value in known if names_verbatim(text, value.lower())}
            if named:
                if len(named) == 1:
                    found[name] = named.pop()
                break
    return found


def kept_by_pick(
    conversation: Conversation, named: Mapping[str, JSONValue], properties: Mapping[str, Any]
) -> JSONObject:
    """Values the user asked for before that the found item the call names still holds.

    "Something by Ben Platt" searched songs; "Play Bad Habit" names a song the search
    found, by Ben Platt: the artist the user asked for is the call's too. Only a record
    of the last call's results that the ``named`` values pick out alone, only values an
    earlier call's arguments held under the same name (what the user asked for, not all
    the assistant found), and only as the schema takes them.
    """
    last = conversation.last_call
    if last is None or not named:
        return {}
    picked = [
        record
        for record in last.records
        if all(
            isinstance(value, str) and str(record.get(name, "")).lower() == value.lower()
            for name, value in named.items()
        )
    ]
    if len(picked) != 1:
        return {}
    return {
        name: value
        for name, value in picked[0].items()
        if name in properties
        and name not in named
        and isinstance(value, str)
        and fits(value, properties[name])
        and any(call.arguments.get(name) == value for call in conversation.calls)
    }


def names_verbatim(text: str, value: str) -> bool:
    """Whether ``text`` holds ``value`` as whole words."""
    start = text.find(value)
    while start != -1:
        end = start + len(value)
        before = text[start - 1] if start else " "
        after = text[end] if end < len(text) else " "
        if not (before.isalnum() or after.isalnum()):
            return True
        start = text.find(value, start + 1)
    return False


def fits(value: JSONValue, schema: Mapping[str, Any]) -> bool:
    """Whether ``value`` is of the property's type and among its choices, if it lists any."""
    choices = schema.get("enum")
    if isinstance(choices, list | tuple) and value not in cast("list[Any]", choices):
        return False
    kind = schema.get("type")
    expected = _TYPES.get(kind) if isinstance(kind, str) else None
    if expected is None:
        return isinstance(value, str | int | float | bool)
    if isinstance(value, bool) and bool not in expected:
        return False
    return isinstance(value, expected)
