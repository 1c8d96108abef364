"""Rows for the lab's tests: a stored trial with sensible defaults, and a run to hold it."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from agent_lab.kernel.models import Status
from agent_lab.lab.results.records import TrialRecord
from agent_lab.lab.results.store import Store
from agent_lab.log_replay.trial_status import TrialStatus


def trial(case: str, policy: str = "p", repeat: int = 0, **changes: Any) -> TrialRecord:
    """A successful, correct trial; ``changes`` override any field."""
    values: dict[str, Any] = {
        "case_id": case,
        "policy": policy,
        "repeat": repeat,
        "warmup": False,
        "category": "complete",
        "expected_event": "e",
        "event": "e",
        "status": TrialStatus.SUCCESS,
        "reason": "completed",
        "expected_status": Status.SUCCESS,
        "correct": True,
        "arguments": {"n": 1},
        "expected": {"n": 1},
        "field_tp": 1,
        "field_fp": 0,
        "field_fn": 0,
        "llm_calls": 0,
        "prompt_tokens": 0,
        "completion_tokens": 0,
        "cost": Decimal("0.000001"),
        "latency_ns": 1000,
    }
    return TrialRecord(**(values | changes))


def new_run(store: Store, run_id: str = "r1") -> None:
    """Start an empty run in ``store``."""
    store.start_run(
        run_id,
        config={},
        config_hash="h",
        environment={},
        workload="w",
        plugins="p",
        provider="simulated",
        model="m",
        simulated=True,
    )
