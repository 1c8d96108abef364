"""One logged request replayed through deterministic dispatch, with no LLM: a pure function.

``replay`` asks the envelope every caller asks (``answering.Answerer``), so
a logged request is decided exactly as the gateway and the wrappers would
decide it live. It holds no state between requests beyond the deciders the
answerer keeps per set of tools, so a log of any size is processed by mapping it over
the lines, in one process, in ``--workers`` processes, or over partitions of
the files in any engine that runs Python over a split dataset; the figures
add up (``figures.ShadowFigures``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from agent_lab.agents.decision import Routing
from agent_lab.agents.tool_specs import tool_properties
from agent_lab.answering import Answerer, Asked, Forward
from agent_lab.log_replay.logged_cases import case_of
from agent_lab.log_replay.scoring import score
from agent_lab.log_replay.trial_status import TrialStatus
from agent_lab.logs.record import SkippedLine, SkipReason
from agent_lab.resolvers.schema import kind_of
from agent_lab.strict_json import same_json

if TYPE_CHECKING:
    from collections.abc import Mapping

    from agent_lab.answering import LocalAnswer
    from agent_lab.log_replay.case import Case
    from agent_lab.logs.record import LoggedRequest
    from agent_lab.strict_json import JSONObject

__all__ = ["Cause", "Kind", "Replayed", "replay"]


class Kind(StrEnum):
    """What the logged request was."""

    CALL = "call"
    """The model called a tool: a logged call."""
    WORDS = "words"
    """The model answered in words (a question, a refusal, chat) though tools were offered."""
    FOLLOW_UP = "follow_up"
    """The conversation ended with a tool's result or the assistant: the model's to continue."""


class Cause(StrEnum):
    """Why a covered call disagrees with the logged one."""

    OTHER_TOOL = "other_tool"
    """Plain code dispatched another tool."""
    ARGUMENTS = "arguments"
    """The same tool, other argument values."""
    ACTED = "acted"
    """Plain code acted where the model answered in words."""
    CALLS = "calls"
    """The model made several calls; plain code made one."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Replayed:
    """What deterministic-first would have done with one logged request, and what it was."""

    where: str
    kind: Kind
    tool: str | None
    """The tool the model called (its first, when it called several)."""
    covered: bool
    """Plain code completed every required argument and nothing forbids a local answer
    (``LoggedRequest.forwarded``: ``tool_choice`` ``none``, a gateway's rule): deterministic-first
    sends no request."""
    agreed: bool | None = None
    """On a covered request: the same tool and the same arguments, type-sensitively."""
    agreed_lenient: bool | None = None
    """The same, by BFCL's looser rule (an int for a float, strings standardised)."""
    cause: Cause | None = None
    routed: str | None = None
    """The tool the agent's routing picked with no LLM, if it picked one."""
    values: tuple[tuple[str, str, bool, str], ...] = ()
    """On a covered call of the logged tool: each value plain code filled, as ``(name, kind,
    agreed, source)``; the kind is the schema's (``enum``, ``number``, ``boolean``, ``date``,
    ``time``, ``free-form``), agreed when the logged call holds the same value (or, leaving it
    out, the schema's default); the source is where it came from (``kernel.ledger.ValueSource``:
    the message, an earlier message, the accepted summary, an earlier call...)."""
    sources: dict[str, str] | None = None
    """Per argument produced, where its value came from (``Decision.sources``)."""
    reference: str | None = None
    """The reference date relative dates were read against: the request's own time, as its log
    gives it; ``None``: the log gives none, so a relative date in it was left to the model."""
    answered: str = ""
    """The envelope's word for the turn, as the gateway and the wrappers would answer it live:
    ``covered`` (calls), ``asked``, ``refused``, ``local_reply`` (words), or the rule that
    leaves it to the model (``not_covered``, ``not_a_user_turn``...)."""
    status: str = ""
    """How the deterministic decision ended (``success``, ``missing_information``...)."""
    reason: str = ""
    text: str = ""
    """What the resolvers read."""
    expected: JSONObject | None = None
    """The logged arguments."""
    produced: JSONObject | None = None
    """The deterministic arguments."""
    produced_tool: str | None = None
    model: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cached_tokens: int | None = None
    tokens_estimated: bool = False
    latency_ms: float | None = None


def replay(request: LoggedRequest, answerer: Answerer | None = None) -> Replayed | SkippedLine:
    """Answer ``request``'s last user turn with plain code only, and compare with the log.

    ``answerer`` holds the user's plugins, learned rules and what the resolvers
    read, built once for the whole log (``None``: the schema-driven resolver alone,
    a new answerer each call). Its answer is the one the gateway would give:
    covered when it is calls. Tools a registry refuses (a broken schema) make the
    request a ``SkippedLine`` (``bad_tools``). A request that is the model's
    whatever plain code decides (``forwarded``) is never covered.
    """
    answerer = answerer if answerer is not None else Answerer()
    usage = request.usage
    tool = request.calls[0].name if request.calls else None
    logged = Replayed(
        where=request.where,
        kind=Kind.CALL if request.calls else Kind.WORDS,
        tool=tool,
        covered=False,
        model=request.model,
        prompt_tokens=None if usage is None else usage.prompt_tokens,
        completion_tokens=None if usage is None else usage.completion_tokens,
        cached_tokens=None if usage is None else usage.cached_tokens,
        tokens_estimated=usage is not None and usage.estimated,
        latency_ms=request.latency_ms,
        reference=request.reference_date or request.timestamp,
    )
    asked = Asked(
        messages=request.messages,
        tools=request.tools,
        tool_choice="auto" if request.forced is None else "required",
        forced=request.forced,
        at_most_one=request.at_most_one,
    )
    answer = answerer.answer(asked, now=request.reference_date or request.timestamp)
    logged = dataclasses.replace(logged, answered=request.forwarded or answer.reason)
    case = case_of(request, read=answerer.read)
    if case is None:
        return dataclasses.replace(logged, kind=Kind.FOLLOW_UP)
    if isinstance(answer, Forward) and answer.reason == "bad_tools":
        # A tool spec without a name, or a schema the registry refuses.
        return SkippedLine(
            where=request.where,
            reason=SkipReason.BAD_TOOLS,
            message=f"the tools offered: {answer.detail}",
        )
    return _compared(case, answer, request, logged)


def _compared(
    case: Case, answer: LocalAnswer | Forward, request: LoggedRequest, logged: Replayed
) -> Replayed:
    decision = answer.decision
    if decision is None:
        # A rule of the envelope (a conversation not well formed, an image) left it undecided.
        return dataclasses.replace(logged, reason=answer.reason, text=case.text)
    produced = decision.arguments
    decided = dataclasses.replace(
        logged,
        routed=decision.event if decision.routed_by in _PLAIN_CODE else None,
        status=str(decision.status),
        reason=str(decision.reason),
        text=case.text,
        expected=case.expected.arguments,
        produced=produced,
        produced_tool=decision.event,
        sources={name: str(source) for name, source in decision.sources.items()},
    )
    if isinstance(answer, Forward) or not answer.calls or request.forwarded is not None:
        return decided
    verdict = score(case, TrialStatus.of(decision.status), produced, decision.event)
    same_tool = len(request.calls) == 1 and decision.event == logged.tool
    return dataclasses.replace(
        decided,
        covered=True,
        values=_values(request, decision.event, produced, decided.sources or {})
        if same_tool
        else (),
        agreed=verdict.correct_exact,
        agreed_lenient=verdict.correct,
        cause=None
        if verdict.correct_exact
        else _cause(logged.kind, len(request.calls), logged.tool, decision.event),
    )


_PLAIN_CODE = frozenset({Routing.ROUTER, Routing.LEXICAL})
_ABSENT = object()


def _values(
    request: LoggedRequest,
    tool: str | None,
    produced: JSONObject | None,
    sources: Mapping[str, str],
) -> tuple[tuple[str, str, bool, str], ...]:
    """Each value plain code filled, its kind, whether the logged call holds it too, its source."""
    expected = request.calls[0].arguments
    properties = tool_properties(request.tools, tool)
    found: list[tuple[str, str, bool, str]] = []
    for name, value in sorted((produced or {}).items()):
        schema = properties.get(name, {})
        logged: object = expected.get(name, schema.get("default", _ABSENT))
        agreed = logged is not _ABSENT and same_json(value, logged)
        found.append((name, kind_of(schema), agreed, sources.get(name, "message")))
    return tuple(found)


def _cause(kind: Kind, calls: int, tool: str | None, produced: str | None) -> Cause:
    if kind is Kind.WORDS:
        return Cause.ACTED
    if calls > 1:
        return Cause.CALLS
    return Cause.ARGUMENTS if produced == tool else Cause.OTHER_TOOL
