"""What the gateway forwards: the API's paths under ``/v1``, each with the methods it takes.

A path is checked before anything else is read (``route``): it must stay
inside ``/v1`` as the client wrote it, so a path with a dot segment (``.``,
``..``, percent-encoded or not), an empty segment (a doubled or trailing
slash), an encoded slash or backslash, or a control character is refused
with 400, never normalised: the upstream's own prefix (and the key the
gateway adds for it) is never reachable by a path that climbs out of it.
A path the API does not have is 404, a method its path does not take 405,
each in the API's error shape. ``{id}`` stands for one segment (a model,
file, batch, response or completion id).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

__all__ = ["API_ROUTES", "Routed", "route"]

API_ROUTES: tuple[tuple[str, frozenset[str]], ...] = tuple(
    (path, frozenset(methods.split()))
    for path, methods in (
        ("chat/completions", "POST GET"),
        ("chat/completions/{id}", "GET POST DELETE"),
        ("chat/completions/{id}/messages", "GET"),
        ("completions", "POST"),
        ("embeddings", "POST"),
        ("moderations", "POST"),
        ("models", "GET"),
        ("models/{id}", "GET DELETE"),
        ("responses", "POST"),
        ("responses/{id}", "GET DELETE"),
        ("responses/{id}/cancel", "POST"),
        ("responses/{id}/input_items", "GET"),
        ("audio/speech", "POST"),
        ("audio/transcriptions", "POST"),
        ("audio/translations", "POST"),
        ("images/generations", "POST"),
        ("images/edits", "POST"),
        ("images/variations", "POST"),
        ("files", "GET POST"),
        ("files/{id}", "GET DELETE"),
        ("files/{id}/content", "GET"),
        ("uploads", "POST"),
        ("uploads/{id}/parts", "POST"),
        ("uploads/{id}/complete", "POST"),
        ("uploads/{id}/cancel", "POST"),
        ("batches", "GET POST"),
        ("batches/{id}", "GET"),
        ("batches/{id}/cancel", "POST"),
    )
)
"""The Chat Completions API's own paths (after ``/v1/``) and their methods."""

_PREFIX = "/v1/"
_ENCODED_SEPARATOR = re.compile(rb"%(2f|5c|00)", re.IGNORECASE)
_CONTROL = re.compile("[\x00-\x1f\x7f\\\\]")


_BY_LENGTH: dict[int, list[tuple[tuple[str, ...], frozenset[str]]]] = {}
for _path, _methods in API_ROUTES:
    _parts = tuple(_path.split("/"))
    _BY_LENGTH.setdefault(len(_parts), []).append((_parts, _methods))


@dataclass(frozen=True, slots=True)
class Routed:
    """Where a request goes: ``forward`` (or ``chat`` for the decided route), or why not."""

    outcome: Literal["chat", "forward", "bad_path", "not_found", "not_allowed"]
    path: str = ""
    """The path after ``/v1/``, as checked (decoded); what is forwarded."""
    why: str = ""
    """For ``bad_path``: what was wrong, in words."""


def _match(segments: list[str]) -> frozenset[str] | None:
    for parts, methods in _BY_LENGTH.get(len(segments), ()):
        if all(part in ("{id}", given) for part, given in zip(parts, segments, strict=True)):
            return methods
    return None


def route(method: str, path: str, raw_path: bytes | None) -> Routed:
    """The route of a request under ``/v1/``: its decoded ``path`` and the bytes it came as."""
    if raw_path is not None and _ENCODED_SEPARATOR.search(raw_path):
        return Routed("bad_path", why="an encoded slash, backslash or NUL")
    rest = path[len(_PREFIX) :]
    if _CONTROL.search(rest):
        return Routed("bad_path", why="a backslash or a control character")
    segments = rest.split("/")
    for segment in segments:
        if segment in ("", ".", ".."):
            return Routed("bad_path", why="an empty or dot segment")
    methods = _match(segments)
    if methods is None:
        return Routed("not_found", rest)
    if method not in methods:
        return Routed("not_allowed", rest)
    if rest == "chat/completions" and method == "POST":
        return Routed("chat", rest)
    return Routed("forward", rest)
