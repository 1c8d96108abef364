"""Gateway replicas on one PostgreSQL store against one gateway on its SQLite file.

Run on demand (PostgreSQL's server programs installed here; the postgres extra):

    uv run --extra postgres python benchmarks/bench_replicas.py [--requests 20000]

The fake upstream, the client and the request are ``bench_gateway.py``'s. A
PostgreSQL server of the run's own starts on loopback with its durable
defaults (fsync on), as SQLite's store keeps its own (WAL, synchronous
NORMAL). Three set-ups, one worker per replica:

* one replica, its store a SQLite file (the embedded default);
* one replica, its store in PostgreSQL;
* two replicas on one PostgreSQL database, the client's connections split
  between them, as a load balancer would.

For each: locally answered requests a second at concurrency 64 (enforce,
the tool trusted), with their latency p50 and p99; and the latency a
replica adds to a forwarded request at concurrency 1 (shadow mode, its
record written), p50 and p99, against the upstream asked directly. The
rows each store holds at the end are counted: every request is one, unless
the writer's queue dropped it (said in the last column). Everything shares
the machine's two cores: the upstream, the replicas, their writers, the
database and the client.
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bench_gateway import (
    free_port,
    gateway,
    load,
    one_connection,
    percentile,
    start,
    stop,
)


def load_split(ports: list[int], total: int, concurrency: int) -> tuple[list[int], float, int]:
    """``load`` with the connections dealt over ``ports`` in turn."""
    latencies: list[int] = []
    local: list[int] = []

    async def everything() -> None:
        share = total // concurrency
        await asyncio.gather(
            *(
                one_connection(ports[n % len(ports)], share, latencies, local)
                for n in range(concurrency)
            )
        )

    started = time.perf_counter()
    asyncio.run(everything())
    return latencies, time.perf_counter() - started, sum(local)


def stored(store: str) -> int:
    if store.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(store) as connection:
            found = connection.execute("SELECT count(*) FROM agent_lab_exchanges").fetchone()
        return int(found[0]) if found else 0
    with sqlite3.connect(store) as connection:
        return int(connection.execute("SELECT count(*) FROM exchanges").fetchone()[0])


def settle(store: str, expected: int, seconds: float = 60) -> int:
    """The rows stored once the writers have caught up (or stopped growing)."""
    deadline = time.monotonic() + seconds
    count = -1
    while time.monotonic() < deadline:
        now = stored(store)
        if now >= expected or now == count:
            return now
        count = now
        time.sleep(1)
    return stored(store)


def measure(name: str, upstream: int, stores: list[str], total: int) -> str:
    """One set-up: a replica per store address given (the same address: one shared store)."""
    enforce = ("--mode", "enforce", "--enforce", "get_weather")
    replicas = [gateway(upstream, *enforce, "--db", store) for store in stores]
    ports = [port for port, _ in replicas]
    try:
        warm, _, _ = load_split(ports, 1000, 64)  # warm-up
        latencies, seconds, local = load_split(ports, total, 64)
    finally:
        for _, process in replicas:
            stop(process)
    assert local == len(latencies), "a covered request was forwarded"
    shadows = [gateway(upstream, "--db", store) for store in stores]
    try:
        load(upstream, 500, 1)
        warmed, _, _ = load_split([port for port, _ in shadows], 500, 1)
        direct, _, _ = load(upstream, total // 10, 1)
        through, _, _ = load_split([port for port, _ in shadows], total // 10, 1)
    finally:
        for _, process in shadows:
            stop(process)
    sent = len(warm) + len(latencies) + len(warmed) + len(through)  # all through a replica
    kept = sum(settle(store, sent) for store in dict.fromkeys(stores))
    return (
        f"| {name} | {local / seconds:,.0f} | {percentile(latencies, 0.5):.2f} / "
        f"{percentile(latencies, 0.99):.2f} | "
        f"{percentile(through, 0.5) - percentile(direct, 0.5):.2f} / "
        f"{percentile(through, 0.99) - percentile(direct, 0.99):.2f} | {kept:,} of {sent:,} |"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--requests", type=int, default=20_000, help="local answers per set-up")
    options = parser.parse_args()
    from tests.postgres_server import PostgresServer, postgres_binaries

    binaries = postgres_binaries()
    if binaries is None:
        raise SystemExit("no PostgreSQL server installed here (initdb, pg_ctl)")
    upstream = free_port()
    server = start(
        [
            sys.executable,
            str(Path(__file__).parent / "bench_gateway.py"),
            "--upstream-server",
            str(upstream),
        ],
        upstream,
    )
    database = PostgresServer(binaries, durable=True)
    database.start()
    rows = [
        "| set-up | local answers/s, concurrency 64 | their latency p50 / p99 ms | added to a "
        "forwarded request p50 / p99 ms, concurrency 1 | rows stored |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    try:
        with tempfile.TemporaryDirectory() as folder:
            sqlite = str(Path(folder) / "gateway.sqlite")
            one, two = database.new_database(), database.new_database()
            for name, stores in (
                ("one replica, SQLite", [sqlite]),
                ("one replica, PostgreSQL", [one]),
                ("two replicas, one PostgreSQL", [two, two]),
            ):
                rows.append(measure(name, upstream, stores, options.requests))
                print(rows[-1], flush=True)
    finally:
        stop(server)
        database.close()
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
