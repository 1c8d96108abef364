"""The agent-lab command, end to end: commands, exit codes, one-line errors, kill and resume."""

from __future__ import annotations

import io
import json
import os
import shlex
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agent_lab.cli import run
from agent_lab.lab.report.charts import CHARTS
from tests.conftest import corpus

FAST = ["--provider", "simulated", "--simulated-latency", "2,4", "--no-progress", "--warmup", "0"]


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_help_shows_examples_and_exit_codes() -> None:
    """--help lists examples and the exit codes."""
    code, shown, _ = cli("--help")
    assert code == 0
    assert "agent-lab demo" in shown
    assert "exit codes: 0 ok, 1 a failed run, 2 bad usage" in shown


def test_providers_and_events() -> None:
    """`providers` and `events` describe what is there."""
    code, out, _ = cli("providers")
    assert code == 0
    lines = {line.split()[0]: line for line in out.splitlines()}
    assert set(lines) == {"local", "openai", "simulated", "oracle", "replay"}
    assert "answers only from what it is sent" in lines["simulated"]
    assert "reads the answer key: a ceiling, not a model" in lines["oracle"]
    code, out, _ = cli("events", "--plugins", "agent_lab.demo:plugins")
    assert code == 0
    assert "set_timer: Start a countdown timer." in out
    # Each schema is printed as JSON, nested objects included.
    first_schema = out.split("\n", 1)[1].split("\n}\n", 1)[0] + "\n}"
    assert isinstance(json.loads(first_schema)["properties"], dict)


def test_a_closed_pipe_is_not_an_error(tmp_path: Path) -> None:
    """`agent-lab events ... | head -1` ends quietly, even with far more than a pipe holds."""
    out = tmp_path / "bfcl"
    assert cli("import", "bfcl", str(corpus("bfcl")), "--out", str(out))[0] == 0
    reader = subprocess.run(
        f"{shlex.quote(sys.executable)} -m agent_lab.cli events --plugins {shlex.quote(str(out))}"
        " | head -1",
        shell=True,
        capture_output=True,
        text=True,
        check=False,
    )
    assert reader.stdout.count("\n") == 1
    assert "Traceback" not in reader.stderr
    assert "BrokenPipe" not in reader.stderr


def test_run_report_compare_export(tmp_path: Path) -> None:
    """A full cycle on the simulated model: run, report (HTML), compare, export."""
    db = str(tmp_path / "r.sqlite")
    code, out, err = cli(
        "run", "demo", "--plugins", "agent_lab.demo:plugins", "--limit", "30", "--db", db, *FAST
    )
    assert code == 0, err
    assert "saved in" in out
    html = tmp_path / "report.html"
    code, out, _ = cli("report", db, "--html", str(html))
    assert code == 0
    assert "SIMULATED" in out
    assert html.read_text().count('class="chart"') == len(CHARTS)
    code, out, _ = cli("compare", db, "--baseline", "llm-always")
    assert code == 0
    assert "deterministic-first" in out
    code, out, _ = cli("export", db, "--format", "csv", "--out", str(tmp_path / "x"))
    assert code == 0
    assert (tmp_path / "x" / "trials.csv").exists()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["run", "demo", "--plugins", "no_such_module:plugins"], "cannot import no_such_module"),
        (["run", "demo", "--plugins", "agent_lab.demo"], "expected MODULE:ATTRIBUTE"),
        (["run", "missing.jsonl", "--plugins", "agent_lab.demo:plugins"], "no workload file"),
        (
            ["run", "demo", "--plugins", "agent_lab.demo:plugins", "--provider", "replay"],
            "needs --cassette",
        ),
        (["report", "nowhere.sqlite"], "no database"),
        (
            ["run", "demo", "--plugins", "agent_lab.demo:plugins", "--policy", "magic"],
            "invalid choice",
        ),
    ],
    ids=[
        "plugin-import",
        "plugin-reference",
        "workload-missing",
        "replay-no-cassette",
        "no-db",
        "bad-policy",
    ],
)
def test_bad_usage_is_one_line_and_exit_2(argv: list[str], message: str) -> None:
    """Bad input: a clear one-line error, exit code 2."""
    code, _, err = cli(*argv)
    assert code == 2
    assert message in err


def test_bad_workload_lines_and_unknown_events(tmp_path: Path) -> None:
    """A bad line names its line; an unknown event is refused; --skip-bad-lines reports, goes on."""
    good = {
        "id": "a",
        "event": "set_timer",
        "text": "set a timer for 2 minutes",
        "expected": {"status": "success", "arguments": {"duration_seconds": 120}},
    }
    workload = tmp_path / "w.jsonl"
    workload.write_text(json.dumps(good) + "\n{broken\n")
    db = str(tmp_path / "r.sqlite")
    code, _, err = cli(
        "run", str(workload), "--plugins", "agent_lab.demo:plugins", "--db", db, *FAST
    )
    assert (code, "w.jsonl:2:" in err) == (2, True)
    code, _, err = cli(
        "run",
        str(workload),
        "--plugins",
        "agent_lab.demo:plugins",
        "--db",
        db,
        "--skip-bad-lines",
        *FAST,
    )
    assert code == 0
    assert "skipped" in err
    workload.write_text(json.dumps(good | {"event": "teleport"}) + "\n")
    code, _, err = cli(
        "run", str(workload), "--plugins", "agent_lab.demo:plugins", "--db", db, *FAST
    )
    assert code == 2
    assert "unknown event 'teleport'" in err


def test_foreign_database_and_empty_run_are_refused_untouched(tmp_path: Path) -> None:
    """A database that is not ours, or a run with nothing to report: exit 2, nothing changed."""
    foreign = tmp_path / "f.sqlite"
    connection = sqlite3.connect(foreign)
    connection.execute("CREATE TABLE t (x)")
    connection.commit()
    connection.close()
    before = foreign.read_bytes()
    code, _, err = cli("report", str(foreign))
    assert code == 2
    assert "not an agent-lab results database" in err
    code, _, err = cli(
        "run", "demo", "--plugins", "agent_lab.demo:plugins", "--db", str(foreign), *FAST
    )
    assert code == 2
    assert foreign.read_bytes() == before
    from agent_lab.lab.results.store import Store

    empty = tmp_path / "empty.sqlite"
    with Store(empty) as store:
        store.start_run(
            "r0",
            config={},
            config_hash="h",
            environment={},
            workload="w",
            plugins="p",
            provider="simulated",
            model=None,
            simulated=True,
        )
    code, _, err = cli("report", str(empty))
    assert (code, "no trials" in err) == (2, True)


def test_resume_refuses_a_different_configuration(tmp_path: Path) -> None:
    """--resume with other options than the unfinished run's: exit 2 with the reason."""
    from agent_lab.lab.results.store import Store

    db = tmp_path / "r.sqlite"
    with Store(db) as store:
        store.start_run(
            "r0",
            config={},
            config_hash="other",
            environment={},
            workload="demo",
            plugins="p",
            provider="simulated",
            model=None,
            simulated=True,
        )
    code, _, err = cli(
        "run", "demo", "--plugins", "agent_lab.demo:plugins", "--db", str(db), "--resume", *FAST
    )
    assert code == 2
    assert "another configuration" in err
    # The lab names the fields that changed; the command line says them as its flags.
    assert "--policy (was null, now [" in err
    assert err.rstrip().endswith("start a new run without --resume")


def count(db: Path) -> tuple[int, int, str]:
    """Trials, distinct trial keys, and the run's state (``none`` before the run is recorded)."""
    connection = sqlite3.connect(db)
    try:
        total, distinct = connection.execute(
            "SELECT count(*), count(DISTINCT case_id || '|' || policy || '|' || repeat) FROM trials"
        ).fetchone()
        row = connection.execute("SELECT state FROM runs").fetchone()
        return total, distinct, row[0] if row else "none"
    except sqlite3.Error:
        return 0, 0, "none"
    finally:
        connection.close()


def run_argv(db: Path, latency: str, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "agent_lab.cli",
        "run",
        "demo",
        "--plugins",
        "agent_lab.demo:plugins",
        "--limit",
        "60",
        "--db",
        str(db),
        "--provider",
        "simulated",
        "--simulated-latency",
        latency,
        "--no-progress",
        "--warmup",
        "0",
        *extra,
    ]


def wait_for_trials(db: Path, process: subprocess.Popen[bytes], more_than: int) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        if db.exists() and count(db)[0] > more_than:
            return
        time.sleep(0.02)


def test_a_run_killed_at_several_points_resumes_to_every_trial_exactly_once(tmp_path: Path) -> None:
    """L9: SIGKILL a real run at several moments, resume each time: each trial once, none lost."""
    db = tmp_path / "r.sqlite"
    argv = run_argv(db, "40,80", "--concurrency", "4")
    kills = 0
    for attempt, delay in enumerate((0.3, 0.5, 0.4, 0.6)):
        extra = ["--resume"] if attempt else []
        process = subprocess.Popen(
            argv + extra, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        try:
            wait_for_trials(db, process, count(db)[0] if db.exists() else 0)
            time.sleep(delay)
            if process.poll() is None:
                os.kill(process.pid, signal.SIGKILL)
                kills += 1
        finally:
            if process.poll() is None:
                process.kill()
            process.wait(timeout=30)
        total, distinct, _ = count(db)
        assert total == distinct  # never doubled, at any moment
    assert kills >= 2, "the run finished before it could be killed twice"
    if count(db)[2] != "finished":
        final = subprocess.run(
            [*argv, "--resume"], capture_output=True, text=True, timeout=120, check=False
        )
        assert final.returncode == 0, final.stderr
    total, distinct, state = count(db)
    from agent_lab.lab.run.runner import stratified_sample
    from agent_lab.lab.workload import load_workload

    expected = 3 * len(stratified_sample(load_workload("demo").cases, 60, 0))
    assert total == distinct == expected
    assert state == "finished"


def test_ctrl_c_saves_and_says_how_to_resume(tmp_path: Path) -> None:
    """SIGINT stops the run, keeps what ended, and points at --resume (exit 130)."""
    db = tmp_path / "r.sqlite"
    # A test run started in the background of a shell ignores SIGINT, and so would the run
    # it starts: a handler here is reset to the default in the child, which then hears it.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        process = subprocess.Popen(
            run_argv(db, "200,300", "--concurrency", "2"),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
    finally:
        signal.signal(signal.SIGINT, previous)
    try:
        wait_for_trials(db, process, 0)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 130
    assert b"--resume" in err
    total, distinct, state = count(db)
    assert total == distinct > 0
    assert state == "running"


def test_a_run_whose_trials_fail_to_run_exits_1(tmp_path: Path) -> None:
    """Exit code 1 is a failed run: here every LLM-bound trial exceeds a 1 ms timeout."""
    db = str(tmp_path / "r.sqlite")
    code, _, err = cli(
        "run", "demo", "--plugins", "agent_lab.demo:plugins", "--limit", "20", "--db", db,
        "--policy", "llm-always", "--timeout", "0.001", "--provider", "simulated",
        "--simulated-latency", "50,80", "--no-progress",
    )  # fmt: skip
    assert code == 1
    assert "failed to run" in err
    assert "longer than 0.001 s" in err


def test_import_sgd_then_precision_then_run(tmp_path: Path) -> None:
    """A public benchmark becomes a plugin folder and workloads the lab runs as they are."""
    out = tmp_path / "sgd-dev"
    code, shown, _ = cli("import", "sgd", str(corpus("sgd", "dev")), "--out", str(out))
    assert code == 0
    assert "imported 30 events" in shown
    assert f"--plugins {out}" in shown
    code, shown, _ = cli(
        "precision", str(out / "workload-payload.jsonl"), "--plugins", str(out), "--examples", "2"
    )
    assert code == 0
    assert "deterministic precision over" in shown
    assert "│ all " in shown
    code, shown, _ = cli(
        "precision", str(out / "workload-payload.jsonl"), "--plugins", str(out), "--json"
    )
    figures = json.loads(shown)
    assert code == 0
    for figure in (figures["overall"], *figures["by_kind"].values()):
        assert set(figure) >= {"filled", "right", "precision", "low", "high"}
        assert figure["low"] <= figure["precision"] <= figure["high"]
    assert figures["overall"]["filled"] == sum(f["filled"] for f in figures["by_kind"].values())
    sample = tmp_path / "sample.jsonl"
    lines = (out / "workload-payload.jsonl").read_text(encoding="utf-8").splitlines()
    sample.write_text("\n".join(lines[:: len(lines) // 20]) + "\n", encoding="utf-8")
    db = tmp_path / "sgd.sqlite"
    code, shown, err = cli("run", str(sample), "--plugins", str(out), "--db", str(db), *FAST)
    assert code == 0, err
    with sqlite3.connect(db) as connection:
        trials = dict(
            connection.execute("SELECT policy, COUNT(*) FROM trials GROUP BY policy").fetchall()
        )
        errors = connection.execute("SELECT COUNT(*) FROM trials WHERE status = 'error'").fetchone()
    assert trials == {"deterministic-first": 21, "llm-always": 21, "deterministic-only": 21}
    assert errors == (0,)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["import", "sgd", "no-such-folder", "--out", "x"], "no folder no-such-folder"),
        (["precision", "demo", "--plugins", "no-such-folder-or:module"], "agent-lab:"),
    ],
)
def test_import_and_precision_usage_errors(argv: list[str], message: str) -> None:
    code, _, err = cli(*argv)
    assert code == 2
    assert message in err


def test_import_bfcl_then_run_a_multiple_choice_sample(tmp_path: Path) -> None:
    """BFCL questions offer a few functions; any listed answer counts."""
    out = tmp_path / "bfcl"
    code, shown, _ = cli("import", "bfcl", str(corpus("bfcl")), "--out", str(out))
    assert code == 0
    assert "import-report.json" in shown
    workloads = sorted(out.glob("workload-*.jsonl"))
    assert workloads
    lines = [line for path in workloads for line in path.read_text().splitlines()[:4]]
    sample = tmp_path / "sample.jsonl"
    sample.write_text("\n".join(lines) + "\n", encoding="utf-8")
    db = tmp_path / "bfcl.sqlite"
    code, _, err = cli("run", str(sample), "--plugins", str(out), "--db", str(db), *FAST)
    assert code == 0, err
    with sqlite3.connect(db) as connection:
        rows = connection.execute(
            "SELECT COUNT(*), SUM(correct) FROM trials WHERE policy = 'llm-always'"
        ).fetchone()
    assert rows[0] == len(lines)


def test_demo_runs_end_to_end_on_the_simulated_model(tmp_path: Path) -> None:
    """`agent-lab demo`, the README's first command, on a small simulated sample."""
    out = tmp_path / "demo"
    code, shown, err = cli(
        "demo", "--provider", "simulated", "--limit", "20", "--simulated-latency", "1,2",
        "--no-progress", "--out", str(out),
    )  # fmt: skip
    assert code == 0, err
    assert (out / "report.html").is_file()
    assert (out / "results.sqlite").is_file()
    for policy in ("deterministic-first", "llm-always", "deterministic-only"):
        assert policy in shown
    assert "SIMULATED" in shown


def test_version_prints_the_installed_version() -> None:
    import importlib.metadata

    code, shown, _ = cli("--version")
    assert code == 0
    assert shown.strip() == f"agent-lab {importlib.metadata.version('agent-lab')}"


def test_events_summary_is_one_line_per_event_and_the_count() -> None:
    code, shown, _ = cli("events", "--plugins", "agent_lab.demo:plugins", "--summary")
    assert code == 0
    lines = shown.strip().splitlines()
    assert lines[-1] == f"{len(lines) - 1} events"
    assert "set_reminder (task, date, time)" in lines  # it has no optional field
    assert "set_timer (duration_seconds; optional: label)" in lines
    assert "send_message (to, body; optional: channel)" in lines


def test_providers_json_lists_oracle_and_simulated_apart() -> None:
    code, shown, _ = cli("providers", "--json")
    assert code == 0
    rows = {row["name"]: row["description"] for row in json.loads(shown)}
    assert set(rows) == {"local", "openai", "simulated", "oracle", "replay"}
    assert "a ceiling, not a model" in rows["oracle"]
    assert "sighted" in rows["simulated"]
