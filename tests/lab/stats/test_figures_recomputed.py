"""Every accuracy, call rate and interval `report --json` prints, recomputed from the rows alone.

The store keeps what a figure needs: the expected event, arguments and
alternatives, the outcome. This test reads the rows with sqlite3 directly,
scores each trial with its own few-line matcher, and recomputes each figure
independently of agent-lab's code.
"""

from __future__ import annotations

import io
import json
import math
import random
import sqlite3
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import pytest

from agent_lab.cli import run


def same(a: Any, b: Any) -> bool:
    """JSON equality with JSON types: true is not 1, 1 is not 1.0."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        left, other = cast("dict[str, Any]", a), cast("dict[str, Any]", b)
        return left.keys() == other.keys() and all(same(left[k], other[k]) for k in left)
    if isinstance(a, list):
        items, others = cast("list[Any]", a), cast("list[Any]", b)
        return len(items) == len(others) and all(
            same(x, y) for x, y in zip(items, others, strict=True)
        )
    return bool(a == b)


def right(row: sqlite3.Row) -> bool:
    expected, status, event = row["expected_status"], row["status"], row["event"]
    declined = status == "unknown_event" and event is None
    if expected == "unknown_event":
        return declined
    if expected == "missing_information":
        return declined or (status == expected and event in (row["expected_event"], None))
    if expected != "success":
        return status == expected and event == row["expected_event"]
    if status != "success" or event != row["expected_event"]:
        return False
    given = json.loads(row["arguments"])
    if row["alternatives"] is None:
        return same(given, json.loads(row["expected"]))
    options = json.loads(row["alternatives"])
    return set(given) <= set(options) and all(
        any(same(given[k], o) for o in opts) if k in given else "" in opts
        for k, opts in options.items()
    )


def wilson(k: float, n: int) -> tuple[float, float]:
    z = 1.959963984540054
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def bootstrap(case_means: list[float]) -> tuple[float, float]:
    rng = random.Random(12345)
    n = len(case_means)
    draws = sorted(sum(rng.choice(case_means) for _ in range(n)) / n for _ in range(1000))
    return draws[25], draws[974]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], Path]:
    db = tmp_path_factory.mktemp("figures") / "r.sqlite"
    argv = [
        "run", "demo", "--plugins", "agent_lab.demo:plugins", "--limit", "60", "--repeats", "2",
        "--db", str(db), "--provider", "simulated", "--llm-profile", "typical",
        "--simulated-latency", "1,2", "--no-progress",
    ]  # fmt: skip
    assert run(argv, stdout=io.StringIO(), stderr=io.StringIO()) == 0
    out = io.StringIO()
    assert run(["report", str(db), "--json"], stdout=out, stderr=io.StringIO()) == 0
    return json.loads(out.getvalue()), db


def test_every_trial_is_scored_as_an_independent_matcher_scores_it(
    recorded: tuple[dict[str, Any], Path],
) -> None:
    _, db = recorded
    connection = sqlite3.connect(db)
    connection.row_factory = sqlite3.Row
    rows = connection.execute("SELECT * FROM trials WHERE warmup = 0").fetchall()
    assert rows
    assert [bool(r["correct"]) for r in rows] == [right(r) for r in rows]


def test_every_accuracy_call_rate_and_interval_is_recomputed(
    recorded: tuple[dict[str, Any], Path],
) -> None:
    figures, db = recorded
    connection = sqlite3.connect(db)
    connection.row_factory = sqlite3.Row
    by_policy: dict[str, dict[str, list[sqlite3.Row]]] = defaultdict(lambda: defaultdict(list))
    for row in connection.execute("SELECT * FROM trials WHERE warmup = 0"):
        by_policy[row["policy"]][row["case_id"]].append(row)
    assert {p["policy"] for p in figures["policies"]} == set(by_policy)
    for printed in figures["policies"]:
        cases = by_policy[printed["policy"]]
        readers: list[tuple[str, Callable[[sqlite3.Row], float]]] = [
            ("accuracy", lambda r: float(right(r))),
            ("llm_calls_per_trial", lambda r: float(r["llm_calls"])),
            ("fallback_rate", lambda r: float(r["llm_calls"] > 0)),
        ]
        for name, read in readers:
            means = [sum(read(r) for r in rows) / len(rows) for rows in cases.values()]
            value = sum(means) / len(means)
            shown = printed[name]
            assert shown["value"] == pytest.approx(value), name
            assert shown["n"] == len(cases)
            if name != "llm_calls_per_trial" and value in (0.0, 1.0):
                assert (shown["low"], shown["high"]) == pytest.approx(
                    wilson(value * len(means), len(means))
                )
            else:
                low, high = bootstrap(means)
                assert shown["low"] <= value <= shown["high"]
                assert shown["low"] == pytest.approx(low, abs=0.04), name
                assert shown["high"] == pytest.approx(high, abs=0.04), name
    decline = next(r for r in figures["references"] if r["name"] == "always-decline")
    expected = {
        row["case_id"]: row["expected_status"]
        for row in connection.execute("SELECT case_id, expected_status FROM trials")
    }
    share = sum(s in ("unknown_event", "missing_information") for s in expected.values()) / len(
        expected
    )
    assert decline["accuracy"]["value"] == pytest.approx(share)
