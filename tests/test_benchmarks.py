"""The published experiment's scripts recompute their tables from what a run left, with no run."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT, TEST_DATA

EXPERIMENTS = REPO_ROOT / "benchmarks" / "experiments.py"
LEAVE_OUT = REPO_ROOT / "benchmarks" / "leave_services_out.py"
# A small run: one BFCL workload, one profile (and the oracle), no local model.
SMALL = ("--only", "bfcl-multiple", "--profiles", "ideal", "--local-sample", "0")


def script(*argv: str | Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run a benchmark script as a user would, with ``agent-lab`` on the PATH."""
    bin_dir = str(Path(sys.executable).parent)
    env = {**os.environ, "PATH": bin_dir + os.pathsep + os.environ.get("PATH", "")}
    return subprocess.run(
        [sys.executable, *map(str, argv)],
        capture_output=True,
        text=True,
        check=check,
        timeout=900,
        env=env,
    )


def digests(folder: Path, pattern: str) -> dict[str, str]:
    return {
        path.name: hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.glob(pattern))
    }


def test_leave_services_out_reads_its_own_imports_with_no_corpus(tmp_path: Path) -> None:
    """``--imported``: the same tables and figures as the run that imported, corpus gone."""
    corpora = tmp_path / "corpora"
    dev = sorted((TEST_DATA / "sgd" / "dev").glob("dialogues_*.json"))
    half = len(dev) // 2
    for split, files in (("train", dev[:half]), ("dev", dev[half:])):
        folder = corpora / "sgd" / split
        folder.mkdir(parents=True)
        shutil.copy(TEST_DATA / "sgd" / "dev" / "schema.json", folder)
        for file in files:
            shutil.copy(file, folder)
    out = tmp_path / "folds"
    script(LEAVE_OUT, corpora, "--out", out, "--folds", "2")
    tables = (out / "leave-services-out.md").read_text(encoding="utf-8")
    figures = (out / "leave-services-out.json").read_text(encoding="utf-8")
    imports = digests(out, "sgd-*/*")
    shutil.rmtree(corpora)
    (out / "leave-services-out.md").unlink()

    script(LEAVE_OUT, "--imported", "--out", out, "--folds", "2")

    assert (out / "leave-services-out.md").read_text(encoding="utf-8") == tables
    assert (out / "leave-services-out.json").read_text(encoding="utf-8") == figures
    assert digests(out, "sgd-*/*") == imports
    assert "| pooled |" in tables


def test_leave_services_out_imported_needs_the_imports(tmp_path: Path) -> None:
    """``--imported`` where nothing was imported: exit 2, naming the folder; nothing written."""
    done = script(LEAVE_OUT, "--imported", "--out", tmp_path / "folds", check=False)
    assert done.returncode == 2
    assert "--imported: " in done.stderr
    assert "sgd-train holds no imported split" in done.stderr
    assert not (tmp_path / "folds").exists()


def test_report_only_needs_the_stores_and_no_corpus(tmp_path: Path) -> None:
    """A store the options name is missing, or a corpus is given: exit 2, and nothing written."""
    out = tmp_path / "experiments"
    (out / "bfcl").mkdir(parents=True)
    done = script(EXPERIMENTS, "--report-only", "--out", out, *SMALL, check=False)
    assert done.returncode == 2
    assert f"{out / 'bfcl-multiple-ideal.sqlite'} is missing" in done.stderr
    given = script(EXPERIMENTS, tmp_path, "--report-only", "--out", out, *SMALL, check=False)
    assert given.returncode == 2
    assert "give no CORPORA_DIR" in given.stderr
    assert sorted(p.name for p in out.iterdir()) == ["bfcl"]


@pytest.mark.slow
def test_report_only_rebuilds_the_summary_from_the_stores_alone(tmp_path: Path) -> None:
    """``--report-only`` after a run: the same summary, with no trial, no import, no corpus."""
    corpora = tmp_path / "corpora"
    shutil.copytree(TEST_DATA / "bfcl", corpora / "bfcl")
    out = tmp_path / "experiments"
    options = (*SMALL, "--sweep-limit", "40")
    script(EXPERIMENTS, corpora, "--out", out, "--concurrency", "64", *options)
    summary = (out / "summary.md").read_text(encoding="utf-8")
    stores = digests(out, "*.sqlite")
    imports = digests(out, "bfcl/*")
    logged = (out / "commands.log").read_text(encoding="utf-8")
    shutil.rmtree(corpora)
    (out / "summary.md").unlink()

    done = script(EXPERIMENTS, "--report-only", "--out", out, *options)

    assert (out / "summary.md").read_text(encoding="utf-8") == summary
    assert digests(out, "*.sqlite") == stores  # read, never written: no trial was run
    assert digests(out, "bfcl/*") == imports
    commands = [
        line.split()[2]
        for line in (out / "commands.log").read_text(encoding="utf-8")[len(logged) :].splitlines()
        if line.startswith("$ agent-lab ")
    ]
    assert set(commands) == {"routing", "precision", "report"}
    assert "# re-read the sweep in" in done.stdout
    assert "| bfcl-multiple | simulated, ideal | deterministic-first | 40 |" in summary
    assert "| bfcl-multiple | 0.2 |" in summary


def test_the_frameworks_table_has_a_row_per_setup_and_the_wrapper_saves_requests() -> None:
    """frameworks_demo.py on a few demo cases: every row, and fewer requests with each wrapper."""
    for module in ("pydantic_ai", "agents", "langchain"):
        pytest.importorskip(module, reason=f"{module} (an extra) is not installed")
    done = script(REPO_ROOT / "benchmarks" / "frameworks_demo.py", "--limit", "24", "--json")
    rows = {row["setup"]: row for row in json.loads(done.stdout)}
    run = rows["agent-lab run, deterministic-first"]
    assert rows["agent-lab run, llm-always"]["llm_calls_per_request"] == 1.0
    frameworks = ("Pydantic AI", "OpenAI Agents SDK", "LangChain")
    assert list(rows) == [
        "agent-lab run, deterministic-first",
        "agent-lab run, llm-always",
        *(
            f"{name}{setup}"
            for name in frameworks
            for setup in (
                ", model alone",
                " + deterministic-first",
                " + deterministic-first + replies",
            )
        ),
    ]
    for name in frameworks:
        alone = rows[f"{name}, model alone"]
        wrapped = rows[f"{name} + deterministic-first"]
        replied = rows[f"{name} + deterministic-first + replies"]
        assert alone["llm_calls_per_request"] == 1.0
        assert alone["llm_calls_per_turn"] > alone["llm_calls_per_request"]
        assert wrapped["llm_calls_per_request"] < alone["llm_calls_per_request"]
        assert replied["llm_calls_per_turn"] < wrapped["llm_calls_per_turn"]
        assert wrapped["answered_locally"] == run["answered_locally"]


RULES_LEAVE_OUT = REPO_ROOT / "benchmarks" / "learn_leave_services_out.py"
DEMO_HALVES = REPO_ROOT / "benchmarks" / "learn_demo_halves.py"


def test_rules_leave_services_out_measures_each_kind_on_domains_never_seen(
    tmp_path: Path,
) -> None:
    """SGD rendered as logs, two folds of domains: every kind has its row, each call once."""
    logs = tmp_path / "logs.jsonl"
    script("-m", "tests.logs.sgd_logs", TEST_DATA / "sgd" / "dev", "--format", "pairs",
           "--out", logs)  # fmt: skip
    done = script(RULES_LEAVE_OUT, logs, "--folds", "2", "--min-precision", "0.5",
                  "--min-support", "3", "--json")  # fmt: skip
    result = json.loads(done.stdout)
    folds = result["folds"]
    assert len(folds) == 2
    assert not set(folds[0]["domains"]) & set(folds[1]["domains"])
    calls = result["settings"]["calls"]
    assert sum(f["held_out_calls"] for f in folds) == calls
    assert set(result["rules"]) == {"alias", "constant", "context", "format", "route"}
    assert result["resolver"]["enum"]["fired"] > 0
    table = script(RULES_LEAVE_OUT, logs, "--folds", "2").stdout
    assert "| `alias` |" in table
    assert "resolver alone" in table


def test_demo_halves_learns_on_one_half_and_runs_the_other(tmp_path: Path) -> None:
    done = script(DEMO_HALVES, "--out", tmp_path, "--json")
    result = json.loads(done.stdout)
    assert result["half_a_cases"] + result["half_b_cases"] == 401
    runs = result["runs"]
    assert set(runs) == {"without rules", "with rules"}
    assert all(run["cases"] == result["half_b_cases"] for run in runs.values())
    assert (tmp_path / "rules.json").is_file()
