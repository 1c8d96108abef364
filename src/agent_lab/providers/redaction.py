"""Secrets kept out of every message: keys, long prefixes of keys, credentials in URLs.

A provider redacts before it truncates, so that no cut can leave part of a
key behind, and redacts what a server reflects back (an error body, a
reply's content or model name), since a server may echo what it was sent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = ["REDACTED", "Redactor", "split_credentials"]

REDACTED = "[redacted]"

MIN_PREFIX = 8
"""The shortest run of a secret's leading characters that is redacted on its own.
Shorter runs (``sk-``) say nothing about a key; longer ones give part of it away."""


class Redactor:
    """Replaces each secret, and each run of 8 or more of its leading characters, with a marker.

    Args:
        secrets: The strings never to show. Empty ones are ignored.
    """

    def __init__(self, secrets: Iterable[str]) -> None:
        # Longest first, so that a secret containing another is replaced whole.
        self._secrets = sorted({s for s in secrets if s}, key=len, reverse=True)

    def __call__(self, text: str) -> str:
        """``text`` with every secret and every long prefix of one replaced by ``[redacted]``."""
        for secret in self._secrets:
            text = text.replace(secret, REDACTED)
            if len(secret) > MIN_PREFIX:
                text = _redact_prefixes(text, secret)
        return text

    def truncate(self, text: str, limit: int) -> str:
        """Redact, then cut to ``limit`` characters (in that order: a cut cannot expose a key)."""
        redacted = self(text)
        return redacted if len(redacted) <= limit else redacted[: limit - 3] + "..."


def _redact_prefixes(text: str, secret: str) -> str:
    # Each occurrence of the secret's first MIN_PREFIX characters, extended as far
    # as it keeps following the secret: a key cut anywhere past its 8th character.
    head = secret[:MIN_PREFIX]
    pieces: list[str] = []
    start = 0
    while (found := text.find(head, start)) != -1:
        end = found + MIN_PREFIX
        while end < len(text) and end - found < len(secret) and text[end] == secret[end - found]:
            end += 1
        pieces += [text[start:found], REDACTED]
        start = end
    pieces.append(text[start:])
    return "".join(pieces)


def split_credentials(url: str | None) -> tuple[str | None, tuple[str, ...]]:
    """``url`` without ``user:password@``, and the credentials it carried (to redact).

    Credentials in a base URL are never sent: they would reach logs, cassettes
    and the screen, and the SDK's HTTP clients refuse or mishandle them. Keys
    go in ``api_key`` (or ``OPENAI_API_KEY``) instead.
    """
    if not url:
        return url, ()
    try:
        parts = urlsplit(url)
    except ValueError:
        return url, ()
    if parts.username is None and parts.password is None:
        return url, ()
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    secrets = tuple(s for s in (parts.username, parts.password) if s)
    userinfo = parts.netloc.rpartition("@")[0]
    return urlunsplit(parts._replace(netloc=host)), (*secrets, userinfo)
