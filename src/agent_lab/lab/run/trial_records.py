"""From a policy's reply, or its failure, to the trial the store keeps, scored against its case."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agent_lab.kernel.models import Status, Timings
from agent_lab.lab.results.records import LabReason, TrialRecord
from agent_lab.log_replay.scoring import Produced, score
from agent_lab.log_replay.trial_status import TrialStatus
from agent_lab.usage import Usage, checked_usage

if TYPE_CHECKING:
    from agent_lab.agents.decision import Decision
    from agent_lab.lab.run.metering import RequestCount
    from agent_lab.log_replay.case import Case
    from agent_lab.strict_json import JSONObject

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
    common = _case_fields(case)
    common.update(policy=policy, repeat=repeat, warmup=warmup, latency_ns=latency_ns)
    if isinstance(outcome, PolicyFailure):
        return _failed(case, common, outcome, sent)
    return _answered(case, common, outcome, _spent(outcome, sent))


def _case_fields(case: Case) -> dict[str, Any]:
    """What the record repeats of its case: the ground truth, and the words."""
    expected = case.expected
    return {
        "case_id": case.id,
        "category": case.category,
        "expected_event": case.event,
        "expected_status": expected.status,
        "expected": expected.arguments,
        "alternatives": expected.alternatives,
        "matching": case.matching,
        "text": case.text,
        "expected_calls": None
        if expected.calls is None
        else [
            {"event": c.event, "arguments": c.arguments, "alternatives": c.alternatives}
            for c in expected.calls
        ],
    }


def _scored(
    case: Case,
    status: TrialStatus,
    arguments: JSONObject | None,
    event: str | None,
    calls: list[Produced] | None,
) -> dict[str, Any]:
    """The outcome's fields, and whether it is right (``scoring.score``)."""
    scored = score(case, status, arguments, event, calls)
    return {
        "status": status,
        "arguments": arguments,
        "correct": scored.correct,
        "correct_exact": scored.correct_exact,
        "field_tp": scored.field_tp,
        "field_fp": scored.field_fp,
        "field_fn": scored.field_fn,
    }


def _failed(
    case: Case, common: dict[str, Any], outcome: PolicyFailure, sent: RequestCount
) -> TrialRecord:
    """A trial whose policy gave no reply: an error, with what the meter counted."""
    # No reply, but the requests it sent were sent (and maybe paid): the meter's
    # count; their tokens and cost are known only if every call returned. None
    # counted may also mean an unmetered provider: unknown, never zero.
    spent = sent.usage if sent.complete and sent.requests else Usage(requests=0)
    return TrialRecord(
        **common,
        **_scored(case, TrialStatus.ERROR, None, None, None),
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


@dataclass(frozen=True, slots=True)
class _Spent:
    """What an answered trial spent: requests, failed ones, and their usage's figures."""

    requests: int
    failed: int
    usage: Usage


def _spent(outcome: Decision, sent: RequestCount) -> _Spent:
    """The reply's figures, or the meter's when it saw more requests than the reply reports.

    A try cut short by the timeout, or one whose policy raised, sent requests
    that the next try's reply does not report; the meter counted them. Their
    tokens are known only if every call returned.
    """
    # A policy of the user's may hand back any usage; the store takes only plausible figures.
    usage = checked_usage(outcome.usage) or Usage()
    if sent.requests <= outcome.llm_calls:
        return _Spent(outcome.llm_calls, usage.failed, usage)
    known = sent.usage if sent.complete else Usage(requests=sent.requests)
    return _Spent(sent.requests, sent.failed, known)


def _answered(case: Case, common: dict[str, Any], outcome: Decision, spent: _Spent) -> TrialRecord:
    """A trial its policy answered: the reply scored, its usage, timings and ledger."""
    made = outcome.calls
    scored = _scored(
        case,
        TrialStatus.of(outcome.status),
        outcome.arguments,
        outcome.event,
        [(c.event, TrialStatus.of(c.status), c.arguments) for c in made] or None,
    )
    result = outcome.result
    timings = result.timings if result is not None else Timings()
    raw = result.fallback_raw if result is not None else None
    usage = spent.usage
    return TrialRecord(
        **common,
        **scored,
        event=outcome.event,
        reason=str(outcome.reason),
        llm_calls=spent.requests,
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
        failed_calls=spent.failed,
        ledger=outcome.ledger.as_json(),
        llm_raw=raw if raw is not None else outcome.model_text,
        calls=[{"event": c.event, "status": str(c.status), "arguments": c.arguments} for c in made]
        or None,
        failure=outcome.message or None if outcome.status is Status.FALLBACK_FAILED else None,
    )
