"""The gateway's store: finished requests written by a background thread, never waited for.

The response path only puts an ``Exchange`` on a bounded queue
(``put_nowait``): when the queue is full the exchange is dropped and counted,
so a slow disk can never hold a client up, and no store error can reach one.
The writer thread builds each row (``exchange.row_of``) and inserts a batch
per transaction. SQLite in WAL mode with a busy timeout lets several worker
processes write one file: a write that still finds the file locked is
retried, and ``INSERT OR IGNORE`` on the unique ``request_id`` means a retry
never stores a request twice. A transaction is whole or absent, so a process
killed mid-write leaves every committed request exactly once and nothing
half-written; what was still queued is lost.
"""

from __future__ import annotations

import logging
import os
import queue
import sqlite3
import threading
import time
from typing import TYPE_CHECKING

from agent_lab.errors import StoreError
from agent_lab.gateway.exchange import Exchange, Row, row_of
from agent_lab.logs.exchanges import SCHEMA

if TYPE_CHECKING:
    from collections.abc import Callable

    from agent_lab.agents.plugins import PluginSet
    from agent_lab.agents.turn import Reading

__all__ = ["ExchangeStore", "open_store"]

_LOG = logging.getLogger(__name__)
_BATCH = 256
_BUSY_MS = 5000
_RETRIES = 20
_STOP = object()


def open_store(path: str) -> sqlite3.Connection:
    """The store, created if new, in WAL mode, with a busy timeout.

    Raises:
        StoreError: The file cannot be opened or is not a gateway store.
    """
    try:
        connection = sqlite3.connect(path, timeout=_BUSY_MS / 1000, check_same_thread=False)
        connection.execute(f"PRAGMA busy_timeout = {_BUSY_MS}")
        connection.execute("PRAGMA journal_mode = WAL")
        connection.execute("PRAGMA synchronous = NORMAL")
        connection.executescript(SCHEMA)
    except sqlite3.Error as err:
        raise StoreError(f"{path}: cannot be used as the gateway's store ({err})") from err
    return connection


class ExchangeStore:
    """A queue in front of a writer thread; ``put`` never blocks and never raises.

    Args:
        path: The SQLite file; ``None`` stores nothing (the rows still go to ``on_row``).
        plugins: The user's plugin set, for the decision stored beside each request.
        read: What of a conversation the resolvers read.
        capacity: Exchanges that may wait; past it ``put`` drops one and counts it.
        on_written: Called with the number of rows each committed batch held.
        on_dropped: Called with the number of exchanges dropped (a full queue, a failed write).
        on_row: Called with each row, stored or not (the decision's span).
    """

    def __init__(
        self,
        path: str | None,
        *,
        plugins: PluginSet | None,
        read: Reading,
        capacity: int,
        on_written: Callable[[int], None] = lambda _: None,
        on_dropped: Callable[[int], None] = lambda _: None,
        on_row: Callable[[Row], None] | None = None,
    ) -> None:
        self._connection = None if path is None else open_store(path)
        self._on_row = on_row
        self._plugins = plugins
        self._read: Reading = read
        self._queue: queue.Queue[object] = queue.Queue(capacity)
        self._on_written = on_written
        self._on_dropped = on_dropped
        self._pid = os.getpid()
        self._thread = threading.Thread(target=self._run, name="gateway-store", daemon=True)
        self._thread.start()

    def put(self, exchange: Exchange) -> None:
        """Queue ``exchange`` for the writer; drop it (counted) when the queue is full."""
        try:
            self._queue.put_nowait(exchange)
        except queue.Full:
            self._on_dropped(1)

    def idle(self) -> bool:
        """Whether everything queued so far is written (or dropped)."""
        return self._queue.unfinished_tasks == 0

    def close(self, timeout: float = 30.0) -> None:
        """Write what is queued, then stop the writer and close the file."""
        self._queue.put(_STOP)
        self._thread.join(timeout)
        if not self._thread.is_alive() and self._connection is not None:
            self._connection.close()

    def _run(self) -> None:
        while True:
            first = self._queue.get()
            batch: list[Exchange] = []
            stop = first is _STOP
            if isinstance(first, Exchange):
                batch.append(first)
            while not stop and len(batch) < _BATCH:
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
                stop = item is _STOP
                if isinstance(item, Exchange):
                    batch.append(item)
            if batch:
                self._write(batch)
            for _ in range(len(batch) + stop):
                self._queue.task_done()
            if stop:
                return

    def _rows(self, batch: list[Exchange]) -> list[Row]:
        rows: list[Row] = []
        for exchange in batch:
            try:
                rows.append(row_of(exchange, plugins=self._plugins, read=self._read))
            except Exception:  # noqa: BLE001  (a user's plugin may raise anything)
                _LOG.exception("a finished request could not be made a row; not stored")
                self._on_dropped(1)
        return rows

    def _write(self, batch: list[Exchange]) -> None:
        rows = self._rows(batch)
        if self._on_row is not None:
            for row in rows:
                try:
                    self._on_row(row)
                except Exception:  # noqa: BLE001  (an exporter's failure never loses a row)
                    _LOG.warning("a finished request's span could not be made")
        if self._connection is None:
            return
        values = [
            (r.request_id, r.at, r.origin, r.status, r.line, r.decision, self._pid) for r in rows
        ]
        for attempt in range(_RETRIES):
            try:
                with self._connection:
                    self._connection.executemany(
                        "INSERT OR IGNORE INTO exchanges "
                        "(request_id, at, origin, status, line, decision, worker) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?)",
                        values,
                    )
            except sqlite3.OperationalError as err:
                # Locked past the busy timeout by another worker, or a full disk: wait, retry.
                _LOG.warning("store write failed (attempt %d): %s", attempt + 1, err)
                time.sleep(min(0.05 * 2**attempt, 2.0))
                continue
            except sqlite3.Error:
                _LOG.exception("store write failed; %d requests not stored", len(rows))
                break
            self._on_written(len(rows))
            return
        self._on_dropped(len(rows))
