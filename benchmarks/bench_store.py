"""SQLite against DuckDB for the results store: trial inserts and the report's aggregate query.

Run on demand:

    uv run --group bench python benchmarks/bench_store.py

The runner writes each trial as it ends, committing small batches; the report
aggregates per policy. Both engines get the same rows and the same query.
"""

from __future__ import annotations

import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb

ROWS = 20_000
BATCH = 64  # trials per commit, as the runner's writer commits them
SCHEMA = (
    "CREATE TABLE trials (run_id TEXT, case_id TEXT, policy TEXT, repeat INTEGER, status TEXT, "
    "llm_calls INTEGER, prompt_tokens INTEGER, cost DOUBLE, latency_ns BIGINT, arguments TEXT, "
    "PRIMARY KEY (run_id, case_id, policy, repeat))"
)
QUERY = (
    "SELECT policy, count(*), avg(llm_calls), avg(latency_ns), sum(cost) "
    "FROM trials WHERE run_id = 'r' GROUP BY policy"
)


def rows() -> list[tuple[object, ...]]:
    rng = random.Random(0)
    return [
        (
            "r",
            f"case-{n // 3}",
            ("det", "llm", "only")[n % 3],
            0,
            "success",
            rng.randint(0, 2),
            rng.randint(0, 900),
            rng.random() / 1000,
            rng.randint(10**4, 10**9),
            '{"a": 1}',
        )
        for n in range(ROWS)
    ]


def measure(name: str, connect: Callable[[Path], Any], insert_sql: str) -> tuple[float, float]:
    data = rows()
    with tempfile.TemporaryDirectory() as folder:
        connection: Any = connect(Path(folder) / "store")
        connection.execute(SCHEMA)
        started = time.perf_counter()
        for start in range(0, ROWS, BATCH):
            connection.executemany(insert_sql, data[start : start + BATCH])
            connection.commit()
        insert_rate = ROWS / (time.perf_counter() - started)
        timings: list[float] = []
        for _ in range(20):
            started = time.perf_counter()
            connection.execute(QUERY).fetchall()
            timings.append(time.perf_counter() - started)
        connection.close()
    return insert_rate, statistics.median(timings) * 1000


def sqlite_connect(path: Path) -> sqlite3.Connection:
    connection = sqlite3.connect(path.with_suffix(".sqlite"))
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("PRAGMA synchronous=NORMAL")
    return connection


def duckdb_connect(path: Path) -> duckdb.DuckDBPyConnection:
    return duckdb.connect(str(path.with_suffix(".duckdb")))


def main() -> int:
    placeholders = ", ".join("?" * 10)
    results = {
        "sqlite": measure("sqlite", sqlite_connect, f"INSERT INTO trials VALUES ({placeholders})"),
        "duckdb": measure("duckdb", duckdb_connect, f"INSERT INTO trials VALUES ({placeholders})"),
    }
    print(
        f"{ROWS} trials, committed {BATCH} at a time; then the per-policy aggregate, median of 20"
    )
    print(f"{'engine':<8} {'inserts/s':>12} {'query ms':>10}")
    for engine, (rate, query_ms) in results.items():
        print(f"{engine:<8} {rate:>12,.0f} {query_ms:>10.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
