"""SGD's dialogue variant end to end: import, precision by source, a run of every policy."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from tests.cli.test_cli import FAST, cli
from tests.conftest import corpus


def test_the_dialogue_variant_runs_through_the_lab(tmp_path: Path) -> None:
    """Conversations in, calls out: plain code answers some with no request, the rest a model."""
    out = tmp_path / "sgd-dev"
    code, _, _ = cli("import", "sgd", str(corpus("sgd", "dev")), "--out", str(out))
    assert code == 0
    workload = out / "workload-dialogue.jsonl"
    code, shown, _ = cli("precision", str(workload), "--plugins", str(out), "--json")
    assert code == 0
    sources = {row["source"] for row in json.loads(shown)["by_kind_and_source"]}
    assert {"conversation", "message", "summary"} <= sources
    lines = workload.read_text(encoding="utf-8").splitlines()
    sample = tmp_path / "sample.jsonl"
    sample.write_text("\n".join(lines[::4]) + "\n", encoding="utf-8")
    db = tmp_path / "sgd.sqlite"
    code, _, err = cli("run", str(sample), "--plugins", str(out), "--db", str(db), *FAST)
    assert code == 0, err
    with sqlite3.connect(db) as connection:
        rows = connection.execute(
            "SELECT policy, llm_calls, correct, status FROM trials WHERE warmup = 0"
        ).fetchall()
    by_policy: dict[str, list[tuple[int, int, str]]] = {}
    for policy, calls, correct, status in rows:
        by_policy.setdefault(policy, []).append((calls, correct, status))
    assert {policy: len(trials) for policy, trials in by_policy.items()} == {
        "deterministic-first": len(lines[::4]),
        "llm-always": len(lines[::4]),
        "deterministic-only": len(lines[::4]),
    }
    assert all(calls == 1 for calls, _, _ in by_policy["llm-always"])
    assert all(calls == 0 for calls, _, _ in by_policy["deterministic-only"])
    plain = [correct for calls, correct, _ in by_policy["deterministic-first"] if calls == 0]
    assert plain  # some conversations need no model at all
    assert all(status != "error" for trials in by_policy.values() for _, _, status in trials)
    code, shown, _ = cli("report", str(db))
    assert code == 0
    assert "deterministic-first answered" in shown
