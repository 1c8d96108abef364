"""``benchmarks/frameworks_demo.py``: the demo through each framework's loop, against a run."""

from __future__ import annotations

import pytest

pytest.importorskip("pydantic_ai", reason="the pydantic-ai extra is not installed")
pytest.importorskip("agents", reason="the openai-agents extra is not installed")
pytest.importorskip("langchain", reason="the langchain extra is not installed")

import json
import subprocess
import sys

from agent_lab.lab.workload import load_workload
from tests.conftest import REPO_ROOT

SCRIPT = REPO_ROOT / "benchmarks" / "frameworks_demo.py"


@pytest.mark.slow
def test_each_framework_asks_the_model_exactly_as_often_as_agent_lab_run() -> None:
    """Every 8th demo case: a wrapped framework makes the run's LLM calls for the user's turn,
    case by case; invalid arguments included, which both answer with no model."""
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--every", "8", "--json"],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
        cwd=REPO_ROOT,
    )
    rows = {row["setup"]: row for row in json.loads(done.stdout)}
    cases = len(load_workload("demo").cases[::8])
    run = rows["agent-lab run, deterministic-first"]

    for name in ("Pydantic AI", "OpenAI Agents SDK", "LangChain"):
        for setup in (" + deterministic-first", " + deterministic-first + replies"):
            row = rows[name + setup]
            assert row["cases"] == cases
            assert row["answered_locally"] == run["answered_locally"]
            assert dict(row["differs_from_run"]) == {}
            assert row["llm_calls_per_request"] == pytest.approx(run["llm_calls_per_request"])
        wrapped = rows[f"{name} + deterministic-first"]
        replied = rows[f"{name} + deterministic-first + replies"]
        assert wrapped["llm_calls_per_turn"] > replied["llm_calls_per_turn"]
        assert replied["llm_calls_per_turn"] > replied["llm_calls_per_request"]
