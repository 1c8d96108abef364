"""A workload's truth is checked where it enters: expected arguments its own schema rejects."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from agent_lab.cli import run

CASES: list[dict[str, Any]] = [
    {"id": "ok", "event": "set_timer", "text": "set a timer for 10 minutes",
     "expected": {"status": "success", "arguments": {"duration_seconds": 600}}},
    {"id": "negative", "event": "set_timer", "text": "set a timer for minus 10 seconds",
     "expected": {"status": "success", "arguments": {"duration_seconds": -10}}},
    {"id": "untyped", "event": "set_timer", "text": "set a timer",
     "expected": {"status": "missing_information", "arguments": {"label": 5}}},
    {"id": "asks", "event": "set_timer", "text": "set a timer",
     "expected": {"status": "missing_information", "arguments": {}}},
]  # fmt: skip


def cli(*argv: str) -> tuple[int, str]:
    err = io.StringIO()
    code = run(list(argv), stdout=io.StringIO(), stderr=err)
    return code, err.getvalue()


def workload(tmp_path: Path) -> Path:
    path = tmp_path / "cases.jsonl"
    path.write_text("".join(json.dumps(case) + "\n" for case in CASES))
    return path


def test_a_truth_its_schema_rejects_is_an_error_naming_the_file_and_line(tmp_path: Path) -> None:
    path = workload(tmp_path)
    code, err = cli(
        "run", str(path), "--plugins", "agent_lab.demo:plugins", "--provider", "simulated",
        "--db", str(tmp_path / "r.sqlite"), "--no-progress",
    )  # fmt: skip
    assert code == 2
    assert f"{path}:2: case 'negative'" in err
    assert "/duration_seconds" in err
    assert "(and 1 more; --skip-bad-lines skips them)" in err
    assert not (tmp_path / "r.sqlite").exists()


def test_with_skip_bad_lines_they_are_counted_skips_and_the_rest_runs(tmp_path: Path) -> None:
    path = workload(tmp_path)
    out = io.StringIO()
    err = io.StringIO()
    code = run(
        [
            "run", str(path), "--plugins", "agent_lab.demo:plugins", "--provider", "simulated",
            "--simulated-latency", "1,2", "--db", str(tmp_path / "r.sqlite"), "--no-progress",
            "--skip-bad-lines", "--warmup", "0", "--policy", "deterministic-only",
        ],
        stdout=out,
        stderr=err,
    )  # fmt: skip
    assert code == 0, err.getvalue()
    skipped = [line for line in err.getvalue().splitlines() if line.startswith("skipped ")]
    assert len(skipped) == 2
    assert ":3: case 'untyped'" in skipped[1]
    printed = io.StringIO()
    run(["report", str(tmp_path / "r.sqlite"), "--json"], stdout=printed, stderr=io.StringIO())
    [figures] = json.loads(printed.getvalue())["policies"]
    assert figures["trials"] == 2
