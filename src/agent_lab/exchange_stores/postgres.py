"""A gateway's store in PostgreSQL: one table that every replica writes and reads trust from.

The driver is psycopg 3, synchronous, one connection per process that needs
one (the store's writer, the trust reader's thread, ``agent-lab shadow``):
none of them is on a request's path, and each runs one statement at a time,
so neither asyncio (asyncpg) nor a pool has anything to add but a
dependency. A batch goes in one ``executemany`` in one transaction, which
psycopg pipelines; ``benchmarks/bench_store_drivers.py`` measures it against
asyncpg.

The schema is versioned (``agent_lab_schema``) and brought up to date when a
gateway starts, under an advisory lock, so replicas starting together
migrate it once. A database whose schema is newer than this agent-lab knows
is refused rather than written wrongly.

Rows are numbered when inserted but become visible when their transaction
commits, and replicas commit in any order: a follower that only remembered
the last id would skip a row numbered below it and committed after it was
read. Each row therefore records its transaction's id (``txid``); every
transaction below the oldest one still running (the snapshot's ``xmin``) is
final, so the follower re-reads only rows at or above the horizon it last
saw, skipping those it has given already.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from agent_lab.errors import InputFileError, MissingInputError, StoreError, StoreUnavailableError
from agent_lab.exchange_stores.addresses import safe_name, scrubbed
from agent_lab.exchange_stores.rows import StoredDecision, StoredRow

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from agent_lab.exchange_stores.rows import NewRow, TimeWindow

__all__ = ["MIGRATIONS", "PostgresExchanges"]

MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        """CREATE TABLE agent_lab_exchanges (
            id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            request_id text NOT NULL UNIQUE,
            at timestamptz NOT NULL,
            origin text NOT NULL CHECK (origin IN ('upstream', 'local')),
            status integer NOT NULL,
            line text NOT NULL,
            decision text,
            worker integer NOT NULL,
            txid xid8 NOT NULL DEFAULT pg_current_xact_id()
        )""",
        "CREATE INDEX agent_lab_exchanges_txid ON agent_lab_exchanges (txid, id) "
        "WHERE origin = 'upstream'",
        "CREATE INDEX agent_lab_exchanges_at ON agent_lab_exchanges (at)",
    ),
)
"""Schema version N is ``MIGRATIONS[:N]`` applied in order; a new version appends one."""

_LOCK = 0x6167_656E_746C_6162
"""The advisory lock migrations hold (``agentlab`` in ASCII)."""
_CONNECT_SECONDS = 5
_WRITE_TIMEOUT = "10s"
_LOCK_TIMEOUT = "30s"
_TCP = {
    # A connection whose server vanished without a word is found dead in about a minute
    # (idle, then three probes), or when 30 s of sent data go unacknowledged, rather than
    # after the operating system's two hours. Where the address sets one, it is kept.
    "keepalives": "1",
    "keepalives_idle": "30",
    "keepalives_interval": "10",
    "keepalives_count": "3",
    "tcp_user_timeout": "30000",
}
_BATCH = 1000
_INSERT = (
    "INSERT INTO agent_lab_exchanges (request_id, at, origin, status, line, decision, worker) "
    "VALUES (%s, %s::timestamptz, %s, %s, %s, %s, %s) ON CONFLICT (request_id) DO NOTHING"
)


def _psycopg() -> Any:
    try:
        return importlib.import_module("psycopg")
    except ModuleNotFoundError as err:
        raise MissingInputError(
            "a PostgreSQL store needs the postgres extra: pip install 'agent-lab[postgres]'"
        ) from err


def _first_line(err: BaseException) -> str:
    text = str(err).strip()
    return text.splitlines()[0] if text else type(err).__name__


class PostgresExchanges:
    """The store in the database at ``address`` (a ``postgresql://`` URL libpq reads).

    Raises:
        StoreUnavailableError: The database cannot be reached.
        StoreError: Its schema is newer than this agent-lab's, or not agent-lab's, or
            (reading) it holds no store; or the address or the role cannot be used.
        MissingInputError: The postgres extra is not installed.
    """

    def __init__(self, address: str, *, create: bool, schema: int | None = None) -> None:
        self._psycopg = _psycopg()
        self._address = address
        self.name = safe_name(address)
        self._create = create
        self._migrations = MIGRATIONS[: len(MIGRATIONS) if schema is None else schema]
        self._connection: Any = None
        self._closed = False
        self._connected()

    def _said(self, err: BaseException) -> str:
        """``name: the driver's first line``, any password of the address taken out of it."""
        return f"{self.name}: {scrubbed(_first_line(err), self._address)}"

    def _connected(self) -> Any:
        """The connection, opened (and the schema checked) if there is none or it broke."""
        if self._connection is not None and not self._connection.broken:
            return self._connection
        if self._closed:  # closed by another thread while this one used it: never reopened
            raise StoreUnavailableError(f"{self.name}: closed")
        self._connection = None
        psycopg = self._psycopg
        try:
            given = psycopg.conninfo.conninfo_to_dict(self._address)
            extra = {key: value for key, value in _TCP.items() if key not in given}
            connection = psycopg.connect(
                self._address,
                autocommit=True,
                connect_timeout=given.get("connect_timeout", _CONNECT_SECONDS),
                fallback_application_name="agent-lab",
                **extra,
            )
        except psycopg.OperationalError as err:
            raise StoreUnavailableError(self._said(err)) from err
        except psycopg.Error as err:  # an address libpq cannot read
            raise StoreError(self._said(err)) from err
        # Whatever the database's default: each statement sees what others committed
        # before it, so a migration waiting on the lock reads the version it left.
        connection.isolation_level = psycopg.IsolationLevel.READ_COMMITTED
        try:
            self._check_schema(connection)
        except psycopg.OperationalError as err:
            connection.close()
            raise StoreUnavailableError(self._said(err)) from err
        except psycopg.Error as err:  # a role without the rights, a table of another's
            connection.close()
            raise StoreError(self._said(err)) from err
        except StoreError:
            connection.close()
            raise
        self._connection = connection
        return connection

    def _version(self, connection: Any) -> int:
        """The schema's version: 0 where there is none; refused where it is newer."""
        if connection.execute("SELECT to_regclass('agent_lab_schema')").fetchone()[0] is None:
            version = 0
        else:
            row = connection.execute("SELECT max(version) FROM agent_lab_schema").fetchone()
            version = 0 if row[0] is None else int(row[0])
        if version > len(self._migrations):
            raise StoreError(
                f"{self.name}: its store's schema is version {version}, newer than this "
                f"agent-lab's ({len(self._migrations)}); upgrade agent-lab"
            )
        return version

    def _check_schema(self, connection: Any) -> None:
        # Read first: a role that may only read and insert uses a store already up to date.
        version = self._version(connection)
        if not self._create:
            if version == 0:
                raise StoreError(f"{self.name}: holds no agent-lab gateway store")
            return
        if version == len(self._migrations):
            return
        # The lock is the session's, taken before the transaction: a transaction begun
        # after it sees what the replica that held it committed (one begun before would
        # keep its older view of the catalog, or its snapshot under repeatable read).
        connection.execute(f"SET lock_timeout = '{_LOCK_TIMEOUT}'")
        connection.execute("SELECT pg_advisory_lock(%s)", (_LOCK,))
        try:
            with connection.transaction():
                self._migrate(connection)
        finally:
            connection.execute("SELECT pg_advisory_unlock(%s)", (_LOCK,))
            connection.execute("RESET lock_timeout")

    def _migrate(self, connection: Any) -> None:
        version = self._version(connection)  # another replica may have migrated it
        if version == len(self._migrations):
            return
        if (
            version == 0
            and connection.execute("SELECT to_regclass('agent_lab_exchanges')").fetchone()[0]
        ):
            raise StoreError(
                f"{self.name}: holds a table agent_lab_exchanges that agent-lab did not "
                "make (no agent_lab_schema beside it); give another database or schema"
            )
        connection.execute("CREATE TABLE IF NOT EXISTS agent_lab_schema (version integer NOT NULL)")
        for statements in self._migrations[version:]:
            for statement in statements:
                connection.execute(statement)
        connection.execute("DELETE FROM agent_lab_schema")
        connection.execute("INSERT INTO agent_lab_schema VALUES (%s)", (len(self._migrations),))

    def _lost(self, err: BaseException) -> StoreUnavailableError:
        """Forget a connection that failed: the next use opens another."""
        if self._connection is not None:
            self._connection.close()
            self._connection = None
        return StoreUnavailableError(self._said(err))

    def insert(self, rows: Sequence[NewRow]) -> int:
        """Store ``rows`` in one transaction (``ExchangeTable.insert``)."""
        values = [
            (r.request_id, r.at, r.origin, r.status, r.line, r.decision, r.worker) for r in rows
        ]
        connection = self._connected()
        try:
            self._write(connection, values)
        except self._psycopg.OperationalError as err:  # down, gone, or past the timeout
            raise self._lost(err) from err
        except (self._psycopg.DataError, UnicodeEncodeError):
            return self._one_by_one(connection, values)
        except self._psycopg.Error as err:  # the rights taken away, the table dropped
            raise self._lost(err) from err
        return 0

    def _write(self, connection: Any, values: Sequence[tuple[object, ...]]) -> None:
        with connection.transaction(), connection.cursor() as cursor:
            cursor.execute(f"SET LOCAL statement_timeout = '{_WRITE_TIMEOUT}'")
            cursor.executemany(_INSERT, values)

    def _one_by_one(self, connection: Any, values: Sequence[tuple[object, ...]]) -> int:
        # A row the database refuses (text its encoding cannot carry) fails the batch: store
        # the others, each in a transaction of its own, and count the refused.
        refused = 0
        for value in values:
            try:
                self._write(connection, [value])
            except (self._psycopg.DataError, UnicodeEncodeError):
                refused += 1
            except self._psycopg.Error as err:
                raise self._lost(err) from err
        return refused

    def rows(self, window: TimeWindow | None = None) -> Iterator[StoredRow]:
        """Every upstream-answered row in ``window``, in id order, from one snapshot."""
        since, until = (None, None) if window is None else window.bounds()
        try:
            connection = self._connected()
            with connection.transaction(), connection.cursor(name="agent_lab_rows") as cursor:
                cursor.itersize = _BATCH
                cursor.execute(
                    "SELECT id, line, decision FROM agent_lab_exchanges WHERE origin = 'upstream' "
                    "AND (%s::timestamptz IS NULL OR at >= %s::timestamptz) "
                    "AND (%s::timestamptz IS NULL OR at < %s::timestamptz) ORDER BY id",
                    (since, since, until, until),
                )
                for row_id, line, decision in cursor:
                    yield StoredRow(int(row_id), str(line), decision)
        except self._psycopg.Error as err:
            said = scrubbed(_first_line(err), self._address)
            raise InputFileError(self.name, f"not a readable gateway store ({said})") from err
        except StoreError as err:
            raise InputFileError(self.name, f"not a readable gateway store ({err})") from err

    def follower(self) -> _Follower:
        """A reader of the rows committed since it last read (``ExchangeFollower``)."""
        return _Follower(self)

    def newest_tools(self, newest: int) -> Iterator[tuple[int, str | None, str | None]]:
        """The newest rows' offered tools, picked out of their lines by PostgreSQL."""
        try:
            found = (
                self._connected()
                .execute(
                    "SELECT length(line), (line::json -> 'request' -> 'tools')::text, "
                    "(line::json -> 'request' -> 'functions')::text FROM agent_lab_exchanges "
                    "ORDER BY id DESC LIMIT %s",
                    (newest,),
                )
                .fetchall()
            )
        except (self._psycopg.Error, StoreError):
            return
        for size, tools, functions in found:
            yield int(size), tools, functions

    def decisions_after(
        self, horizon: int, last: tuple[int, int]
    ) -> tuple[int, list[tuple[int, StoredDecision]]]:
        """The oldest running transaction now, and a batch of decisions past ``last``.

        ``last`` is a row's (transaction id, id); rows of transactions below ``horizon``
        are not read. A connection the server closed since its last use (a restart) is
        opened again once, at once, rather than at the next call.

        Raises:
            StoreUnavailableError: The database cannot be read now.
        """
        fresh = self._connection is None
        try:
            return self._decisions_after(horizon, last)
        except self._psycopg.Error as err:
            lost = self._lost(err)
            if fresh:
                raise lost from err
        try:
            return self._decisions_after(horizon, last)
        except self._psycopg.Error as err:
            raise self._lost(err) from err

    def _decisions_after(
        self, horizon: int, last: tuple[int, int]
    ) -> tuple[int, list[tuple[int, StoredDecision]]]:
        connection = self._connected()
        now = connection.execute("SELECT pg_snapshot_xmin(pg_current_snapshot())::text")
        oldest = int(now.fetchone()[0])
        found = connection.execute(
            "SELECT txid::text, id, decision FROM agent_lab_exchanges "
            "WHERE origin = 'upstream' AND txid >= %s::xid8 AND (txid, id) > (%s::xid8, %s) "
            "AND decision IS NOT NULL ORDER BY txid, id LIMIT %s",
            (str(horizon), str(last[0]), last[1], _BATCH),
        ).fetchall()
        return oldest, [
            (int(txid), StoredDecision(int(row_id), str(decision)))
            for txid, row_id, decision in found
        ]

    def close(self) -> None:
        """Close the connection; a thread still using the store gets no new one."""
        self._closed = True
        if self._connection is not None:
            self._connection.close()
            self._connection = None


class _Follower:
    """Rows at or above the last horizon, less those given already (see the module's text).

    The horizon is the server's: a transaction left open in any database of it holds it
    back, and until it ends every refresh reads again the decisions stored since it
    began (each still counted once).
    """

    def __init__(self, table: PostgresExchanges) -> None:
        self._table = table
        self._horizon = 0
        self._given: dict[int, int] = {}
        """Row id -> its transaction's id, for rows given whose transaction is not final yet."""

    def new_decisions(self) -> Iterator[StoredDecision]:
        oldest: int | None = None
        last = (self._horizon, 0)
        while True:
            now, batch = self._table.decisions_after(self._horizon, last)
            oldest = now if oldest is None else oldest
            for txid, stored in batch:
                if stored.id not in self._given:
                    self._given[stored.id] = txid
                    yield stored
            if len(batch) < _BATCH:
                break
            last = (batch[-1][0], batch[-1][1].id)
        # Everything below ``oldest`` was final when the reading began: never read again.
        self._horizon = oldest
        self._given = {row: txid for row, txid in self._given.items() if txid >= oldest}

    def close(self) -> None:
        self._table.close()
