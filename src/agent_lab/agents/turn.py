"""One message to decide on: the user's words, and what the caller knows around them.

A turn comes from an ``Event`` (a structured event whose name is known), or
from a conversation in the OpenAI chat format, as logs, the gateway and
the framework wrappers hold it: the last message is the user's, and its
text is what the routing and the resolvers read.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Literal, TypeAlias, cast

if TYPE_CHECKING:
    from agent_lab.kernel.models import Event
    from agent_lab.strict_json import JSONValue

__all__ = ["Reading", "Turn", "message_text"]

Reading: TypeAlias = Literal["last", "user_turns"]
"""What of a conversation the resolvers read: the last user message (the default), or
every user message so far joined (values said over several turns, with the risk that an
earlier task's value is taken for this one's)."""


def _empty() -> Mapping[str, object]:
    return MappingProxyType({})


@dataclass(frozen=True, slots=True, kw_only=True)
class Turn:
    """One message, and what the caller knows around it.

    Example:
        ``Turn(text="set a timer for 10 minutes", context={"now": "2026-12-01T09:00"})``
    """

    text: str = ""
    """The user's words."""
    event: str | None = None
    """The event meant, when the caller knows it (a button, a webhook): no routing then."""
    candidates: tuple[str, ...] | None = None
    """The only events this message may go to (the tools a request offers)."""
    payload: Mapping[str, JSONValue] = field(default_factory=_empty)  # type: ignore[assignment]
    """Structured data that came with the message."""
    context: Mapping[str, object] = field(default_factory=_empty)
    """Facts for resolvers and handlers: ``now`` (the reference time), a user id..."""
    prefill: Mapping[str, JSONValue] = field(default_factory=_empty)  # type: ignore[assignment]
    """Values earlier turns of a conversation settled, which this turn's resolver completes."""

    @classmethod
    def of(cls, event: Event) -> Turn:
        """The turn of a structured event whose name is known."""
        return cls(text=event.text, event=event.name, payload=event.payload, context=event.context)

    @classmethod
    def from_messages(
        cls,
        messages: Sequence[Mapping[str, object]],
        *,
        candidates: Sequence[str] | None = None,
        context: Mapping[str, object] | None = None,
        read: Reading = "last",
    ) -> Turn | None:
        """The turn a chat conversation ends with, or ``None`` when it ends with no user message.

        Only a conversation whose last message is the user's asks for a decision:
        one that ends with a tool's result or the assistant's words is the model's
        to continue. ``read`` says what the resolvers read (``Reading``).
        """
        if not messages:
            return None
        last = messages[-1]
        if last.get("role") != "user":
            return None
        text = message_text(last)
        if text is None:
            return None
        if read == "user_turns":
            said = (message_text(m) for m in messages if m.get("role") == "user")
            text = " ".join(t for t in said if t)
        return cls(
            text=text,
            candidates=None if candidates is None else tuple(candidates),
            context=context if context is not None else _empty(),
        )


def message_text(message: Mapping[str, object]) -> str | None:
    """A chat message's text: its string content, or its text parts joined by blank lines.

    ``None`` when it holds no text (an image only, or no content at all).
    """
    content = message.get("content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return None
    texts: list[str] = []
    for item in cast("list[object]", content):
        if not isinstance(item, Mapping):
            continue
        part = cast("Mapping[str, object]", item)
        text = part.get("text")
        if part.get("type") == "text" and isinstance(text, str):
            texts.append(text)
    return "\n\n".join(texts) if texts else None
