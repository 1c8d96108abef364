"""The results store's own guarantees: no trial lost to its values or to a lock, valid text."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from agent_lab.lab.results.records import LabReason
from agent_lab.lab.results.store import Store, StoreError
from agent_lab.log_replay.trial_status import TrialStatus
from agent_lab.strict_json import loads as strict_loads
from tests.lab.factories import new_run, trial


def cycle() -> dict[str, Any]:
    looped: dict[str, Any] = {}
    looped["self"] = looped
    return looped


def nested(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(depth):
        value = {"a": value}
    return value


HOSTILE = {
    "5001-digit integer": ("arguments", {"n": 10**5000}, "4300 digits"),
    "a set": ("calls", [{"event": "e", "arguments": {"s": {1, 2}}}], "not JSON serializable"),
    "a cycle": ("ledger", cycle(), "Circular reference"),
    "100000 deep": ("arguments", nested(100_000), "RecursionError"),
}


@pytest.mark.parametrize(("field", "value", "said"), list(HOSTILE.values()), ids=list(HOSTILE))
def test_a_trial_holding_what_no_column_holds_is_stored_failed_without_it(
    tmp_path: Path, field: str, value: object, said: str
) -> None:
    """A value json.dumps refuses raised in the writer and lost the whole batch (and the run)."""
    with Store(tmp_path / "r.sqlite") as store:
        new_run(store)
        changes: dict[str, Any] = {"ledger": {"kept": True}, field: value}
        bad = trial("bad", **changes)
        assert store.add_trials("r1", [trial("before"), bad, trial("after")]) == 3
        rows = {t.case_id: t for t in store.trials("r1")}
    failed = rows["bad"]
    assert failed.status is TrialStatus.ERROR
    assert failed.reason == LabReason.UNSTORABLE
    assert getattr(failed, field) is None
    assert failed.error is not None
    assert said in failed.error
    assert field in failed.error
    assert (failed.correct, failed.field_tp, failed.field_fp, failed.field_fn) == (False, 0, 0, 1)
    assert failed.latency_ns == 1000  # what it measured stays
    if field != "ledger":
        assert failed.ledger == {"kept": True}  # what could be stored was
    assert rows["before"].status is rows["after"].status is TrialStatus.SUCCESS


def test_lone_surrogates_are_stored_escaped_as_valid_utf8_and_strict_json(tmp_path: Path) -> None:
    """A lone surrogate (a model's "\\udc80") cannot be UTF-8: it was replaced by '?' in text
    columns, and kept as a lone-surrogate escape, which strict JSON refuses, in JSON ones."""
    path = tmp_path / "r.sqlite"
    lone = "x\udc80"
    with Store(path) as store:
        new_run(store)
        store.add_trials(
            "r1",
            [
                trial(
                    lone,
                    llm_raw=lone,
                    failure=lone,
                    text=lone,
                    event=lone,
                    arguments={lone: [lone, "\U0001f600"]},
                    ledger={"attempts": [{"usage": {"model": lone}}]},
                )
            ],
        )
        [read] = store.trials("r1")
    escaped = "x\\udc80"
    assert (read.case_id, read.llm_raw, read.failure, read.text, read.event) == (escaped,) * 5
    assert read.arguments == {escaped: [escaped, "\U0001f600"]}
    connection = sqlite3.connect(path)
    connection.text_factory = bytes
    row = connection.execute("SELECT case_id, llm_raw, arguments, ledger FROM trials").fetchone()
    connection.close()
    texts = [cell.decode("utf-8") for cell in row]  # strict: valid UTF-8
    assert strict_loads(texts[2]) == {escaped: [escaped, "\U0001f600"]}
    assert strict_loads(texts[3]) == {"attempts": [{"usage": {"model": escaped}}]}


def test_a_file_written_with_lone_surrogate_escapes_reads_them_escaped(tmp_path: Path) -> None:
    """Stores written before escaping hold "\\udc80" escapes in their JSON: read as the text."""
    path = tmp_path / "r.sqlite"
    with Store(path) as store:
        new_run(store)
        store.add_trials("r1", [trial("a")])
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("""UPDATE trials SET ledger = '{"model": "m\\udc84"}'""")
    connection.close()
    with Store(path, read_only=True) as reader:
        [read] = reader.trials("r1")
    assert read.ledger == {"model": "m\\udc84"}


@pytest.mark.parametrize(
    ("column", "value"),
    [("arguments", "{not json"), ("status", "great"), ("cost", "lots"), ("ledger", "9" * 5000)],
    ids=["bad-json", "unknown-status", "bad-cost", "5000-digit-number"],
)
def test_a_row_no_agent_lab_wrote_is_a_store_error(tmp_path: Path, column: str, value: str) -> None:
    """A hand-edited row raised ValueError from the decoder: a traceback in `report`."""
    path = tmp_path / "r.sqlite"
    with Store(path) as store:
        new_run(store)
        store.add_trials("r1", [trial("a")])
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute(f"UPDATE trials SET {column} = ?", (value,))
    connection.close()
    with Store(path, read_only=True) as reader, pytest.raises(StoreError, match="cannot be read"):
        reader.trials("r1")


def test_a_lock_held_past_the_patience_fails_loudly_and_keeps_what_was_stored(
    tmp_path: Path,
) -> None:
    """Another connection's write lock is waited out for ``lock_patience`` seconds, no longer;
    then StoreError, with the trials committed before intact, and the next write succeeds."""
    path = tmp_path / "r.sqlite"
    with Store(path, lock_patience=0.3, busy_timeout=0.05) as store:
        new_run(store)
        store.add_trials("r1", [trial("a")])
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        with pytest.raises(StoreError, match=r"stayed locked by another process for 0\.3 s"):
            store.add_trials("r1", [trial("b")])
        other.execute("ROLLBACK")
        other.close()
        assert store.done("r1") == {("a", "p", 0)}
        assert store.add_trials("r1", [trial("b")]) == 1
        assert store.count("r1") == 2
