"""The gap between what the resolver gave and what the schema needs (K12-K19).

When something is missing, the dispatch asks the user (a parameter only
the user can supply, or no fallback to ask), or the fallback, whose reply
is audited (``_asking``), merged under the resolved values and validated
again. Also here: the validation step both the pipeline and the merge take.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from agent_lab.errors import SchemaInfrastructureError
from agent_lab.kernel._asking import ask_fallback
from agent_lab.kernel._ledger_notes import fallback_reason
from agent_lab.kernel.merge import merge_arguments
from agent_lab.kernel.models import EventResult, Reason, Status
from agent_lab.kernel.user_only import under_any
from agent_lab.strict_json import escape_pointer_token, has_pointer

if TYPE_CHECKING:
    from collections.abc import Generator

    from agent_lab.kernel._asking import AskLimits
    from agent_lab.kernel._drive import PluginCall
    from agent_lab.kernel._trace import Trace
    from agent_lab.kernel.models import Event, Fallback
    from agent_lab.kernel.registry import RegisteredEvent
    from agent_lab.kernel.validation import Check, CompiledSchema
    from agent_lab.strict_json import JSONObject

__all__ = ["Gap", "checked", "fill_gaps", "with_declared"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Gap:
    """What the resolver left: its arguments, and what the schema and it say is missing."""

    entry: RegisteredEvent
    validator: CompiledSchema
    event: Event
    arguments: JSONObject
    found: tuple[str, ...]
    """What the schema found missing."""
    missing: tuple[str, ...]
    """That, and what the resolver declared missing and did not set."""
    declared: tuple[str, ...]
    complete: bool | None


def with_declared(
    found: tuple[str, ...], declared: tuple[str, ...], arguments: JSONObject
) -> tuple[str, ...]:
    """What the schema found missing, plus what the resolver declared missing and is still absent.

    A declared name the arguments do hold is not missing (K13).
    """
    if not declared:
        return found
    return found + tuple(
        pointer
        for pointer in declared
        if pointer not in found and not has_pointer(arguments, pointer)
    )


def checked(
    validator: CompiledSchema,
    arguments: JSONObject,
    trace: Trace,
    source: str,
    *,
    with_model: bool = False,
) -> Check | EventResult:
    """K12, K14: anything invalid ends the dispatch; engine failures are the plugin's."""
    clock = trace.clock
    started = clock.monotonic_ns()
    try:
        check = validator.check(arguments, source=source, with_model=with_model)
    except SchemaInfrastructureError as err:
        return trace.finish(Status.DEFINITION_ERROR, Reason.VALIDATOR_ERROR, str(err))
    finally:
        trace.validate_ns += clock.monotonic_ns() - started
    if not check.invalid:
        return check
    # Resolved values are authoritative: an LLM is never asked to repair them.
    reason = Reason.INVALID_ARGUMENTS if source == "resolver" else Reason.INVALID_AFTER_FALLBACK
    return trace.finish(
        Status.INVALID_ARGUMENTS,
        reason,
        check.invalid[0].message,
        errors=check.invalid,
        missing=check.missing,
    )


def fill_gaps(
    gap: Gap,
    fallback: Fallback | None,
    limits: AskLimits,
    *,
    configured: bool,
    reply_given: bool,
    trace: Trace,
) -> Generator[PluginCall, object, JSONObject | EventResult]:
    """K13-K19: ask the user, or the fallback; merge its reply under the resolved values.

    ``fallback`` is ``None`` when there is none to ask (``configured`` says whether
    one was configured and the policy forbids it). A reply handed in
    (``reply_given``) is the model's reading of the user's words, so the
    parameters only the user can supply are taken from it.
    """
    notes = trace.noting()
    notes.missing = gap.missing
    notes.reason = fallback_reason(gap.found, gap.declared, complete=gap.complete)
    user_only = () if reply_given else gap.entry.user_only
    if user_only:
        notes.user_only = user_only
        told = tuple(p for p in gap.missing if under_any(p, user_only))
        if told:
            return _ask_user(gap.missing, told, trace)
    if fallback is None:
        return _without_fallback(gap.missing, trace, configured=configured)
    wanted = gap.missing
    if gap.complete is False:
        # The resolver suspects more than the schema demands: ask for
        # every absent property, demanding only the missing ones.
        extra = _absent_properties(gap.entry, gap.arguments)
        wanted = gap.missing + tuple(
            p for p in extra if p not in gap.missing and not under_any(p, user_only)
        )
    supplied = yield from ask_fallback(
        fallback,
        limits,
        entry=gap.entry,
        event=gap.event,
        arguments=gap.arguments,
        missing=wanted,
        required=gap.missing,
        trace=trace,
    )
    if isinstance(supplied, EventResult):
        return supplied
    return _merged(gap, supplied, asked=wanted, trace=trace)


def _ask_user(missing: tuple[str, ...], told: tuple[str, ...], trace: Trace) -> EventResult:
    """Only the user can supply some of what is missing: ask them, never a model."""
    trace.noting().skipped = Reason.USER_ONLY_MISSING
    return trace.finish(
        Status.MISSING_INFORMATION,
        Reason.USER_ONLY_MISSING,
        "only the user can say " + ", ".join(told) + "; missing: " + ", ".join(missing),
        missing=missing,
    )


def _without_fallback(missing: tuple[str, ...], trace: Trace, *, configured: bool) -> EventResult:
    """K15: missing information is reported, not filled."""
    reason = Reason.FALLBACK_DISABLED if configured else Reason.NO_FALLBACK
    trace.noting().skipped = reason
    return trace.finish(
        Status.MISSING_INFORMATION,
        reason,
        "missing: " + ", ".join(missing) if missing else "the resolver was incomplete",
        missing=missing,
    )


def _absent_properties(entry: RegisteredEvent, arguments: JSONObject) -> tuple[str, ...]:
    # Resolution(complete=False) named nothing: ask for every declared property not yet set.
    properties = entry.schema.get("properties")
    if not isinstance(properties, Mapping):
        return ()
    names = cast("Mapping[str, object]", properties)
    return tuple("/" + escape_pointer_token(key) for key in names if key not in arguments)


def _merged(
    gap: Gap, supplied: JSONObject, *, asked: tuple[str, ...], trace: Trace
) -> JSONObject | EventResult:
    """K19: resolved values win, unasked-for ones are dropped; the result is validated again."""
    merged, trace.conflicts, trace.unrequested = merge_arguments(gap.arguments, supplied, asked)
    recheck = checked(gap.validator, merged, trace, "fallback")
    if isinstance(recheck, EventResult):
        return recheck
    still_missing = with_declared(recheck.missing, gap.declared, merged)
    if still_missing:
        return trace.finish(
            Status.MISSING_INFORMATION,
            Reason.MISSING_AFTER_FALLBACK,
            "still missing after the fallback: " + ", ".join(still_missing),
            missing=still_missing,
        )
    return merged
