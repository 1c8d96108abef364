"""The scripts in examples/ run as a user runs them, and print what the docs say they print."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import REPO_ROOT


def run_example(name: str, *, timeout: int = 120, env: dict[str, str] | None = None) -> str:
    """Run examples/<name> as a user would and return what it printed."""
    completed = subprocess.run(
        [sys.executable, str(REPO_ROOT / "examples" / name)],
        capture_output=True,
        text=True,
        check=True,
        timeout=timeout,
        env=env,
    )
    return completed.stdout


def test_kernel_tour_runs_and_calls_the_llm_only_when_information_is_missing() -> None:
    """examples/kernel_tour.py: two requests need no LLM, one is invalid, one is filled."""
    out = run_example("kernel_tour.py")
    assert out.count("LLM calls: 0") == 3
    assert out.count("LLM calls: 1") == 1
    assert "invalid_arguments" in out
    assert '{"status":"ok","output":{"started":true,"seconds":300}}' in out


@pytest.mark.slow
def test_providers_tour_runs_every_offline_provider() -> None:
    """examples/providers_tour.py: simulated, local, recording and replay agree; NaN is refused."""
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    lines = run_example("providers_tour.py", timeout=300, env=env).splitlines()
    statuses = {line.split()[0]: line for line in lines if line and not line.startswith(" ")}
    assert "success" in statuses["simulated"]
    assert "fallback_failed" in lines[2]
    recorded = next(line for line in lines if line.startswith("local (recorded)"))
    replayed = next(line for line in lines if line.startswith("replay (offline)"))
    assert recorded.split(maxsplit=2)[2] == replayed.split(maxsplit=2)[2]
    assert "OPENAI_MODEL" in lines[-1]


def test_schema_resolver_tour_asks_the_llm_only_for_what_it_cannot_read() -> None:
    """examples/schema_resolver_tour.py: two requests need no LLM; a suspected value is asked."""
    out = run_example("schema_resolver_tour.py")
    assert out.count("LLM calls: 0") == 2
    assert out.count("LLM calls: 1") == 2
    assert "fallback asked for ['/number_of_drivers'], must fill []" in out
    assert "'number_of_drivers': 3" in out
