"""How the kernel's notes on one dispatch become its decision ledger, only when it is read."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_lab.kernel.ledger import (
    Attempt,
    AttemptOutcome,
    AuditRecord,
    DecisionLedger,
    FallbackDecision,
    LLMReason,
    ResolverOutput,
    RouteDecision,
    Timings,
)
from agent_lab.kernel.user_only import under_any
from agent_lab.strict_json import escape_pointer_token, has_pointer

if TYPE_CHECKING:
    from agent_lab.strict_json import JSONObject
    from agent_lab.usage import Usage

__all__ = ["DispatchNotes", "build_ledger", "fallback_reason"]


def filled_pointers(asked: tuple[str, ...], arguments: JSONObject | None) -> tuple[str, ...]:
    """Of the pointers the fallback was asked for, those the final arguments hold."""
    if arguments is None:
        return ()
    return tuple(pointer for pointer in asked if has_pointer(arguments, pointer))


def set_pointers(resolved: JSONObject | None) -> tuple[str, ...]:
    """The top-level properties a resolver set, as pointers."""
    if resolved is None:
        return ()
    return tuple("/" + escape_pointer_token(key) for key in resolved)


class DispatchNotes:
    """What the kernel notes beyond the result's fields, only on a dispatch that needs it.

    A dispatch whose resolver returned a plain mapping that the schema found
    complete makes none: its ledger is read off the result alone.
    """

    __slots__ = (
        "asked",
        "attempts",
        "complete",
        "declared",
        "missing",
        "reason",
        "required",
        "skipped",
        "user_only",
    )

    def __init__(self) -> None:
        self.complete: bool | None = None
        self.declared: tuple[str, ...] = ()
        self.missing: tuple[str, ...] = ()
        self.reason: LLMReason | None = None
        self.asked: tuple[str, ...] = ()
        self.required: tuple[str, ...] = ()
        self.skipped: str | None = None
        self.user_only: tuple[str, ...] = ()
        # Plain tuples, made into ``Attempt`` values only when the ledger is read:
        # a dataclass per request cost the fallback path about 1 us each.
        self.attempts: list[tuple[int, AttemptOutcome, str, Usage, int, int]] = []


_NO_NOTES = DispatchNotes()


def fallback_reason(
    found: tuple[str, ...], declared: tuple[str, ...], *, complete: bool | None
) -> LLMReason | None:
    """Why a fallback is needed: the schema's gap first, then the resolver's own word."""
    if found:
        return LLMReason.MISSING_REQUIRED
    if declared:
        return LLMReason.DECLARED_MISSING
    if complete is False:
        return LLMReason.RESOLVER_INCOMPLETE
    return None


def build_ledger(
    *,
    event: str,
    status: str,
    reason: str,
    route: RouteDecision,
    resolved: JSONObject | None,
    arguments: JSONObject | None,
    missing: tuple[str, ...],
    invalid: tuple[str, ...],
    fallback_used: bool,
    fallback_raw: str | None,
    fallback_arguments: JSONObject | None,
    conflicts: tuple[str, ...],
    unrequested: tuple[str, ...],
    timings: Timings,
    notes: DispatchNotes | None,
) -> DecisionLedger:
    """The ledger of one dispatch, from its result's fields and the kernel's notes."""
    noted = _NO_NOTES if notes is None else notes
    audit: AuditRecord | None = None
    if fallback_raw is not None:
        # K18: a refused comparison is the mismatch reason; no adapter form, nothing compared.
        agreed: bool | None
        if reason == "fallback_mismatch":
            agreed = False
        elif fallback_arguments is None or reason in _UNCOMPARED:
            agreed = None
        else:
            agreed = True
        audit = AuditRecord(
            raw_matches_parsed=agreed,
            filled=filled_pointers(noted.asked, arguments),
            conflicts=conflicts,
            unrequested=unrequested,
            user_only=tuple(p for p in unrequested if under_any(p, noted.user_only)),
        )
    return DecisionLedger(
        event=event,
        status=status,
        reason=reason,
        route=route,
        resolver=None
        if resolved is None
        else ResolverOutput(
            set=set_pointers(resolved), declared_missing=noted.declared, complete=noted.complete
        ),
        # Noted when a fallback was needed: what was missing before it, not after.
        missing=noted.missing if noted.reason is not None else missing,
        invalid=invalid,
        fallback=FallbackDecision(
            called=fallback_used,
            reason=noted.reason,
            asked=noted.asked,
            required=noted.required,
            skipped=noted.skipped,
        ),
        attempts=tuple(
            Attempt(
                number=number,
                outcome=outcome,
                reason=why,
                usage=usage,
                started_ns=started,
                duration_ns=duration,
            )
            for number, outcome, why, usage, started, duration in noted.attempts
        ),
        audit=audit,
        timings=timings,
    )


_UNCOMPARED = frozenset({"fallback_invalid_json", "fallback_not_object"})
