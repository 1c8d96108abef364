"""Tables fit the terminal: intervals stack, then columns are left out by priority, and said."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from agent_lab.cli import run
from agent_lab.lab.report.columns import SUMMARY_COLUMNS, fit
from agent_lab.lab.stats.metrics import summarize
from tests.lab.factories import trial


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("fit") / "r.sqlite"
    code = run(
        ["run", "demo", "--plugins", "agent_lab.demo:plugins", "--provider", "simulated",
         "--limit", "12", "--warmup", "0", "--no-progress", "--db", str(path)],
        stdout=io.StringIO(),
        stderr=io.StringIO(),
    )  # fmt: skip
    assert code == 0
    return path


def report(db: Path, *extra: str) -> str:
    out = io.StringIO()
    assert run(["report", str(db), *extra], stdout=out, stderr=io.StringIO()) == 0
    return out.getvalue()


@pytest.mark.parametrize("width", [80, 100, 120])
def test_every_line_fits_the_terminal_and_the_left_out_columns_are_named(
    db: Path, width: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", str(width))
    shown = report(db)
    assert max(len(line) for line in shown.splitlines()) <= width
    assert "left out to fit" in shown
    assert "--wide shows every column" in " ".join(shown.split())
    # The columns that are never left out.
    for heading in ("policy", "accuracy"):
        assert heading in shown


def test_wide_shows_every_column_the_html_report_has(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    shown = report(db, "--wide")
    assert "left out" not in shown
    for heading in ("exact accuracy", "field precision", "total cost $", "p99 ms"):
        assert heading in shown


def test_lowest_priority_goes_first_and_a_wide_terminal_loses_nothing() -> None:
    trials = [trial(f"c{i}", policy) for i in range(4) for policy in ("a", "b")]
    metrics = summarize(trials)
    roomy = fit(SUMMARY_COLUMNS, metrics, 400)
    assert roomy.dropped == []
    assert not roomy.stack
    narrow = fit(SUMMARY_COLUMNS, metrics, 90)
    assert narrow.stack
    assert narrow.dropped
    assert narrow.dropped[0].name == "p99 ms"
    kept = [column.name for column, _ in narrow.shown]
    assert kept[:2] == ["policy", "accuracy"]
    assert all(column.drop >= kept_column.drop for column in narrow.dropped
               for kept_column, _ in narrow.shown)  # fmt: skip
