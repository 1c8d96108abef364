"""The README's runnable examples run, and print what the README says they print."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO_ROOT


def test_kernel_tour_runs_and_calls_the_llm_only_when_information_is_missing() -> None:
    """examples/kernel_tour.py: two requests need no LLM, one is invalid, one is filled."""
    completed = subprocess.run(
        [sys.executable, str(REPO_ROOT / "examples" / "kernel_tour.py")],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    out = completed.stdout
    assert out.count("LLM calls: 0") == 3
    assert out.count("LLM calls: 1") == 1
    assert "invalid_arguments" in out
    assert '{"status":"ok","output":{"started":true,"seconds":300}}' in out
