"""The state of one dispatch, gathered stage by stage, turned into an ``EventResult`` at the end."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_lab.kernel._ledger_notes import DispatchNotes
from agent_lab.kernel.models import (
    Conflict,
    EventResult,
    Status,
    Timings,
    Unrequested,
    ValidationIssue,
)
from agent_lab.usage import Usage

if TYPE_CHECKING:
    from agent_lab.clock import Clock
    from agent_lab.strict_json import JSONObject, JSONValue

__all__ = ["Trace"]

_new_instance = object.__new__


class Trace:
    """What one dispatch has gathered so far; turned into an ``EventResult`` at the end."""

    __slots__ = (
        "clock",
        "conflicts",
        "event",
        "fallback_arguments",
        "fallback_note",
        "fallback_ns",
        "fallback_raw",
        "fallback_used",
        "handler_ns",
        "llm_calls",
        "notes",
        "resolve_ns",
        "resolved",
        "start",
        "unrequested",
        "usage",
        "validate_ns",
    )

    def __init__(self, event: str, clock: Clock) -> None:
        self.event = event
        self.clock = clock
        self.start = clock.monotonic_ns()
        self.resolve_ns = self.validate_ns = self.fallback_ns = self.handler_ns = 0
        self.resolved: JSONObject | None = None
        self.fallback_raw: str | None = None
        self.fallback_arguments: JSONObject | None = None
        self.fallback_note: object = None
        self.fallback_used = False
        self.llm_calls = 0
        self.usage = Usage.zero()
        self.conflicts: tuple[Conflict, ...] = ()
        self.unrequested: tuple[Unrequested, ...] = ()
        self.notes: DispatchNotes | None = None

    def noting(self) -> DispatchNotes:
        """The ledger's notes, made when a dispatch first has something to note."""
        notes = self.notes
        if notes is None:
            notes = self.notes = DispatchNotes()
        return notes

    def finish(
        self,
        status: Status,
        reason: str,
        message: str = "",
        *,
        arguments: JSONObject | None = None,
        errors: tuple[ValidationIssue, ...] = (),
        missing: tuple[str, ...] = (),
        output: JSONValue = None,
    ) -> EventResult:
        # Built without calling __init__: finish() supplies every field, and
        # this is the hot path of every dispatch (docs/performance.md).
        timings = _new_instance(Timings)
        timings.__dict__.update(
            resolve_ns=self.resolve_ns,
            validate_ns=self.validate_ns,
            fallback_ns=self.fallback_ns,
            handler_ns=self.handler_ns,
            total_ns=self.clock.monotonic_ns() - self.start,
        )
        result = _new_instance(EventResult)
        result.__dict__.update(
            status=status,
            reason=reason,
            event=self.event,
            message=message,
            arguments=arguments,
            resolved=self.resolved,
            fallback_raw=self.fallback_raw,
            fallback_arguments=self.fallback_arguments,
            conflicts=self.conflicts,
            unrequested=self.unrequested,
            errors=errors,
            missing=missing,
            llm_calls=self.llm_calls,
            fallback_used=self.fallback_used,
            usage=self.usage,
            timings=timings,
            output=output,
        )
        # ``fallback_note`` and ``_notes``, on a dispatch that has none, are left to their
        # class defaults (None): keys not written cost nothing on the hot path.
        if self.notes is not None:
            result.__dict__["_notes"] = self.notes
        if self.fallback_note is not None:
            result.__dict__["fallback_note"] = self.fallback_note
        return result
