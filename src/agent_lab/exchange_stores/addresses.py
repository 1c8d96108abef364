"""Where a store is: a SQLite file's path or a PostgreSQL URL, and how messages name it."""

from __future__ import annotations

from urllib.parse import parse_qsl, unquote, urlencode, urlsplit, urlunsplit

__all__ = ["is_postgres", "passwords", "safe_name", "scrubbed"]

_POSTGRES_SCHEMES = ("postgresql", "postgres")
_HIDDEN = "***"


def is_postgres(address: str) -> bool:
    """Whether ``address`` names a PostgreSQL database (``postgresql://`` or ``postgres://``)."""
    scheme, colon, _ = address.partition("://")
    return bool(colon) and scheme.lower() in _POSTGRES_SCHEMES


def passwords(address: str) -> list[str]:
    """Every password ``address`` holds, as written and as decoded (user info, ``?password=``)."""
    if not is_postgres(address):
        return []
    netloc, _, rest = address.partition("://")[2].partition("/")
    found: list[str] = []
    userinfo, at, _ = netloc.rpartition("@")
    if at and ":" in userinfo:
        found.append(userinfo.partition(":")[2])
    query = rest.partition("?")[2]
    found += [value for key, value in parse_qsl(query, keep_blank_values=True) if key == "password"]
    for item in query.split("&"):
        key, _, value = item.partition("=")
        if key == "password":
            found.append(value)
    return [secret for secret in {*found, *map(unquote, found)} if secret]


def scrubbed(text: str, address: str) -> str:
    """``text`` with every password of ``address`` in it replaced by ``***``."""
    for secret in sorted(passwords(address), key=len, reverse=True):
        text = text.replace(secret, _HIDDEN)
    return text


def safe_name(address: str) -> str:
    """``address`` as messages may show it: a database URL without its password."""
    if not is_postgres(address) or not passwords(address):
        return address
    try:
        parts = urlsplit(address)
        netloc = parts.netloc
        if parts.password is not None:
            netloc = f"{parts.username or ''}:{_HIDDEN}@{netloc.rpartition('@')[2]}"
        query = urlencode(
            [
                (key, _HIDDEN if key == "password" else value)
                for key, value in parse_qsl(parts.query, keep_blank_values=True)
            ],
            safe="*",
        )
        named = urlunsplit(parts._replace(netloc=netloc, query=query))
    except ValueError:  # no URL urllib can read (libpq will say what is wrong with it)
        return f"{address.partition('://')[0]}://{_HIDDEN}"
    return scrubbed(named, address)
