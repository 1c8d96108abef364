"""Gateways on one PostgreSQL store: trust shared by replicas, an outage, shadow's figures.

The server is a real PostgreSQL on loopback (``tests/postgres_server.py``);
the replicas are ``agent-lab serve`` processes, or a gateway served in this
process where its writer's counts are read.
"""

from __future__ import annotations

import pytest

pytest.importorskip("prometheus_client", reason="the gateway extra is not installed")

import json
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from agent_lab.gateway import GatewaySettings
from tests.gateway.conftest import COVERED, TOOLS, user
from tests.gateway.process import output, serve
from tests.gateway.running import serving
from tests.gateway.test_shadow_store import TALKS, answer, cli, comparable, send
from tests.openai_server import OpenAIServer
from tests.postgres_server import PostgresServer

pytestmark = pytest.mark.usefixtures("postgres")

BODY: dict[str, Any] = {"model": "m", "messages": user(COVERED), "tools": TOOLS}


def stored(address: str, since: datetime | None = None) -> int:
    import psycopg

    with psycopg.connect(address) as connection:
        found = connection.execute(
            "SELECT count(*) FROM agent_lab_exchanges WHERE %s::timestamptz IS NULL OR at >= %s",
            (since, since),
        ).fetchone()
    assert found is not None
    return int(found[0])


def test_a_tool_trusted_from_one_replicas_records_is_answered_locally_by_the_other(
    upstream: OpenAIServer, postgres: PostgresServer
) -> None:
    """Replica one only shadows; replica two, which forwarded the tool before, then trusts it."""
    database = postgres.new_database()
    upstream.default = answer("get_weather", {"city": "Paris"})
    shared = ("--upstream", upstream.url, "--db", database, "--trust-refresh", "0.2")
    enforcing = ("--mode", "enforce", "--min-agreement", "0.9")
    with serve(*shared) as (one, _, _), serve(*shared, *enforcing) as (two, _, said):
        before = httpx.post(f"{two}/v1/chat/completions", json=BODY, timeout=10)
        assert "x-agent-lab-answered" not in before.headers  # nothing earned yet
        for _ in range(40):  # 35 agreeing of 35 is the fewest whose bound clears 0.9
            assert httpx.post(f"{one}/v1/chat/completions", json=BODY, timeout=10).is_success
        forwarded = len(upstream.requests)
        deadline = time.monotonic() + 30
        while True:
            after = httpx.post(f"{two}/v1/chat/completions", json=BODY, timeout=10)
            if after.headers.get("x-agent-lab-answered") == "local":
                break
            assert time.monotonic() < deadline, output(said)
            forwarded = len(upstream.requests)
            time.sleep(0.1)
        called = after.json()["choices"][0]["message"]["tool_calls"][0]["function"]
        assert (called["name"], json.loads(called["arguments"])["city"]) == ("get_weather", "Paris")
        assert len(upstream.requests) == forwarded  # the local answer reached no model
    # The first request, the 40 shadowed, and one more for each refresh of trust that had
    # not landed yet when replica two was asked (a loaded machine is slower to refresh).
    assert forwarded >= 41


def test_the_database_stopped_mid_run_loses_only_records_in_flight_and_no_request(
    upstream: OpenAIServer, postgres_to_stop: PostgresServer
) -> None:
    """Every request is answered; every record is stored or counted dropped; writes resume."""
    database = postgres_to_stop.address
    upstream.default = answer("get_weather", {"city": "Paris"})
    settings = GatewaySettings(upstream=upstream.url, db=database, store_queue=8)
    sent = 0
    with serving(settings) as served:
        for _ in range(10):
            send(served, COVERED, stream=False)
            sent += 1
        served.flush()
        postgres_to_stop.stop("immediate")
        for number in range(60):
            send(served, COVERED, stream=number % 2 == 1)  # every answer a 200
            sent += 1
        postgres_to_stop.start()
        served.flush(timeout=60)
        back = datetime.now(UTC)
        for _ in range(10):
            send(served, COVERED, stream=False)
            sent += 1
        served.flush(timeout=60)
        store = served.gateway.store
        assert store is not None
        written, dropped = store.written.value, store.dropped.value
    assert written + dropped == sent
    assert stored(database) == written
    assert dropped > 0  # the queue (8) filled while the database was down
    assert stored(database, since=back) == 10  # the writer is back


def test_shadow_reads_a_postgresql_store_as_it_reads_the_same_traffic_in_sqlite(
    upstream: OpenAIServer, postgres: PostgresServer, tmp_path: Path
) -> None:
    database = postgres.new_database()
    sqlite = tmp_path / "gateway.sqlite"
    for store in (str(sqlite), database):
        upstream.script = [answer(name, arguments) for _, name, arguments, _ in TALKS]
        with serving(GatewaySettings(upstream=upstream.url, db=store)) as served:
            for text, _, _, stream in TALKS:
                send(served, text, stream=stream)
            served.flush()
    from_sqlite = json.loads(cli("shadow", str(sqlite), "--json"))
    from_postgres = json.loads(cli("shadow", database, "--json"))
    assert from_postgres["calls"] == 5
    assert comparable(from_postgres) == comparable(from_sqlite)
    window = ("--since", "2026-01-01", "--until", "2999-01-01T00:00+01:00")
    assert comparable(json.loads(cli("shadow", database, *window, "--json"))) == comparable(
        json.loads(cli("shadow", str(sqlite), *window, "--json"))
    )
    for store in (str(sqlite), database):
        later = json.loads(cli("shadow", store, "--since", "2999-01-01", "--json"))
        assert later["requests"] == 0


def test_a_database_that_holds_every_write_up_holds_no_request_up(
    upstream: OpenAIServer, postgres: PostgresServer
) -> None:
    """The table locked by another session: answers go on, records past the queue are counted."""
    import psycopg

    database = postgres.new_database()
    upstream.default = answer("get_weather", {"city": "Paris"})
    settings = GatewaySettings(upstream=upstream.url, db=database, store_queue=8)
    sent = 0
    with serving(settings) as served:
        send(served, COVERED, stream=False)
        sent += 1
        served.flush()
        blocker = psycopg.connect(database)
        blocker.execute("LOCK TABLE agent_lab_exchanges IN ACCESS EXCLUSIVE MODE")
        try:
            for _ in range(40):
                started = time.monotonic()
                send(served, COVERED, stream=False)
                sent += 1
                # Each answer comes while every write waits (up to its 10 s timeout).
                assert time.monotonic() - started < 5
            store = served.gateway.store
            assert store is not None
            assert store.dropped.value > 0  # the queue (8) is full behind the locked write
        finally:
            blocker.rollback()
            blocker.close()
        served.flush(timeout=60)
        written, dropped = store.written.value, store.dropped.value
    assert written + dropped == sent
    assert stored(database) == written
