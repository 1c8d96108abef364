"""Failures are failures: a server that gets worse never makes any policy's accuracy rise.

Every policy runs the same demo cases through the CLI against a careless but
healthy model (it calls the first tool it is offered, with no arguments, and
fills nothing), the same model behind a server that fails half its requests,
and a server that is down. A request that got no reply must never be scored
as a right answer: not a routing request (an out-of-domain case would count
it as a decline), not a fallback, not a follow-up.
"""

from __future__ import annotations

import io
import json
import random
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest

from agent_lab.cli import run
from agent_lab.lab.results.store import Store
from agent_lab.log_replay.trial_status import TrialStatus
from tests.openai_server import Behavior, OpenAIServer, content, serving, status, tool_calls

POLICIES = ("deterministic-first", "llm-always", "deterministic-only")


@pytest.fixture(autouse=True)
def no_endpoint_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    yield from serving()


def careless(body: dict[str, Any]) -> Behavior:
    """A model that always acts: the first offered tool, no arguments; an empty object else."""
    tools = body.get("tools")
    if tools:
        return tool_calls((str(tools[0]["function"]["name"]), "{}"))
    return content("{}")


def failing_half(seed: int) -> Any:
    draws = random.Random(seed)

    def respond(body: dict[str, Any]) -> Behavior:
        if draws.random() < 0.5:
            return status(503, json.dumps({"error": {"message": "overloaded", "type": "server"}}))
        return careless(body)

    return respond


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def run_against(url: str, db: Path) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    argv = [
        "run", "demo", "--plugins", "agent_lab.demo:plugins", "--no-progress", "--warmup", "0",
        "--limit", "40", "--provider", "openai", "--model", "m", "--base-url", url,
        "--concurrency", "4", "--db", str(db),
    ]  # fmt: skip
    for policy in POLICIES:
        argv += ["--policy", policy]
    code = run(argv, stdout=out, stderr=err)
    return code, err.getvalue()


def accuracy(db: Path) -> dict[str, float]:
    with Store(db, read_only=True) as store:
        [record] = store.runs()
        trials = store.trials(record.run_id, include_warmup=False)
    return {
        policy: sum(t.correct for t in trials if t.policy == policy)
        / sum(1 for t in trials if t.policy == policy)
        for policy in POLICIES
    }


@pytest.mark.slow
def test_no_policy_gains_accuracy_as_the_server_gets_worse(
    server: OpenAIServer, tmp_path: Path
) -> None:
    """A failed request is a failure: healthy >= failing half the time >= down, per policy."""
    server.responder = careless
    healthy_code, healthy_err = run_against(server.url, tmp_path / "healthy.sqlite")
    assert healthy_code == 0, healthy_err
    server.responder = failing_half(seed=1)
    run_against(server.url, tmp_path / "half.sqlite")
    down_code, down_err = run_against(
        f"http://127.0.0.1:{closed_port()}/v1", tmp_path / "down.sqlite"
    )

    healthy = accuracy(tmp_path / "healthy.sqlite")
    half = accuracy(tmp_path / "half.sqlite")
    down = accuracy(tmp_path / "down.sqlite")
    for policy in POLICIES:
        assert healthy[policy] >= half[policy] >= down[policy], (policy, healthy, half, down)
    # Plain code alone is untouched by the server; the others lose what needed it.
    assert healthy["deterministic-only"] == down["deterministic-only"]
    assert down["llm-always"] == 0.0
    assert down["deterministic-first"] < healthy["deterministic-first"]
    # And the run says so: the failures count toward --max-failure-rate.
    assert down_code == 1
    assert "connection_error" in down_err


@pytest.mark.slow
def test_every_failed_request_is_stored_as_a_failure_with_its_attempts(
    server: OpenAIServer, tmp_path: Path
) -> None:
    """Routing, fallback or tool choice: the reason, the message and the ledger's attempts."""
    db = tmp_path / "down.sqlite"
    run_against(f"http://127.0.0.1:{closed_port()}/v1", db)
    with Store(db, read_only=True) as store:
        [record] = store.runs()
        trials = store.trials(record.run_id, include_warmup=False)
    asked = [t for t in trials if t.llm_calls > 0]
    assert asked
    routing_failed = 0
    for trial in asked:
        assert trial.status is TrialStatus.FALLBACK_FAILED, (trial.case_id, trial.status)
        assert trial.reason == "connection_error"
        assert not trial.correct
        assert trial.failure
        assert trial.failed_calls == trial.llm_calls
        ledger = cast("dict[str, Any]", trial.ledger)
        attempts = [*ledger["route"]["attempts"], *ledger["attempts"]]
        assert sum(a["usage"]["requests"] for a in attempts) == trial.llm_calls
        routing_failed += bool(ledger["route"]["attempts"])
    # The out-of-domain cases reached no event: their routing request is what failed.
    assert routing_failed > 0


@pytest.mark.slow
def test_the_worst_case_is_the_providers_attempts_per_request_and_one_request_per_message(
    server: OpenAIServer, tmp_path: Path
) -> None:
    """One retry policy per layer: the provider retries a request (3 attempts); nothing else.

    Deterministic-first sends at most one request per message (the routing
    choice, whose arguments then fill the gaps, or the fallback), as
    LLM-always does; the kernel does not multiply a provider's failure, and
    the runner tries a trial again only when it timed out or its policy
    raised. So a server that always fails sees 3 requests per trial here.
    """
    server.responder = lambda body: status(503, json.dumps({"error": {"message": "down"}}))
    db = tmp_path / "r.sqlite"
    out, err = io.StringIO(), io.StringIO()
    argv = [
        "run", "demo", "--plugins", "agent_lab.demo:plugins", "--no-progress", "--warmup", "0",
        "--limit", "12", "--provider", "openai", "--model", "m", "--base-url", server.url,
        "--structured-output", "json_object", "--concurrency", "4", "--db", str(db),
    ]  # fmt: skip
    run(argv, stdout=out, stderr=err)
    with Store(db, read_only=True) as store:
        [record] = store.runs()
        trials = store.trials(record.run_id, include_warmup=False)
    asked = [t for t in trials if t.llm_calls]
    assert asked
    assert {t.llm_calls for t in asked} == {3}
    assert len(server.requests) == sum(t.llm_calls for t in trials)


@pytest.mark.slow
def test_a_trial_the_runner_tries_twice_sends_at_most_twice_the_providers_attempts(
    server: OpenAIServer, tmp_path: Path
) -> None:
    """The worst case docs/agents.md states: 6 requests for a trial, never more.

    Each 503 comes after 1.2 s and the provider backs off at most 0.5 s, then
    1 s: its second attempt always starts within the trial's 3 s (by 1.7 s),
    its three attempts never end within it (3.6 s at least). So every try
    times out having sent 2 or 3 requests, the runner tries once more, and
    each trial sent 4 to 6, all counted (a call cut short was counted as one
    request). A layer that retried on top of another would send more.
    """
    down = json.dumps({"error": {"message": "down"}})
    server.default = Behavior(kind="status", status=503, body=down, delay=1.2)
    db = tmp_path / "r.sqlite"
    out, err = io.StringIO(), io.StringIO()
    argv = [
        "run", "demo", "--plugins", "agent_lab.demo:plugins", "--no-progress", "--warmup", "0",
        "--limit", "4", "--policy", "llm-always", "--provider", "openai", "--model", "m",
        "--base-url", server.url, "--structured-output", "json_object", "--timeout", "3",
        "--concurrency", "4", "--db", str(db),
    ]  # fmt: skip
    assert run(argv, stdout=out, stderr=err) == 1, err.getvalue()
    with Store(db, read_only=True) as store:
        [record] = store.runs()
        trials = store.trials(record.run_id, include_warmup=False)
    assert trials
    for trial in trials:
        assert (trial.status, trial.reason) == (TrialStatus.ERROR, "timeout")
        assert 4 <= trial.llm_calls <= 6
    # An attempt is counted as it goes out: one cut in the instant before the server read it
    # is counted and not seen; none the server saw goes uncounted.
    assert len(server.requests) <= sum(t.llm_calls for t in trials)
