"""The exceptions agent-lab raises, for programmer mistakes and at adapter boundaries.

Expected outcomes of a dispatch (bad arguments, missing information, a broken
LLM reply) are never exceptions: they are ``EventResult`` values with a
``Status``. Exceptions are kept for the cases below::

    AgentLabError
    ├── DefinitionError     a plugin's event definition is broken (K2, K4); raised by register
    ├── StrictJSONError     text is not strict RFC 8259 JSON within bounds (also a ValueError)
    └── ProviderError       an LLM provider failed; says whether a retry may help (K16)

The classes are plain exceptions with fields rather than frozen dataclasses:
Python's own machinery (``contextlib``, ``traceback``) assigns attributes such
as ``__traceback__`` on exceptions, which a frozen dataclass would refuse.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent_lab.application.events.models import Usage

__all__ = ["AgentLabError", "DefinitionError", "ProviderError", "StrictJSONError"]


class AgentLabError(Exception):
    """Base class of every exception agent-lab raises on purpose."""


class DefinitionError(AgentLabError):
    """A plugin's event definition is broken: the plugin's fault, not the user's.

    Attributes:
        event: The name of the definition, or ``None`` for a schema resource
            that belongs to the registry rather than to one event.
        pointer: JSON pointer into the schema where the problem is ("" for the root).
        cause: What is wrong, in one sentence.
    """

    def __init__(self, event: str | None, pointer: str, cause: str) -> None:
        self.event = event
        self.pointer = pointer
        self.cause = cause
        where = f"event {event!r}" if event is not None else "schema resources"
        super().__init__(f"{where}: at {pointer or '/'!s}: {cause}")


class StrictJSONError(AgentLabError, ValueError):
    """Text that is not strict RFC 8259 JSON, or not within the size and depth bounds.

    Attributes:
        reason: A machine-readable code, one of ``syntax``, ``duplicate_key``,
            ``non_finite_number``, ``number_too_long``, ``lone_surrogate``,
            ``encoding``, ``too_large``, ``too_deep``, ``not_json_data``.
        position: Character offset of the problem in the text, when known.
        pointer: JSON pointer of the offending value, when known.
    """

    def __init__(
        self,
        reason: str,
        message: str,
        *,
        position: int | None = None,
        pointer: str | None = None,
    ) -> None:
        self.reason = reason
        self.position = position
        self.pointer = pointer
        super().__init__(message)


class ProviderError(AgentLabError):
    """An LLM provider failed to produce a reply.

    Providers raise it (or ``TimeoutError``/``ConnectionError``) from a
    fallback; the kernel turns it into ``FALLBACK_FAILED`` after its bounded
    retries (K16) and never lets it escape ``dispatch``.

    Attributes:
        reason: A machine-readable code such as ``timeout``, ``rate_limited``
            or ``http_5xx``; copied to ``EventResult.reason``.
        retryable: Whether sending the request again may succeed.
        attempts: How many requests were sent before failing (counted in
            ``EventResult.llm_calls``).
        usage: What those requests cost, when the provider knows (a 429 costs
            nothing); ``None`` leaves tokens and cost unknown.
    """

    def __init__(
        self,
        reason: str,
        message: str,
        *,
        retryable: bool = False,
        attempts: int = 1,
        usage: Usage | None = None,
    ) -> None:
        if attempts < 0:
            raise ValueError("attempts must be >= 0")
        self.reason = reason
        self.retryable = retryable
        self.attempts = attempts
        self.usage = usage
        super().__init__(message)
