"""Why the LLM was called: avoidability from the ground truth, the ranking, the cases, the cost."""

from __future__ import annotations

import io
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from agent_lab.cli import run
from agent_lab.kernel.ledger import LEDGER_VERSION
from agent_lab.kernel.models import Status
from agent_lab.lab.results.records import TrialRecord
from agent_lab.lab.results.store import Store
from agent_lab.lab.stats.llm_calls import (
    Avoidability,
    avoidability,
    called_cases,
    policy_calls,
    rank_avoidable,
)
from agent_lab.lab.stats.metrics import summarize
from agent_lab.log_replay.trial_status import TrialStatus
from tests.lab.factories import trial


def ledger(
    reason: str | None, asked: tuple[str, ...] = (), *, route_reason: str | None = None
) -> dict[str, Any]:
    return {
        "llm_reason": route_reason or reason,
        "route": {"by": "given", "tied": [], "llm_reason": route_reason},
        "missing": list(asked),
        "fallback": {
            "called": bool(asked),
            "reason": reason,
            "asked": list(asked),
            "required": list(asked),
            "skipped": None,
        },
    }


def called(
    case: str, policy: str, text: str, asked: tuple[str, ...], **changes: Any
) -> TrialRecord:
    return trial(
        case,
        policy,
        llm_calls=1,
        text=text,
        ledger=ledger("missing_required", asked),
        **changes,
    )


def test_the_truth_decides_whether_a_call_was_needed() -> None:
    assert avoidability(trial("a")) is None  # no call, nothing to judge
    assert avoidability(called("b", "p", "t", ("/n",))) is Avoidability.AVOIDABLE
    missing = called(
        "c", "p", "t", ("/n",), expected_status=Status.MISSING_INFORMATION, expected=None
    )
    assert avoidability(missing) is Avoidability.UNAVOIDABLE
    outside = called("d", "p", "t", ("/n",), expected_event=None, expected=None)
    assert avoidability(outside) is Avoidability.OUT_OF_DOMAIN
    # A value the user stated wrongly was still stated: a resolver could have read it.
    invalid = called("e", "p", "t", ("/n",), expected_status=Status.INVALID_ARGUMENTS)
    assert avoidability(invalid) is Avoidability.AVOIDABLE


def test_the_ranking_names_the_property_most_calls_come_from() -> None:
    trials = [
        called("t1", "df", "ten minutes please", ("/seconds",), expected={"seconds": 600}),
        called("t2", "df", "a timer for 90", ("/seconds",), expected={"seconds": 90}),
        called("t3", "df", "half an hour", ("/seconds",), expected={"seconds": 1800}),
        called("w1", "df", "weather in Rome", ("/city",), expected={"city": "Rome"}),
        called(
            "m1", "df", "remind me", ("/what",),
            expected_status=Status.MISSING_INFORMATION, expected=None,
        ),
        # LLM-always's calls are its policy: never a resolver's to-do.
        trial("t1", "llm", llm_calls=1, text="ten minutes please",
              ledger=ledger(None, route_reason="model_resolves")),
    ]  # fmt: skip
    first, second = rank_avoidable(trials)
    assert (first.policy, first.pointer, first.calls) == ("df", "/seconds", 3)
    assert first.share == 0.75  # of the policy's four avoidable trials
    assert first.verbatim == 1  # "90" is written as it is; the others are words for it
    assert first.phrasings == ("ten minutes please", "a timer for 90", "half an hour")
    assert (second.pointer, second.calls, second.verbatim) == ("/city", 1, 1)
    assert all(p.policy != "llm" for p in rank_avoidable(trials))
    [df, llm] = policy_calls(trials)
    assert (df.called, df.avoidable, df.unavoidable, df.out_of_domain) == (5, 4, 1, 0)
    assert (llm.called, llm.avoidable) == (1, 1)


def test_a_routing_call_is_ranked_as_routing() -> None:
    routed = trial(
        "r", "df", llm_calls=1, text="play something",
        ledger=ledger(None, route_reason="no_route"),
    )  # fmt: skip
    [item] = rank_avoidable([routed])
    assert item.pointer == "(routing)"


def test_the_called_cases_put_wrong_ones_first_with_what_came_back() -> None:
    trials = [
        called("a", "df", "ok", ("/n",), llm_raw='{"n": 1}'),
        called(
            "b", "df", "bad", ("/n",), llm_raw="{}", correct=False,
            status=TrialStatus.MISSING_INFORMATION, reason="missing_after_fallback",
        ),
        trial("c", "df"),  # right with no call: not shown
        trial("d", "df", correct=False, status=TrialStatus.UNKNOWN_EVENT, reason="no_route"),
        called("a", "df", "ok", ("/n",), repeat=1),  # a second repeat: shown once
    ]  # fmt: skip
    rows = called_cases(trials)
    assert [(r.case_id, r.correct) for r in rows] == [("b", False), ("d", False), ("a", True)]
    assert (rows[0].missing, rows[0].llm_returned, rows[0].llm_reason) == (
        ("/n",),
        "{}",
        "missing_required",
    )
    assert rows[1].avoidability is None  # wrong, but no call was made


def test_cost_per_correct_answer_pays_for_the_wrong_ones_too() -> None:
    trials = [
        trial("a", cost=Decimal("0.002")),
        trial("b", cost=Decimal("0.002"), correct=False),
        trial("c", cost=Decimal("0.002")),
        trial("d", cost=Decimal("0.002")),
    ]
    [metrics] = summarize(trials)
    assert metrics.cost_per_trial.value == 0.002
    assert metrics.cost_per_correct.value is not None
    assert abs(metrics.cost_per_correct.value - 0.008 / 3) < 1e-12
    unknown = [*trials, trial("e", cost=None)]
    assert summarize(unknown)[0].cost_per_correct.value is None  # never a partial sum


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One simulated demo run, shared by the tests that read it back."""
    db = tmp_path_factory.mktemp("demo") / "r.sqlite"
    argv = [
        "run", "demo", "--plugins", "agent_lab.demo:plugins", "--limit", "40", "--db", str(db),
        "--provider", "simulated", "--simulated-latency", "1,2", "--no-progress",
    ]  # fmt: skip
    err = io.StringIO()
    assert run(argv, stdout=io.StringIO(), stderr=err) == 0, err.getvalue()
    return db


def test_a_run_stores_each_trials_ledger(demo_run: Path) -> None:
    """The demo through the simulated model: every trial keeps its ledger, read back whole."""
    with Store(demo_run) as store:
        [record] = store.runs()
        trials = store.trials(record.run_id)
    assert trials
    assert all(t.ledger is not None and t.ledger["version"] == LEDGER_VERSION for t in trials)
    first = {t.policy: t for t in trials if t.llm_calls and t.ledger}
    assert first["llm-always"].ledger is not None
    assert first["llm-always"].ledger["llm_reason"] == "model_resolves"
    reasons = {
        str(t.ledger["llm_reason"])
        for t in trials
        if t.policy == "deterministic-first" and t.llm_calls and t.ledger
    }
    assert reasons & {"missing_required", "no_route", "routing_tie"}
    assert all(t.ledger["llm_reason"] is None for t in trials if t.llm_calls == 0 and t.ledger)


def test_the_terminal_report_says_why_the_llm_was_called(demo_run: Path) -> None:
    out = io.StringIO()
    assert run(["report", str(demo_run), "--wide"], stdout=out, stderr=io.StringIO()) == 0
    text = out.getvalue()
    assert "why the LLM was called" in text
    section = text.split("why the LLM was called", 1)[1].split("baselines", 1)[0]
    [row] = [line for line in section.splitlines() if line.startswith("│ deterministic-first")]
    assert "/" in row or "(routing)" in row  # the property behind most avoidable calls
