"""Secrets kept out of every message: a key in any form a server echoes it, credentials in URLs.

A provider redacts before it truncates, so that no cut can leave part of a
key behind, and redacts everything a server sends back (an error body, and
every string of a reply: content, model name, finish reason, tool names and
arguments, ids), since a server may echo what it was sent.

The rule, for each secret of ``MIN_RUN`` characters or more:

- any stretch of text that spells ``MIN_RUN`` or more consecutive characters
  of the secret, anywhere in it (with or without a known prefix such as
  ``sk-proj-``), ignoring ASCII case, is replaced by ``[redacted]``;
- the secret's characters may be interrupted by single inserted characters
  (a line break, a space, a zero-width space, a hyphen): a key wrapped or cut
  in two is still one stretch, so neither piece is left behind.

So at most ``MIN_RUN - 1`` consecutive characters of a key can show, and never
beside a redacted part. Stretches are found from the secret's aligned
three-character pieces (``str.find``, in C), so a stretch whose uninterrupted
pieces are all shorter than five characters is not found: that is an encoding
of the key, not an echo of it, and no rule of this kind can catch every
encoding. Shorter secrets are not redacted at all (see ``MIN_RUN``).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit

if TYPE_CHECKING:
    from collections.abc import Iterable

    from agent_lab.strict_json import JSONValue

__all__ = ["MIN_RUN", "REDACTED", "Redactor", "split_credentials", "url_problem"]

REDACTED = "[redacted]"

MIN_RUN = 12
"""The fewest consecutive characters of a secret that are redacted wherever they appear; and the
shortest secret redacted at all. Every key a provider issues is longer (32 characters and more),
while the placeholders local servers take (``none``, ``x``, ``EMPTY``, ``ollama``, ``lm-studio``)
are shorter, and are words a reply may well hold: redacting them rewrote tool names and JSON.
Eleven characters of a 48-character key leave 37 unknown, over 200 bits."""

_SEED = 3
"""Stretches are found from the secret's pieces of this length at offsets 0, 3, 6...: any
uninterrupted piece of ``2 * _SEED - 1`` characters holds one."""

_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_JSON_ESCAPED = frozenset('"\\/' + "".join(map(chr, range(0x20))))
"""Characters a JSON text may spell as an escape other than ``\\u``."""


def _folded(text: str) -> str:
    """``text`` in lower case, every index kept (compared with secrets in lower case)."""
    lowered = text.lower()
    # str.lower is C-fast, but may lengthen a string ("İ" becomes two characters); then
    # only ASCII is lowered, by a table, which is slower and keeps every index.
    return lowered if len(lowered) == len(text) else text.translate(_ASCII_LOWER)


_Seeds = tuple[tuple[int, str], ...]
"""Pieces of a secret to search for, each with its offset in the secret."""


class _Secret:
    """A secret in lower case, with its aligned pieces to search for."""

    __slots__ = ("folded", "seeds")

    def __init__(self, secret: str) -> None:
        self.folded = _folded(secret)
        last = len(self.folded) - _SEED
        offsets = [*range(0, last + 1, _SEED), last]
        self.seeds: _Seeds = tuple(dict.fromkeys((o, self.folded[o : o + _SEED]) for o in offsets))

    def stretches(self, text: str, seeds: _Seeds) -> list[tuple[int, int]]:
        """Where ``text`` (in lower case) spells the secret, found from ``seeds``: (start, end)."""
        found: list[tuple[int, int]] = []
        for offset, seed in seeds:
            start = text.find(seed)
            while start != -1:
                if not any(a <= start < b for a, b in found):
                    span = self._around(text, start, offset)
                    if span is not None:
                        found.append(span)
                start = text.find(seed, start + 1)
        return found

    def _around(self, text: str, at: int, offset: int) -> tuple[int, int] | None:
        """The stretch through ``text[at]`` (= ``secret[offset]``), if it spells enough of it."""
        secret, size = self.folded, len(text)
        t, s = at, offset
        while t < size and s < len(secret):
            if text[t] == secret[s]:
                t, s = t + 1, s + 1
            elif t + 1 < size and text[t + 1] == secret[s]:
                t, s = t + 2, s + 1  # one inserted character
            else:
                break
        end, secret_end = t, s
        t, s = at - 1, offset - 1
        while t >= 0 and s >= 0:
            if text[t] == secret[s]:
                t, s = t - 1, s - 1
            elif t >= 1 and text[t - 1] == secret[s]:
                t, s = t - 2, s - 1  # one inserted character
            else:
                break
        if secret_end - (s + 1) < MIN_RUN:
            return None
        return t + 1, end


class Redactor:
    """Replaces each stretch of text that spells a secret with ``[redacted]`` (module docstring).

    Args:
        secrets: The strings never to show. Those shorter than ``MIN_RUN`` are
            not secrets (placeholders such as ``none``) and are left alone.
    """

    def __init__(self, secrets: Iterable[str]) -> None:
        kept = sorted({s for s in secrets if len(s) >= MIN_RUN}, key=len, reverse=True)
        self._plan = tuple((secret, secret.seeds) for secret in map(_Secret, kept))
        self._escapable = any(c in _JSON_ESCAPED for secret in kept for c in secret)

    def __bool__(self) -> bool:
        """Whether there is anything to redact."""
        return bool(self._plan)

    def __call__(self, text: str) -> str:
        """``text`` with every stretch spelling a secret replaced by ``[redacted]``."""
        if not self._plan or len(text) < MIN_RUN:
            return text
        folded = _folded(text)
        spans = sorted(
            span for secret, seeds in self._plan for span in secret.stretches(folded, seeds)
        )
        if not spans:
            return text
        pieces: list[str] = []
        done = 0
        for start, end in spans:
            if end <= done:
                continue
            if start >= done:
                pieces += [text[done:start], REDACTED]
            done = end
        pieces.append(text[done:])
        return "".join(pieces)

    def loads(self, body: bytes | str) -> JSONValue:
        """``json.loads(body)`` with every string in it redacted, object keys included.

        Every piece of a secret that a string of the value holds, the text holds
        too, unless an escape spells it: so the strings are searched only for the
        pieces the whole text shows (most replies show none), and for all of them
        when it has an escape that could spell one.
        """
        text = (
            body
            if isinstance(body, str)
            else body.decode(json.detect_encoding(body), "surrogatepass")
        )
        value: JSONValue = json.loads(text)
        if not self._plan or "\\u" in text or ("\\" in text and self._escapable):
            return self.json(value)
        folded = _folded(text)
        plan = tuple(
            (secret, shown)
            for secret, seeds in self._plan
            if (shown := tuple(seed for seed in seeds if seed[1] in folded))
        )
        if not plan:
            return value
        narrowed = Redactor(())
        narrowed._plan = plan
        return narrowed.json(value)

    def json(self, value: JSONValue) -> JSONValue:
        """``value`` with every string in it redacted, object keys included."""
        if not self._plan:
            return value
        redact = self.__call__

        def walk(item: JSONValue) -> JSONValue:
            # Strings too short to spell MIN_RUN characters are the most common: skipped here.
            if isinstance(item, str):
                return redact(item) if len(item) >= MIN_RUN else item
            if isinstance(item, dict):
                return {
                    (redact(key) if len(key) >= MIN_RUN else key): walk(inner)
                    for key, inner in item.items()
                }
            if isinstance(item, list):
                return [walk(inner) for inner in item]
            return item

        return walk(value)

    def truncate(self, text: str, limit: int) -> str:
        """Redact, then cut to ``limit`` characters (in that order: a cut cannot expose a key)."""
        redacted = self(text)
        return redacted if len(redacted) <= limit else redacted[: limit - 3] + "..."


def split_credentials(url: str | None) -> tuple[str | None, tuple[str, ...]]:
    """``url`` without ``user:password@``, and the credentials it carried (to redact).

    Credentials in a base URL are never sent: they would reach logs, cassettes
    and the screen, and the SDK's HTTP clients refuse or mishandle them. Keys
    go in ``api_key`` (or ``OPENAI_API_KEY``) instead. They are removed from
    the text itself, so even a URL that does not parse (``http://u:p@[::1``)
    keeps no password; whether the rest is a usable URL is for the caller to
    check.
    """
    if not url:
        return url, ()
    scheme, separator, rest = url.partition("//")
    # The authority ends at the first "/", "?" or "#" (RFC 3986, 3.2); its userinfo at its last "@".
    cut = min((i for i in (rest.find(c) for c in "/?#") if i != -1), default=len(rest))
    authority, path = rest[:cut], rest[cut:]
    userinfo, at, host = authority.rpartition("@")
    if not separator or not at:
        return url, ()
    user, _, password = userinfo.partition(":")
    secrets = {userinfo, user, password, unquote(user), unquote(password)} - {""}
    return f"{scheme}{separator}{host}{path}", tuple(sorted(secrets, key=len, reverse=True))


def url_problem(url: str) -> str | None:
    """Why ``url`` (credentials already removed) is not a usable http(s) endpoint, or ``None``.

    The reasons never quote the URL: a password typed with a ``/`` in it is
    not recognised as one, and would show.
    """
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return "not a URL (a bracket left open, or a port that is not a number from 0 to 65535)"
    if parts.scheme not in ("http", "https"):
        return "not an http:// or https:// URL"
    if not parts.hostname:
        return "no host"
    if port == 0:
        return "port 0, which no server listens on"
    return None
