"""What every caller asks of the envelope: a conversation, its tools, and what the request allows.

The gateway reads it from a Chat Completions body; each framework wrapper
from its framework's messages, tools and settings. One shape, so that one
function (``Answerer.answer``) says what plain code answers for all of them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, TypeAlias, cast

__all__ = ["Asked", "ToolChoiceMode", "well_formed"]

ToolChoiceMode: TypeAlias = Literal["auto", "required", "none"]
"""What the request lets the answer be: a call or words (``auto``), a call (``required``, or
one tool named by ``Asked.forced``), words only (``none``: always the model's)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Asked:
    """One turn a caller would send to a model, in the Chat Completions form."""

    messages: Sequence[Mapping[str, object]]
    """The conversation, the last message the user's (a turn to decide) or tool results (the
    turn after calls)."""
    tools: Sequence[Mapping[str, object]]
    """The tools offered, as OpenAI function tool specs."""
    tool_choice: ToolChoiceMode = "auto"
    forced: str | None = None
    """The one tool the request names (``tool_choice`` naming a function): every call must be it."""
    at_most_one: bool = False
    """``parallel_tool_calls: false``: an answer of several calls is the model's."""
    words: bool = True
    """Words may end the turn as far as the caller knows: no structured output is asked for
    (the framework's output type, a ``response_format``). ``tool_choice`` must allow them too."""

    @property
    def words_allowed(self) -> bool:
        """Whether an answer in words (a question, a refusal, a declared reply) may end the turn."""
        return self.words and self.tool_choice == "auto" and self.forced is None


def well_formed(messages: Sequence[Mapping[str, object]]) -> bool:
    """Whether every tool call is answered before the next other message, and every result a call.

    That is the conversation the API takes. Legacy ``function`` results are not
    judged here, so they are never answered locally.
    """
    waiting: set[str] = set()
    for message in messages:
        role = message.get("role")
        if role == "tool":
            answered = message.get("tool_call_id")
            if not isinstance(answered, str) or answered not in waiting:
                return False
            waiting.discard(answered)
            continue
        if waiting or role == "function":
            return False
        calls = message.get("tool_calls") if role == "assistant" else None
        for call in cast("list[object]", calls) if isinstance(calls, list) else []:
            ident = (
                cast("Mapping[str, object]", call).get("id") if isinstance(call, Mapping) else None
            )
            if not isinstance(ident, str) or ident in waiting:
                return False
            waiting.add(ident)
    return not waiting
