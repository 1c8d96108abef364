"""Spans to a file, one OTLP/JSON ``ExportTraceServiceRequest`` per line.

The encoding is the official one: the SDK's spans go through the OTLP
exporter's own protobuf encoder, and protobuf's JSON mapping writes them.
Only what OTLP/JSON says differently from protobuf's default mapping is
changed: trace and span ids are hex, not base64 (OTLP specification,
"JSON Protobuf Encoding"). A collector's ``otlpjsonfile`` receiver, or any
OTLP/HTTP endpoint taking JSON, reads the lines as they are.
"""

from __future__ import annotations

import base64
import json
import threading
from typing import IO, TYPE_CHECKING, cast

from google.protobuf.json_format import MessageToDict
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from opentelemetry.sdk.trace import ReadableSpan

__all__ = ["OTLPJsonFileExporter"]

_IDS = frozenset({"traceId", "spanId", "parentSpanId"})


def _hex_ids(node: object) -> object:
    if isinstance(node, dict):
        items = cast("dict[str, object]", node)
        return {
            key: base64.b64decode(value).hex()
            if key in _IDS and isinstance(value, str)
            else _hex_ids(value)
            for key, value in items.items()
        }
    if isinstance(node, list):
        return [_hex_ids(item) for item in cast("list[object]", node)]
    return node


class OTLPJsonFileExporter(SpanExporter):
    """Appends each batch of spans to ``path`` as one line of OTLP/JSON.

    Args:
        path: The file; created if absent, appended to otherwise.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.error: str | None = None
        """Why the first write failed (a full disk, a closed exporter); ``None`` while none has.

        The SDK's span processors drop an export's result: whoever owns the
        exporter reads this, so that lost spans are never silent."""
        self._lock = threading.Lock()
        self._file: IO[str] | None = path.open("a", encoding="utf-8")

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        """Write ``spans`` as one line; a closed exporter or a full disk is a failure."""
        request = encode_spans(spans)
        line = json.dumps(
            _hex_ids(MessageToDict(request, use_integers_for_enums=True)), separators=(",", ":")
        )
        with self._lock:
            if self._file is None:
                self.error = self.error or "the exporter was already shut down"
                return SpanExportResult.FAILURE
            try:
                self._file.write(line + "\n")
                self._file.flush()
            except OSError as err:
                self.error = self.error or (err.strerror or str(err))
                return SpanExportResult.FAILURE
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        """Close the file; later exports fail."""
        with self._lock:
            if self._file is not None:
                try:
                    self._file.close()
                except OSError as err:
                    # close() flushes what is buffered: a full disk can show only here.
                    self.error = self.error or (err.strerror or str(err))
                self._file = None

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        """Every export is flushed as it is written."""
        return True
