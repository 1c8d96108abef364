"""Machine output stays machine-readable: every --json parses, whatever the terminal.

Progress bars are for a person watching: they go to standard error, and only
when it is a terminal. Before, the runner's bar went to standard output when
that was not a terminal, so ``agent-lab sweep --json > f`` wrote the bars
into ``f`` ahead of the JSON.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent_lab.cli import run
from tests.cli.test_help_text import COMMANDS
from tests.cli.test_shadow import TALKS, pairs_line

SIMULATED = ("--provider", "simulated", "--simulated-latency", "1,2", "--no-progress")


def cli(*argv: str) -> str:
    out, err = io.StringIO(), io.StringIO()
    code = run(list(argv), stdout=out, stderr=err)
    assert code == 0, err.getvalue()
    return out.getvalue()


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    db = tmp_path_factory.mktemp("json") / "r.sqlite"
    for _ in range(2):
        cli("run", "demo", "--plugins", "agent_lab.demo:plugins", "--limit", "12",
            "--warmup", "0", "--db", str(db), *SIMULATED)  # fmt: skip
    runs = json.loads(cli("runs", str(db), "--json"))
    return db, runs[0]["run_id"], runs[1]["run_id"]


def json_commands(
    db: Path, first: str, second: str, sweep_db: Path, log: Path
) -> dict[str, list[str]]:
    demo = ["demo", "--plugins", "agent_lab.demo:plugins"]
    return {
        "report": ["report", str(db), "--json"],
        "compare": ["compare", str(db), first, second, "--json"],
        "runs": ["runs", str(db), "--json"],
        "gate": ["gate", str(db), "--run", second, "--baseline", first, "--json"],
        "providers": ["providers", "--json"],
        "precision": ["precision", *demo, "--json"],
        "routing": ["routing", *demo, "--json"],
        "sweep": ["sweep", *demo, "--vary", "wrong_value=0,0.2", "--limit", "8",
                  "--warmup", "0", "--db", str(sweep_db), "--json", *SIMULATED],
        "shadow": ["shadow", str(log), "--json"],
        "learn": ["learn", str(log), "--out", str(log.with_name("rules.json")), "--json"],
    }  # fmt: skip


def test_every_json_output_parses(two_runs: tuple[Path, str, str], tmp_path: Path) -> None:
    """Each command with --json prints JSON and nothing else on standard output."""
    db, first, second = two_runs
    log = tmp_path / "calls.jsonl"
    log.write_text("".join(pairs_line(i, *talk) + "\n" for i, talk in enumerate(TALKS)))
    commands = json_commands(db, first, second, tmp_path / "sweep.sqlite", log)
    with_json = {
        name
        for name, parser in COMMANDS.items()
        if any("--json" in action.option_strings for action in parser._actions)
    }
    # A new command with --json must be added here.
    assert with_json == set(commands)
    for name, argv in commands.items():
        printed = cli(*argv)
        try:
            json.loads(printed)
        except json.JSONDecodeError as err:
            pytest.fail(f"{name} --json printed more than JSON ({err}): {printed[:200]!r}")


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")
def test_sweep_json_into_a_file_holds_only_json_while_a_terminal_watches(
    tmp_path: Path,
) -> None:
    """The user's case: stderr a terminal, stdout a file. The bars go to the terminal only."""
    controller, terminal = os.openpty()
    target = tmp_path / "sweep.json"
    argv = [
        sys.executable, "-m", "agent_lab.cli", "sweep", "demo", "--plugins",
        "agent_lab.demo:plugins", "--vary", "wrong_value=0,0.2", "--limit", "8", "--warmup",
        "0", "--db", str(tmp_path / "s.sqlite"), "--json", "--provider", "simulated",
        "--simulated-latency", "1,2",
    ]  # fmt: skip
    try:
        with target.open("w") as out:
            done = subprocess.run(argv, stdout=out, stderr=terminal, timeout=120, check=False)
        os.set_blocking(controller, False)
        try:
            shown = os.read(controller, 1 << 20).decode("utf-8", "replace")
        except BlockingIOError:
            shown = ""
    finally:
        os.close(terminal)
        os.close(controller)
    assert done.returncode == 0, shown
    json.loads(target.read_text())
    assert "trials" in shown  # the bar was drawn, on the terminal


@pytest.mark.slow
def test_with_no_terminal_anywhere_nothing_but_json_is_printed(tmp_path: Path) -> None:
    """stdout and stderr both files: no progress anywhere, and stdout parses."""
    argv = [
        sys.executable, "-m", "agent_lab.cli", "sweep", "demo", "--plugins",
        "agent_lab.demo:plugins", "--vary", "wrong_value=0,0.2", "--limit", "8", "--warmup",
        "0", "--db", str(tmp_path / "s.sqlite"), "--json", "--provider", "simulated",
        "--simulated-latency", "1,2",
    ]  # fmt: skip
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    json.loads(done.stdout)
    assert "trials" not in done.stderr  # no bar where nobody watches
