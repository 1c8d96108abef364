"""The decision ledger: why one dispatch went the way it did, and why it called an LLM.

Every ``EventResult`` carries one as ``result.ledger``. It is built from what
the kernel recorded only when somebody reads it, so the deterministic path
pays for a few references, not for a record nobody looks at
(docs/performance.md). ``as_json()`` gives its documented JSON form
(``docs/ledger.schema.json``), which the lab stores with every trial.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from agent_lab.strict_json import JSONObject, JSONValue
    from agent_lab.usage import Usage

__all__ = [
    "GIVEN",
    "LEDGER_VERSION",
    "Attempt",
    "AttemptOutcome",
    "AuditRecord",
    "DecisionLedger",
    "FallbackDecision",
    "LLMReason",
    "ResolverOutput",
    "RouteDecision",
    "RouteKind",
    "Timings",
    "ValueSource",
    "attempt_json",
    "first_sources",
    "undispatched_ledger",
    "usage_json",
]

LEDGER_VERSION = 2
"""The version of ``as_json()``'s form; a change that breaks a reader raises it."""


class RouteKind(StrEnum):
    """How the event was chosen."""

    GIVEN = "given"
    """The caller named it (``kernel.dispatch`` always; a structured event)."""
    PATTERN = "pattern"
    """A route's regular expression matched the words."""
    KEYWORD = "keyword"
    """A route's keywords matched, and no pattern did."""
    LEXICAL = "lexical"
    """The lexical router's best candidate led by its margin."""
    LEARNED = "learned"
    """A route ``agent-lab learn`` kept matched, where the routes and the lexical router
    left no event."""
    LLM_CHOICE = "llm_choice"
    """A model picked it by tool calling."""
    NONE = "none"
    """Nothing was chosen: the message went to no event."""


class LLMReason(StrEnum):
    """Why an LLM was asked."""

    MISSING_REQUIRED = "missing_required"
    """The schema requires a property the resolver did not set."""
    DECLARED_MISSING = "declared_missing"
    """The resolver named a property as missing (``Resolution.missing``)."""
    RESOLVER_INCOMPLETE = "resolver_incomplete"
    """The resolver said it was incomplete (``Resolution(complete=False)``)."""
    ROUTING_TIE = "routing_tie"
    """The best routes tied, so a model chose the event."""
    NO_ROUTE = "no_route"
    """No route matched, so a model chose the event (or declined)."""
    MODEL_RESOLVES = "model_resolves"
    """The policy asks the model for every message (LLM-always)."""


class AttemptOutcome(StrEnum):
    """How one request to the fallback ended."""

    REPLY = "reply"
    """A reply came (it may still fail the audit: see the result's reason)."""
    RETRYABLE_ERROR = "retryable_error"
    """A timeout, a lost connection or a retryable provider error."""
    ERROR = "error"
    """An error not worth retrying."""
    BAD_REPLY = "bad_reply"
    """The fallback returned something that is no ``FallbackReply``."""


# Timings is built on every dispatch: filled through the instance __dict__ in one
# call, as EventResult is (models.py says why), and just as frozen.
@dataclass(frozen=True, kw_only=True, init=False)
class Timings:
    """Nanoseconds spent per stage, from the kernel's clock (K20)."""

    resolve_ns: int = 0
    validate_ns: int = 0
    fallback_ns: int = 0
    handler_ns: int = 0
    total_ns: int = 0

    def __init__(
        self,
        *,
        resolve_ns: int = 0,
        validate_ns: int = 0,
        fallback_ns: int = 0,
        handler_ns: int = 0,
        total_ns: int = 0,
    ) -> None:
        """Record the time per stage."""
        self.__dict__.update(
            resolve_ns=resolve_ns,
            validate_ns=validate_ns,
            fallback_ns=fallback_ns,
            handler_ns=handler_ns,
            total_ns=total_ns,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Attempt:
    """One request to a model: when it was sent, how it ended, what it cost."""

    number: int
    outcome: AttemptOutcome
    reason: str
    """``completed`` for a reply, else the error's reason (``timeout``, ``rate_limited``...)."""
    usage: Usage
    """Its tokens and cost; ``usage.requests`` counts a provider's own retries inside it."""
    started_ns: int
    """When it was sent, in nanoseconds from the dispatch's start."""
    duration_ns: int


@dataclass(frozen=True, slots=True, kw_only=True)
class RouteDecision:
    """How the event was chosen, and whether choosing it took a model."""

    by: RouteKind
    tied: tuple[str, ...] = ()
    """The events whose routes tied for the best score, when they did."""
    llm_reason: LLMReason | None = None
    """Why a model was asked to choose; ``None`` when plain code chose."""
    attempts: tuple[Attempt, ...] = ()
    """The requests sent to choose the event, unless the model's arguments then served
    as the fallback's reply (that request is then one of the ledger's ``attempts``)."""


GIVEN = RouteDecision(by=RouteKind.GIVEN)
"""The route of every ``kernel.dispatch``: the caller named the event."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ResolverOutput:
    """What the resolver returned, as JSON pointers."""

    set: tuple[str, ...]
    """Pointers of the top-level properties it set."""
    declared_missing: tuple[str, ...] = ()
    """Pointers it named as missing (``Resolution.missing``)."""
    complete: bool | None = None
    """``Resolution.complete``; ``None`` when it did not say."""


@dataclass(frozen=True, slots=True, kw_only=True)
class FallbackDecision:
    """Whether the fallback was called, and why."""

    called: bool
    reason: LLMReason | None = None
    """Why it was (or would have been) called; ``None`` when nothing was missing."""
    asked: tuple[str, ...] = ()
    """The pointers the request asked for."""
    required: tuple[str, ...] = ()
    """Of ``asked``, those the reply had to hold."""
    skipped: str | None = None
    """Why a needed fallback was not called: ``no_fallback``, ``fallback_disabled``, or
    ``user_only_missing`` (what is missing only the user can supply)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class AuditRecord:
    """What the audit of the fallback's reply found (K18, K19)."""

    raw_matches_parsed: bool | None
    """Whether the adapter's parsed form was the raw JSON; ``None`` when it gave none
    or the raw text was never compared (it did not parse)."""
    filled: tuple[str, ...] = ()
    """Pointers the reply filled that the final arguments kept."""
    conflicts: tuple[str, ...] = ()
    """Pointers where the reply contradicted a resolved value (dropped)."""
    unrequested: tuple[str, ...] = ()
    """Pointers the reply set without being asked (dropped)."""
    user_only: tuple[str, ...] = ()
    """Of ``unrequested``, the parameters only the user can supply: a model's value for
    one is never taken (``events.user_only``)."""


class ValueSource(StrEnum):
    """Where an argument's value came from (``DecisionLedger.sources``)."""

    MESSAGE = "message"
    """Plain code read it in the message being answered (its text, or the payload given)."""
    EARLIER_MESSAGE = "earlier_message"
    """Plain code read it in the user's earlier words of the same task."""
    SUMMARY = "summary"
    """Plain code read it in the assistant's summary the user accepted."""
    EARLIER_CALL = "earlier_call"
    """An earlier tool call's argument, carried over."""
    NAMED_RESULT = "named_result"
    """A name an earlier call or its results held, which the words repeat verbatim."""
    MODEL = "model"
    """The model's reply filled it."""


def first_sources(
    arguments: Mapping[str, JSONValue],
    layers: Sequence[tuple[Mapping[str, JSONValue], ValueSource]],
) -> tuple[tuple[str, ValueSource], ...]:
    """Each argument's source: the first of ``layers``, in the order given, that holds it.

    A value no layer holds was read in the message.
    """
    return tuple(
        (name, next((source for found, source in layers if name in found), ValueSource.MESSAGE))
        for name in arguments
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class DecisionLedger:
    """Every decision of one dispatch, in the order the kernel took them."""

    event: str
    status: str
    reason: str
    route: RouteDecision
    resolver: ResolverOutput | None
    """``None`` when the dispatch ended before a resolution was read."""
    missing: tuple[str, ...]
    """What the classification found missing (K13), before any fallback."""
    invalid: tuple[str, ...]
    """Pointers of invalid values, when the dispatch ended on them."""
    fallback: FallbackDecision
    attempts: tuple[Attempt, ...]
    audit: AuditRecord | None
    """``None`` when no reply was audited."""
    timings: Timings
    sources: tuple[tuple[str, ValueSource], ...] = ()
    """Per top-level argument (its pointer), where its value came from. The agent layer
    records it (``Decision.ledger``); a dispatch by the kernel alone leaves it empty."""

    @property
    def llm_reason(self) -> LLMReason | None:
        """Why an LLM was first asked in this dispatch (routing before filling); ``None``: never."""
        if self.route.llm_reason is not None:
            return self.route.llm_reason
        return self.fallback.reason if self.fallback.called else None

    @property
    def llm_requests(self) -> int:
        """Requests sent to choose the event and to fill it, a provider's own retries included."""
        return sum(attempt.usage.requests for attempt in (*self.route.attempts, *self.attempts))

    def as_json(self) -> JSONObject:
        """The ledger as JSON data, in the form ``docs/ledger.schema.json`` describes."""
        route = self.route
        fallback = self.fallback
        timings = self.timings
        audit = self.audit
        resolver = self.resolver
        return {
            "version": LEDGER_VERSION,
            "event": self.event,
            "status": self.status,
            "reason": self.reason,
            "llm_reason": None if self.llm_reason is None else str(self.llm_reason),
            "route": {
                "by": str(route.by),
                "tied": list(route.tied),
                "llm_reason": None if route.llm_reason is None else str(route.llm_reason),
                "attempts": [attempt_json(attempt) for attempt in route.attempts],
            },
            "resolver": None
            if resolver is None
            else {
                "set": list(resolver.set),
                "declared_missing": list(resolver.declared_missing),
                "complete": resolver.complete,
            },
            "missing": list(self.missing),
            "invalid": list(self.invalid),
            "fallback": {
                "called": fallback.called,
                "reason": None if fallback.reason is None else str(fallback.reason),
                "asked": list(fallback.asked),
                "required": list(fallback.required),
                "skipped": fallback.skipped,
            },
            "attempts": [attempt_json(attempt) for attempt in self.attempts],
            "audit": None
            if audit is None
            else {
                "raw_matches_parsed": audit.raw_matches_parsed,
                "filled": list(audit.filled),
                "conflicts": list(audit.conflicts),
                "unrequested": list(audit.unrequested),
                "user_only": list(audit.user_only),
            },
            "sources": {pointer: str(source) for pointer, source in self.sources},
            "timings": {
                "resolve_ns": timings.resolve_ns,
                "validate_ns": timings.validate_ns,
                "fallback_ns": timings.fallback_ns,
                "handler_ns": timings.handler_ns,
                "total_ns": timings.total_ns,
            },
        }


def attempt_json(attempt: Attempt) -> JSONObject:
    """An ``Attempt`` as JSON data."""
    return {
        "number": attempt.number,
        "outcome": str(attempt.outcome),
        "reason": attempt.reason,
        "started_ns": attempt.started_ns,
        "duration_ns": attempt.duration_ns,
        "usage": usage_json(attempt.usage),
    }


def usage_json(usage: Usage) -> JSONObject:
    """A ``Usage`` as JSON data: the cost as a decimal string (exact), unknowns as ``null``."""
    return {
        "requests": usage.requests,
        "succeeded": usage.succeeded,
        "prompt_tokens": usage.prompt_tokens,
        "completion_tokens": usage.completion_tokens,
        "cost": None if usage.cost is None else str(usage.cost),
        "model": usage.model,
        "estimated": usage.estimated,
    }


def undispatched_ledger(*, status: str, reason: str, route: RouteDecision) -> DecisionLedger:
    """The ledger of a message that reached no event: only its routing was decided."""
    return DecisionLedger(
        event="",
        status=status,
        reason=reason,
        route=route,
        resolver=None,
        missing=(),
        invalid=(),
        fallback=FallbackDecision(called=False),
        attempts=(),
        audit=None,
        timings=Timings(),
    )
