"""A gateway's store in a SQLite file: the embedded default.

WAL mode with a busy timeout lets several workers' writers share one file,
and readers read while they write, never seeing a transaction half-way. One
writer holds the file's lock at a time and numbers its rows while it holds
it, so rows become final in ``id`` order: a follower needs only the last id
it read.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING

from agent_lab.errors import InputFileError, StoreError, StoreUnavailableError
from agent_lab.exchange_stores.rows import StoredDecision, StoredRow

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from agent_lab.exchange_stores.rows import ExchangeFollower, NewRow, TimeWindow

__all__ = ["MAGIC", "SCHEMA", "SQLiteExchanges", "follow"]

MAGIC = b"SQLite format 3\x00"
"""The first 16 bytes of every SQLite database file."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS exchanges (
    id INTEGER PRIMARY KEY,
    request_id TEXT NOT NULL UNIQUE,
    at TEXT NOT NULL,
    origin TEXT NOT NULL CHECK (origin IN ('upstream', 'local')),
    status INTEGER NOT NULL,
    line TEXT NOT NULL,
    decision TEXT,
    worker INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS exchanges_at ON exchanges (at);
"""
"""One row per finished request (``NewRow``). ``at`` is ISO 8601 text in UTC to the
millisecond, so text order is time order (a time window compares text)."""

_BUSY_MS = 5000
_BATCH = 256
_INSERT = (
    "INSERT OR IGNORE INTO exchanges (request_id, at, origin, status, line, decision, worker) "
    "VALUES (?, ?, ?, ?, ?, ?, ?)"
)


class SQLiteExchanges:
    """The store in the file at ``path``.

    Raises:
        StoreError: The file cannot be opened (or, with ``create``, made) a gateway store.
    """

    def __init__(self, path: str, *, create: bool) -> None:
        self.name = path
        try:
            if create:
                connection = sqlite3.connect(path, timeout=_BUSY_MS / 1000)
                connection.execute("PRAGMA journal_mode = WAL")
                connection.execute("PRAGMA synchronous = NORMAL")
            else:
                connection = sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro", uri=True)
            connection.execute(f"PRAGMA busy_timeout = {_BUSY_MS}")
            if create:
                connection.executescript(SCHEMA)
        except sqlite3.Error as err:
            raise StoreError(f"{path}: cannot be used as the gateway's store ({err})") from err
        self._connection = connection

    def insert(self, rows: Sequence[NewRow]) -> int:
        """Store ``rows`` in one transaction (``ExchangeTable.insert``)."""
        values = [
            (r.request_id, r.at, r.origin, r.status, r.line, r.decision, r.worker) for r in rows
        ]
        try:
            with self._connection:
                self._connection.executemany(_INSERT, values)
        except sqlite3.OperationalError as err:
            # Locked past the busy timeout by another worker, or a full disk.
            raise StoreUnavailableError(f"{self.name}: {err}") from err
        except (sqlite3.Error, UnicodeEncodeError):
            return self._one_by_one(values)
        return 0

    def _one_by_one(self, values: Sequence[tuple[object, ...]]) -> int:
        # A row the database refuses (text no encoding can carry) fails the batch: store the
        # others, each in a transaction of its own, and count the refused.
        refused = 0
        for value in values:
            try:
                with self._connection:
                    self._connection.execute(_INSERT, value)
            except sqlite3.OperationalError as err:
                raise StoreUnavailableError(f"{self.name}: {err}") from err
            except (sqlite3.Error, UnicodeEncodeError):
                refused += 1
        return refused

    def rows(self, window: TimeWindow | None = None) -> Iterator[StoredRow]:
        """Every upstream-answered row in ``window``, in id order, in batches."""
        since, until = (None, None) if window is None else window.bounds()
        last = 0
        while True:
            try:
                batch = self.after(last, since=since, until=until)
            except sqlite3.Error as err:
                raise InputFileError(self.name, f"not a readable gateway store ({err})") from err
            if not batch:
                return
            yield from batch
            last = batch[-1].id

    def after(
        self, last: int, *, since: str | None = None, until: str | None = None
    ) -> list[StoredRow]:
        """The next batch of upstream-answered rows past id ``last`` (``sqlite3.Error``)."""
        found = self._connection.execute(
            "SELECT id, line, decision FROM exchanges WHERE id > ? AND origin = 'upstream' "
            "AND (? IS NULL OR at >= ?) AND (? IS NULL OR at < ?) ORDER BY id LIMIT ?",
            (last, since, since, until, until, _BATCH),
        ).fetchall()
        return [
            StoredRow(int(row_id), str(line), None if decision is None else str(decision))
            for row_id, line, decision in found
        ]

    def decisions_after(self, last: int) -> list[StoredDecision]:
        """The next batch of stored decisions of upstream-answered rows past id ``last``."""
        found = self._connection.execute(
            "SELECT id, decision FROM exchanges WHERE id > ? AND origin = 'upstream' "
            "AND decision IS NOT NULL ORDER BY id LIMIT ?",
            (last, _BATCH),
        ).fetchall()
        return [StoredDecision(int(row_id), str(decision)) for row_id, decision in found]

    def follower(self) -> ExchangeFollower:
        """A reader of the rows committed since it last read (``ExchangeFollower``)."""
        return _Follower(self.name)

    def newest_tools(self, newest: int) -> Iterator[tuple[int, str | None, str | None]]:
        """The newest rows' offered tools, picked out of their lines by SQLite itself."""
        try:
            found = self._connection.execute(
                "SELECT length(line), json_extract(line, '$.request.tools'), "
                "json_extract(line, '$.request.functions') FROM exchanges "
                "ORDER BY id DESC LIMIT ?",
                (newest,),
            )
            for size, tools, functions in found:
                yield int(size), _text(tools), _text(functions)
        except sqlite3.Error:
            return

    def close(self) -> None:
        """Close the connection."""
        self._connection.close()


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def follow(path: str) -> ExchangeFollower:
    """A follower of the store at ``path``, which need not exist yet (nothing to give then)."""
    return _Follower(path)


class _Follower:
    """Rows past the last id read: ids become final in order in SQLite."""

    def __init__(self, path: str) -> None:
        self._path = path
        self._last = 0

    def new_decisions(self) -> Iterator[StoredDecision]:
        if not Path(self._path).exists():
            return  # nothing written yet
        try:
            table = SQLiteExchanges(self._path, create=False)
        except StoreError as err:
            raise StoreUnavailableError(str(err)) from err
        try:
            while batch := table.decisions_after(self._last):
                for decision in batch:
                    self._last = decision.id
                    yield decision
        except sqlite3.Error as err:
            raise StoreUnavailableError(f"{self._path}: {err}") from err
        finally:
            table.close()

    def close(self) -> None:
        return None
