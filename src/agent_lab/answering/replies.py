"""The turn after calls answered locally, said with the events' declared replies, with no model.

When the conversation ends with the results of the calls of its last
assistant message, each call answered locally (``is_local_call``), each to
an event whose definition declares a ``reply`` (``EventDefinition.reply``)
that can say its result, the turn ends with those words.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, cast

from agent_lab.agents.decision import Decision, DispatchedCall, Routing
from agent_lab.agents.tool_specs import tool_name
from agent_lab.answering.answers import LocalAnswer, is_local_call
from agent_lab.errors import StrictJSONError
from agent_lab.kernel.models import Status
from agent_lab.kernel.reply import say
from agent_lab.strict_json import loads
from agent_lab.usage import Usage

if TYPE_CHECKING:
    from collections.abc import Sequence

    from agent_lab.agents.plugins import PluginSet
    from agent_lab.strict_json import JSONObject, JSONValue

__all__ = ["REPLY_REASON", "said_replies"]


REPLY_REASON = "local_reply"
"""The ``Decision.reason`` of a turn ended with an event's declared reply."""


def said_replies(
    messages: Sequence[Mapping[str, object]],
    tools: Sequence[Mapping[str, object]],
    *,
    plugins: PluginSet | None,
) -> LocalAnswer | None:
    """The words that end the turn after the wrapper's own calls, or ``None``: the model's turn.

    The conversation must end with the results of every call of its last
    assistant message, each call a wrapper's (``is_local_call``), each to an
    offered tool whose definition in ``plugins`` declares a ``reply`` that can
    say its result (the tool message's content, read as JSON when it is JSON),
    a result that does not report failure (``EventDefinition.failed``, else
    ``events.reply.reports_failure``): a failed call is the model's to say.
    The replies are joined by a line break. The answer's ``decision`` is local
    (no LLM request, ``reason`` ``REPLY_REASON``, routed ``given``), with a call
    per result, so that it counts as a request saved; its ledger is the
    undispatched one (the calls were dispatched, and counted, the turn before).
    """
    if plugins is None:
        return None
    answered = _answered_calls(messages)
    if not answered:
        return None
    offered = {name for tool in tools if (name := tool_name(tool)) is not None}
    definitions = {d.name: d for d in plugins.definitions if d.name in offered}
    said: list[str] = []
    calls: list[DispatchedCall] = []
    for name, arguments, content in answered:
        definition = definitions.get(name)
        words = (
            None
            if definition is None
            else say(definition.reply, _result(content), failed=definition.failed)
        )
        if words is None:
            return None
        said.append(words)
        calls.append(DispatchedCall(event=name, status=Status.SUCCESS, arguments=arguments))
    text = "\n".join(said)
    decision = Decision(
        status=Status.SUCCESS,
        reason=REPLY_REASON,
        event=calls[0].event,
        arguments=calls[0].arguments,
        routed_by=Routing.GIVEN,
        llm_calls=0,
        usage=Usage.zero(),
        message=text,
        said=text,
        calls=tuple(calls) if len(calls) > 1 else (),
    )
    return LocalAnswer(calls=(), text=text, decision=decision, reason=REPLY_REASON)


def _answered_calls(
    messages: Sequence[Mapping[str, object]],
) -> list[tuple[str, JSONObject | None, object]]:
    """Each call of the last assistant message, with its result, if all were local and answered."""
    end = len(messages)
    start = end
    while start > 0 and messages[start - 1].get("role") == "tool":
        start -= 1
    if start in (end, 0) or messages[start - 1].get("role") != "assistant":
        return []
    asked = _calls_of(messages[start - 1])
    results = {message.get("tool_call_id"): message.get("content") for message in messages[start:]}
    if not asked or set(results) != set(asked) or not all(map(is_local_call, asked)):
        return []
    return [(name, arguments, results[call_id]) for call_id, (name, arguments) in asked.items()]


def _calls_of(message: Mapping[str, object]) -> dict[str, tuple[str, JSONObject | None]]:
    found: dict[str, tuple[str, JSONObject | None]] = {}
    calls = message.get("tool_calls")
    for call in cast("list[object]", calls) if isinstance(calls, list) else []:
        if not isinstance(call, Mapping):
            return {}
        entry = cast("Mapping[str, object]", call)
        function = entry.get("function")
        call_id = entry.get("id")
        if not isinstance(function, Mapping) or not isinstance(call_id, str):
            return {}
        name = cast("Mapping[str, object]", function).get("name")
        if not isinstance(name, str):
            return {}
        arguments = _result(cast("Mapping[str, object]", function).get("arguments"))
        found[call_id] = (
            name,
            cast("JSONObject", arguments) if isinstance(arguments, dict) else None,
        )
    return found


def _result(content: object) -> JSONValue:
    """A tool message's content as the handler's result: its JSON when it is JSON, else its text."""
    if not isinstance(content, str):
        return None
    try:
        return loads(content)
    except StrictJSONError:
        return content
