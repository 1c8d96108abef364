"""What the gateway forwards: the API's paths under ``/v1``, each with the methods it takes.

A path is checked before anything else is read (``route``), on the bytes
the client sent: every segment after ``/v1/`` is made of the characters an
id of the API is made of (letters, digits and ``-._~:@+=,!$*'()``), so a
percent sign (any encoding, double encoding included), a backslash, a
semicolon, a space or a control character is refused with 400, and so is a
dot segment (``.``, ``..``) or an empty one (a doubled or trailing slash).
Nothing is decoded or normalised, and what is forwarded is those very bytes:
the upstream's own prefix (and the key the gateway adds for it) is never
reachable by a path that climbs out of it, however the upstream or a proxy
before it decodes.
A path the API does not have is 404, a method its path does not take 405,
each in the API's error shape. ``{id}`` stands for one segment (a model,
file, batch, response or completion id); a model id may be two (``org/name``).
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
        # A model named as its hub repository (``meta-llama/Llama-3.1-8B``), as vLLM lists it.
        ("models/{id}/{id}", "GET DELETE"),
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

_PREFIX = b"/v1/"
_SEGMENT = re.compile(rb"[A-Za-z0-9\-._~:@+=,!$*'()]+")
"""What a segment may hold: the unreserved and the harmless reserved characters."""


def _by_length() -> dict[int, list[tuple[tuple[str, ...], frozenset[str]]]]:
    """The routes by their number of segments: a path is matched against its own length's."""
    found: dict[int, list[tuple[tuple[str, ...], frozenset[str]]]] = {}
    for path, methods in API_ROUTES:
        parts = tuple(path.split("/"))
        found.setdefault(len(parts), []).append((parts, methods))
    return found


_BY_LENGTH = _by_length()


@dataclass(frozen=True, slots=True)
class Routed:
    """Where a request goes: ``forward`` (or ``chat`` for the decided route), or why not."""

    outcome: Literal["chat", "forward", "bad_path", "not_found", "not_allowed"]
    path: str = ""
    """The path after ``/v1/``, as the client sent it and as it is forwarded (checked: it
    holds no percent sign, so decoded and sent are one text)."""
    why: str = ""
    """For ``bad_path``: what was wrong, in words."""


def _match(segments: list[str]) -> frozenset[str] | None:
    for parts, methods in _BY_LENGTH.get(len(segments), ()):
        if all(part in ("{id}", given) for part, given in zip(parts, segments, strict=True)):
            return methods
    return None


def route(method: str, raw_path: bytes) -> Routed:
    """The route of a request under ``/v1/``, from the path's bytes as the client sent them."""
    segments = raw_path[len(_PREFIX) :].split(b"/")
    for segment in segments:
        if segment in (b".", b"..") or not _SEGMENT.fullmatch(segment):
            return Routed(
                "bad_path",
                why="a segment that is empty, a dot segment, or holds a character no id of the "
                "API holds (a percent sign, a backslash, a semicolon, a space, a control "
                "character)",
            )
    names = [segment.decode("ascii") for segment in segments]
    methods = _match(names)
    rest = "/".join(names)
    if methods is None:
        return Routed("not_found", rest)
    if method not in methods:
        return Routed("not_allowed", rest)
    if rest == "chat/completions" and method == "POST":
        return Routed("chat", rest)
    return Routed("forward", rest)
