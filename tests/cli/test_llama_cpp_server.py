"""``agent-lab demo`` against llama-cpp-python's own OpenAI-compatible server, on loopback.

The server (the ``server`` extra of llama-cpp-python, installed with ``local``)
serves the default local model. It answers ``response_format: json_schema``
with HTTP 500, so ``--structured-output auto`` has to find ``json_object``;
no trial may fail because of the format.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_lab.cli import run
from agent_lab.cli.trials import PROVIDER_REASONS
from agent_lab.lab.results.store import Store
from agent_lab.log_replay.trial_status import TrialStatus
from tests.llama_server import ALIAS, NEEDS, llama_cpp_server

pytestmark = [pytest.mark.slow, NEEDS]


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with llama_cpp_server(tmp_path_factory.mktemp("llama") / "server.log") as url:
        yield url


def test_the_demo_against_llama_cpp_server_has_no_format_failures(
    llama_server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL"):
        monkeypatch.delenv(name, raising=False)
    out, err = io.StringIO(), io.StringIO()
    code = run(
        ["demo", "--provider", "openai", "--base-url", llama_server, "--model", ALIAS,
         "--limit", "12", "--concurrency", "1", "--out", str(tmp_path / "demo"), "--no-progress"],
        stdout=out,
        stderr=err,
    )  # fmt: skip
    said = err.getvalue()
    assert code == 0, said
    assert "structured output: auto: json_object" in said
    assert "json_schema: HTTP 500" in said
    with Store(tmp_path / "demo" / "results.sqlite", read_only=True) as store:
        run_record = store.run()
        trials = store.trials(run_record.run_id)
    assert run_record.environment["structured_output_used"] == "json_object"
    asked = [t for t in trials if t.llm_calls > 0]
    assert asked
    # No trial failed for the provider's reasons (the format above all); the model's
    # own mistakes are figures of the model, not failures.
    failed = [t for t in asked if t.status is TrialStatus.FALLBACK_FAILED]
    assert not [t for t in failed if str(t.reason) in PROVIDER_REASONS], [
        (t.reason, t.failure) for t in failed
    ]
    # Tool choice too: the server ignores tools, so llm-always's choice is asked as
    # JSON and every answer is a choice, not chat (this small model mostly says none).
    choices = [t.llm_raw for t in trials if t.policy == "llm-always" and t.llm_raw is not None]
    assert choices
    assert all(isinstance(json.loads(raw), dict) for raw in choices), choices
