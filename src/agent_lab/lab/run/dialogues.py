"""A case that is a conversation (``Case.messages``): what plain code and a model are given.

* **Plain code** decides with the one envelope every other caller uses
  (``Answerer.decide``: the last message, then the whole conversation,
  ``answering.reading``), over the case's tools. A complete call then runs through
  the plugin set's own kernel with its values given (``Turn.prefill``, no words to
  read), so its schema validation and handler run as for any other case; no model
  is asked at any step.
* **A model** is sent one tool-calling request whose user message is the
  conversation written out (``transcript``): each turn's words, each call made and
  what it returned, oldest first. The ``llm-always`` policy sends it for every
  case; ``deterministic-first`` sends the very same request where plain code does
  not decide, as the gateway forwards such a request; ``deterministic-only`` never.

The model reads the conversation as one text, not as the API's separate messages,
so that every provider (the embedded one and the simulated one included) is sent
the same request: that is an assumption of the lab, named in docs/lab.md.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from agent_lab.agents.choice import tool_specs
from agent_lab.agents.event_agent import EventAgent
from agent_lab.agents.tool_specs import tool_name
from agent_lab.answering.answerer import Answerer
from agent_lab.chat_completions import content_text

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from agent_lab.agents.decision import Decision
    from agent_lab.agents.plugins import PluginSet
    from agent_lab.log_replay.case import Case
    from agent_lab.strict_json import JSONObject

__all__ = ["PlainReader", "transcript"]

_OPENING = "The conversation so far, oldest first. Serve the user's last message."


def transcript(messages: Sequence[JSONObject]) -> str:
    """The conversation as one text: a line per message, and a line per call made."""
    lines = [_OPENING]
    for message in messages:
        role = message.get("role")
        text = content_text(message.get("content")) or ""
        if role == "tool":
            lines.append(f"Result: {text}")
            continue
        if role in ("system", "developer"):
            lines.append(f"Instructions: {text}")
        elif role == "user":
            lines.append(f"User: {text}")
        elif text:
            lines.append(f"Assistant: {text}")
        calls = message.get("tool_calls") if role == "assistant" else None
        for call in calls if isinstance(calls, list) else []:
            function = call.get("function") if isinstance(call, dict) else None
            if isinstance(function, dict):
                name, arguments = function.get("name"), function.get("arguments")
                lines.append(f"Assistant called {name} with {arguments}")
    return "\n".join(lines)


class PlainReader:
    """Plain code's decision for a conversation case, or ``None`` where it decides nothing.

    Args:
        plugins: The plugin set the case runs against: its resolvers and routes decide,
            its kernel validates and runs the call. Its events are offered as a model is
            offered them (``tool_specs``).
    """

    def __init__(self, plugins: PluginSet) -> None:
        self.answerer = Answerer(plugins, ask=False)
        self.kernel = EventAgent(plugins)  # no fallback, no chooser: never a model
        self.tools = tool_specs(plugins.definitions)

    def read(self, case: Case) -> Decision | None:
        """The complete call plain code reads from ``case.messages``, not yet run."""
        now = case.context.get("now")
        decided = self.answerer.decide(
            case.messages, self._offered(case), now=now if isinstance(now, str) else None
        )
        if decided is None or not decided.local or decided.event is None:
            return None
        return decided

    def decide(self, case: Case, context: Mapping[str, object]) -> Decision | None:
        """The complete call plain code reads from ``case.messages``, run by the kernel."""
        decided = self.read(case)
        if decided is None or decided.event is None:
            return None
        ran = self.kernel.respond_sync(
            "", event=decided.event, context=context, prefill=decided.arguments or {}
        )
        if not ran.local:
            return None
        return dataclasses.replace(
            ran, routed_by=decided.routed_by, route=decided.route, read_from=decided.read_from
        )

    def _offered(self, case: Case) -> tuple[JSONObject, ...]:
        if case.candidates is None:
            return self.tools
        wanted = set(case.candidates)
        return tuple(tool for tool in self.tools if tool_name(tool) in wanted)
