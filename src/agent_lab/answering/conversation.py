"""What a conversation holds for the call asked for now, derived from its messages alone.

Every caller holds the whole conversation (a log line, a gateway request, a
framework's history), so nothing is kept between requests: ``Conversation.of``
reads the messages each time, once, into the parts the readers use:

* the earlier tool calls, each with its arguments and the records its result
  returned (``EarlierCall``), parsed once here for every reader;
* the user's last message and the user's messages since the last call;
* the assistant's words just before the user's last message (``offer``): its
  confirmation, an offer or a question, which an assent takes up
  (``answering.utterances.accepts``).

Work is bounded whatever a client sends: only the last ``KEPT_CALLS`` calls are
read, a result longer than ``MAX_RESULT_TEXT`` characters is not parsed (its
records are then unknown, not guessed), and only scalar fields of a result's
top-level objects are records' values.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from agent_lab.agents.turn import message_text
from agent_lab.errors import StrictJSONError
from agent_lab.strict_json import loads

if TYPE_CHECKING:
    from agent_lab.strict_json import JSONObject, JSONValue

__all__ = ["KEPT_CALLS", "MAX_RESULT_TEXT", "Conversation", "EarlierCall"]

KEPT_CALLS = 16
"""Earlier calls read, the most recent: an assistant's task rarely reaches further back."""
MAX_RESULT_TEXT = 65_536
"""Characters of one tool result parsed for its records; a longer one is left unread."""
_MAX_RECORDS = 64
"""Records read from one result: a list of a thousand rows is the model's to read."""

Scalar = str | int | float | bool


@dataclass(frozen=True, slots=True)
class EarlierCall:
    """One tool call the assistant made earlier, and what its result returned."""

    name: str
    arguments: JSONObject
    records: tuple[Mapping[str, Scalar], ...] = ()
    """The scalar fields of each object the result returned (one object, or a list of them)."""


@dataclass(frozen=True, slots=True)
class Conversation:
    """The parts of a conversation the readers use (see the module docstring)."""

    calls: tuple[EarlierCall, ...]
    """Earlier tool calls, oldest first (at most ``KEPT_CALLS``)."""
    last_user: str
    """The text of the last user message."""
    since_call: tuple[str, ...]
    """The user's messages after the last tool call (every one when there was none), oldest
    first, the last user message included."""
    asked: tuple[str | None, ...]
    """For each of ``since_call``, the assistant's words right before it, if any."""
    said: tuple[tuple[str, str], ...]
    """The text messages after the last tool call, oldest first: (role, text), the user's and
    the assistant's."""
    offer: str | None
    """The assistant's words right before the last user message, when there are any."""

    @classmethod
    def of(cls, messages: Sequence[Mapping[str, object]]) -> Conversation:
        """The conversation's parts; a malformed message or call reads as absent."""
        calls: list[EarlierCall] = []
        pending: dict[str, int] = {}
        users: list[str] = []
        asked: list[str | None] = []
        said: list[tuple[str, str]] = []
        before: str | None = None
        for message in messages:
            role = message.get("role")
            if role == "user":
                text = message_text(message) or ""
                users.append(text)
                asked.append(before)
                said.append(("user", text))
                before = None
                continue
            if role == "assistant":
                made = _calls_of(message)
                if made:
                    for call_id, call in made:
                        if call_id is not None:
                            pending[call_id] = len(calls)
                        calls.append(call)
                    users.clear()
                    asked.clear()
                    said.clear()
                    before = None
                else:
                    before = message_text(message) or None
                    if before:
                        said.append(("assistant", before))
                continue
            if role == "tool":
                at = pending.pop(str(message.get("tool_call_id")), None)
                if at is not None:
                    calls[at] = _with_records(calls[at], message)
        return cls(
            calls=tuple(calls[-KEPT_CALLS:]),
            last_user=users[-1] if users else "",
            since_call=tuple(users),
            asked=tuple(asked),
            said=tuple(said),
            offer=_offer(messages),
        )

    @property
    def last_call(self) -> EarlierCall | None:
        """The most recent earlier call, if any."""
        return self.calls[-1] if self.calls else None

    def values_of(
        self, name: str, *, records: bool = True, besides: str | None = None
    ) -> list[Scalar]:
        """Every value earlier calls held under ``name``, the most recent first.

        Their arguments' values, and with ``records`` their results' records', but not
        those of calls to ``besides``.
        """
        found: list[Scalar] = []
        for call in reversed(self.calls):
            value = call.arguments.get(name)
            if isinstance(value, str | int | float | bool):
                found.append(value)
            for record in call.records if records and call.name != besides else ():
                held = record.get(name)
                if held is not None:
                    found.append(held)
        return found

    def held_as(self, value: str) -> set[str]:
        """The names earlier calls held ``value`` under, in their arguments or results."""
        wanted = value.lower()
        return {
            field
            for call in self.calls
            for fields in (call.arguments, *call.records)
            for field, held in fields.items()
            if isinstance(held, str) and held.lower() == wanted
        }


def _offer(messages: Sequence[Mapping[str, object]]) -> str | None:
    """The assistant's words right before the last message, the user's."""
    if len(messages) < 2 or messages[-1].get("role") != "user":
        return None
    before = messages[-2]
    if before.get("role") != "assistant" or before.get("tool_calls"):
        return None
    return message_text(before) or None


def _calls_of(message: Mapping[str, object]) -> list[tuple[str | None, EarlierCall]]:
    listed = message.get("tool_calls")
    if not isinstance(listed, list):
        return []
    made: list[tuple[str | None, EarlierCall]] = []
    for item in cast("list[object]", listed):
        if not isinstance(item, Mapping):
            continue
        call = cast("Mapping[str, object]", item)
        function = call.get("function")
        if not isinstance(function, Mapping):
            continue
        spec = cast("Mapping[str, object]", function)
        name, text = spec.get("name"), spec.get("arguments")
        if not isinstance(name, str) or not isinstance(text, str) or len(text) > MAX_RESULT_TEXT:
            continue
        try:
            arguments = loads(text)
        except (StrictJSONError, RecursionError):
            continue
        if isinstance(arguments, dict):
            call_id = call.get("id")
            made.append(
                (call_id if isinstance(call_id, str) else None, EarlierCall(name, arguments))
            )
    return made


def _with_records(call: EarlierCall, message: Mapping[str, object]) -> EarlierCall:
    text = message_text(message)
    if text is None or len(text) > MAX_RESULT_TEXT:
        return call
    try:
        result = loads(text)
    except (StrictJSONError, RecursionError):
        return call
    rows: list[JSONValue] = list(result[:_MAX_RECORDS]) if isinstance(result, list) else [result]
    records = tuple(
        {key: value for key, value in row.items() if isinstance(value, str | int | float | bool)}
        for row in rows
        if isinstance(row, dict)
    )
    return EarlierCall(call.name, call.arguments, records)
