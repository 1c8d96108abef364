"""``decide``: any caller's one call, from a conversation and the tools it offers to a decision.

The event agent decides an ``Event`` against its plugin set; a chat
conversation comes with the tool specs a request offered. Both come through
here to a ``Decider``, prepared on every call and kept nowhere: preparing
one (a registry, compiled validators) takes about 2 ms for eight tools
against 0.06 ms to decide. A caller deciding turn after turn holds the
``Decider`` (the agents do) or an ``answering.Answerer``, which keeps one per
set of tools (the gateway, the wrappers and log replay do).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, TypeAlias

from agent_lab.agents.decider import Decider
from agent_lab.agents.decision import Decision, Routing
from agent_lab.agents.plugins import PluginSet
from agent_lab.agents.tool_specs import plugins_from_tools, tool_name
from agent_lab.agents.turn import Reading, Turn
from agent_lab.kernel.models import Event, Status
from agent_lab.usage import Usage

if TYPE_CHECKING:
    from agent_lab.agents.choice import ToolChooser
    from agent_lab.kernel.models import Fallback

__all__ = ["Decidable", "Tools", "adecide", "decide", "decider_for"]

Decidable: TypeAlias = Event | Turn | Sequence[Mapping[str, object]]
"""A structured ``Event``, a ``Turn``, or chat messages in the OpenAI format (the last one
the user's)."""
Tools: TypeAlias = PluginSet | Sequence[Mapping[str, object]]
"""A plugin set, or tool specs in the OpenAI format (``{"type": "function", "function": ...}``)."""


def decider_for(tools: Tools, *, plugins: PluginSet | None = None) -> Decider:
    """A new ``Decider`` for these tools: a plugin set's own, or one made of tool specs.

    Raises:
        ToolSpecError: A tool spec that is not a function tool with a name.
    """
    events = tools if isinstance(tools, PluginSet) else plugins_from_tools(tools, plugins=plugins)
    return Decider(events)


def decide(
    conversation: Decidable,
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
    conversation: Decidable,
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
    conversation: Decidable, tools: Tools, context: Mapping[str, object] | None, read: Reading
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
