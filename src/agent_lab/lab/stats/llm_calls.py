"""Why each trial called the LLM, whether it had to, and the resolvers' to-do list (L12).

Each LLM-called trial is judged against the workload's ground truth:

* **avoidable**: the case's truth is a complete answer (``success``, or
  ``invalid_arguments`` on a value the user stated), so everything the model
  was asked for was in the input; a better resolver or route could have read it;
* **unavoidable**: the truth is ``missing_information``: the input lacks it,
  and only the user (or a model's knowledge) has it;
* **out of domain**: no event fits; a router that declines would have saved it.

Avoidable calls are then ranked by the property (or the routing step) behind
them, with the phrasings that caused them: what to write next. The ranking
leaves out policies whose model resolves every message (LLM-always): their
calls are the policy, not a resolver's gap.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, cast

from agent_lab.strict_json import pointer_tokens

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from agent_lab.lab.results.records import TrialRecord
    from agent_lab.strict_json import JSONObject

__all__ = [
    "CALLED_CASES_SHOWN",
    "Avoidability",
    "AvoidableProperty",
    "CalledCase",
    "PolicyCalls",
    "avoidability",
    "called_cases",
    "policy_calls",
    "rank_avoidable",
]

CALLED_CASES_SHOWN = 20
"""LLM-called or failing cases shown per policy in the HTML report; the rest are counted."""
_EXAMPLES = 3
_ROUTING = "(routing)"
_BY_POLICY = "model_resolves"


class Avoidability(StrEnum):
    """Whether an LLM call was needed, by the workload's ground truth."""

    AVOIDABLE = "avoidable"
    UNAVOIDABLE = "unavoidable"
    OUT_OF_DOMAIN = "out_of_domain"


def avoidability(trial: TrialRecord) -> Avoidability | None:
    """How ``trial``'s LLM calls stand against its case's truth; ``None`` if it made none."""
    if trial.llm_calls == 0:
        return None
    if trial.expected_event is None:
        return Avoidability.OUT_OF_DOMAIN
    if str(trial.expected_status) == "missing_information":
        return Avoidability.UNAVOIDABLE
    return Avoidability.AVOIDABLE


def _mapping(value: object) -> dict[str, object]:
    return cast("dict[str, object]", value) if isinstance(value, dict) else {}


def _strings(value: object) -> tuple[str, ...]:
    if not isinstance(value, list):
        return ()
    return tuple(item for item in cast("list[object]", value) if isinstance(item, str))


def llm_reason(trial: TrialRecord) -> str | None:
    """The ledger's reason for the first LLM request (``None``: none, or no ledger stored)."""
    reason = _mapping(trial.ledger).get("llm_reason")
    return reason if isinstance(reason, str) else None


def asked_for(trial: TrialRecord) -> tuple[str, ...]:
    """What the model was asked to supply: the required pointers, else every one asked."""
    fallback = _mapping(_mapping(trial.ledger).get("fallback"))
    if fallback.get("called") is not True:
        return ()
    return _strings(fallback.get("required")) or _strings(fallback.get("asked"))


def _at(trial: TrialRecord, pointer: str) -> object:
    # The true value at a top-level or nested pointer; None where the truth has none.
    node: object = trial.expected
    for token in pointer_tokens(pointer):
        node = _mapping(node).get(token)
    return node


def _said_verbatim(text: str, value: object) -> bool:
    # The truth's value as the user would write it: a string or a number in the words.
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return False
    written = value if isinstance(value, str) else str(value)
    return bool(written) and written.casefold() in text.casefold()


@dataclass(frozen=True, slots=True)
class AvoidableProperty:
    """One property (or the routing step) behind a policy's avoidable calls."""

    policy: str
    event: str
    pointer: str
    """A JSON pointer, or ``(routing)`` when choosing the event took the call."""
    calls: int
    """Trials whose LLM call this property caused (a trial asking for two counts for both)."""
    share: float
    """Of the policy's avoidable trials."""
    verbatim: int
    """Of ``calls``, those whose text holds the true value as written (a plain
    reader misses it); the rest say it in other words (a paraphrase to learn)."""
    categories: tuple[tuple[str, int], ...]
    phrasings: tuple[str, ...]
    """The first few case texts, in case order."""


def rank_avoidable(trials: Sequence[TrialRecord]) -> list[AvoidableProperty]:
    """Per policy, the properties behind avoidable calls, most calls first."""
    counted = [t for t in trials if not t.warmup and avoidability(t) is Avoidability.AVOIDABLE]
    by_policy: dict[str, list[TrialRecord]] = {}
    for trial in counted:
        if llm_reason(trial) != _BY_POLICY:
            by_policy.setdefault(trial.policy, []).append(trial)
    ranked: list[AvoidableProperty] = []
    for policy, avoidable in by_policy.items():
        keyed: dict[tuple[str, str], list[TrialRecord]] = {}
        for trial in avoidable:
            event = trial.expected_event or ""
            for pointer in _causes(trial):
                keyed.setdefault((event, pointer), []).append(trial)
        for (event, pointer), behind in keyed.items():
            ordered = sorted(behind, key=lambda t: (t.case_id, t.repeat))
            ranked.append(
                AvoidableProperty(
                    policy=policy,
                    event=event,
                    pointer=pointer,
                    calls=len(behind),
                    share=len(behind) / len(avoidable),
                    verbatim=sum(
                        pointer != _ROUTING and _said_verbatim(trial.text, _at(trial, pointer))
                        for trial in behind
                    ),
                    categories=tuple(Counter(t.category for t in behind).most_common()),
                    phrasings=tuple(_unique(t.text for t in ordered))[:_EXAMPLES],
                )
            )
    ranked.sort(key=lambda p: (p.policy, -p.calls, p.event, p.pointer))
    return ranked


def _causes(trial: TrialRecord) -> tuple[str, ...]:
    route = _mapping(_mapping(trial.ledger).get("route"))
    causes = ((_ROUTING,) if route.get("llm_reason") is not None else ()) + asked_for(trial)
    # A call the ledger says nothing of (a row stored before it existed) is put on routing.
    return causes or (_ROUTING,)


def _unique(texts: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(texts))


@dataclass(frozen=True, slots=True)
class PolicyCalls:
    """A policy's LLM-called trials, by avoidability."""

    policy: str
    trials: int
    called: int
    avoidable: int
    unavoidable: int
    out_of_domain: int


def policy_calls(trials: Sequence[TrialRecord]) -> list[PolicyCalls]:
    """Per policy (in first-seen order), how many trials called the LLM and whether they had to."""
    counts: dict[str, Counter[str]] = {}
    for trial in trials:
        if trial.warmup:
            continue
        counter = counts.setdefault(trial.policy, Counter())
        counter["trials"] += 1
        kind = avoidability(trial)
        if kind is not None:
            counter["called"] += 1
            counter[kind] += 1
    return [
        PolicyCalls(
            policy=policy,
            trials=c["trials"],
            called=c["called"],
            avoidable=c[Avoidability.AVOIDABLE],
            unavoidable=c[Avoidability.UNAVOIDABLE],
            out_of_domain=c[Avoidability.OUT_OF_DOMAIN],
        )
        for policy, c in counts.items()
    ]


@dataclass(frozen=True, slots=True)
class CalledCase:
    """One trial that called the LLM or ended wrong: what was missing, what came back."""

    policy: str
    case_id: str
    text: str
    llm_reason: str | None
    missing: tuple[str, ...]
    llm_returned: str | None
    status: str
    reason: str
    correct: bool
    avoidability: Avoidability | None


def called_cases(trials: Sequence[TrialRecord]) -> list[CalledCase]:
    """Every trial (first repeat) that called the LLM or was wrong; wrong first, then by case."""
    seen: set[tuple[str, str]] = set()
    rows: list[CalledCase] = []
    for trial in sorted(trials, key=lambda t: (t.policy, t.correct, t.case_id, t.repeat)):
        key = (trial.policy, trial.case_id)
        if trial.warmup or key in seen or (trial.llm_calls == 0 and trial.correct):
            continue
        seen.add(key)
        ledger = _mapping(trial.ledger)
        rows.append(
            CalledCase(
                policy=trial.policy,
                case_id=trial.case_id,
                text=trial.text,
                llm_reason=llm_reason(trial),
                missing=_strings(ledger.get("missing")),
                llm_returned=trial.llm_raw,
                status=str(trial.status),
                reason=trial.reason,
                correct=trial.correct,
                avoidability=avoidability(trial),
            )
        )
    return rows


def calls_json(
    ranked: Sequence[AvoidableProperty],
    summaries: Sequence[PolicyCalls],
    cases: Sequence[CalledCase],
) -> JSONObject:
    """The section as JSON data (``report --json``'s ``llm_calls``)."""
    return {
        "by_policy": [
            {
                "policy": s.policy,
                "trials": s.trials,
                "llm_called": s.called,
                "avoidable": s.avoidable,
                "unavoidable": s.unavoidable,
                "out_of_domain": s.out_of_domain,
            }
            for s in summaries
        ],
        "avoidable_ranking": [
            {
                "policy": p.policy,
                "event": p.event,
                "pointer": p.pointer,
                "calls": p.calls,
                "share": p.share,
                "verbatim": p.verbatim,
                "categories": dict(p.categories),
                "phrasings": list(p.phrasings),
            }
            for p in ranked
        ],
        "cases": [
            {
                "policy": c.policy,
                "case_id": c.case_id,
                "text": c.text,
                "llm_reason": c.llm_reason,
                "missing": list(c.missing),
                "llm_returned": c.llm_returned,
                "status": c.status,
                "reason": c.reason,
                "correct": c.correct,
                "avoidability": None if c.avoidability is None else str(c.avoidability),
            }
            for c in cases
        ],
    }
