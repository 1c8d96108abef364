"""Where a store is: a SQLite file's path or a PostgreSQL URL, and how messages name it."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

__all__ = ["is_postgres", "safe_name"]

_POSTGRES_SCHEMES = ("postgresql", "postgres")


def is_postgres(address: str) -> bool:
    """Whether ``address`` names a PostgreSQL database (``postgresql://`` or ``postgres://``)."""
    scheme, colon, _ = address.partition("://")
    return bool(colon) and scheme.lower() in _POSTGRES_SCHEMES


def safe_name(address: str) -> str:
    """``address`` as messages may show it: a database URL without its password."""
    if not is_postgres(address):
        return address
    parts = urlsplit(address)
    if parts.password is None:
        return address
    host = parts.netloc.rpartition("@")[2]
    user = parts.username or ""
    return urlunsplit(parts._replace(netloc=f"{user}:***@{host}"))
