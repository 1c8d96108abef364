"""LLM-always: the model picks the event and every argument by tool calling."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_lab.agents.choice import ToolChooser
from agent_lab.agents.decider import Decider
from agent_lab.agents.turn import Turn

if TYPE_CHECKING:
    from collections.abc import Collection, Mapping
    from concurrent.futures import Executor

    from agent_lab.agents.decision import Decision
    from agent_lab.agents.plugins import PluginSet
    from agent_lab.agents.port import Provider
    from agent_lab.clock import Clock
    from agent_lab.strict_json import JSONValue

__all__ = ["ToolAgent"]


class ToolAgent:
    """LLM-always: the model picks the event and every argument by tool calling.

    The choice then runs through the same registry, validation and handler
    as the event agent's, and its arguments through the same audit: they are
    dispatched as the call's reply (``dispatch_reply``: strict parse,
    raw/parsed check, K17-K18), so both agents are judged by one set of rules.
    """

    def __init__(
        self,
        plugins: PluginSet,
        provider: Provider,
        *,
        clock: Clock | None = None,
        offload: Executor | None = None,
    ) -> None:
        self.plugins = plugins
        self.chooser = ToolChooser(provider, plugins.definitions)
        self.decider = Decider(plugins, clock=clock, lexical=False, offload=offload)

    async def respond(
        self,
        text: str,
        *,
        event: str | None = None,
        candidates: Collection[str] | None = None,
        payload: Mapping[str, JSONValue] | None = None,
        context: Mapping[str, object] | None = None,
    ) -> Decision:
        """Handle one message: one tool-calling request, then the kernel's rules.

        With ``event`` given, the model is offered that one tool, and fills its
        arguments; with ``candidates``, only those tools.
        """
        turn = Turn(
            text=text,
            event=event,
            candidates=None if candidates is None else tuple(candidates),
            payload=payload or {},
            context=context or {},
        )
        return await self.decider.adecide_by_model(turn, self.chooser)
