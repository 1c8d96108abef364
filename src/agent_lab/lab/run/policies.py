"""Policies: deterministic-first, LLM-always, deterministic-only; pluggable (L5)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

from agent_lab.agents.choice import ToolChooser
from agent_lab.agents.event_agent import EventAgent
from agent_lab.agents.fallback import LLMFallback
from agent_lab.agents.tool_agent import ToolAgent
from agent_lab.errors import NotFoundError
from agent_lab.lab.run.dialogues import PlainReader, transcript

if TYPE_CHECKING:
    from concurrent.futures import Executor

    from agent_lab.agents.decision import Decision
    from agent_lab.agents.plugins import PluginSet
    from agent_lab.agents.port import Provider
    from agent_lab.log_replay.case import Case

__all__ = [
    "POLICIES",
    "DeterministicFirst",
    "DeterministicOnly",
    "LLMAlways",
    "Policy",
    "make_policy",
]


@runtime_checkable
class Policy(Protocol):
    """A way of handling a case; pluggable. Its docstring says what it sends to the LLM (L5)."""

    name: str

    async def run(self, case: Case) -> Decision:
        """Handle one case."""
        ...


def _given(case: Case) -> str | None:
    return case.event if case.event_given else None


def _context(case: Case) -> dict[str, object]:
    return {**case.context, "case_id": case.id}


async def _respond(
    agent: EventAgent | ToolAgent, case: Case, *, written_out: bool = True
) -> Decision:
    # Every policy hands its agent the same parts of a case; a conversation's, written out
    # (``written_out=False``: its last message alone).
    return await agent.respond(
        transcript(case.messages) if case.messages and written_out else case.text,
        event=_given(case),
        candidates=case.candidates,
        payload=case.payload,
        context=_context(case),
    )


class DeterministicFirst:
    """The kernel as its contract says: plain code first, the LLM only for what is missing.

    Sends the LLM only the missing fields (and, when no route matches, the choice of event).
    A conversation (``Case.messages``) that plain code does not decide whole is sent as
    llm-always sends it (``lab.run.dialogues``).
    """

    name = "deterministic-first"

    def __init__(
        self, plugins: PluginSet, provider: Provider, *, offload: Executor | None = None
    ) -> None:
        self.agent = EventAgent(
            plugins,
            fallback=LLMFallback(provider),
            chooser=ToolChooser(provider, plugins.definitions),
            offload=offload,
        )
        self.model = ToolAgent(plugins, provider, offload=offload)
        self.reader = PlainReader(plugins)

    async def run(self, case: Case) -> Decision:
        """Route and resolve with code; fall back to the LLM for gaps."""
        if case.messages:
            decided = self.reader.decide(case, _context(case))
            return decided if decided is not None else await _respond(self.model, case)
        return await _respond(self.agent, case)


class LLMAlways:
    """Every request goes to the LLM, which picks the event and all arguments by tool calling."""

    name = "llm-always"

    def __init__(
        self, plugins: PluginSet, provider: Provider, *, offload: Executor | None = None
    ) -> None:
        self.agent = ToolAgent(plugins, provider, offload=offload)

    async def run(self, case: Case) -> Decision:
        """One tool-calling request, then the kernel's validation and handler."""
        return await _respond(self.agent, case)


class DeterministicOnly:
    """Plain code only: no LLM at all; what code cannot read stays missing."""

    name = "deterministic-only"

    def __init__(
        self,
        plugins: PluginSet,
        provider: Provider | None = None,
        *,
        offload: Executor | None = None,
    ) -> None:
        self.agent = EventAgent(plugins, offload=offload)

        self.reader = PlainReader(plugins)

    async def run(self, case: Case) -> Decision:
        """Route and resolve with code alone (a conversation: its last message, if not whole)."""
        if case.messages:
            decided = self.reader.decide(case, _context(case))
            if decided is not None:
                return decided
        return await _respond(self.agent, case, written_out=False)


POLICIES: dict[str, type[DeterministicFirst] | type[LLMAlways] | type[DeterministicOnly]] = {
    DeterministicFirst.name: DeterministicFirst,
    LLMAlways.name: LLMAlways,
    DeterministicOnly.name: DeterministicOnly,
}


def make_policy(
    name: str, plugins: PluginSet, provider: Provider, *, offload: Executor | None = None
) -> Policy:
    """Build a policy by name (``offload``: run plugin code in this executor's threads).

    Raises:
        NotFoundError: No policy of that name (the message lists them); a ``KeyError``.
    """
    try:
        return POLICIES[name](plugins, provider, offload=offload)
    except KeyError:
        raise NotFoundError(f"unknown policy {name!r}: choose from {', '.join(POLICIES)}") from None
