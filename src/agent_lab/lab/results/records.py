"""The rows of the results database, typed, and the vocabularies their columns hold (L10).

Every vocabulary is a ``StrEnum``, so that a member is stored as, and compares
equal to, the very string the database held before the enums existed.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from agent_lab.agents.decision import Routing

if TYPE_CHECKING:
    from decimal import Decimal

    from agent_lab.kernel.models import Status
    from agent_lab.log_replay.trial_status import TrialStatus
    from agent_lab.strict_json import JSONObject

__all__ = ["LabReason", "RunRecord", "RunState", "TrialRecord"]


class LabReason(StrEnum):
    """The reasons the lab itself gives a trial that ended in ``TrialStatus.ERROR``.

    Every other trial carries the reason its agent gave (the kernel's
    ``Reason``, a provider's, or the agent's own), so ``TrialRecord.reason``
    stays a string.
    """

    TIMEOUT = "timeout"
    """The trial ran past ``RunConfig.timeout``."""
    POLICY_ERROR = "policy_error"
    """The policy raised on every try."""
    UNSTORABLE = "unstorable"
    """The trial ran, but a value it produced cannot be stored (an integer of more
    digits than Python writes, a value that is not JSON): stored without that value."""


class RunState(StrEnum):
    """Where a run stands."""

    RUNNING = "running"
    FINISHED = "finished"


@dataclass(frozen=True, slots=True, kw_only=True)
class RunRecord:
    """One row of ``runs``."""

    run_id: str
    started_at: str
    finished_at: str | None
    state: RunState
    config: JSONObject
    config_hash: str
    environment: JSONObject
    """Provenance: versions, machine, provider, schema fingerprints (``lab.environment``)."""
    workload: str
    plugins: str
    provider: str
    model: str | None
    simulated: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class TrialRecord:
    """One row of ``trials``: one (case, policy, repeat)."""

    case_id: str
    policy: str
    repeat: int
    """Negative for warm-up trials."""
    warmup: bool
    category: str
    expected_event: str | None
    event: str | None
    status: TrialStatus
    reason: str
    expected_status: Status
    correct: bool
    arguments: JSONObject | None
    expected: JSONObject | None
    field_tp: int
    field_fp: int
    field_fn: int
    llm_calls: int
    prompt_tokens: int | None
    completion_tokens: int | None
    cost: Decimal | None
    """``None`` when unknown (unpriced), never zero for it."""
    latency_ns: int
    resolve_ns: int = 0
    validate_ns: int = 0
    fallback_ns: int = 0
    handler_ns: int = 0
    routed_by: Routing = Routing.NONE
    error: str | None = None
    """Why the policy failed, for ``TrialStatus.ERROR``."""
    correct_exact: bool | None = None
    """Right by type-sensitive equality, whatever the case's matching rule
    (``None`` in rows stored before this column existed)."""
    alternatives: JSONObject | None = None
    """The case's acceptable values per argument, when it lists them."""
    matching: str = "exact"
    """The case's matching rule (``log_replay.scoring.Matching``)."""
    text: str = ""
    """The case's words, so that a failing case can be read from the store alone."""
    llm_raw: str | None = None
    """What the model sent back, as it came: the fallback's raw JSON, the tool
    call's argument text, or the text of a reply that called no tool."""
    failure: str | None = None
    """The provider's message for a failed request (redacted, then cut)."""
    calls: list[JSONObject] | None = None
    """When the agent made several calls: each ``{"event", "status", "arguments"}``."""
    expected_calls: list[JSONObject] | None = None
    """When the case wants several calls: each ``{"event", "arguments", "alternatives"}``."""
    cached_tokens: int | None = None
    """Of ``prompt_tokens``, those the server read from its prompt cache (``None``: not said)."""
    path: str = "none"
    """Which request filled the gaps (``FallbackPath``: none, projected, plain, choice,
    tool, custom); ``none`` in rows stored before this column existed."""
    failed_calls: int = 0
    """Of ``llm_calls``, the requests that got no usable reply (timeouts, refusals, errors)."""
    ledger: JSONObject | None = None
    """The dispatch's decision ledger (``DecisionLedger.as_json()``); ``None`` in rows
    stored before this column existed, or when the policy itself failed."""
