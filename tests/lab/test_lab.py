"""The lab's parts: workload loading, the results store, the statistics."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from agent_lab.demo import plugins
from agent_lab.kernel.models import Status
from agent_lab.lab.results.records import TrialRecord
from agent_lab.lab.results.store import SCHEMA_VERSION, Store, StoreError
from agent_lab.lab.run.runner import stratified_sample
from agent_lab.lab.stats.metrics import compare, summarize
from agent_lab.lab.workload import WorkloadError, load_workload, read_cases
from agent_lab.log_replay.case import Case, Expectation
from agent_lab.log_replay.scoring import score
from agent_lab.log_replay.trial_status import TrialStatus
from tests.lab.factories import new_run, trial

GOOD = {"id": "a", "event": "set_timer", "text": "t", "expected": {"status": "missing_information"}}


# Workloads -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", "not strict JSON"),
        ('{"id": "a", "id": "b"}', "not strict JSON"),
        ("[1]", "a case must be a JSON object"),
        (json.dumps({**GOOD, "id": 3}), "'id' must be a string"),
        (json.dumps({**GOOD, "expected": {"status": "great"}}), "expected status 'great'"),
        (json.dumps({**GOOD, "expected": {"status": "success"}}), "needs expected arguments"),
        (json.dumps({**GOOD, "tags": "x"}), "'tags' must be a list"),
        (json.dumps({**GOOD, "payload": []}), "'payload' must be an object"),
        (json.dumps({**GOOD, "candidates": "set_timer"}), "'candidates' must be a list"),
        (json.dumps({**GOOD, "event_given": "false"}), "'event_given' must be true or false"),
        (json.dumps({**GOOD, "messages": {"role": "user"}}), "'messages' must be a list"),
        (json.dumps({**GOOD, "messages": [{"role": "robot"}]}), "message 0 must be an object"),
        (json.dumps({**GOOD, "messages": ["hi"]}), "message 0 must be an object"),
        (
            json.dumps(
                {
                    **GOOD,
                    "messages": [
                        {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function"}]},
                        {"role": "user", "content": "t"},
                    ],
                }
            ),
            "must answer every tool call",
        ),
        (
            json.dumps({**GOOD, "messages": [{"role": "user", "content": "other words"}]}),
            "must end with the user's message, whose content is 'text'",
        ),
        (
            json.dumps({**GOOD, "messages": [{"role": "assistant", "content": "t"}]}),
            "must end with the user's message",
        ),
        (
            json.dumps({"id": "a", "text": "t", "expect": {"status": "success"}}),
            "'expected' must be an object with a status \\(the line has 'expect': is it "
            "'expected' misspelt\\?\\)",
        ),
        (json.dumps({"id": "a", "txt": "t", "expected": {}}), "'text' must be a string \\(the"),
        (json.dumps({"ID": "a", "text": "t", "expected": {}}), "is it 'id' misspelt"),
        (
            json.dumps({**GOOD, "expected": {"statsu": "success"}}),
            "expected status None .* \\(the line has 'statsu'",
        ),
        (
            json.dumps(
                {
                    **GOOD,
                    "expected": {"status": "success", "arguments": {}, "alternatives": {"a": 1}},
                }
            ),
            "alternatives must map names to lists",
        ),
    ],
)
def test_a_bad_line_is_reported_with_its_number(line: str, message: str) -> None:
    """L1: a malformed line names its line number; nothing disappears silently."""
    lines = [json.dumps(GOOD | {"id": "first"}), "", line]
    with pytest.raises(WorkloadError, match=rf"cases\.jsonl:3: .*{message}"):
        read_cases(lines, "cases.jsonl")
    skipped = read_cases(lines, "cases.jsonl", on_error="skip")
    assert [case.id for case in skipped.cases] == ["first"]
    assert [problem.line for problem in skipped.skipped] == [3]


def test_a_case_may_be_a_conversation() -> None:
    """A case's ``messages``: the conversation before the call, kept whole, ending with ``text``."""
    messages = [
        {"role": "user", "content": "Find me a bus to Fresno"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "find_bus", "arguments": '{"to": "Fresno"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "[]"},
        {"role": "user", "content": "t"},
    ]
    workload = read_cases([json.dumps({**GOOD, "messages": messages})], "cases.jsonl")
    assert list(workload.cases[0].messages) == messages
    plain = read_cases([json.dumps(GOOD)], "cases.jsonl")
    assert plain.cases[0].messages == ()
    assert workload.fingerprint() != plain.fingerprint()


def test_duplicate_ids_are_refused() -> None:
    """Each case id is unique."""
    with pytest.raises(WorkloadError, match="duplicate id 'a' \\(first on line 1\\)"):
        read_cases([json.dumps(GOOD), json.dumps(GOOD)], "w")


def test_unknown_events_are_found_against_the_plugin_set() -> None:
    """A case naming an event the plugins lack is reported with its line."""
    workload = read_cases([json.dumps(GOOD), json.dumps(GOOD | {"id": "b", "event": "fly"})], "w")
    problems = workload.check_events(plugins)
    assert [(p.line, "'fly'" in str(p)) for p in problems] == [(2, True)]


def test_candidates_are_checked_and_alternatives_scored() -> None:
    """BFCL-style cases: candidate events must exist; any listed value is right."""
    line = GOOD | {
        "id": "c",
        "candidates": ["set_timer", "book_flight"],
        "expected": {
            "status": "success",
            "arguments": {"duration_seconds": 60},
            "alternatives": {"duration_seconds": [60, 61], "label": ["", "tea"]},
        },
    }
    workload = read_cases([json.dumps(line)], "w")
    assert ["'book_flight'" in str(p) for p in workload.check_events(plugins)] == [True]
    case = workload.cases[0]
    assert case.candidates == ("set_timer", "book_flight")
    success, missing = TrialStatus.SUCCESS, TrialStatus.MISSING_INFORMATION
    timer = "set_timer"
    assert score(case, success, {"duration_seconds": 61}, timer) == (True, True, 1, 0, 0)
    assert score(case, success, {"duration_seconds": 61, "label": "tea"}, timer) == (
        True,
        True,
        2,
        0,
        0,
    )
    assert score(case, success, {"duration_seconds": 61.0}, timer) == (False, False, 0, 1, 1)
    assert score(case, missing, None, timer) == (False, False, 0, 0, 1)


def test_the_built_in_demo_loads_and_samples_by_category() -> None:
    """The demo workload loads by name; a stratified sample keeps every category."""
    demo = load_workload("demo")
    assert len(demo.cases) >= 400
    sample = stratified_sample(demo.cases, 100, seed=1)
    assert 90 <= len(sample) <= 110
    assert {c.category for c in sample} == {c.category for c in demo.cases}
    with pytest.raises(FileNotFoundError, match="built-in workloads: demo"):
        load_workload("no-such-file.jsonl")


def test_scoring_is_type_sensitive() -> None:
    """Right means the expected status and, for success, the same arguments type for type."""
    success, missing_information = TrialStatus.SUCCESS, TrialStatus.MISSING_INFORMATION
    expected = Expectation(Status.SUCCESS, {"n": 1, "s": "x"})
    case = Case(id="c", event="e", text="", expected=expected)
    assert score(case, success, {"n": 1, "s": "x"}, "e") == (True, True, 2, 0, 0)
    assert score(case, success, {"n": 1.0, "s": "x"}, "e") == (False, False, 1, 1, 1)
    assert score(case, success, {"n": 1, "s": "x", "extra": True}, "e") == (False, False, 2, 1, 0)
    assert score(case, missing_information, None, "e") == (False, False, 0, 0, 2)
    missing = Case(id="m", event="e", text="", expected=Expectation(Status.MISSING_INFORMATION))
    assert score(missing, missing_information, None, "e") == (True, True, 0, 0, 0)


# The store ------------------------------------------------------------------------------


def test_a_trial_is_never_stored_twice(tmp_path: Path) -> None:
    """L9: the (run, case, policy, repeat) key makes a doubled trial impossible."""
    with Store(tmp_path / "r.sqlite") as store:
        new_run(store)
        assert store.add_trials("r1", [trial("a"), trial("b")]) == 2
        assert store.add_trials("r1", [trial("a"), trial("c")]) == 1
        assert store.done("r1") == {("a", "p", 0), ("b", "p", 0), ("c", "p", 0)}
        rows = store.trials("r1")
        assert rows[0].cost == Decimal("0.000001")
        assert rows[0].arguments == {"n": 1}
    with Store(tmp_path / "r.sqlite") as again:
        assert again.run().state == "running"
        assert again.unfinished_run() is not None


def test_foreign_and_corrupt_files_are_refused_untouched(tmp_path: Path) -> None:
    """A file that is not ours is refused with a clear error and left exactly as it was."""
    foreign = tmp_path / "foreign.sqlite"
    connection = sqlite3.connect(foreign)
    connection.execute("CREATE TABLE people (name TEXT)")
    connection.commit()
    connection.close()
    corrupt = tmp_path / "corrupt.sqlite"
    corrupt.write_bytes(b"this is not a database at all" * 100)
    for path in (foreign, corrupt):
        before = path.read_bytes()
        with pytest.raises(StoreError, match="not"):
            Store(path)
        assert path.read_bytes() == before


def test_export_csv_and_parquet(tmp_path: Path) -> None:
    """Runs and trials export to CSV and Parquet."""
    import pyarrow.parquet as pq  # pyright: ignore[reportMissingTypeStubs]

    with Store(tmp_path / "r.sqlite") as store:
        new_run(store)
        store.add_trials("r1", [trial("a"), trial("b")])
        csv_files = store.export("r1", tmp_path / "csv", fmt="csv")
        parquet_files = store.export(None, tmp_path / "pq", fmt="parquet")
    assert (tmp_path / "csv" / "trials.csv").read_text().count("\n") == 3
    assert [p.name for p in csv_files] == ["runs.csv", "trials.csv"]
    table: Any = pq.read_table(parquet_files[1])  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    assert table.num_rows == 2  # pyright: ignore[reportUnknownMemberType]


# Statistics -------------------------------------------------------------------------------


def rows(
    policy: str, latencies: list[float], *, correct: list[bool] | None = None, calls: int = 0
) -> list[TrialRecord]:
    return [
        trial(
            f"c{n}",
            policy,
            latency_ns=round(value * 1e6),
            llm_calls=calls,
            correct=(correct or [True] * len(latencies))[n],
            prompt_tokens=10,
            completion_tokens=5,
            cost=Decimal("0.001") if calls else Decimal(0),
        )
        for n, value in enumerate(latencies)
    ]


def test_constant_data_gives_a_collapsed_interval() -> None:
    """With no variation there is no uncertainty."""
    (m,) = summarize(rows("p", [5.0] * 50))
    assert (m.latency_mean_ms.value, m.latency_mean_ms.low, m.latency_mean_ms.high) == (
        5.0,
        5.0,
        5.0,
    )
    assert m.accuracy.value == 1.0
    assert m.field_precision.value == 1.0


@pytest.mark.slow
def test_bootstrap_intervals_cover_the_true_mean_at_about_95_percent() -> None:
    """Over many samples of a known law, the 95% interval holds the mean ~95% of the time."""
    rng = np.random.default_rng(7)
    hits = 0
    experiments = 200
    for seed in range(experiments):
        sample = list(rng.exponential(100.0, size=80))
        (m,) = summarize(rows("p", sample), seed=seed)
        assert m.latency_mean_ms.low is not None
        assert m.latency_mean_ms.high is not None
        hits += m.latency_mean_ms.low <= 100.0 <= m.latency_mean_ms.high
    assert 0.88 <= hits / experiments <= 0.99


def test_percentiles_and_rates() -> None:
    """p50/p90/p99 are read from the data; fallback rate is the share of trials with a call."""
    (m,) = summarize(rows("p", [float(v) for v in range(1, 101)], calls=1))
    assert m.latency_p50_ms.value == pytest.approx(50.5)
    assert m.latency_p90_ms.value == pytest.approx(90.1)
    assert m.fallback_rate.value == 1.0
    assert m.total_cost == Decimal("0.100")


def test_paired_comparison_gives_ratios_with_intervals() -> None:
    """A policy twice as slow as the baseline on the same cases has ratio 2 (interval around it)."""
    base = rows("base", [10.0 + n % 5 for n in range(60)], calls=1)
    slow = rows("slow", [2 * (10.0 + n % 5) for n in range(60)], calls=0)
    by_metric = {c.metric: c for c in compare(base + slow, "base")}
    latency = by_metric["latency_ms"].ratio
    assert latency.value == pytest.approx(2.0)
    assert latency.low == pytest.approx(2.0)
    assert by_metric["llm_calls"].ratio.value == 0.0
    with pytest.raises(ValueError, match="no trials of baseline"):
        compare(base, "missing")


KILL_AT_STATEMENT = """
import os, signal, sqlite3, sys
real_connect = sqlite3.connect
count = 0
def connect(*args, **kwargs):
    db = real_connect(*args, **kwargs)
    def trace(statement):
        global count
        count += 1
        if count == int(sys.argv[2]):
            os.kill(os.getpid(), signal.SIGKILL)
    db.set_trace_callback(trace)
    return db
sqlite3.connect = connect
from agent_lab.lab.results.store import Store
Store(sys.argv[1]).close()
"""


@pytest.mark.slow
def test_a_store_killed_while_being_created_opens_afterwards(tmp_path: Path) -> None:
    """SIGKILL at any statement of the creation leaves a file that opens (2 of 9 did not)."""
    for statement in range(1, 16):
        path = tmp_path / f"killed-{statement}.sqlite"
        subprocess.run(
            [sys.executable, "-c", KILL_AT_STATEMENT, str(path), str(statement)],
            check=False,
            timeout=60,
        )
        with Store(path) as store:
            new_run(store)
            assert store.run().run_id == "r1"


def test_a_newer_schema_is_refused_byte_for_byte_untouched(tmp_path: Path) -> None:
    path = tmp_path / "newer.sqlite"
    with Store(path):
        pass
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA journal_mode = DELETE")
    connection.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    connection.close()
    before = path.read_bytes()
    for read_only in (False, True):
        with pytest.raises(StoreError, match="schema version 99"):
            Store(path, read_only=read_only)
        assert path.read_bytes() == before
    assert not path.with_name(path.name + "-wal").exists()


def test_reading_an_empty_or_missing_file_writes_nothing(tmp_path: Path) -> None:
    empty = tmp_path / "empty.sqlite"
    empty.touch()
    with pytest.raises(StoreError, match="empty or missing"):
        Store(empty, read_only=True)
    assert empty.stat().st_size == 0
    with pytest.raises(StoreError, match="empty or missing"):
        Store(tmp_path / "absent.sqlite", read_only=True)
    assert not (tmp_path / "absent.sqlite").exists()


def test_a_read_only_store_reads_and_never_writes(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite"
    with Store(path) as store:
        new_run(store)
        store.add_trials("r1", [trial("a")])
    before = path.read_bytes()
    with Store(path, read_only=True) as reader:
        assert [t.case_id for t in reader.trials("r1")] == ["a"]
        with pytest.raises(StoreError, match="readonly"):
            reader.add_trials("r1", [trial("b")])
    assert path.read_bytes() == before


def test_a_figure_no_column_can_hold_never_stops_the_writer(tmp_path: Path) -> None:
    """prompt_tokens = 10**30 raised OverflowError, the run stayed running, trials were lost."""
    with Store(tmp_path / "r.sqlite") as store:
        new_run(store)
        written = store.add_trials(
            "r1",
            [
                trial("a", prompt_tokens=10**30, completion_tokens=-(10**25)),
                trial("b", llm_calls=10**40),
                trial("c"),
            ],
        )
        assert written == 3
        rows = {t.case_id: t for t in store.trials("r1")}
    assert rows["a"].prompt_tokens is None
    assert rows["a"].completion_tokens is None
    assert rows["b"].llm_calls == 2**63 - 1
    assert rows["c"].prompt_tokens == 0


def test_csv_cells_that_a_spreadsheet_would_run_are_quoted(tmp_path: Path) -> None:
    """A case id like =HYPERLINK(...) went into the CSV verbatim."""
    with Store(tmp_path / "r.sqlite") as store:
        new_run(store)
        store.add_trials("r1", [trial('=HYPERLINK("http://x","y")'), trial("+1"), trial("ok")])
        store.export("r1", tmp_path / "csv", fmt="csv")
    text = (tmp_path / "csv" / "trials.csv").read_text()
    assert "'=HYPERLINK" in text
    assert "'+1" in text
    assert ",ok," in text
    assert "\n=" not in text


def test_a_schema_1_file_is_read_as_it_is_and_migrated_when_written(tmp_path: Path) -> None:
    """Schemas 2 and 3 added ten trial columns: read-only reads their defaults, writing adds."""
    path = tmp_path / "old.sqlite"
    with Store(path) as store:
        new_run(store)
        store.add_trials("r1", [trial("a")])
    connection = sqlite3.connect(path, isolation_level=None)
    added = ("correct_exact", "alternatives", "matching", "text", "llm_raw", "failure")
    for column in (*added, "calls", "expected_calls", "cached_tokens", "path"):
        connection.execute(f"ALTER TABLE trials DROP COLUMN {column}")
    connection.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
    connection.close()
    before = path.read_bytes()
    with Store(path, read_only=True) as reader:
        (row,) = reader.trials("r1")
    assert (row.correct_exact, row.matching, row.text, row.llm_raw) == (None, "exact", "", None)
    assert row.path == "none"
    assert path.read_bytes() == before
    with Store(path) as writer:
        writer.add_trials("r1", [trial("b", text="hello", correct_exact=True)])
        rows = {t.case_id: t for t in writer.trials("r1")}
    assert rows["b"].text == "hello"
    assert rows["b"].correct_exact is True
    version = sqlite3.connect(path).execute("SELECT value FROM meta WHERE key = 'schema_version'")
    assert version.fetchone() == (str(SCHEMA_VERSION),)


def test_intervals_do_not_depend_on_the_order_trials_ended_in() -> None:
    """A seeded bootstrap draws cases in case order, each policy from its own generator.

    It drew in the order the trials were stored (the order they ended in), so a
    rerun of the same figures moved its intervals by up to a point.
    """
    import random

    from agent_lab.lab.stats.breakdown import breakdown
    from agent_lab.lab.stats.headline import headline
    from agent_lab.lab.stats.metrics import compare, references, summarize
    from tests.lab.factories import trial

    def headline_sentences(rows: list[Any]) -> list[str]:
        return headline(
            rows,
            summarize(rows),
            compare(rows, "a"),
            breakdown(rows, "category", baseline="a"),
            baseline="a",
            provenance="test",
        )

    trials = [
        trial(f"c{i}", policy, correct=(i * 7 + len(policy)) % 3 != 0, llm_calls=i % 2,
              latency_ns=1000 + i * 37, category=("x", "y")[i % 2])
        for i in range(40)
        for policy in ("a", "b")
    ]  # fmt: skip
    shuffled = list(trials)
    random.Random(5).shuffle(shuffled)

    def figures(rows: list[Any]) -> object:
        by_name = {m.policy: m for m in summarize(rows)}
        return (
            [by_name[p] for p in sorted(by_name)],
            references(rows),
            sorted(compare(rows, "a"), key=lambda c: (c.policy, c.metric)),
            {
                (group.name, figures.policy): figures
                for group in breakdown(rows, "category", baseline="a")
                for figures in group.figures
            },
            sorted(headline_sentences(rows), key=str),
        )

    policies_reversed = sorted(trials, key=lambda t: t.policy, reverse=True)
    assert figures(trials) == figures(shuffled) == figures(policies_reversed)
