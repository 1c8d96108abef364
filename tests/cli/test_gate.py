"""``agent-lab gate``: a weakened resolver fails it, a rerun of the same configuration passes."""

from __future__ import annotations

import io
import json
import shlex
from pathlib import Path

import pytest

from agent_lab.cli import run
from tests.conftest import REPO_ROOT

pytestmark = pytest.mark.slow

WORKFLOW = REPO_ROOT / "examples" / "github-actions" / "llm-share-gate.yml"
RUN = ("--provider", "simulated", "--limit", "160", "--warmup", "0", "--no-progress",
       "--policy", "deterministic-first", "--policy", "llm-always")  # fmt: skip


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def last_run(db: Path) -> str:
    code, shown, _ = cli("runs", str(db), "--json")
    assert code == 0
    return str(json.loads(shown)[-1]["run_id"])


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str, str]:
    """A store with a full run, a rerun of it, and a run whose timer resolver is gone."""
    db = tmp_path_factory.mktemp("gate") / "results.sqlite"
    ids: list[str] = []
    for plugins in ("agent_lab.demo:plugins", "agent_lab.demo:plugins",
                    "tests.cli.weakened_demo:plugins"):  # fmt: skip
        code, _, err = cli("run", "demo", "--plugins", plugins, *RUN, "--db", str(db))
        assert code == 0, err
        ids.append(last_run(db))
    return db, ids[0], ids[1], ids[2]


def test_a_rerun_of_the_same_configuration_passes(runs: tuple[Path, str, str, str]) -> None:
    db, baseline, rerun, _ = runs
    code, shown, err = cli("gate", str(db), "--run", rerun, "--baseline", baseline)
    assert code == 0, shown + err
    assert shown.strip().endswith("gate passed")


def test_a_weakened_resolver_fails_the_gate_on_llm_share(
    runs: tuple[Path, str, str, str],
) -> None:
    db, baseline, _, weakened = runs
    code, shown, _ = cli("gate", str(db), "--run", weakened, "--baseline", baseline, "--json")
    assert code == 1
    body = json.loads(shown)
    assert body["passed"] is False
    failed = {(c["policy"], c["metric"]) for c in body["checks"] if c["verdict"] == "fail"}
    assert ("deterministic-first", "llm_share") in failed
    # llm-always sends every request to the LLM either way: its share cannot grow.
    assert ("llm-always", "llm_share") not in failed
    share = next(c for c in body["checks"]
                 if (c["policy"], c["metric"]) == ("deterministic-first", "llm_share"))  # fmt: skip
    assert share["low"] > 0.02


def test_a_change_inside_the_noise_of_a_limit_passes(runs: tuple[Path, str, str, str]) -> None:
    db, baseline, _, weakened = runs
    # The weakened run's LLM share grows, but its interval reaches below a generous limit.
    code, shown, _ = cli(
        "gate", str(db), "--run", weakened, "--baseline", baseline, "--json",
        "--max-llm-share-increase", "0.5", "--policy", "deterministic-first",
        "--min-accuracy-change", "-1",
    )  # fmt: skip
    assert code == 0, shown
    assert {c["policy"] for c in json.loads(shown)["checks"]} == {"deterministic-first"}


def test_the_example_workflows_gate_command_runs_as_written(
    runs: tuple[Path, str, str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    db, baseline, _, weakened = runs
    line = next(
        text.strip().removeprefix("run:").strip()
        for text in WORKFLOW.read_text().splitlines()
        if "agent-lab gate" in text
    )
    argv = shlex.split(line)
    assert argv[:3] == ["uv", "run", "agent-lab"]
    values = {"results.sqlite": str(db), "$CANDIDATE": weakened, "$BASELINE": baseline}
    code, shown, _ = cli(*(values.get(word, word) for word in argv[3:]))
    assert code == 1
    assert "FAIL" in shown


def test_unknown_runs_and_policies_are_usage_errors(runs: tuple[Path, str, str, str]) -> None:
    db, baseline, rerun, _ = runs
    code, _, err = cli("gate", str(db), "--run", "nope", "--baseline", baseline)
    assert code == 2
    assert "nope" in err
    code, _, err = cli("gate", str(db), "--run", rerun, "--baseline", baseline, "--policy", "x")
    assert code == 2
    assert "share no trials of x" in err
