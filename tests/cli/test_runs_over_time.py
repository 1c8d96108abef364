"""``agent-lab runs`` and two-run ``compare``, end to end through the CLI on a real store."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from agent_lab.cli import run


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    """The same 40 cases, first with an ideal simulated model, then with one that errs."""
    db = tmp_path_factory.mktemp("runs") / "r.sqlite"
    common = ("run", "demo", "--plugins", "agent_lab.demo:plugins", "--limit", "40",
              "--db", str(db), "--no-progress", "--simulated-latency", "1,2",
              "--provider", "simulated")  # fmt: skip
    assert cli(*common)[0] == 0
    assert cli(*common, "--llm-error", "wrong_value=0.6")[0] == 0
    code, shown, _ = cli("runs", str(db), "--json")
    assert code == 0
    first, second = json.loads(shown)
    return db, first["run_id"], second["run_id"]


def test_runs_lists_every_run_with_what_it_ran(two_runs: tuple[Path, str, str]) -> None:
    db, first, second = two_runs
    code, shown, _ = cli("runs", str(db), "--json")
    assert code == 0
    rows = json.loads(shown)
    assert [r["run_id"] for r in rows] == [first, second]
    assert {r["profile"] for r in rows} == {"ideal", "ideal+overrides"}
    assert all(r["state"] == "finished" and r["trials"] > 0 for r in rows)
    assert all(r["policies"] == ["deterministic-first", "llm-always", "deterministic-only"]
               for r in rows)  # fmt: skip
    code, table, _ = cli("runs", str(db))
    assert code == 0
    assert first in table


def test_two_runs_are_compared_by_case_and_a_real_change_is_named(
    two_runs: tuple[Path, str, str],
) -> None:
    db, first, second = two_runs
    code, shown, err = cli("compare", str(db), first, second, "--json")
    assert code == 0, err
    figures = json.loads(shown)
    assert (figures["before"], figures["after"]) == (first, second)
    by = {(c["policy"], c["metric"]): c for c in figures["changes"]}
    accuracy = by["llm-always", "accuracy"]
    assert accuracy["ratio"]["value"] < 1
    assert accuracy["significant"]
    assert accuracy["cases"] >= 30  # a stratified sample of about 40
    assert not by["deterministic-only", "accuracy"]["significant"]  # no LLM: nothing changed
    code, text, _ = cli("compare", str(db), first, second)
    assert code == 0
    assert "* llm-always accuracy" in text
    assert "a real change" in text


@pytest.mark.parametrize(
    "argv",
    [
        ["compare", "{db}", "{first}", "nope"],
        ["compare", "{db}", "{first}"],
        ["compare", "{db}", "{first}", "{second}", "--baseline", "llm-always"],
        ["compare", "{db}"],
        ["compare", "{db}", "--baseline", "no-such-policy"],
        ["runs", "{db}.missing"],
    ],
)
def test_bad_run_ids_and_policies_exit_2(two_runs: tuple[Path, str, str], argv: list[str]) -> None:
    db, first, second = two_runs
    filled = [a.format(db=db, first=first, second=second) for a in argv]
    code, _, err = cli(*filled)
    assert code == 2
    assert err.strip()
