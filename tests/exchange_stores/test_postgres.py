"""The PostgreSQL store against a real server: its schema, its writes, its followers, its errors."""

from __future__ import annotations

import dataclasses
import json
import threading
from datetime import UTC, datetime
from typing import Any

import pytest

from agent_lab.errors import InputFileError, StoreError, StoreUnavailableError
from agent_lab.exchange_stores import NewRow, TimeWindow, open_exchanges, safe_name
from tests.postgres_server import PostgresServer

pytestmark = pytest.mark.usefixtures("postgres")


def row(name: str, *, second: int = 0, line: str = "{}", origin: str = "upstream") -> NewRow:
    return NewRow(
        request_id=name,
        at=f"2026-12-07T10:00:{second:02d}.000+00:00",
        origin=origin,
        status=200,
        line=line,
        decision=json.dumps({"name": name}),
        worker=1,
    )


def names(follower: Any) -> list[str]:
    """The requests whose decisions ``follower`` gives now."""
    return [json.loads(stored.decision)["name"] for stored in follower.new_decisions()]


@pytest.fixture
def database(postgres: PostgresServer) -> str:
    return postgres.new_database()


def connect(address: str) -> Any:
    import psycopg

    return psycopg.connect(address, autocommit=True)


def test_the_schema_is_created_at_its_version_once_however_many_replicas_start_together(
    database: str,
) -> None:
    from agent_lab.exchange_stores.postgres import MIGRATIONS

    failures: list[BaseException] = []

    def start() -> None:
        try:
            open_exchanges(database, create=True).close()
        except BaseException as err:
            failures.append(err)

    threads = [threading.Thread(target=start) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    with connect(database) as connection:
        versions = connection.execute("SELECT version FROM agent_lab_schema").fetchall()
        assert versions == [(len(MIGRATIONS),)]


def test_an_older_schema_is_brought_up_to_date_and_a_newer_one_refused(database: str) -> None:
    from agent_lab.exchange_stores.postgres import PostgresExchanges

    PostgresExchanges(database, create=True, schema=0).close()
    with connect(database) as connection:
        assert connection.execute("SELECT to_regclass('agent_lab_exchanges')").fetchone() == (None,)
    table = open_exchanges(database, create=True)
    table.insert([row("a")])
    table.close()
    with connect(database) as connection:
        connection.execute("UPDATE agent_lab_schema SET version = 99")
    for create in (True, False):
        with pytest.raises(StoreError, match="version 99, newer than this agent-lab's"):
            open_exchanges(database, create=create)


def test_a_database_without_a_store_is_no_log(postgres: PostgresServer, database: str) -> None:
    with pytest.raises(StoreError, match="holds no agent-lab gateway store"):
        open_exchanges(database, create=False)
    from agent_lab.logs.reader import read_logs

    with pytest.raises(InputFileError, match="holds no agent-lab gateway store"):
        list(read_logs([database]))


def test_a_request_stored_twice_is_one_row_and_a_refused_row_loses_only_itself(
    database: str,
) -> None:
    table = open_exchanges(database, create=True)
    assert table.insert([row("a"), row("b")]) == 0
    assert table.insert([row("a"), row("c")]) == 0  # a retry after an ambiguous failure
    # Text PostgreSQL cannot hold (a lone surrogate is no UTF-8): that row alone is refused.
    assert table.insert([row("bad", line="{\ud800}"), row("d")]) == 1
    assert [stored.line for stored in table.rows()] == ["{}"] * 4
    with connect(database) as connection:
        names = connection.execute("SELECT request_id FROM agent_lab_exchanges ORDER BY id")
        assert [name for (name,) in names] == ["a", "b", "c", "d"]
    table.close()


def test_rows_in_a_time_window_upstream_answers_only(database: str) -> None:
    table = open_exchanges(database, create=True)
    table.insert([row(f"r{second}", second=second) for second in range(6)])
    table.insert([row("local", second=3, origin="local")])
    window = TimeWindow(
        datetime(2026, 12, 7, 10, 0, 2), datetime(2026, 12, 7, 10, 0, 4, tzinfo=UTC)
    )
    assert [stored.id for stored in table.rows(window)] == [3, 4]
    assert [stored.id for stored in table.rows(TimeWindow(since=window.until))] == [5, 6]
    assert len(list(table.rows())) == 6
    table.close()


def test_a_follower_gives_each_row_once_though_replicas_commit_out_of_order(
    database: str,
) -> None:
    """A row numbered below one already read, committed after it, is still given (once)."""
    table = open_exchanges(database, create=True)
    follower = open_exchanges(database, create=False).follower()
    late = connect(database)
    late.autocommit = False
    late.execute(
        "INSERT INTO agent_lab_exchanges (request_id, at, origin, status, line, decision, worker) "
        """VALUES ('late', now(), 'upstream', 200, '{}', '{"name": "late"}', 2)"""
    )  # numbered first, not committed yet
    table.insert([row("early"), dataclasses.replace(row("undecided"), decision=None)])
    assert names(follower) == ["early"]
    late.commit()
    late.close()
    assert names(follower) == ["late"]
    table.insert([row("next"), row("local", origin="local")])
    assert names(follower) == ["next"]
    assert names(follower) == []
    follower.close()
    table.close()


def test_a_password_is_never_said(postgres: PostgresServer) -> None:
    address = postgres.database("no_such_database").replace("agent_lab@", "agent_lab:s3cr3t@")
    assert "s3cr3t" not in safe_name(address)
    with pytest.raises(StoreError) as raised:
        open_exchanges(address, create=True)
    assert "s3cr3t" not in str(raised.value)
    assert "no_such_database" in str(raised.value)


def test_a_database_down_is_unavailable_and_the_same_table_writes_once_it_is_back(
    postgres_to_stop: PostgresServer,
) -> None:
    outage = postgres_to_stop
    table = open_exchanges(outage.address, create=True)
    follower = open_exchanges(outage.address, create=False).follower()
    table.insert([row("before")])
    assert names(follower) == ["before"]
    outage.stop("immediate")
    with pytest.raises(StoreUnavailableError):
        table.insert([row("during")])
    with pytest.raises(StoreUnavailableError):
        names(follower)
    outage.start()
    assert table.insert([row("after")]) == 0
    assert names(follower) == ["after"]
    follower.close()
    table.close()


def test_a_store_already_up_to_date_is_used_by_a_role_that_may_only_read_and_write_rows(
    database: str,
) -> None:
    """No CREATE right is needed once the schema is there (a least-privilege replica)."""
    open_exchanges(database, create=True).close()
    with connect(database) as connection:
        connection.execute("CREATE ROLE replica LOGIN")
        connection.execute("REVOKE CREATE ON SCHEMA public FROM PUBLIC")
        connection.execute("GRANT SELECT ON agent_lab_schema TO replica")
        connection.execute("GRANT SELECT, INSERT ON agent_lab_exchanges TO replica")
    as_replica = database.replace("agent_lab@", "replica@")
    table = open_exchanges(as_replica, create=True)
    assert table.insert([row("a")]) == 0
    table.close()
    with connect(database) as connection:
        connection.execute("REVOKE INSERT ON agent_lab_exchanges FROM replica")
    table = open_exchanges(as_replica, create=True)
    with pytest.raises(StoreUnavailableError, match="permission denied"):
        table.insert([row("b")])  # a fault of the database's: dropped, counted, never refused
    table.close()


def test_a_table_of_the_same_name_not_made_by_agent_lab_is_left_alone(database: str) -> None:
    with connect(database) as connection:
        connection.execute("CREATE TABLE agent_lab_exchanges (mine text)")
    with pytest.raises(StoreError, match="that agent-lab did not make"):
        open_exchanges(database, create=True)


def test_replicas_migrate_once_under_repeatable_read_as_the_database_default(
    database: str,
) -> None:
    with connect(database) as connection:
        name = database.rpartition("/")[2]
        connection.execute(
            f"ALTER DATABASE {name} SET default_transaction_isolation = 'repeatable read'"
        )
    test_the_schema_is_created_at_its_version_once_however_many_replicas_start_together(database)


@pytest.mark.parametrize(
    "address",
    [
        "postgresql://u:s3cr3t@[::1/db",
        "postgresql://u:p%zzs3cr3t@127.0.0.1:1/db",
        "postgresql://u@127.0.0.1:1/db?password=s3cr3t",
    ],
)
def test_no_message_shows_a_password_however_the_address_is_wrong(address: str) -> None:
    from agent_lab.logs.reader import read_logs

    assert "s3cr3t" not in safe_name(address)
    with pytest.raises(StoreError) as raised:
        open_exchanges(address, create=True)
    assert "s3cr3t" not in str(raised.value)
    with pytest.raises(InputFileError) as unread:
        list(read_logs([address]))
    assert "s3cr3t" not in str(unread.value)
