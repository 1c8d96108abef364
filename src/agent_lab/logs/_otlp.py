"""OTLP/JSON spans as plain values: attributes as a dict, ``AnyValue`` unwrapped, times in ns."""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent_lab.logs._values import as_list, as_object

if TYPE_CHECKING:
    from collections.abc import Iterator

    from agent_lab.strict_json import JSONObject, JSONValue

__all__ = ["Span", "SpanEvent", "any_value", "attributes_of", "spans_of"]


@dataclass(frozen=True, slots=True, kw_only=True)
class SpanEvent:
    """A span event: its name and attributes."""

    name: str
    attributes: JSONObject


@dataclass(frozen=True, slots=True, kw_only=True)
class Span:
    """The parts of a span a log reader uses."""

    attributes: JSONObject
    events: tuple[SpanEvent, ...]
    start_ns: int | None
    end_ns: int | None
    failed: bool
    """The span's status is ERROR (``code`` 2)."""


def _integer(value: JSONValue | None) -> int | None:
    # OTLP/JSON writes 64-bit integers as decimal strings; some writers use numbers.
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.isascii() and value.lstrip("-").isdigit():
        return int(value) if len(value) <= 20 else None
    return None


def any_value(value: JSONValue | None) -> JSONValue:
    """An OTLP ``AnyValue`` (``{"stringValue": ...}``, ``arrayValue``...) unwrapped."""
    found = as_object(value)
    if found is None:
        return None
    for key, item in found.items():
        if key == "intValue":
            return _integer(item)
        if key == "arrayValue":
            values = as_list((as_object(item) or {}).get("values")) or []
            return [any_value(entry) for entry in values]
        if key == "kvlistValue":
            return attributes_of((as_object(item) or {}).get("values"))
        if key == "bytesValue" and isinstance(item, str):
            try:
                return base64.b64decode(item, validate=True).hex()
            except (binascii.Error, ValueError):
                return None
        if key in ("stringValue", "boolValue", "doubleValue"):
            return item
    return None


def attributes_of(value: JSONValue | None) -> JSONObject:
    """A list of OTLP ``KeyValue`` as a dict; entries without a string key are left out."""
    found: JSONObject = {}
    for entry in as_list(value) or []:
        pair = as_object(entry)
        key = pair.get("key") if pair else None
        if pair is not None and isinstance(key, str):
            found[key] = any_value(pair.get("value"))
    return found


def _span(value: JSONValue) -> Span | None:
    span = as_object(value)
    if span is None:
        return None
    events = tuple(
        SpanEvent(name=name, attributes=attributes_of(event.get("attributes")))
        for item in as_list(span.get("events")) or []
        if (event := as_object(item)) is not None and isinstance(name := event.get("name"), str)
    )
    status = as_object(span.get("status")) or {}
    code = status.get("code")
    return Span(
        attributes=attributes_of(span.get("attributes")),
        events=events,
        start_ns=_integer(span.get("startTimeUnixNano")),
        end_ns=_integer(span.get("endTimeUnixNano")),
        failed=code in (2, "STATUS_CODE_ERROR"),
    )


def _children(value: JSONValue | None) -> Iterator[JSONObject]:
    for item in as_list(value) or []:
        found = as_object(item)
        if found is not None:
            yield found


def spans_of(line: JSONObject) -> Iterator[Span]:
    """Every span of an ``ExportTraceServiceRequest`` line (or of a line that is one span)."""
    if "resourceSpans" not in line:
        span = _span(line)
        if span is not None:
            yield span
        return
    for resource in _children(line.get("resourceSpans")):
        # ``instrumentationLibrarySpans``: OTLP before 0.15, still written by old collectors.
        scopes = resource.get("scopeSpans", resource.get("instrumentationLibrarySpans"))
        for scope in _children(scopes):
            for item in _children(scope.get("spans")):
                span = _span(item)
                if span is not None:
                    yield span
