"""The gateway's own answers on the wire: the envelope's calls, and the header that says so.

The shape itself (a ``chat.completion``, its chunks, the error object) is
``agent_lab.chat_completions``; each call keeps the id the envelope gave it
(``answering.LocalCall``), which tells the turn after them that they were
answered locally (``answering.is_local_call``). ``ANSWERED_HEADER`` is the
gateway's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_lab import chat_completions
from agent_lab.chat_completions import FunctionCall

if TYPE_CHECKING:
    from collections.abc import Sequence

    from agent_lab.answering import LocalCall

__all__ = ["ANSWERED_HEADER", "completion", "stream_chunks"]

ANSWERED_HEADER = "x-agent-lab-answered"
"""Set to ``local`` on an answer the gateway made itself; a forwarded answer is left unchanged."""


def _wired(calls: Sequence[LocalCall]) -> list[FunctionCall]:
    return [
        FunctionCall(id=call.id, name=call.name, arguments=call.arguments_json) for call in calls
    ]


def completion(
    calls: Sequence[LocalCall], *, model: str, created: int, text: str | None = None
) -> bytes:
    """A ``chat.completion`` whose message holds the calls (or ``text``), zero usage (no model)."""
    return chat_completions.completion(_wired(calls), model=model, created=created, text=text)


def stream_chunks(
    calls: Sequence[LocalCall],
    *,
    model: str,
    created: int,
    include_usage: bool,
    text: str | None = None,
) -> bytes:
    """The whole SSE stream of a local answer (its calls, or ``text``), ``data: [DONE]`` last."""
    return chat_completions.stream_chunks(
        _wired(calls), model=model, created=created, include_usage=include_usage, text=text
    )
