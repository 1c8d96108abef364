"""From a policy's reply, or its failure, to the trial the store keeps, scored against its case."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agent_lab.application.events.models import Status, Timings
from agent_lab.lab.results.records import LabReason, TrialRecord, TrialStatus
from agent_lab.lab.stats.scoring import score
from agent_lab.usage import Usage, checked_usage

if TYPE_CHECKING:
    from agent_lab.agents.outcome import Decision
    from agent_lab.lab.run.metering import RequestCount
    from agent_lab.lab.workload import Case

__all__ = ["PolicyFailure", "trial_record"]


@dataclass(frozen=True, slots=True)
class PolicyFailure:
    """A trial whose policy gave no reply: why, in the lab's words and in the error's."""

    reason: LabReason
    message: str


def trial_record(
    case: Case,
    *,
    policy: str,
    repeat: int,
    warmup: bool,
    outcome: Decision | PolicyFailure,
    latency_ns: int,
    sent: RequestCount,
) -> TrialRecord:
    """The stored trial: ``outcome`` scored against ``case``, with its figures.

    ``sent`` is the meter's count of the requests the trial sent, which is all
    a failed trial has to tell what it spent.
    """
    if isinstance(outcome, PolicyFailure):
        status, arguments = TrialStatus.ERROR, None
    else:
        status, arguments = TrialStatus.of(outcome.status), outcome.arguments
    event = None if isinstance(outcome, PolicyFailure) else outcome.event
    made = () if isinstance(outcome, PolicyFailure) else outcome.calls
    scored = score(
        case,
        status,
        arguments,
        event,
        [(c.event, TrialStatus.of(c.status), c.arguments) for c in made] or None,
    )
    common: dict[str, Any] = {
        "case_id": case.id,
        "policy": policy,
        "repeat": repeat,
        "warmup": warmup,
        "category": case.category,
        "expected_event": case.event,
        "status": status,
        "expected_status": case.expected.status,
        "correct": scored.correct,
        "correct_exact": scored.correct_exact,
        "arguments": arguments,
        "expected": case.expected.arguments,
        "alternatives": case.expected.alternatives,
        "matching": case.matching,
        "text": case.text,
        "expected_calls": None
        if case.expected.calls is None
        else [
            {"event": c.event, "arguments": c.arguments, "alternatives": c.alternatives}
            for c in case.expected.calls
        ],
        "field_tp": scored.field_tp,
        "field_fp": scored.field_fp,
        "field_fn": scored.field_fn,
        "latency_ns": latency_ns,
    }
    if isinstance(outcome, PolicyFailure):
        # No reply, but the requests it sent were sent (and maybe paid): the meter's
        # count; their tokens and cost are known only if every call returned. None
        # counted may also mean an unmetered provider: unknown, never zero.
        spent = sent.usage if sent.complete and sent.requests else Usage(requests=0)
        return TrialRecord(
            **common,
            event=None,
            reason=outcome.reason,
            llm_calls=sent.requests,
            failed_calls=sent.failed,
            prompt_tokens=spent.prompt_tokens,
            completion_tokens=spent.completion_tokens,
            cached_tokens=spent.cached_tokens,
            cost=spent.cost,
            error=outcome.message,
        )
    result = outcome.result
    timings = result.timings if result is not None else Timings()
    # A policy of the user's may hand back any usage; the store takes only plausible figures.
    usage = checked_usage(outcome.usage) or Usage()
    raw = result.fallback_raw if result is not None else None
    return TrialRecord(
        **common,
        event=outcome.event,
        reason=str(outcome.reason),
        llm_calls=outcome.llm_calls,
        prompt_tokens=usage.prompt_tokens,
        completion_tokens=usage.completion_tokens,
        cached_tokens=usage.cached_tokens,
        cost=usage.cost,
        resolve_ns=timings.resolve_ns,
        validate_ns=timings.validate_ns,
        fallback_ns=timings.fallback_ns,
        handler_ns=timings.handler_ns,
        routed_by=outcome.routed_by,
        path=str(outcome.path),
        failed_calls=usage.failed,
        ledger=outcome.ledger.as_json(),
        llm_raw=raw if raw is not None else outcome.model_text,
        calls=[
            {"event": c.event, "status": str(c.status), "arguments": c.arguments}
            for c in outcome.calls
        ]
        or None,
        failure=outcome.message or None if outcome.status is Status.FALLBACK_FAILED else None,
    )
