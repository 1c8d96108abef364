"""Code that blocks: --timeout holds, and a trial's latency stays its own.

A resolver that sleeps without awaiting would hold the event loop that runs
every trial: the timeout could not cancel it, and the trials waiting behind
it would record its time as theirs. With ``--timeout``, plugin code runs in
worker threads; provider code that blocks is over time all the same, and the
run says the loop was blocked.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from agent_lab.cli import run
from agent_lab.lab.results.store import Store
from agent_lab.log_replay.trial_status import TrialStatus

PLUGINS = """
import time

from agent_lab import EventDefinition
from agent_lab.agents.plugins import PluginSet, Route


def resolve(event):
    if "slow" in event.text:
        time.sleep(2.0)  # blocks: no await
    return {"n": 1}


plugins = PluginSet(
    "blocking",
    (EventDefinition("set_n", description="Set n.", parameters={
        "type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
        resolver=resolve),),
    (Route("set_n", keywords=("set",)),),
)
"""

PROVIDER = """
import time

from agent_lab.agents.port import ProviderReply


class Blocking:
    name = "blocking"
    model = "blocking-1"

    async def complete(self, request):
        time.sleep(1.5)  # blocks the event loop inside async code
        return ProviderReply(text="None fits.")

    async def aclose(self):
        pass


provider = Blocking()
"""


def write_cases(path: Path, texts: list[str], event: str = "set_n", arguments: Any = None) -> Path:
    cases = [
        {"id": f"c{i}", "event": event, "text": text,
         "expected": {"status": "success", "arguments": arguments or {"n": 1}}}
        for i, text in enumerate(texts)
    ]  # fmt: skip
    path.write_text("".join(json.dumps(case) + "\n" for case in cases))
    return path


def trials(db: Path) -> dict[str, object]:
    with Store(db, read_only=True) as store:
        [record] = store.runs()
        return {t.case_id: t for t in store.trials(record.run_id, include_warmup=False)}


@pytest.mark.slow
def test_a_blocking_resolver_times_out_and_holds_no_other_trial(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "blocking_plugins.py").write_text(PLUGINS)
    monkeypatch.syspath_prepend(str(tmp_path))  # pyright: ignore[reportUnknownMemberType]
    workload = write_cases(tmp_path / "w.jsonl", ["set n slow"] + ["set n"] * 12)
    db = tmp_path / "r.sqlite"
    err = io.StringIO()
    run(
        [
            "run", str(workload), "--plugins", "blocking_plugins:plugins", "--db", str(db),
            "--policy", "deterministic-only", "--timeout", "0.5",
            "--concurrency", "4", "--no-progress", "--warmup", "0", "--seed", "3",
        ],
        stdout=io.StringIO(),
        stderr=err,
    )  # fmt: skip
    stored = trials(db)
    slow = stored.pop("c0")
    assert slow.status is TrialStatus.ERROR, slow  # type: ignore[attr-defined]
    assert slow.reason == "timeout"  # type: ignore[attr-defined]
    assert slow.latency_ns < 1.5e9  # type: ignore[attr-defined]
    assert all(t.status is TrialStatus.SUCCESS for t in stored.values())  # type: ignore[attr-defined]
    # Each fast trial's latency is its own, not the blocked one's two seconds.
    assert max(t.latency_ns for t in stored.values()) < 0.5e9  # type: ignore[attr-defined]
    assert "event loop was blocked" not in err.getvalue()


@pytest.mark.slow
def test_a_provider_that_blocks_the_loop_is_over_time_and_the_run_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "blocking_provider.py").write_text(PROVIDER)
    monkeypatch.syspath_prepend(str(tmp_path))  # pyright: ignore[reportUnknownMemberType]
    workload = write_cases(
        tmp_path / "w.jsonl",
        ["set a timer for a minute"] * 2,
        event="set_timer",
        arguments={"duration_seconds": 60},
    )
    db = tmp_path / "r.sqlite"
    err = io.StringIO()
    run(
        [
            "run", str(workload), "--plugins", "agent_lab.demo:plugins", "--db", str(db),
            "--provider", "blocking_provider:provider", "--policy", "llm-always",
            "--timeout", "0.5", "--no-progress", "--warmup", "0",
        ],
        stdout=io.StringIO(),
        stderr=err,
    )  # fmt: skip
    stored = trials(db)
    assert {t.reason for t in stored.values()} == {"timeout"}  # type: ignore[attr-defined]
    assert "the event loop was blocked 2 time(s)" in err.getvalue()
    with Store(db, read_only=True) as store:
        [record] = store.runs()
    stalls: dict[str, float] = record.environment["loop_stalls"]  # type: ignore[assignment]
    assert stalls["count"] == 2
    assert stalls["longest_s"] >= 1.0
