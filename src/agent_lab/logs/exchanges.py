"""The gateway's store, its rows read back as ``pairs`` lines (the table: ``exchange_stores``).

``agent-lab serve`` writes one row per finished request; each row's ``line``
is what a ``pairs`` log line holds (the request without its headers, the
answer, the latency and the time). So ``agent-lab shadow`` and
``read_logs`` read a store as one more log, through ``pair_request``: the
figures of a store and of the same requests logged as ``pairs`` are the same
by construction, but for what only the store knows (below). The store is a
SQLite file or a PostgreSQL database (``exchange_stores``), read alike.

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
from typing import TYPE_CHECKING

from agent_lab.errors import InputFileError, StoreError
from agent_lab.exchange_stores import open_exchanges, safe_name
from agent_lab.exchange_stores.sqlite import MAGIC
from agent_lab.logs._values import parse
from agent_lab.logs.pairs import pair_request
from agent_lab.logs.record import LogError, SkippedLine, SkipReason

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from agent_lab.exchange_stores import TimeWindow
    from agent_lab.logs.record import LoggedRequest
    from agent_lab.strict_json import JSONObject

__all__ = ["MAGIC", "store_rows"]


def store_rows(
    source: str | Path, *, window: TimeWindow | None = None
) -> Iterator[tuple[int, LoggedRequest | SkippedLine]]:
    """``(id, request)`` for every row the upstream answered (in ``window``), in id order.

    ``source`` is a SQLite store's path or a ``postgresql://`` address. A
    SQLite store is read on a read-only connection, in batches, so that a
    gateway writing it meanwhile is neither blocked nor seen half-way (WAL);
    a PostgreSQL one from one snapshot.

    Raises:
        InputFileError: It is no gateway store, or cannot be read.
        MissingInputError: A PostgreSQL address, without the postgres extra.
    """
    try:
        table = open_exchanges(str(source), create=False)
    except StoreError as err:
        raise InputFileError(
            safe_name(str(source)), f"not a readable gateway store ({err})"
        ) from err
    try:
        for row in table.rows(window):
            where = f"{table.name}:{row.id}"
            yield row.id, _request(row.line, _stored(row.decision, where), where)
    finally:
        table.close()


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
