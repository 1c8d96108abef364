"""What every framework wrapper asks: may this turn be answered without the model, and with what?

A wrapper turns its framework's message history into Chat Completions
messages and its function tools into OpenAI tool specs, and asks
``answer_locally``. It gets back the tool calls plain code decided (with the
decision and its ledger), or ``None``: then the wrapped model is asked,
unchanged. The decision is ``agent_lab.decide``'s, the one function the
agents, ``agent-lab shadow`` and ``agent-lab serve`` use. When a parameter
only the user can supply is missing and words may end the turn (``ask``),
the answer is a question to the user instead, as the lab's agent asks:
no model makes one up.

When the conversation ends with the results of the wrapper's own calls,
``reply_locally`` says them with the events' declared replies
(``EventDefinition.reply``), so that the turn ends with no model either.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, cast

from agent_lab.agents.decide import decide
from agent_lab.agents.learned_rules import applied
from agent_lab.agents.outcome import Decision, DispatchedCall, Routing
from agent_lab.agents.tool_specs import tool_name
from agent_lab.application.events.models import Reason, Status, ValidationIssue
from agent_lab.application.events.reply import say
from agent_lab.application.tools import USER_ONLY_NOTE
from agent_lab.errors import StrictJSONError
from agent_lab.resolvers.learned import load_rules
from agent_lab.strict_json import loads, pointer_tokens
from agent_lab.usage import Usage

if TYPE_CHECKING:
    from collections.abc import Sequence

    from agent_lab.agents.plugins import PluginSet
    from agent_lab.agents.turn import Reading
    from agent_lab.resolvers.learned import RuleBook
    from agent_lab.strict_json import JSONObject, JSONValue

__all__ = [
    "LOCAL_CALL_PREFIX",
    "REPLY_REASON",
    "LocalAnswer",
    "LocalCall",
    "answer_locally",
    "is_local_call",
    "question",
    "refusal",
    "reply_locally",
    "rule_book",
]

LOCAL_CALL_PREFIX = "call_al_"
"""The id of every tool call a wrapper answers with: a later turn can tell its own calls
(and their results) from the model's without any state kept between requests."""


@dataclass(frozen=True, slots=True, kw_only=True)
class LocalCall:
    """One tool call decided by plain code."""

    id: str
    name: str
    arguments: JSONObject
    arguments_json: str
    """The arguments as the wire carries them (a JSON object's text)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class LocalAnswer:
    """The turn's answer without the model: its tool calls or its words, and the decision."""

    calls: tuple[LocalCall, ...]
    decision: Decision
    text: str | None = None
    """The words that end the turn: the events' replies (``reply_locally``), or a question
    for what only the user can supply (``answer_locally(ask=True)``); ``None`` for calls."""


def is_local_call(call_id: object) -> bool:
    """Whether a tool call id is one a wrapper (or the gateway) made."""
    return isinstance(call_id, str) and call_id.startswith(LOCAL_CALL_PREFIX)


def _call(name: str, arguments: JSONObject) -> LocalCall:
    return LocalCall(
        id=LOCAL_CALL_PREFIX + secrets.token_hex(8),
        name=name,
        arguments=arguments,
        arguments_json=json.dumps(arguments, ensure_ascii=False, separators=(",", ":")),
    )


def rule_book(rules: RuleBook | str | Path | None) -> RuleBook | None:
    """A wrapper's ``rules=``: a rules file (``agent-lab learn``'s) read now, a ``RuleBook`` kept.

    Raises:
        MissingInputError: No such file.
        InputFileError: Not a rules file (``load_rules``).
    """
    return load_rules(rules) if isinstance(rules, str | Path) else rules


def answer_locally(
    messages: Sequence[Mapping[str, object]],
    tools: Sequence[Mapping[str, object]],
    *,
    plugins: PluginSet | None = None,
    read: Reading = "last",
    at_most_one: bool = False,
    context: Mapping[str, object] | None = None,
    ask: bool = False,
    rules: RuleBook | None = None,
) -> LocalAnswer | None:
    """The turn plain code answers for the conversation's last user message, or ``None``.

    Its tool calls when plain code completes them. With ``ask`` (words may end the
    turn: no structured output, no call demanded), two more decisions made with no
    model are answered, with ``text``, no calls, and the decision with its ledger:
    ``missing_information`` because a parameter only the user can supply is missing
    (reason ``user_only_missing``): a question naming what is missing
    (``question``), where a model could only ask the same or make the value up; and
    ``invalid_arguments``: what the user asked breaks the tool's schema (a 48-hour
    timer where 24 is the most), said back to them (``refusal``), where a model
    would "repair" what the user said or run the tool with it, as the kernel
    forbids.

    ``None`` when the conversation does not end with the user's message, no tool
    is offered, or plain code cannot complete a call: the model is needed.
    ``at_most_one`` (``parallel_tool_calls: false``) refuses an answer of several calls;
    ``context`` gives the resolvers facts such as ``now``, as ``decide`` does.
    ``rules`` (``agent-lab learn``'s, ``load_rules``) are written into the tools'
    schemas first (``RuleBook.annotate``), so the schema-driven resolver applies
    them, and after the resolvers of ``plugins`` (``learned_rules.applied``), as
    ``agent-lab shadow --rules`` and ``agent-lab serve --rules`` do.
    """
    if not tools:
        return None
    offered, ruled = applied(tools, plugins, rules)
    decision = decide(messages, offered, plugins=ruled, read=read, context=context)
    if not decision.local:
        if ask and decision.llm_calls == 0:
            if decision.reason == Reason.USER_ONLY_MISSING:
                return _asking(decision, tools, plugins)
            if decision.status is Status.INVALID_ARGUMENTS and decision.result is not None:
                text = refusal(decision.result.errors)
                return LocalAnswer(calls=(), decision=decision, text=text) if text else None
        return None
    if decision.calls:
        if at_most_one and len(decision.calls) > 1:
            return None
        calls = tuple(_call(call.event, call.arguments or {}) for call in decision.calls)
    elif decision.event is not None:
        calls = (_call(decision.event, decision.arguments or {}),)
    else:
        return None
    return LocalAnswer(calls=calls, decision=decision)


def _asking(
    decision: Decision, tools: Sequence[Mapping[str, object]], plugins: PluginSet | None
) -> LocalAnswer | None:
    missing = decision.result.missing if decision.result is not None else ()
    if not missing or decision.event is None:
        return None
    schema = _schema_of(decision.event, tools, plugins)
    return LocalAnswer(calls=(), decision=decision, text=question(missing, schema))


def refusal(issues: Sequence[ValidationIssue]) -> str | None:
    """What is wrong with what the user asked, one clause per value; ``None`` for no issue."""
    said = [
        f"{issue.pointer.rsplit('/', 1)[-1].replace('_', ' ') or 'the request'}: {issue.message}"
        for issue in issues
    ]
    return "That cannot be done as asked (" + "; ".join(said) + ")." if said else None


_SHORT = 60
"""The longest title or description a question quotes; a longer one is named by its key."""


def question(missing: Sequence[str], schema: Mapping[str, object] | None = None) -> str:
    """A question asking the user for the missing values, each named in plain words.

    Each value (a JSON pointer) is named by its schema's ``title`` when there is a
    short one, else by its key with underscores as spaces; a short ``description``
    follows in brackets: ``Please tell me the party size (how many people) and the
    date.`` Deterministic: the same pointers and schema, the same words.
    """
    names = [_named(pointer, schema) for pointer in dict.fromkeys(missing)]
    if not names:
        return "Please tell me more."
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    return f"Please tell me {listed}."


def _named(pointer: str, schema: Mapping[str, object] | None) -> str:
    tokens = pointer_tokens(pointer)
    words = " ".join(token.replace("_", " ") for token in tokens if not token.isdigit())
    node = _property(schema, tokens)
    title = node.get("title") if node is not None else None
    # Pydantic titles every field after its name ("Party Size"): that says nothing more.
    auto = {words.title(), tokens[-1].replace("_", " ").title() if tokens else ""}
    if isinstance(title, str) and title.strip() and len(title) <= _SHORT and title not in auto:
        words = _mid_sentence(title.strip())
    described = node.get("description") if node is not None else None
    if isinstance(described, str):
        described = described.replace(USER_ONLY_NOTE, "").strip().rstrip(".").strip()
        if described and len(described) <= _SHORT and described.lower() != words.lower():
            return f"the {words} ({_mid_sentence(described)})"
    return f"the {words or 'details'}"


def _mid_sentence(text: str) -> str:
    # "Guest name" in mid-sentence is "guest name"; an acronym such as "URL" stays as it is.
    return text[0].lower() + text[1:] if text[1:2].islower() else text


def _property(
    schema: Mapping[str, object] | None, tokens: list[str]
) -> Mapping[str, object] | None:
    """The subschema of the property a pointer names, following ``properties`` and ``items``."""
    node = schema
    for token in tokens:
        if node is None:
            return None
        properties = node.get("properties")
        child: object = None
        if isinstance(properties, Mapping) and token in properties:
            child = cast("Mapping[str, object]", properties)[token]
        elif token.isdigit():
            child = node.get("items")
        node = cast("Mapping[str, object]", child) if isinstance(child, Mapping) else None
    return node


def _schema_of(
    event: str, tools: Sequence[Mapping[str, object]], plugins: PluginSet | None
) -> Mapping[str, object] | None:
    """The parameters of the event decided: the plugin's own schema, else the offered tool's."""
    for definition in plugins.definitions if plugins is not None else ():
        if definition.name == event and isinstance(definition.parameters, Mapping):
            return cast("Mapping[str, object]", definition.parameters)
    for tool in tools:
        if tool_name(tool) == event:
            function = cast("Mapping[str, object]", tool["function"])
            parameters = function.get("parameters")
            if isinstance(parameters, Mapping):
                return cast("Mapping[str, object]", parameters)
    return None


REPLY_REASON = "local_reply"
"""The ``Decision.reason`` of a turn ended with an event's declared reply."""


def reply_locally(
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
    return LocalAnswer(calls=(), decision=decision, text=text)


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
