"""``decide``: any caller's one call, from a conversation and the tools it offers to a decision.

The event agent decides an ``Event`` against its plugin set; log replay, the
gateway and the framework wrappers hold a chat conversation and the tool
specs a request offered. Both come through here to the same ``Decider``,
prepared once per plugin set (or per set of tools) and kept.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from threading import Lock
from typing import TYPE_CHECKING, TypeAlias, cast

from agent_lab.agents.decision import Decider
from agent_lab.agents.outcome import Decision, Routing
from agent_lab.agents.plugins import PluginSet
from agent_lab.agents.tool_specs import plugins_from_tools, tool_name
from agent_lab.agents.turn import Reading, Turn
from agent_lab.application.events.models import Event, Status
from agent_lab.strict_json import canonical_dumps
from agent_lab.usage import Usage

if TYPE_CHECKING:
    from agent_lab.agents.choice import ToolChooser
    from agent_lab.application.events.models import Fallback

__all__ = ["Conversation", "Tools", "adecide", "decide", "decider_for"]

Conversation: TypeAlias = Event | Turn | Sequence[Mapping[str, object]]
"""A structured ``Event``, a ``Turn``, or chat messages in the OpenAI format (the last one
the user's)."""
Tools: TypeAlias = PluginSet | Sequence[Mapping[str, object]]
"""A plugin set, or tool specs in the OpenAI format (``{"type": "function", "function": ...}``)."""

_KEPT = 128
"""Deciders kept, the most recently used: each holds a registry and compiled validators."""
_DECIDERS: OrderedDict[tuple[object, ...], tuple[object, Decider]] = OrderedDict()
_LOCK = Lock()


def decider_for(tools: Tools, *, plugins: PluginSet | None = None) -> Decider:
    """The ``Decider`` for these tools, prepared once and kept (the most recent 128).

    A plugin set is kept by identity; tool specs by their canonical JSON, so
    that every request offering the same tools shares one registry.

    Raises:
        ToolSpecError: A tool spec that is not a function tool with a name.
    """
    if isinstance(tools, PluginSet):
        key: tuple[object, ...] = ("plugins", id(tools))
        owner: object = tools
    else:
        key, owner = ("tools", _tools_key(tools), id(plugins)), plugins
    with _LOCK:
        kept = _DECIDERS.get(key)
        if kept is not None and (key[0] == "tools" or kept[0] is owner):
            _DECIDERS.move_to_end(key)
            return kept[1]
    events = tools if isinstance(tools, PluginSet) else plugins_from_tools(tools, plugins=plugins)
    made = Decider(events)
    with _LOCK:
        _DECIDERS[key] = (owner, made)
        while len(_DECIDERS) > _KEPT:
            _DECIDERS.popitem(last=False)
    return made


def _plain(value: object) -> object:
    if isinstance(value, Mapping):
        return dict(cast("Mapping[str, object]", value))
    raise TypeError(f"{type(value).__name__} is not JSON data")


def _tools_key(tools: Sequence[Mapping[str, object]]) -> str:
    """The tools' text, for finding their decider again: equal tools, equal text.

    ``json.dumps`` with sorted keys, not the canonical form: a log offers the same
    tools with every request, freshly parsed, and the canonical writer (pure Python)
    took 14 ms for the demo's eight tools against 0.1 ms (cProfile of `agent-lab
    shadow`). Two spellings of one number (1 and 1.0) only cost a second decider.
    """
    try:
        return json.dumps(
            list(tools), sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=_plain
        )
    except (TypeError, ValueError, RecursionError):
        # Not plain JSON data: the canonical writer says what is wrong with it.
        return canonical_dumps(list(tools))


def decide(
    conversation: Conversation,
    tools: Tools,
    *,
    fallback: Fallback | None = None,
    chooser: ToolChooser | None = None,
    plugins: PluginSet | None = None,
    context: Mapping[str, object] | None = None,
    read: Reading = "last",
) -> Decision:
    """Decide one message deterministic-first, in this thread.

    With no ``fallback`` and no ``chooser``, plain code decides alone:
    ``Decision.local`` says whether it did, and its status why not
    (``unknown_event``: no route decided; ``missing_information``: what the
    words did not hold). ``plugins`` supplies your own resolvers (and routes)
    for the tools it names, beside tool specs; ``context`` gives the resolvers
    facts such as ``now``; ``read`` what of a chat conversation the resolvers
    read (its last user message, or every user message so far).
    """
    turn = _turn(conversation, tools, context, read)
    if turn is None:
        return _not_a_user_turn()
    return decider_for(tools, plugins=plugins).decide(turn, fallback=fallback, chooser=chooser)


async def adecide(
    conversation: Conversation,
    tools: Tools,
    *,
    fallback: Fallback | None = None,
    chooser: ToolChooser | None = None,
    plugins: PluginSet | None = None,
    context: Mapping[str, object] | None = None,
    read: Reading = "last",
) -> Decision:
    """``decide``, awaiting the model and async plugins."""
    turn = _turn(conversation, tools, context, read)
    if turn is None:
        return _not_a_user_turn()
    decider = decider_for(tools, plugins=plugins)
    return await decider.adecide(turn, fallback=fallback, chooser=chooser)


def _turn(
    conversation: Conversation, tools: Tools, context: Mapping[str, object] | None, read: Reading
) -> Turn | None:
    if isinstance(conversation, Turn):
        return conversation
    if isinstance(conversation, Event):
        return Turn.of(conversation)
    offered = (
        None
        if isinstance(tools, PluginSet)
        else tuple(name for tool in tools if (name := tool_name(tool)) is not None)
    )
    return Turn.from_messages(conversation, candidates=offered, context=context, read=read)


def _not_a_user_turn() -> Decision:
    # A conversation that ends with a tool's result or the assistant's words is the
    # model's to continue: nothing to decide here.
    return Decision(
        status=Status.UNKNOWN_EVENT,
        reason="not_a_user_turn",
        event=None,
        arguments=None,
        routed_by=Routing.NONE,
        llm_calls=0,
        usage=Usage.zero(),
        message="the conversation does not end with a user message",
    )
