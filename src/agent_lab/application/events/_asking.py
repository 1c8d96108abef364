"""The fallback stage (K16-K18): bounded requests, each one noted for the ledger, and the audit."""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING

from agent_lab._json_walk import copy_object
from agent_lab.application.events.audit import audit_reply
from agent_lab.application.events.ledger import AttemptOutcome
from agent_lab.application.events.models import (
    Event,
    EventResult,
    Fallback,
    FallbackReply,
    FallbackRequest,
    Reason,
    Status,
    Usage,
)
from agent_lab.application.events.validation import describe_error
from agent_lab.errors import ProviderError
from agent_lab.usage import checked_count, checked_usage

if TYPE_CHECKING:
    from collections.abc import Generator

    from agent_lab.application.events._drive import PluginCall
    from agent_lab.application.events._trace import Trace
    from agent_lab.application.events.registry import RegisteredEvent
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
        try:
            reply = yield fallback, request
        except ProviderError as err:
            # Plugin code built this error: its figures are read, never trusted.
            attempts = max(1, checked_count(err.attempts) or 0)
            spent = (checked_usage(err.usage) or Usage(requests=attempts)).as_failed()
            reason = err.reason if isinstance(err.reason, str) else Reason.FALLBACK_ERROR
            message, retryable = describe_error(err), err.retryable is True
            calls = attempts
        except TimeoutError as err:
            spent, calls = _UNKNOWN_FAILURE, 1
            reason, message, retryable = Reason.TIMEOUT, describe_error(err), True
        except ConnectionError as err:
            spent, calls = _UNKNOWN_FAILURE, 1
            reason, message, retryable = Reason.CONNECTION_ERROR, describe_error(err), True
        except Exception as err:
            spent, calls = _UNKNOWN_FAILURE, 1
            reason, message, retryable = Reason.FALLBACK_ERROR, describe_error(err), False
        else:
            break
        finally:
            ended = clock.monotonic_ns()
            trace.fallback_ns += ended - started
        trace.llm_calls += calls
        trace.usage += spent
        outcome = AttemptOutcome.RETRYABLE_ERROR if retryable else AttemptOutcome.ERROR
        notes.attempts.append(
            (attempt, outcome, str(reason), spent, started - trace.start, ended - started)
        )
        if not retryable or attempt == limits.max_attempts:
            return trace.finish(Status.FALLBACK_FAILED, reason, message, missing=missing)

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
    usage = checked_usage(reply.usage) or _UNKNOWN_USAGE
    trace.llm_calls += max(1, usage.requests)
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
