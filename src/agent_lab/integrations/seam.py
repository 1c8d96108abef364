"""Kept while the wrappers move to their base class: ``answering.Answerer`` is the envelope."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from agent_lab.answering import (
    LOCAL_CALL_PREFIX,
    REPLY_REASON,
    Answerer,
    Asked,
    LocalAnswer,
    LocalCall,
    is_local_call,
    question,
    refusal,
)
from agent_lab.answering.replies import said_replies
from agent_lab.resolvers.learned import load_rules

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from agent_lab.agents.plugins import PluginSet
    from agent_lab.agents.turn import Reading
    from agent_lab.resolvers.learned import RuleBook

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


def rule_book(rules: RuleBook | str | Path | None) -> RuleBook | None:
    """A rules file read now, a ``RuleBook`` kept."""
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
    """The envelope's local answer for a user turn, or ``None``."""
    answerer = Answerer(plugins, rules=rules, read=read, context=context, ask=ask)
    answer = answerer.answer(
        Asked(messages=messages, tools=tools, at_most_one=at_most_one, words=ask)
    )
    return answer if isinstance(answer, LocalAnswer) else None


def reply_locally(
    messages: Sequence[Mapping[str, object]],
    tools: Sequence[Mapping[str, object]],
    *,
    plugins: PluginSet | None,
) -> LocalAnswer | None:
    """The declared replies after local calls, or ``None``."""
    return said_replies(messages, tools, plugins=plugins)
