"""The fallback stage (K16-K18): bounded requests, each one noted for the ledger, and the audit."""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING

from agent_lab._json_walk import copy_object
from agent_lab.errors import ProviderError
from agent_lab.kernel.audit import audit_reply
from agent_lab.kernel.ledger import AttemptOutcome
from agent_lab.kernel.models import (
    Event,
    EventResult,
    Fallback,
    FallbackReply,
    FallbackRequest,
    Reason,
    Status,
    Usage,
)
from agent_lab.kernel.validation import describe_error
from agent_lab.usage import checked_count, checked_usage

if TYPE_CHECKING:
    from collections.abc import Generator

    from agent_lab.kernel._drive import PluginCall
    from agent_lab.kernel._trace import Trace
    from agent_lab.kernel.registry import RegisteredEvent
    from agent_lab.strict_json import JSONObject

__all__ = ["AskLimits", "ask_fallback"]

_UNKNOWN_USAGE = Usage()
"""One request whose tokens and cost nobody reported."""
_UNKNOWN_FAILURE = Usage(succeeded=0)
"""One request that failed, whose tokens and cost nobody reported."""


@dataclass(frozen=True, slots=True)
class AskLimits:
    """The kernel's bounds on one fallback: requests per dispatch, and the reply's size."""

    max_attempts: int
    max_bytes: int
    max_depth: int
    min_requests: int = 1
    """The fewest requests a reply counts for: 1 when the fallback asked a model; 0 for a
    reply a caller hands in (``dispatch_reply``), whose usage says what it cost."""


@dataclass(frozen=True, slots=True)
class _Failed:
    """One request that brought no usable reply: what it cost and whether to try again."""

    spent: Usage
    calls: int
    reason: str
    message: str
    retryable: bool


def ask_fallback(
    fallback: Fallback,
    limits: AskLimits,
    *,
    entry: RegisteredEvent,
    event: Event,
    arguments: JSONObject,
    missing: tuple[str, ...],
    required: tuple[str, ...],
    trace: Trace,
) -> Generator[PluginCall, object, JSONObject | EventResult]:
    """K16-K18: bounded retries, every request counted; the reply parsed and audited."""
    clock = trace.clock
    trace.fallback_used = True
    notes = trace.noting()
    notes.asked, notes.required = missing, required
    resolved_view = MappingProxyType(copy_object(arguments))
    reply: object = None
    attempt = started = ended = 0
    for attempt in range(1, limits.max_attempts + 1):
        request = FallbackRequest(
            definition=entry.definition,
            event=event,
            resolved=resolved_view,
            missing=missing,
            attempt=attempt,
            required=required,
        )
        started = clock.monotonic_ns()
        reply = None
        try:
            reply = yield fallback, request
        except Exception as err:
            failed = _raised(err)
        else:
            failed = _failed_reply(reply)
        finally:
            ended = clock.monotonic_ns()
            trace.fallback_ns += ended - started
        if failed is None:
            break
        trace.llm_calls += failed.calls
        trace.usage += failed.spent
        outcome = AttemptOutcome.RETRYABLE_ERROR if failed.retryable else AttemptOutcome.ERROR
        notes.attempts.append(
            (attempt, outcome, failed.reason, failed.spent, started - trace.start, ended - started)
        )
        if isinstance(reply, FallbackReply):
            trace.fallback_note = reply.note
        if not failed.retryable or attempt == limits.max_attempts:
            return trace.finish(
                Status.FALLBACK_FAILED, failed.reason, failed.message, missing=missing
            )
    return _audited(reply, limits, attempt=attempt, started=started, ended=ended,
                    missing=missing, trace=trace)  # fmt: skip


def _raised(err: Exception) -> _Failed:
    """A fallback that raised: a provider's failure (``ProviderError``), a lost request, a bug."""
    if isinstance(err, ProviderError):
        # Plugin code built this error: its figures are read, never trusted.
        attempts = max(1, checked_count(err.attempts) or 0)
        spent = (checked_usage(err.usage) or Usage(requests=attempts)).as_failed()
        reason = err.reason if isinstance(err.reason, str) else Reason.FALLBACK_ERROR
        return _Failed(spent, attempts, reason, describe_error(err), err.retryable is True)
    if isinstance(err, TimeoutError):
        return _Failed(_UNKNOWN_FAILURE, 1, Reason.TIMEOUT, describe_error(err), retryable=True)
    if isinstance(err, ConnectionError):
        return _Failed(
            _UNKNOWN_FAILURE, 1, Reason.CONNECTION_ERROR, describe_error(err), retryable=True
        )
    return _Failed(_UNKNOWN_FAILURE, 1, Reason.FALLBACK_ERROR, describe_error(err), retryable=False)


def _failed_reply(reply: object) -> _Failed | None:
    """A reply that says why there is none (``FallbackReply.failure``), read as a raise is."""
    if not isinstance(reply, FallbackReply) or reply.failure is None:
        return None
    failure = reply.failure
    spent = checked_usage(reply.usage)
    calls = 1 if spent is None else max(1, spent.requests)
    reason = failure.reason if isinstance(failure.reason, str) else Reason.FALLBACK_ERROR
    message = failure.message if isinstance(failure.message, str) else ""
    return _Failed(
        (spent or _UNKNOWN_FAILURE).as_failed(), calls, reason, message, failure.retryable is True
    )


def _audited(
    reply: object,
    limits: AskLimits,
    *,
    attempt: int,
    started: int,
    ended: int,
    missing: tuple[str, ...],
    trace: Trace,
) -> JSONObject | EventResult:
    """K17, K18: the reply counted, its raw text parsed strictly, its parse audited."""
    notes = trace.noting()
    answered = ended - started
    if not isinstance(reply, FallbackReply) or not isinstance(reply.raw, str):
        trace.llm_calls += 1
        trace.usage += _UNKNOWN_FAILURE
        notes.attempts.append(
            (
                attempt,
                AttemptOutcome.BAD_REPLY,
                Reason.FALLBACK_BAD_REPLY,
                _UNKNOWN_FAILURE,
                started - trace.start,
                answered,
            )
        )
        return trace.finish(
            Status.FALLBACK_FAILED,
            Reason.FALLBACK_BAD_REPLY,
            f"a fallback must return a FallbackReply with a str raw, not {type(reply).__name__}",
            missing=missing,
        )
    trace.fallback_note = reply.note
    usage = checked_usage(reply.usage) or _UNKNOWN_USAGE
    trace.llm_calls += max(limits.min_requests, usage.requests)
    trace.usage += usage
    notes.attempts.append(
        (attempt, AttemptOutcome.REPLY, Reason.COMPLETED, usage, started - trace.start, answered)
    )
    trace.fallback_raw = reply.raw
    audit = audit_reply(reply, max_bytes=limits.max_bytes, max_depth=limits.max_depth)
    # Both forms are kept for audit, whatever the outcome (K18).
    trace.fallback_arguments = audit.adapter_form
    if audit.arguments is None:
        assert audit.reason is not None
        return trace.finish(Status.FALLBACK_FAILED, audit.reason, audit.message, missing=missing)
    return audit.arguments
