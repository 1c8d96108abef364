"""Set-up before timing: format negotiation is spent once, before the first counted trial."""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_lab.cli import run
from agent_lab.lab.results.store import Store
from tests.openai_server import Behavior, OpenAIServer, serving
from tests.server_personas import llama_cpp, ollama_without_tools, vllm


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    yield from serving()


@pytest.fixture(autouse=True)
def no_endpoint_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL"):
        monkeypatch.delenv(name, raising=False)


PERSONAS: dict[str, Callable[[dict[str, Any]], Behavior]] = {
    # Refuses json_schema with a 500, ignores tools even when a call is required.
    "llama.cpp": llama_cpp('{"label": "x"}'),
    # Refuses json_schema with a 400; declines in text unless a call is required.
    "vllm without guided decoding": vllm('{"label": "x"}', json_schema=False),
    # Refuses tools and response_format with 400s naming them.
    "ollama, a model without tools": ollama_without_tools('{"name": "none"}'),
}


def cli(*argv: str) -> tuple[int, str]:
    err = io.StringIO()
    code = run(list(argv), stdout=io.StringIO(), stderr=err)
    return code, err.getvalue()


@pytest.mark.parametrize("persona", list(PERSONAS), ids=list(PERSONAS))
def test_counted_llm_always_trials_send_only_their_own_request_at_concurrency_8(
    server: OpenAIServer, tmp_path: Path, persona: str
) -> None:
    """Every refusal and probe lands in the run's set-up; each counted trial sent one request."""
    respond = PERSONAS[persona]
    server.responder = respond
    db = tmp_path / "r.sqlite"
    code, err = cli(
        "run", "demo", "--plugins", "agent_lab.demo:plugins", "--no-progress",
        "--warmup", "0", "--limit", "24", "--concurrency", "8", "--provider", "openai",
        "--model", "m", "--base-url", server.url, "--policy", "llm-always",
        "--db", str(db), "--max-failure-rate", "1",
    )  # fmt: skip
    assert code == 0, err
    with Store(db, read_only=True) as store:
        [record] = store.runs()
        trials = store.trials(record.run_id, include_warmup=False)
    assert trials
    assert {t.llm_calls for t in trials} == {1}, [(t.case_id, t.llm_calls) for t in trials]
    # Each got an answer it could use (a server that refuses tools is asked as JSON).
    assert not [t.case_id for t in trials if t.failed_calls], persona
    setup: Any = record.environment["setup"]
    # The set-up's requests are every request the server saw beyond the trials' own.
    assert setup["requests"] == len(server.requests) - len(trials) >= 2
    assert setup["note"].startswith("auto: ")
    assert json.loads(json.dumps(setup))  # stored as JSON data


def test_a_fixed_mode_needs_no_set_up(server: OpenAIServer, tmp_path: Path) -> None:
    """--structured-output json_object: nothing is sent before the trials."""
    server.default = Behavior(message={"role": "assistant", "content": '{"label": "x"}'})
    db = tmp_path / "r.sqlite"
    code, _ = cli(
        "run", "demo", "--plugins", "agent_lab.demo:plugins", "--no-progress",
        "--warmup", "0", "--limit", "6", "--provider", "openai", "--model", "m",
        "--base-url", server.url, "--policy", "deterministic-first",
        "--structured-output", "json_object", "--db", str(db), "--max-failure-rate", "1",
    )  # fmt: skip
    assert code in (0, 1)
    with Store(db, read_only=True) as store:
        [record] = store.runs()
        trials = store.trials(record.run_id, include_warmup=False)
    setup: Any = record.environment["setup"]
    assert setup["requests"] == 0
    assert sum(t.llm_calls for t in trials) == len(server.requests)
