"""The gateway's own answers on the wire: calls named as the seam's, and the header that says so.

The shape itself (a ``chat.completion``, its chunks, the error object) is
``agent_lab.chat_completions``; what is the gateway's here is the id each
call is given, which tells the turn after them that they were the gateway's
(``integrations.seam.is_local_call``), and ``ANSWERED_HEADER``.
"""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

from agent_lab import chat_completions
from agent_lab.chat_completions import FunctionCall
from agent_lab.integrations.seam import LOCAL_CALL_PREFIX

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["ANSWERED_HEADER", "LocalCall", "completion", "stream_chunks"]

ANSWERED_HEADER = "x-agent-lab-answered"
"""Set to ``local`` on an answer the gateway made itself; a forwarded answer is left unchanged."""

LocalCall = tuple[str, str]
"""A tool call answered locally: the tool's name and its arguments as JSON text."""


def _named(calls: Sequence[LocalCall]) -> list[FunctionCall]:
    return [
        FunctionCall(
            id=f"{LOCAL_CALL_PREFIX}{uuid.uuid4().hex[:24]}", name=name, arguments=arguments
        )
        for name, arguments in calls
    ]


def completion(
    calls: Sequence[LocalCall], *, model: str, created: int, text: str | None = None
) -> bytes:
    """A ``chat.completion`` whose message holds the calls (or ``text``), zero usage (no model)."""
    return chat_completions.completion(_named(calls), model=model, created=created, text=text)


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
        _named(calls), model=model, created=created, include_usage=include_usage, text=text
    )
