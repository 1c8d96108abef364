"""Logged calls as learning examples: the user's words, the call, and what plain code read alone.

Each logged request that ends with the user's turn and one tool call is an
example: the tool, its arguments, the words (as ``agent-lab shadow`` reads
them), and the arguments the schema-driven resolver reads from those words
with no rule, so that a rule is mined and judged only where it would fire.
Requests are grouped by conversation (their first two messages), so that a
split never puts one conversation on both sides.
"""

from __future__ import annotations

import hashlib
import inspect
import json
from collections.abc import Awaitable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from agent_lab._loops import run_sync
from agent_lab.agents.tool_specs import tool_name
from agent_lab.answering import Answerer
from agent_lab.errors import AgentLabError
from agent_lab.kernel.models import Event, Resolution
from agent_lab.log_replay.logged_cases import case_of
from agent_lab.logs.record import SkippedLine, SkipReason
from agent_lab.resolvers.learned import ANY_TOOL
from agent_lab.resolvers.schema import SchemaResolver, kind_of

if TYPE_CHECKING:
    from agent_lab.agents.plugins import PluginSet
    from agent_lab.agents.turn import Reading
    from agent_lab.kernel.models import Resolver
    from agent_lab.logs.record import LoggedRequest
    from agent_lab.strict_json import JSONObject

__all__ = ["Example", "conversation_of", "examples_of", "held_out", "refused_tools"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Example:
    """One logged call and the words it answered."""

    conversation: str
    tool: str
    text: str
    arguments: JSONObject
    """What the model called the tool with."""
    read: JSONObject
    """What the schema-driven resolver reads from ``text`` alone, with no rule."""
    kinds: Mapping[str, str]
    """Each parameter's kind (``resolvers.schema.kind_of``)."""
    schema: Mapping[str, Any]
    """The tool's parameters schema, as the request offered it."""
    context: Mapping[str, Any]
    """The facts the resolver read with (``now``: when the request was made)."""
    offered: tuple[str, ...] = ()
    """The tools the request offered."""
    routed: str | None = None
    """The tool plain code routes the words to with no rule (``None``: none)."""


def conversation_of(request: LoggedRequest) -> str:
    """The conversation a request belongs to: a digest of its first two messages."""
    opening = json.dumps(list(request.messages[:2]), sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(opening.encode()).hexdigest()[:16]


def held_out(conversation: str, *, share: float, seed: int) -> bool:
    """Whether a conversation is in the held-out part: a stable draw from its digest."""
    digest = hashlib.sha256(f"{seed}:{conversation}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < share


def _schema(request: LoggedRequest, name: str) -> Mapping[str, Any] | None:
    for tool in request.tools:
        if tool_name(tool) != name:
            continue
        function = tool.get("function")
        holder = cast("Mapping[str, Any]", function if isinstance(function, Mapping) else tool)
        parameters = holder.get("parameters")
        return cast("Mapping[str, Any]", parameters) if isinstance(parameters, Mapping) else None
    return None


def _own_reading(resolver: Resolver | None, event: Event) -> JSONObject:
    """What a resolver of the user's own reads (``{}`` for one that raises: the kernel's to say)."""
    if resolver is None:
        return {}
    try:
        found: object = resolver(event)
        if inspect.isawaitable(found):
            found = run_sync(cast("Awaitable[object]", found))
    except Exception:  # noqa: BLE001 - a broken plugin reads nothing here; dispatch reports it
        return {}
    arguments = found.arguments if isinstance(found, Resolution) else found
    if not isinstance(arguments, Mapping):
        return {}
    return cast("JSONObject", dict(cast("Mapping[str, Any]", arguments)))


def _routed(
    request: LoggedRequest, text: str, offered: tuple[str, ...] | None, answerer: Answerer
) -> str | None:
    """The tool plain code routes the words to, with no rule; ``None`` for tools it refuses."""
    try:
        decider = answerer.decider(request.tools)
        return None if decider is None else decider.router.route(text, offered).event
    except AgentLabError:
        return None


def refused_tools(request: LoggedRequest, answerer: Answerer) -> SkippedLine | None:
    """The request as ``agent-lab shadow`` skips it when its tools are refused, else ``None``.

    A request whose tools the registry refuses (a schema that is no schema) is
    replayed by nobody, so nothing is learned from it either. ``answerer`` holds the
    plugins the logs are replayed with, and keeps the deciders it prepares.
    """
    try:
        answerer.decider(request.tools)
    except AgentLabError as err:
        return SkippedLine(
            where=request.where, reason=SkipReason.BAD_TOOLS, message=f"the tools offered: {err}"
        )
    return None


def examples_of(
    requests: Iterable[LoggedRequest], *, read: Reading = "last", plugins: PluginSet | None = None
) -> list[Example]:
    """The examples the requests hold: one per request with one call after a user turn.

    ``plugins`` supplies the resolvers of the tools it names: what they read, a
    rule is not mined for (rules fill only what a resolver left out).
    """
    own = {d.name: d.resolver for d in (plugins.definitions if plugins else ())}
    answerer = Answerer(plugins, read=read)
    resolvers: dict[str, tuple[SchemaResolver, dict[str, str]]] = {}
    found: list[Example] = []
    for request in requests:
        if len(request.calls) != 1:
            continue
        case = case_of(request, read=read)
        if case is None:
            continue
        call = request.calls[0]
        schema = _schema(request, call.name)
        if schema is None or call.name == ANY_TOOL:
            continue  # a tool named as the rules name "any tool" teaches nothing of its own
        key = json.dumps(schema, sort_keys=True)
        if key not in resolvers:
            given: object = schema.get("properties")
            properties: Mapping[str, Any] = (
                cast("Mapping[str, Any]", given) if isinstance(given, Mapping) else {}
            )
            kinds = {
                name: kind_of(cast("Mapping[str, Any]", sub))
                for name, sub in properties.items()
                if isinstance(sub, Mapping)
            }
            resolvers[key] = (SchemaResolver(schema), kinds)
        resolver, kinds = resolvers[key]
        event = Event(call.name, text=case.text, context=dict(case.context))
        reading = (
            _own_reading(own[call.name], event)
            if call.name in own
            else cast("JSONObject", dict(resolver(event).arguments))
        )
        found.append(
            Example(
                conversation=conversation_of(request),
                tool=call.name,
                text=case.text,
                arguments=call.arguments,
                read=reading,
                kinds=kinds,
                schema=schema,
                context=case.context,
                offered=case.candidates or (),
                routed=_routed(request, case.text, case.candidates, answerer),
            )
        )
    return found
