"""A log's JSON values read with their types checked: a bad one is a ``LogError``, never a crash."""

from __future__ import annotations

import math
from datetime import UTC, datetime
from typing import TYPE_CHECKING, NoReturn

from agent_lab.errors import StrictJSONError
from agent_lab.logs.record import LogError, LoggedUsage, SkippedLine, SkipReason
from agent_lab.strict_json import canonical_dumps, loads

if TYPE_CHECKING:
    from agent_lab.strict_json import JSONObject, JSONValue

__all__ = [
    "MAX_LINE_BYTES",
    "as_list",
    "as_object",
    "fail",
    "is_estimated",
    "iso_from_unix",
    "iso_timestamp",
    "json_text",
    "milliseconds",
    "parse",
    "token_count",
    "usage_from",
]

MAX_LINE_BYTES = 16 << 20
"""The longest line read (16 MiB), far above a conversation and its tools; longer: ``too_large``."""

_MAX_DEPTH = 128
"""Deeper than the strict parser's default: a request nests its tools' schemas inside messages."""


def fail(where: str, reason: SkipReason, message: str) -> NoReturn:
    """Raise the ``LogError`` that ``read_line`` turns into a ``SkippedLine``."""
    raise LogError(SkippedLine(where=where, reason=reason, message=message))


def parse(text: str | bytes, where: str, what: str = "the line") -> JSONValue:
    """``text`` parsed strictly (``strict_json.loads``), else ``malformed_json``."""
    try:
        return loads(text, max_bytes=MAX_LINE_BYTES, max_depth=_MAX_DEPTH)
    except StrictJSONError as err:
        fail(where, SkipReason.MALFORMED_JSON, f"{what} is not JSON ({err})")


def as_object(value: JSONValue | None) -> JSONObject | None:
    """``value`` when it is a JSON object, else ``None``."""
    return value if isinstance(value, dict) else None


def as_list(value: JSONValue | None) -> list[JSONValue] | None:
    """``value`` when it is a JSON array, else ``None``."""
    return value if isinstance(value, list) else None


def json_text(value: JSONValue) -> str:
    """``value`` as canonical JSON text (RFC 8785)."""
    return canonical_dumps(value)


def token_count(value: JSONValue | None) -> int | None:
    """A token count: a non-negative integer, else unknown (``None``, never 0)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return None
    return value


def _number(value: JSONValue | None) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return number if math.isfinite(number) and number >= 0 else None


def milliseconds(fields: JSONObject) -> float | None:
    """A latency from a wrapper's fields, in milliseconds; the first one given wins.

    ``latency_ms``, ``duration_ms`` and ``delay_ms`` (Helicone) are milliseconds;
    ``duration`` and ``response_time`` (LiteLLM) are seconds; LiteLLM's
    ``startTime``/``endTime`` are unix seconds.
    """
    for key in ("latency_ms", "duration_ms", "delay_ms"):
        found = _number(fields.get(key))
        if found is not None:
            return found
    for key in ("duration", "response_time"):
        found = _number(fields.get(key))
        if found is not None:
            return found * 1000
    start, end = _number(fields.get("startTime")), _number(fields.get("endTime"))
    if start is not None and end is not None and end >= start:
        return (end - start) * 1000
    return None


def iso_from_unix(seconds: float) -> str | None:
    """Unix seconds as ISO 8601 UTC; ``None`` for a time no calendar holds."""
    try:
        return datetime.fromtimestamp(seconds, UTC).isoformat()
    except (OverflowError, OSError, ValueError):
        return None


def iso_timestamp(value: JSONValue | None) -> str | None:
    """A logged time as ISO 8601: an ISO string as it is, unix seconds converted; else ``None``."""
    if isinstance(value, str):
        try:
            datetime.fromisoformat(value)
        except ValueError:
            return None
        return value
    number = _number(value)
    return None if number is None else iso_from_unix(number)


def usage_from(value: JSONValue | None, *, estimated: bool = False) -> LoggedUsage | None:
    """A Chat Completions ``usage`` object (or the ``input_tokens`` spelling); ``None`` if absent.

    ``prompt_tokens_details.cached_tokens`` (OpenAI), ``input_tokens_details``
    (the Responses API) and ``cache_read_input_tokens`` give the cached tokens.
    """
    usage = as_object(value)
    if usage is None:
        return None
    prompt = token_count(usage.get("prompt_tokens", usage.get("input_tokens")))
    completion = token_count(usage.get("completion_tokens", usage.get("output_tokens")))
    details = as_object(usage.get("prompt_tokens_details", usage.get("input_tokens_details")))
    cached = token_count(
        details.get("cached_tokens") if details else usage.get("cache_read_input_tokens")
    )
    return LoggedUsage(
        prompt_tokens=prompt,
        completion_tokens=completion,
        cached_tokens=cached,
        estimated=estimated,
    )


def is_estimated(metadata: JSONValue | None) -> bool:
    """Whether a wrapper's ``metadata`` says its usage is an estimate (``"estimated": true``)."""
    found = as_object(metadata)
    return found is not None and found.get("estimated") is True
