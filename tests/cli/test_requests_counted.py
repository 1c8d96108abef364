"""Every request a trial sent is counted: a trial cut by --timeout, a provider that raises."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_lab.agents.port import FailureReason
from agent_lab.cli import run
from agent_lab.lab.results.store import Store
from agent_lab.log_replay.trial_status import TrialStatus
from tests.openai_server import Behavior, OpenAIServer, serving

RAISING = """
from agent_lab.testing import FunctionProvider


def answer(request):
    raise RuntimeError("the provider's own bug")


provider = FunctionProvider(answer, name="raiser", model="raiser-1")
"""

CASES = [
    {"id": "no-route", "event": None, "text": "tell me a joke",
     "expected": {"status": "unknown_event", "arguments": None}},
    {"id": "gap", "event": "set_timer", "text": "set a timer",
     "expected": {"status": "missing_information", "arguments": None}},
]  # fmt: skip


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    yield from serving()


@pytest.fixture(autouse=True)
def no_endpoint_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL"):
        monkeypatch.delenv(name, raising=False)


def cli(*argv: str) -> tuple[int, str]:
    err = io.StringIO()
    code = run(list(argv), stdout=io.StringIO(), stderr=err)
    return code, err.getvalue()


def stored(db: Path) -> list[object]:
    with Store(db, read_only=True) as store:
        [record] = store.runs()
        return list(store.trials(record.run_id, include_warmup=False))


@pytest.mark.slow
def test_requests_cut_by_the_trial_timeout_are_counted(
    server: OpenAIServer, tmp_path: Path
) -> None:
    """A trial that timed out waiting for its request sent it: counted, failed, cost unknown."""
    server.default = Behavior(message={"role": "assistant", "content": "{}"}, delay=6.0)
    db = tmp_path / "r.sqlite"
    code, err = cli(
        "run", "demo", "--plugins", "agent_lab.demo:plugins", "--no-progress", "--warmup", "0",
        "--limit", "4", "--provider", "openai", "--model", "m", "--base-url", server.url,
        "--policy", "llm-always", "--timeout", "1.5", "--structured-output", "json_object",
        "--db", str(db),
    )  # fmt: skip
    assert code == 1, err
    trials = stored(db)
    assert trials
    for trial in trials:
        assert trial.status is TrialStatus.ERROR  # type: ignore[attr-defined]
        assert trial.reason == "timeout"  # type: ignore[attr-defined]
        # One request per try (the runner tries a timed-out trial again): all sent, none answered.
        assert trial.llm_calls == trial.failed_calls >= 1  # type: ignore[attr-defined]
        assert trial.cost is None  # type: ignore[attr-defined]
        assert trial.prompt_tokens is None  # type: ignore[attr-defined]
    assert len(server.requests) == sum(trial.llm_calls for trial in trials)  # type: ignore[attr-defined]


@pytest.mark.slow
def test_a_try_cut_short_is_counted_when_the_next_try_is_answered(
    server: OpenAIServer, tmp_path: Path
) -> None:
    """The runner tries a timed-out trial again; the answered try's reply does not report the
    request the cut try sent, so the trial counts it from the meter, its tokens unknown."""
    answered = Behavior(message={"role": "assistant", "content": "{}"})
    first = [True]

    def respond(body: dict[str, object]) -> Behavior:
        if first[0]:
            first[0] = False
            return Behavior(message={"role": "assistant", "content": "{}"}, delay=4.0)
        return answered

    server.responder = respond
    workload = tmp_path / "w.jsonl"
    workload.write_text(json.dumps(CASES[0]) + "\n")
    db = tmp_path / "r.sqlite"
    cli(
        "run", str(workload), "--plugins", "agent_lab.demo:plugins", "--no-progress",
        "--warmup", "0", "--provider", "openai", "--model", "m", "--base-url", server.url,
        "--policy", "llm-always", "--timeout", "2", "--structured-output", "json_object",
        "--db", str(db),
    )  # fmt: skip
    [trial] = stored(db)
    assert trial.reason != "timeout"  # type: ignore[attr-defined]  # the second try answered
    assert (trial.llm_calls, trial.failed_calls) == (2, 1)  # type: ignore[attr-defined]
    assert trial.prompt_tokens is None  # type: ignore[attr-defined]  # the cut try's: unknown
    assert len(server.requests) == 2


def test_a_provider_that_raises_is_a_counted_failure_under_every_policy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The port promises no raise: a provider's exception is provider_error, its request counted."""
    (tmp_path / "raising_provider.py").write_text(RAISING)
    monkeypatch.syspath_prepend(str(tmp_path))  # pyright: ignore[reportUnknownMemberType]
    workload = tmp_path / "w.jsonl"
    workload.write_text("".join(json.dumps(case) + "\n" for case in CASES))
    db = tmp_path / "r.sqlite"
    cli(
        "run", str(workload), "--plugins", "agent_lab.demo:plugins", "--db", str(db),
        "--provider", "raising_provider:provider", "--policy", "llm-always",
        "--policy", "deterministic-first", "--no-progress", "--warmup", "0",
    )  # fmt: skip
    trials = stored(db)
    assert len(trials) == 4
    for trial in trials:
        assert trial.status is TrialStatus.FALLBACK_FAILED, trial  # type: ignore[attr-defined]
        assert trial.llm_calls == 1  # type: ignore[attr-defined]
        assert trial.failed_calls == 1  # type: ignore[attr-defined]
        assert not trial.correct  # type: ignore[attr-defined]
        assert "RuntimeError" in (trial.failure or "")  # type: ignore[attr-defined]
    reasons = {trial.reason for trial in trials}  # type: ignore[attr-defined]
    assert reasons <= {FailureReason.PROVIDER_ERROR, "fallback_error"}
