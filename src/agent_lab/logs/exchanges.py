"""The gateway's store: its SQLite table, and its rows read back as ``pairs`` lines.

``agent-lab serve`` writes one row per finished request; each row's ``line``
is what a ``pairs`` log line holds (the request without its headers, the
answer, the latency and the time). So ``agent-lab shadow`` and
``read_logs`` read a store as one more log, through ``pair_request``: the
figures of a store and of the same requests logged as ``pairs`` are the same
by construction. The table is defined here, below the gateway, because the
reader needs its name and columns too.

Rows the gateway answered itself (``origin = 'local'``) are not read: no model
answered them, so there is nothing to agree or disagree with.
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from agent_lab.errors import InputFileError
from agent_lab.logs._values import parse
from agent_lab.logs.pairs import pair_request
from agent_lab.logs.record import LogError

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from agent_lab.logs.record import LoggedRequest, SkippedLine

__all__ = ["MAGIC", "SCHEMA", "store_rows"]

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
"""
"""One row per finished request. ``request_id`` is unique so that a write retried after an
ambiguous failure never stores a request twice; ``line`` is a ``pairs`` line's JSON text;
``decision`` the deterministic decision's JSON (``null`` when none was computed)."""

_BATCH = 256


def store_rows(path: Path, *, after: int = 0) -> Iterator[tuple[int, LoggedRequest | SkippedLine]]:
    """``(id, request)`` for every row the upstream answered, past ``after``, in id order.

    Read in batches on a read-only connection, so that a gateway writing the
    store meanwhile is neither blocked nor seen half-way (WAL).

    Raises:
        InputFileError: The file is no gateway store, or cannot be read.
    """
    try:
        connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as err:
        raise InputFileError(str(path), f"not a readable gateway store ({err})") from err
    try:
        connection.execute("PRAGMA busy_timeout = 5000")
        last = after
        while True:
            try:
                rows = connection.execute(
                    "SELECT id, line FROM exchanges WHERE id > ? AND origin = 'upstream' "
                    "ORDER BY id LIMIT ?",
                    (last, _BATCH),
                ).fetchall()
            except sqlite3.Error as err:
                raise InputFileError(str(path), f"not a readable gateway store ({err})") from err
            if not rows:
                return
            for row_id, line in rows:
                last = int(row_id)
                yield last, _request(str(line), f"{path}:{last}")
    finally:
        connection.close()


def _request(text: str, where: str) -> LoggedRequest | SkippedLine:
    try:
        return pair_request(parse(text, where), where)
    except LogError as err:
        return err.skipped
