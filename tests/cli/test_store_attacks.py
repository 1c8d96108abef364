"""The results store attacked through the command line: values no column holds, a held lock,
a killed run's files read elsewhere, refused files, lone surrogates, full devices."""

from __future__ import annotations

import io
import json
import os
import shutil
import signal
import sqlite3
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from agent_lab.cli import run
from agent_lab.lab.results.store import Store
from agent_lab.lab.run.runner import stratified_sample
from agent_lab.lab.workload import load_workload
from agent_lab.strict_json import loads as strict_loads

FAST = ["--provider", "simulated", "--simulated-latency", "1,2", "--no-progress", "--warmup", "0"]
DEMO = ["run", "demo", "--plugins", "agent_lab.demo:plugins"]
DEV_FULL = Path("/dev/full")


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def one_line_exit_2(*argv: str) -> str:
    code, _, err = cli(*argv)
    assert code == 2, err
    assert err.count("\n") == 1, err
    assert "Traceback" not in err
    return err


def listing(folder: Path) -> dict[str, bytes]:
    """Every file in ``folder`` with its bytes: what a command left there."""
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir()) if path.is_file()}


def trial_keys(db: Path) -> tuple[int, int, str]:
    """Trials, distinct (case, policy, repeat) keys, and the run's state."""
    connection = sqlite3.connect(db)
    try:
        total, distinct = connection.execute(
            "SELECT count(*), count(DISTINCT case_id || '|' || policy || '|' || repeat) FROM trials"
        ).fetchone()
        (state,) = connection.execute("SELECT state FROM runs").fetchone()
        return total, distinct, state
    finally:
        connection.close()


def demo_trials(limit: int) -> int:
    return 3 * len(stratified_sample(load_workload("demo").cases, limit, 0))


# Values no column can hold -------------------------------------------------------------------


def test_a_value_no_column_holds_is_stored_as_a_failed_trial_never_lost(tmp_path: Path) -> None:
    """A resolver's 5001-digit integer (past Python's int-to-text limit) was a `success` in the
    kernel and a ValueError in the writer: no trial stored, the run left running, --resume the
    same. Now each such trial is stored once, failed, without the value; the rest reads."""
    workload = tmp_path / "w.jsonl"
    cases = [
        {"id": f"c{n}", "event": "count", "text": f"count please {n}"}
        | {"expected": {"status": "success", "arguments": {"n": 1}}}
        for n in range(3)
    ]
    workload.write_text("".join(json.dumps(case) + "\n" for case in cases))
    db = tmp_path / "r.sqlite"
    plugins = ["--plugins", "tests.cli.unstorable_plugins:plugins"]
    code, _, err = cli("run", str(workload), *plugins, "--db", str(db), *FAST, "--repeats", "2")
    assert code == 1, err  # trials that failed: the exit code says so
    assert "cannot be stored" in err
    assert "Traceback" not in err
    assert trial_keys(db) == (3 * 3 * 2, 3 * 3 * 2, "finished")
    with Store(db, read_only=True) as store:
        trials = store.trials(store.run().run_id)
    resolved = [t for t in trials if t.policy != "llm-always"]
    assert len(resolved) == 12
    for t in resolved:
        assert (t.status, t.reason, t.arguments, t.correct) == ("error", "unstorable", None, False)
        assert t.error is not None
        assert "arguments left out" in t.error
        assert "4300 digits" in t.error
        assert t.ledger is not None  # what could be stored was
    assert cli("report", str(db), "--html", str(tmp_path / "r.html"))[0] == 0
    assert cli("export", str(db), "--format", "parquet", "--out", str(tmp_path / "pq"))[0] == 0
    # --resume crashed the same way: left as a killed run leaves it, it stores the rest once.
    connection = sqlite3.connect(db)
    with connection:
        connection.execute("UPDATE runs SET state = 'running'")
        connection.execute("DELETE FROM trials WHERE repeat = 1")
    connection.close()
    resume = ("run", str(workload), *plugins, "--db", str(db), *FAST, "--repeats", "2")
    code, _, err = cli(*resume, "--resume")
    assert code == 1, err
    assert "Traceback" not in err
    assert trial_keys(db) == (3 * 3 * 2, 3 * 3 * 2, "finished")
    code, out, err = cli("precision", str(workload), *plugins)
    assert code == 0, err
    assert "an integer of about 5000 digits" in out


# A held lock ---------------------------------------------------------------------------------

LOCK_HOLDER = """
import sqlite3, sys, time
path, seconds, said = sys.argv[1], float(sys.argv[2]), sys.argv[3]
deadline = time.monotonic() + 60
while time.monotonic() < deadline:
    try:
        # mode=rw never creates the file: the run must create it itself.
        db = sqlite3.connect(f"file:{path}?mode=rw", uri=True, isolation_level=None, timeout=30)
        if db.execute("SELECT count(*) FROM trials").fetchone()[0] > 0:
            break
        db.close()
    except sqlite3.Error:
        pass
    time.sleep(0.005)
db.execute("BEGIN IMMEDIATE")
stored = db.execute("SELECT count(*) FROM trials").fetchone()[0]
with open(said, "w") as note:
    note.write(str(stored))
time.sleep(seconds)
db.execute("COMMIT")
"""


@pytest.mark.slow
def test_a_write_lock_held_past_the_busy_timeout_loses_no_trial(tmp_path: Path) -> None:
    """Another process held the write lock for 12 s: `database is locked` after SQLite's 5 s
    busy timeout, and the in-flight trials were lost. Now the writer waits it out."""
    db, said = tmp_path / "r.sqlite", tmp_path / "locked-at"
    holder = subprocess.Popen(
        [sys.executable, "-c", LOCK_HOLDER, str(db), "7", str(said)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        slower = ["--simulated-latency", "20,40", "--concurrency", "2"]
        code, _, err = cli(*DEMO, "--limit", "30", "--db", str(db), *FAST, *slower)
        _, holder_err = holder.communicate(timeout=60)
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait()
    assert holder.returncode == 0, holder_err
    assert code == 0, err
    expected = demo_trials(30)
    assert 0 < int(said.read_text()) < expected  # the lock was held in the middle of the run
    assert trial_keys(db) == (expected, expected, "finished")


# A killed run's files, read elsewhere -----------------------------------------------------------


def test_a_killed_runs_wal_without_its_shm_is_read_and_nothing_is_made_beside_it(
    tmp_path: Path,
) -> None:
    """A read-only mount of a killed run's store, with its -wal but no -shm, showed no runs.

    SQLite reads a -wal only where it may create the -shm. A test cannot rely on a
    read-only folder (CI runs as root, whom chmod does not stop), so the same files
    are copied, and the proof is that reading creates nothing beside them: what needs
    no file made can be read from a read-only mount. Before, the reader either made a
    -shm (a writable folder) or fell back to reading the file alone (no runs at all).
    """
    original = tmp_path / "run"
    original.mkdir()
    db = original / "r.sqlite"
    argv = [sys.executable, "-m", "agent_lab.cli", *DEMO, "--limit", "60", "--db", str(db)]
    argv += [*FAST[:2], "--simulated-latency", "150,300", "--no-progress", "--concurrency", "2"]
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and process.poll() is None:
            if db.exists() and trial_keys_or_none(db) >= 6:
                break
            time.sleep(0.02)
        os.kill(process.pid, signal.SIGKILL)
    finally:
        process.wait(timeout=30)
    wal = original / "r.sqlite-wal"
    assert wal.stat().st_size > 0, "the run ended before it was killed"
    copy = tmp_path / "mounted"
    copy.mkdir()
    shutil.copyfile(db, copy / "r.sqlite")
    shutil.copyfile(wal, copy / "r.sqlite-wal")
    stored = trial_keys(db)[0]  # read beside the killed run's -shm (which checkpoints it)
    before = listing(copy)
    code, out, err = cli("runs", str(copy / "r.sqlite"), "--json")
    assert code == 0, err
    [shown] = json.loads(out)
    assert (shown["state"], shown["trials"]) == ("running", stored)
    assert cli("report", str(copy / "r.sqlite"))[0] == 0
    exported = tmp_path / "csv"
    assert cli("export", str(copy / "r.sqlite"), "--format", "csv", "--out", str(exported))[0] == 0
    assert (exported / "trials.csv").read_text().count("\n") == stored + 1
    assert listing(copy) == before  # no -shm, nothing changed: a read-only mount reads the same


def trial_keys_or_none(db: Path) -> int:
    try:
        return trial_keys(db)[0]
    except (sqlite3.Error, TypeError):
        return 0


# Refused files ----------------------------------------------------------------------------------


def wal_file(path: Path, *statements: str) -> Path:
    """A cleanly closed SQLite file in WAL mode (no -wal, no -shm left), after ``statements``."""
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA journal_mode = WAL")
    for statement in statements:
        connection.execute(statement)
    connection.close()
    return path


def ours(path: Path, schema_version: str) -> Path:
    Store(path).close()
    return wal_file(
        path, f"UPDATE meta SET value = '{schema_version}' WHERE key = 'schema_version'"
    )


def foreign(path: Path) -> Path:
    return wal_file(path, "CREATE TABLE people (name TEXT)")


REFUSED: dict[str, tuple[Callable[[Path], Path], str]] = {
    "foreign": (foreign, "not an agent-lab"),
    "newer-schema": (partial(ours, schema_version="99"), "schema version 99"),
    "schema-abc": (
        partial(ours, schema_version="abc"),
        "schema version 'abc', which is no version number",
    ),
}


@pytest.mark.parametrize(("make", "said"), list(REFUSED.values()), ids=list(REFUSED))
def test_a_refused_file_is_one_line_and_nothing_is_left_beside_it(
    tmp_path: Path, make: Callable[[Path], Path], said: str
) -> None:
    """report/export on a refused store in WAL mode left -shm and -wal files beside it, and a
    meta.schema_version of 'abc' gave a traceback."""
    folder = tmp_path / "stores"
    folder.mkdir()
    db = make(folder / "r.sqlite")
    before = listing(folder)
    out = str(tmp_path / "out")
    for argv in (
        ["report", str(db)],
        ["runs", str(db)],
        ["export", str(db), "--format", "csv", "--out", out],
        ["compare", str(db), "--baseline", "llm-always"],
        [*DEMO, "--limit", "3", "--db", str(db), *FAST],
    ):
        assert said in one_line_exit_2(*argv), argv
        assert listing(folder) == before, argv


# Lone surrogates --------------------------------------------------------------------------------


def test_lone_surrogates_from_a_model_are_stored_escaped_and_shown(tmp_path: Path) -> None:
    r"""A model name or a reply's model with a lone surrogate (JSON's "\udc80", which Python's
    parser lets through) crashed the run when stored, or went into the ledger as a lone
    surrogate escape that strict JSON refuses. It is stored as the text \udc80."""
    cassette, recorded = tmp_path / "c.jsonl", tmp_path / "recorded.sqlite"
    demo = [*DEMO, "--limit", "9", *FAST]
    assert cli(*demo, "--db", str(recorded), "--record", str(cassette))[0] == 0
    lines = [json.loads(line) for line in cassette.read_text().splitlines()]
    for line in lines:
        line["reply"]["usage"]["model"] = "gpt\udc80"
    cassette.write_text("".join(json.dumps(line) + "\n" for line in lines))
    replay = [*DEMO, "--limit", "9", "--no-progress", "--warmup", "0", "--provider", "replay"]
    db = tmp_path / "r.sqlite"
    code, _, err = cli(*replay, "--cassette", str(cassette), "--db", str(db))
    assert code == 0, err
    connection = sqlite3.connect(db)
    ledgers = [row[0] for row in connection.execute("SELECT ledger FROM trials WHERE llm_calls")]
    connection.close()
    assert ledgers
    # Strict JSON refuses a lone surrogate escape; the ledger holds the text \udc80 instead.
    read: list[Any] = [strict_loads(ledger) for ledger in ledgers]
    models = {attempt["usage"]["model"] for ledger in read for attempt in ledger["attempts"]}
    assert models == {"gpt\\udc80"}
    assert cli("report", str(db), "--html", str(tmp_path / "r.html"))[0] == 0
    # A cassette whose model is so named (its requests no longer match: they fail, stored).
    for line in lines:
        line["default_model"] = "m\udcff"
    cassette.write_text("".join(json.dumps(line) + "\n" for line in lines))
    named = tmp_path / "named.sqlite"
    code, _, err = cli(*replay, "--cassette", str(cassette), "--db", str(named))
    assert code == 1, err  # every request failed: not in the cassette
    assert "Traceback" not in err
    code, out, err = cli("runs", str(named), "--json")
    assert code == 0, err
    [shown] = json.loads(out)
    assert shown["model"] == "m\\udcff"
    assert "m\\udcff" in cli("runs", str(named))[1]


# Resume ----------------------------------------------------------------------------------------


def test_resume_names_only_the_options_that_changed(tmp_path: Path) -> None:
    """The refusal listed --policy (was ["llm-always"], now ["llm-always"]): a stored list
    against the configuration's tuple."""
    db = tmp_path / "r.sqlite"
    argv = [*DEMO, "--db", str(db), *FAST, "--policy", "llm-always"]
    assert cli(*argv, "--limit", "5")[0] == 0
    # As a killed run leaves it: recorded, not finished.
    connection = sqlite3.connect(db, isolation_level=None)
    connection.execute("UPDATE runs SET state = 'running'")
    connection.close()
    err = one_line_exit_2(*argv, "--limit", "6", "--resume")
    assert "--limit (was 5, now 6)" in err
    assert "--policy" not in err


# Full devices ----------------------------------------------------------------------------------


@pytest.mark.skipif(not DEV_FULL.exists(), reason="no /dev/full here")
def test_an_html_report_to_a_full_device_is_one_line_and_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`report --html /dev/full` gave a traceback."""
    db = tmp_path / "r.sqlite"
    assert cli(*DEMO, "--limit", "5", "--db", str(db), *FAST)[0] == 0
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    err = one_line_exit_2("report", str(db), "--html", str(DEV_FULL))
    assert "--html /dev/full: No space left on device" in err
    assert stat.S_ISCHR(DEV_FULL.stat().st_mode)  # written to, never renamed over
    assert list(scratch.iterdir()) == []


@pytest.mark.skipif(not DEV_FULL.exists(), reason="no /dev/full here")
def test_spans_that_cannot_be_written_fail_the_command(tmp_path: Path) -> None:
    """`--otel-file /dev/full` lost every span and exited 0."""
    pytest.importorskip("opentelemetry.sdk", reason="the otel extra is not installed")
    db = tmp_path / "r.sqlite"
    err = one_line_exit_2(*DEMO, "--limit", "5", "--db", str(db), *FAST, "--otel-file", "/dev/full")
    assert "--otel-file /dev/full: spans could not be written (No space left on device)" in err
    total, distinct, state = trial_keys(db)
    assert (total, state) == (distinct, "finished")
    assert total == demo_trials(5)
