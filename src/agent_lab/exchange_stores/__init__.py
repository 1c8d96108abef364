"""Where a gateway keeps its finished requests: a SQLite file, or one PostgreSQL for many.

A store is one table of rows (``StoredRow``, the columns of
``sqlite.SCHEMA``), written in batches by the gateway's writer process,
followed by its trust reader for the decisions written since it last looked,
and read whole (or over a time window) by ``agent-lab shadow``. Every
database-specific word lives in the module of its database; what is above
(the writer, trust, the log reader) sees only the protocols here.

SQLite is the embedded default: a file, several workers of one machine in
WAL mode. PostgreSQL (the ``postgres`` extra) is for gateways on several
machines: every replica writes the same table and reads trust from it, so
every replica answers alike.
"""

from __future__ import annotations

from agent_lab.exchange_stores.addresses import is_postgres, safe_name
from agent_lab.exchange_stores.rows import (
    ExchangeFollower,
    ExchangeTable,
    NewRow,
    StoredDecision,
    StoredRow,
    TimeWindow,
)

__all__ = [
    "ExchangeFollower",
    "ExchangeTable",
    "NewRow",
    "StoredDecision",
    "StoredRow",
    "TimeWindow",
    "is_postgres",
    "open_exchanges",
    "safe_name",
]


def open_exchanges(address: str, *, create: bool) -> ExchangeTable:
    """The store at ``address``: a SQLite file's path, or a ``postgresql://`` URL.

    Args:
        address: Where it is.
        create: Create (or migrate) the table, to write it; otherwise open it to read,
            and refuse what is not a gateway's store.

    Raises:
        StoreError: It cannot be opened, or is not a gateway store.
        MissingInputError: A PostgreSQL address, without the postgres extra.
    """
    if is_postgres(address):
        from agent_lab.exchange_stores.postgres import PostgresExchanges  # noqa: PLC0415

        return PostgresExchanges(address, create=create)
    from agent_lab.exchange_stores.sqlite import SQLiteExchanges  # noqa: PLC0415

    return SQLiteExchanges(address, create=create)
