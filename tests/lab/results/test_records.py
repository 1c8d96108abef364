"""The typed rows and their vocabularies: stored as the same strings, read back as enums."""

from __future__ import annotations

from pathlib import Path

from agent_lab.agents.decision import Routing
from agent_lab.kernel.models import Status
from agent_lab.lab.results.records import LabReason, RunState
from agent_lab.lab.results.store import Store
from agent_lab.log_replay.trial_status import TrialStatus
from tests.lab.factories import new_run, trial


def test_every_kernel_status_is_a_trial_status_of_the_same_name_and_value() -> None:
    """A trial ends in a kernel status or in the lab's own ``error``, nothing else."""
    assert {s.name: s.value for s in TrialStatus} == {
        **{s.name: s.value for s in Status},
        "ERROR": "error",
    }
    assert all(TrialStatus.of(status) == status for status in Status)


def test_a_trial_reads_back_with_its_vocabularies_as_enums(tmp_path: Path) -> None:
    """L10: the columns hold the plain strings; ``Store.trials`` hands back typed rows."""
    failed = trial(
        "a",
        status=TrialStatus.ERROR,
        reason=LabReason.TIMEOUT,
        expected_status=Status.MISSING_INFORMATION,
        routed_by=Routing.LLM,
        arguments=None,
        cost=None,
        error="trial took longer than 1 s",
    )
    with Store(tmp_path / "r.sqlite") as store:
        new_run(store)
        store.add_trials("r1", [failed])
        (row,) = store.trials("r1")
        stored = store._db.execute(  # pyright: ignore[reportPrivateUsage]
            "SELECT status, reason, expected_status, routed_by FROM trials"
        ).fetchone()
        assert store.run("r1").state is RunState.RUNNING
        store.finish_run("r1")
        assert store.run("r1").state is RunState.FINISHED
        assert store.unfinished_run() is None
    assert row == failed
    assert stored == ("error", "timeout", "missing_information", "llm")
    assert type(row.status) is TrialStatus
    assert type(row.expected_status) is Status
    assert type(row.routed_by) is Routing
