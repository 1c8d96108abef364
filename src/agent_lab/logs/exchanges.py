"""The gateway's store: its SQLite table, and its rows read back as ``pairs`` lines.

``agent-lab serve`` writes one row per finished request; each row's ``line``
is what a ``pairs`` log line holds (the request without its headers, the
answer, the latency and the time). So ``agent-lab shadow`` and
``read_logs`` read a store as one more log, through ``pair_request``: the
figures of a store and of the same requests logged as ``pairs`` are the same
by construction, but for what only the store knows (below). The table is
defined here, below the gateway, because the reader needs its name and
columns too.

Rows the gateway answered itself (``origin = 'local'``) are not read: no model
answered them, so there is nothing to agree or disagree with.

A row is a client's request, which the gateway's owner cannot fix, so one
that cannot be used is counted (``SkippedLine.counted``), never an error:
a line the reader refuses, or one whose stored decision says its replay
refused it (``{"skipped": reason}``: tools the registry refuses). The rule
stored beside a row (``tool_choice_none``, ``not_understood``...: why the
gateway forwards it whatever plain code decides) is the request's
``forwarded``: never covered, never saved.
"""

from __future__ import annotations

import dataclasses
import sqlite3
from typing import TYPE_CHECKING

from agent_lab.errors import InputFileError
from agent_lab.logs._values import parse
from agent_lab.logs.pairs import pair_request
from agent_lab.logs.record import LogError, SkippedLine, SkipReason

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from agent_lab.logs.record import LoggedRequest
    from agent_lab.strict_json import JSONObject

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
``decision`` the deterministic decision's JSON (``null`` when none was computed): the replayed
request and the gateway's ``rule``, or ``{"skipped": reason, "message": ..., "rule": ...}``."""

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
                    "SELECT id, line, decision FROM exchanges WHERE id > ? "
                    "AND origin = 'upstream' "
                    "ORDER BY id LIMIT ?",
                    (last, _BATCH),
                ).fetchall()
            except sqlite3.Error as err:
                raise InputFileError(str(path), f"not a readable gateway store ({err})") from err
            if not rows:
                return
            for row_id, line, decision in rows:
                last = int(row_id)
                where = f"{path}:{last}"
                yield last, _request(str(line), _stored(decision, where), where)
    finally:
        connection.close()


def _stored(decision: object, where: str) -> JSONObject:
    """The stored decision as an object; ``{}`` for none (or one this reader cannot read)."""
    if not isinstance(decision, str):
        return {}
    try:
        # Strict and bounded, as the line is: a store may come from anywhere.
        found = parse(decision, where, "the decision")
    except LogError:
        return {}
    return found if isinstance(found, dict) else {}


def _refused(decision: JSONObject) -> SkipReason | None:
    """The reason the gateway's replay left the row out, if its decision says one."""
    skipped = decision.get("skipped")
    try:
        return SkipReason(skipped) if isinstance(skipped, str) else None
    except ValueError:
        return None


def _request(text: str, decision: JSONObject, where: str) -> LoggedRequest | SkippedLine:
    try:
        request = pair_request(parse(text, where), where)
    except LogError as err:
        return dataclasses.replace(err.skipped, counted=True)
    reason = _refused(decision)
    if reason is not None:
        message = decision.get("message")
        said = message if isinstance(message, str) else "its replay refused it"
        return SkippedLine(
            where=where, reason=reason, message=f"the gateway's replay: {said}", counted=True
        )
    rule = decision.get("rule")
    if isinstance(rule, str):
        return dataclasses.replace(request, forwarded=rule)
    return request
