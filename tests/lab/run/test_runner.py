"""The runner with a scripted model and a fake clock: each trial once, exact timings (L8, L9)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from agent_lab.agents.decision import Decision
from agent_lab.agents.plugins import PluginSet, Route
from agent_lab.agents.port import ProviderReply, ToolCall
from agent_lab.clock import FakeClock
from agent_lab.errors import ConfigChange, ConfigMismatchError
from agent_lab.kernel.models import EventDefinition, Resolution, Status
from agent_lab.lab.results.records import LabReason
from agent_lab.lab.results.store import Store
from agent_lab.lab.run.policies import DeterministicOnly, LLMAlways, Policy
from agent_lab.lab.run.runner import RunConfig, Runner
from agent_lab.lab.workload import Workload
from agent_lab.log_replay.case import Case, Expectation
from agent_lab.log_replay.trial_status import TrialStatus
from agent_lab.testing import ScriptedProvider
from agent_lab.usage import Usage
from tests.lab.factories import trial

PLUGINS = PluginSet(
    "numbers",
    (
        EventDefinition(
            "set_n",
            description="Set n.",
            parameters={
                "type": "object",
                "properties": {"n": {"type": "integer"}},
                "required": ["n"],
            },
            resolver=lambda event: Resolution({}),
        ),
    ),
    (Route("set_n", patterns=("set",)),),
)
TICK_NS = 1_234
POLICY = "llm-always"


def cases(count: int) -> Workload:
    return Workload(
        "numbers",
        tuple(
            Case(
                id=f"c{i}",
                event="set_n",
                text=f"set n to {i}",
                expected=Expectation(Status.SUCCESS, {"n": i}),
                tags=("complete",),
            )
            for i in range(count)
        ),
    )


def choose_one() -> ProviderReply:
    """The model calls ``set_n`` with n = 1, whatever it was asked."""
    call = ToolCall(name="set_n", arguments_raw='{"n": 1}', arguments={"n": 1})
    return ProviderReply(tool_calls=(call,), usage=Usage(prompt_tokens=10, completion_tokens=5))


def runner(
    store: Store,
    workload: Workload,
    policy: Policy,
    *,
    clock: FakeClock | None = None,
    **options: int | float | None,
) -> Runner:
    config = RunConfig(
        workload=workload.name,
        plugins="numbers",
        policies=(POLICY,),
        provider="scripted",
        **options,  # pyright: ignore[reportArgumentType]
    )
    return Runner(
        store,
        workload,
        PLUGINS,
        {POLICY: policy},
        config,
        progress=False,
        clock=clock if clock is not None else FakeClock(tick_ns=TICK_NS),
    )


def start(run: Runner) -> tuple[str, int]:
    """Start a new run and take it to the end: its id, and how many trials were written."""
    run_id = run.prepare(resume=False)
    return run_id, asyncio.run(run.run(run_id))


def test_every_trial_is_stored_once_with_its_latency_read_from_the_clock(tmp_path: Path) -> None:
    """L8, L9: (case, policy, repeat) once each, timed by the injected clock to the nanosecond."""
    provider = ScriptedProvider([choose_one() for _ in range(12)])
    with Store(tmp_path / "r.sqlite") as store:
        run = runner(store, cases(6), LLMAlways(PLUGINS, provider), repeats=2, concurrency=4)
        run_id, written = start(run)
        assert written == 12
        trials = store.trials(run_id)
        assert store.run(run_id).state == "finished"
    assert provider.script == []
    assert sorted((t.case_id, t.repeat) for t in trials) == [
        (f"c{i}", repeat) for i in range(6) for repeat in (0, 1)
    ]
    # Each trial reads the clock twice and the clock moves TICK_NS per reading.
    assert {t.latency_ns for t in trials} == {TICK_NS}
    assert {(t.status, t.llm_calls, t.prompt_tokens, t.completion_tokens) for t in trials} == {
        (TrialStatus.SUCCESS, 1, 10, 5)
    }
    assert {t.case_id for t in trials if t.correct} == {"c1"}


def test_resume_refuses_another_configuration_naming_its_fields(tmp_path: Path) -> None:
    """L9: resuming with another seed is refused, the seed named as a field, not a flag."""
    with Store(tmp_path / "r.sqlite") as store:
        run_id = runner(store, cases(2), LLMAlways(PLUGINS, ScriptedProvider([]))).prepare(
            resume=False
        )
        other = runner(store, cases(2), LLMAlways(PLUGINS, ScriptedProvider([])), seed=7)
        with pytest.raises(ConfigMismatchError) as refused:
            other.prepare(resume=True)
    assert refused.value.run_id == run_id
    assert refused.value.changes == (ConfigChange(setting="seed", was="0", now="7"),)
    assert "--" not in str(refused.value)


def test_resume_runs_only_the_trials_the_store_lacks(tmp_path: Path) -> None:
    """L9: a resumed run leaves stored trials alone and asks the model only for the rest."""
    workload = cases(5)
    with Store(tmp_path / "r.sqlite") as store:
        first = runner(store, workload, LLMAlways(PLUGINS, ScriptedProvider([])))
        run_id = first.prepare(resume=False)
        # What a killed run left behind: two trials, marked by a latency no clock gave.
        store.add_trials(run_id, [trial(f"c{i}", POLICY, latency_ns=7) for i in (0, 3)])
        provider = ScriptedProvider([choose_one() for _ in range(3)])
        second = runner(store, workload, LLMAlways(PLUGINS, provider))
        assert second.prepare(resume=True) == run_id
        assert asyncio.run(second.run(run_id)) == 3
        trials = {t.case_id: t for t in store.trials(run_id)}
        assert store.run(run_id).state == "finished"
    assert len(provider.requests) == 3
    assert sorted(trials) == ["c0", "c1", "c2", "c3", "c4"]
    assert {name: t.latency_ns for name, t in trials.items()} == {
        "c0": 7,
        "c1": TICK_NS,
        "c2": TICK_NS,
        "c3": 7,
        "c4": TICK_NS,
    }


class RaisingFirst:
    """A policy that raises on its first ``raises`` tries, then answers as LLM-always does."""

    name = POLICY

    def __init__(self, provider: ScriptedProvider, raises: int) -> None:
        self.inner = LLMAlways(PLUGINS, provider)
        self.raises = raises

    async def run(self, case: Case) -> Decision:
        if self.raises:
            self.raises -= 1
            raise RuntimeError("the policy's own bug")
        return await self.inner.run(case)


def test_a_policy_that_raises_is_recorded_as_an_error_trial(tmp_path: Path) -> None:
    """A failing policy is a stored trial with status error and the error's text, not a crash."""
    with Store(tmp_path / "r.sqlite") as store:
        run = runner(store, cases(1), RaisingFirst(ScriptedProvider([]), raises=1), retries=0)
        run_id, written = start(run)
        assert written == 1
        (failed,) = store.trials(run_id)
    assert failed.status is TrialStatus.ERROR
    assert failed.reason == LabReason.POLICY_ERROR
    assert failed.error == "RuntimeError: the policy's own bug"
    assert (failed.correct, failed.llm_calls, failed.prompt_tokens, failed.cost) == (
        False,
        0,
        None,
        None,
    )
    assert failed.latency_ns == TICK_NS


def test_a_provider_that_raises_is_a_failed_request_not_a_failed_policy(tmp_path: Path) -> None:
    """The port never raises: a provider's exception is a counted provider_error failure."""
    provider = ScriptedProvider([RuntimeError("the model is down")])
    with Store(tmp_path / "r.sqlite") as store:
        run = runner(store, cases(1), LLMAlways(PLUGINS, provider), retries=1)
        run_id, _ = start(run)
        (failed,) = store.trials(run_id)
    assert len(provider.requests) == 1  # a failure is not the runner's to retry
    assert failed.status is TrialStatus.FALLBACK_FAILED
    assert (failed.reason, failed.llm_calls, failed.failed_calls) == ("provider_error", 1, 1)
    assert failed.failure == "the provider raised RuntimeError: the model is down"


def test_a_failed_try_is_retried(tmp_path: Path) -> None:
    """L8: bounded retries; the trial keeps the try that succeeded, timed from the first."""
    provider = ScriptedProvider([choose_one()])
    with Store(tmp_path / "r.sqlite") as store:
        run = runner(store, cases(1), RaisingFirst(provider, raises=1), retries=1)
        run_id, _ = start(run)
        (retried,) = store.trials(run_id)
    assert len(provider.requests) == 1
    assert (retried.status, retried.error, retried.latency_ns) == (
        TrialStatus.SUCCESS,
        None,
        TICK_NS,
    )


class Hanging:
    """A policy that never answers in time."""

    name = "hanging"

    async def run(self, case: Case) -> Decision:
        await asyncio.sleep(60)
        raise AssertionError("unreachable: the runner's timeout cancels the sleep")


def test_a_trial_past_its_timeout_is_an_error_trial(tmp_path: Path) -> None:
    """L8: the per-trial timeout ends the trial with reason timeout, on every try."""
    with Store(tmp_path / "r.sqlite") as store:
        run = runner(store, cases(1), Hanging(), timeout=0.01, retries=1)
        run_id, _ = start(run)
        (late,) = store.trials(run_id)
    assert (late.status, late.reason, late.error) == (
        TrialStatus.ERROR,
        LabReason.TIMEOUT,
        "trial took longer than 0.01 s",
    )


def test_warm_up_trials_are_stored_but_left_out_of_the_trials(tmp_path: Path) -> None:
    """Warm-up trials run first and are kept apart: not in the statistics, not lost either."""
    provider = ScriptedProvider([choose_one() for _ in range(5)])
    with Store(tmp_path / "r.sqlite") as store:
        run = runner(store, cases(3), LLMAlways(PLUGINS, provider), warmup=2)
        run_id, written = start(run)
        assert written == 5
        measured = store.trials(run_id)
        everything = store.trials(run_id, include_warmup=True)
        assert store.count(run_id) == 5
    assert [(t.case_id, t.repeat, t.warmup) for t in measured] == [
        ("c0", 0, False),
        ("c1", 0, False),
        ("c2", 0, False),
    ]
    assert sorted((t.case_id, t.repeat) for t in everything if t.warmup) == [("c0", -1), ("c1", -2)]


def test_workers_are_capped_at_the_trials_to_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--concurrency 3000000 for 3 trials made 3 million workers (3.1 GB); now it makes 3."""
    provider = ScriptedProvider([choose_one() for _ in range(3)])
    created: list[object] = []
    real = asyncio.create_task

    def counting(coroutine: Any, **kwargs: Any) -> Any:
        created.append(coroutine)
        return real(coroutine, **kwargs)

    monkeypatch.setattr(asyncio, "create_task", counting)
    with Store(tmp_path / "r.sqlite") as store:
        run = runner(store, cases(3), LLMAlways(PLUGINS, provider), concurrency=3_000_000)
        _, written = start(run)
    assert written == 3
    assert len(created) < 10


class Instant:
    """A policy that answers without ever waiting, noting how many trials were stored by then."""

    name = POLICY

    def __init__(self, store: Store) -> None:
        self.inner = DeterministicOnly(PLUGINS)
        self.store = store
        self.run_id = ""
        self.stored: list[int] = []

    async def run(self, case: Case) -> Decision:
        self.stored.append(self.store.count(self.run_id))
        return await self.inner.run(case)


def test_the_writer_keeps_up_with_trials_that_never_wait(tmp_path: Path) -> None:
    """Trials that never waited (a simulated model at zero latency) all ran before the writer's
    first turn, every record held in memory until the end (and traced by the garbage collector:
    a third of the simulated benchmark's time); now a full batch lets the writer in."""
    trials, batch, concurrency = 60, 10, 2
    with Store(tmp_path / "r.sqlite") as store:
        policy = Instant(store)
        config = RunConfig(
            workload="numbers",
            plugins="numbers",
            policies=(POLICY,),
            provider="none",
            concurrency=concurrency,
        )
        run = Runner(
            store, cases(trials), PLUGINS, {POLICY: policy}, config, progress=False, batch=batch
        )
        policy.run_id = run.prepare(resume=False)
        assert asyncio.run(run.run(policy.run_id)) == trials
        assert store.count(policy.run_id) == trials
    # The last trial to start found all but a batch and a trial per worker stored.
    assert max(policy.stored) >= trials - batch - concurrency
