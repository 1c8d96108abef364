"""``benchmarks/frameworks_demo_fw.py``: the demo through each framework's loop, against a run."""

from __future__ import annotations

import pytest

pytest.importorskip("agents", reason="the openai-agents extra is not installed")
pytest.importorskip("langchain", reason="the langchain extra is not installed")

import json
import subprocess
import sys

from agent_lab.lab.workload import load_workload
from tests.conftest import REPO_ROOT

SCRIPT = REPO_ROOT / "benchmarks" / "frameworks_demo_fw.py"


@pytest.mark.slow
def test_each_framework_asks_the_model_as_often_as_agent_lab_run_but_on_invalid_arguments() -> None:
    """Every 8th demo case: a wrapped framework makes the run's LLM calls for the user's turn,
    except where the run answers invalid arguments in plain words (a framework needs its model
    for that reply)."""
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--every", "8", "--json"],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
        cwd=REPO_ROOT,
    )
    rows = json.loads(done.stdout)
    cases = load_workload("demo").cases[::8]

    assert [row["framework"] for row in rows] == ["openai-agents", "langchain"]
    for row in rows:
        assert row["requests"] == len(cases)
        assert row["answered_locally"] > len(cases) // 2
        assert row["differs"]
        assert {d["tags"][0] for d in row["differs"]} == {"invalid"}
        assert all((d["run"], d["framework"]) == (0, 1) for d in row["differs"])
        assert row["loop_calls_per_request"] > row["decision_calls_per_request"]
