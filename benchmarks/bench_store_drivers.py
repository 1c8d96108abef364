"""The PostgreSQL store's driver: psycopg 3 (the one used) against asyncpg, writing and reading.

Run on demand (asyncpg is not a dependency; uv brings it for the run):

    uv run --extra postgres --with asyncpg python benchmarks/bench_store_drivers.py
        [--db postgresql://...] [--rows 20000] [--rounds 3]

Without ``--db`` a throwaway PostgreSQL server is started on loopback from
the binaries installed here, with its durable defaults (fsync on). Rows are the size
of a gateway's: a ``pairs`` line of about 2 KB and a decision of about 300
bytes. Writing is the writer's path: batches of 256 in one transaction each,
``INSERT ... ON CONFLICT DO NOTHING``: psycopg through ``PostgresExchanges.insert``
itself (``executemany``, which psycopg pipelines), asyncpg through its own
``executemany`` in a transaction. Reading is ``agent-lab shadow``'s: every row
through a server-side cursor. Each driver runs in alternating rounds on an
emptied table; the table gives the median rows per second.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agent_lab.exchange_stores import NewRow, open_exchanges

BATCH = 256
# The time goes as text, as psycopg sends it: asyncpg would take only a datetime for a
# timestamptz parameter.
_INSERT = (
    "INSERT INTO agent_lab_exchanges (request_id, at, origin, status, line, decision, worker) "
    "VALUES ($1, $2::text::timestamptz, $3, $4, $5, $6, $7) ON CONFLICT (request_id) DO NOTHING"
)


def _rows(count: int, round_: int) -> list[NewRow]:
    messages = [{"role": "user", "content": "book a table for two at 7 pm " * 8}] * 6
    line = json.dumps({"request": {"model": "m", "messages": messages}, "latency_ms": 812.5})
    decision = json.dumps({"covered": True, "agreed": True, "tool": "book", "rule": None} | {
        "arguments": {"party_size": 2, "time": "19:00", "restaurant": "x" * 180}
    })  # fmt: skip
    return [
        NewRow(
            request_id=f"{round_}-{n}",
            at="2026-12-07T10:00:00.000+00:00",
            origin="upstream",
            status=200,
            line=line,
            decision=decision,
            worker=1,
        )
        for n in range(count)
    ]


def _empty(address: str) -> None:
    import psycopg

    with psycopg.connect(address, autocommit=True) as connection:
        connection.execute("TRUNCATE agent_lab_exchanges")


def _psycopg_write(address: str, rows: list[NewRow]) -> float:
    table = open_exchanges(address, create=True)
    started = time.perf_counter()
    for start in range(0, len(rows), BATCH):
        table.insert(rows[start : start + BATCH])
    took = time.perf_counter() - started
    table.close()
    return len(rows) / took


def _psycopg_read(address: str) -> float:
    table = open_exchanges(address, create=False)
    started = time.perf_counter()
    count = sum(1 for _ in table.rows())
    took = time.perf_counter() - started
    table.close()
    return count / took


async def _asyncpg_write(asyncpg: Any, address: str, rows: list[NewRow]) -> float:
    connection = await asyncpg.connect(address)
    values = [(r.request_id, r.at, r.origin, r.status, r.line, r.decision, r.worker) for r in rows]
    started = time.perf_counter()
    for start in range(0, len(values), BATCH):
        async with connection.transaction():
            await connection.executemany(_INSERT, values[start : start + BATCH])
    took = time.perf_counter() - started
    await connection.close()
    return len(rows) / took


async def _asyncpg_read(asyncpg: Any, address: str) -> float:
    connection = await asyncpg.connect(address)
    started = time.perf_counter()
    count = 0
    async with connection.transaction():
        async for _ in connection.cursor(
            "SELECT id, line, decision FROM agent_lab_exchanges WHERE origin = 'upstream' "
            "ORDER BY id",
            prefetch=1000,
        ):
            count += 1
    took = time.perf_counter() - started
    await connection.close()
    return count / took


def _measure(address: str, rows: int, rounds: int) -> dict[str, dict[str, list[float]]]:
    asyncpg = importlib.import_module("asyncpg")
    figures: dict[str, dict[str, list[float]]] = {
        "psycopg": {"write": [], "read": []},
        "asyncpg": {"write": [], "read": []},
    }
    open_exchanges(address, create=True).close()
    for round_ in range(rounds):
        for driver in ("psycopg", "asyncpg") if round_ % 2 == 0 else ("asyncpg", "psycopg"):
            _empty(address)
            batch = _rows(rows, round_)
            if driver == "psycopg":
                figures[driver]["write"].append(_psycopg_write(address, batch))
                figures[driver]["read"].append(_psycopg_read(address))
            else:
                figures[driver]["write"].append(
                    asyncio.run(_asyncpg_write(asyncpg, address, batch))
                )
                figures[driver]["read"].append(asyncio.run(_asyncpg_read(asyncpg, address)))
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--db", help="a PostgreSQL database (default: a throwaway server)")
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=3)
    options = parser.parse_args()
    server = None
    address = options.db
    if address is None:
        from tests.postgres_server import PostgresServer, postgres_binaries

        binaries = postgres_binaries()
        if binaries is None:
            raise SystemExit("no PostgreSQL server installed here: give --db")
        server = PostgresServer(binaries, durable=True)
        server.start()
        address = server.new_database()
    try:
        figures = _measure(address, options.rows, options.rounds)
    finally:
        if server is not None:
            server.close()
    print(
        f"{options.rows:,} rows of a gateway's size, batches of {BATCH}, median of {options.rounds}"
    )
    print("| driver | rows written/s | rows read/s |")
    print("| --- | ---: | ---: |")
    for driver, measured in figures.items():
        write, read = statistics.median(measured["write"]), statistics.median(measured["read"])
        print(f"| {driver} | {write:,.0f} | {read:,.0f} |")


if __name__ == "__main__":
    main()
