"""Every request a provider sends, and what came back, appended as ``pairs`` log lines.

One line per request sent, retries included (``chat_completions.pairs_line``)::

    {"request": <the Chat Completions body sent>,
     "response": <the chat.completion body received>,
     "latency_ms": 812.4, "timestamp": "2026-05-01T09:00:00.123+00:00",
     "metadata": {"provider": "openai", "attempt": 1, "case_id": "c-17"}}

An attempt that brought no chat completion (an HTTP error, a timeout, a body
that is not JSON) has ``"error": {"type", "message", "status"}`` instead of
``"response"``: log readers skip it as ``failed_request``, and the file still
shows it was sent. A lab run against a real endpoint is so itself a log that
``agent-lab shadow`` replays.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import zlib
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from agent_lab.chat_completions import pairs_line
from agent_lab.errors import StrictJSONError
from agent_lab.strict_json import loads, thaw_json

if TYPE_CHECKING:
    from collections.abc import Callable

    from agent_lab.agents.port import ProviderFailure
    from agent_lab.strict_json import JSONObject, JSONValue

__all__ = ["RequestLog"]


def _utc_now() -> datetime:
    return datetime.now(UTC)


def _unchanged(value: JSONValue) -> JSONValue:
    return value


class RequestLog:
    """Appends one ``pairs`` line per request a provider sent (module docstring).

    Safe to share between concurrent requests, in one event loop or across
    threads: each line is made whole first, then written with one call under a
    lock, straight to the file (no buffer), so lines never interleave and a
    killed run keeps every line it wrote. The first write that fails (a full
    disk) stops the log: the file is cut back to its last whole line, later
    lines are counted in ``lost``, and ``error`` says why; whoever owns the log
    reads it, so that a lost line is never silent.

    Args:
        path: The file, appended to (created if absent). A name ending in
            ``.gz`` is written gzip-compressed, one member per opening, flushed
            at each line so that what was written can be read back even before
            ``close()``.
        now: The wall clock, in UTC (a line's ``timestamp``); the system's by default.

    Raises:
        OSError: The file cannot be opened for appending.
    """

    def __init__(self, path: str | Path, *, now: Callable[[], datetime] | None = None) -> None:
        self.path = Path(path)
        self.written = 0
        """Lines written."""
        self.lost = 0
        """Lines not written: every line after the first failed write, or not JSON."""
        self.error: str | None = None
        """Why the first line was lost; ``None`` while none has been."""
        self._now = now if now is not None else _utc_now
        self._lock = threading.Lock()
        # 31: a gzip header and trailer around the deflate stream (zlib's wbits).
        self._gzip = zlib.compressobj(wbits=31) if self.path.name.endswith(".gz") else None
        self._fd: int | None = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        self._whole = os.fstat(self._fd).st_size
        """Where the last whole line ends: a failed write is cut back to it."""

    def __enter__(self) -> RequestLog:
        """The log itself; ``close()`` at the end of the block."""
        return self

    def __exit__(self, *_: object) -> None:
        """Close the log."""
        self.close()

    def record(
        self,
        request: object,
        *,
        body: bytes | None = None,
        failure: ProviderFailure | None = None,
        status: int | None = None,
        latency_ns: int,
        provider: str,
        attempt: int,
        case_id: JSONValue = None,
        redact: Callable[[JSONValue], JSONValue] = _unchanged,
    ) -> None:
        """Append one request: the body sent, and the ``body`` received or the ``error``.

        Args:
            request: The request body as sent (frozen JSON mappings are thawed).
            body: The response body received, when one came; one that is not
                strict JSON is logged as an ``invalid_response`` error.
            failure: Why the attempt failed, when it did (``error.type`` is its
                reason, ``error.message`` its message).
            status: The HTTP status a failed attempt was answered with, if any.
            latency_ns: From sending to the last byte of the reply, or the failure.
            provider: The provider's name (``metadata.provider``).
            attempt: Which attempt of its call the request was, from 1.
            case_id: The lab case it was sent for, when there is one.
            redact: Applied to the whole line before it is written.
        """
        latency_ms = latency_ns / 1e6
        sent = self._now() - timedelta(milliseconds=latency_ms)
        error: JSONObject | None = None
        if failure is not None:
            error = {"type": str(failure.reason), "message": failure.message, "status": status}
        try:
            body_sent = thaw_json(request)
        except StrictJSONError as err:
            self._lose(f"a request that is not JSON data ({err})")
            return
        received: JSONValue | None = None
        if body is not None:
            try:
                received = loads(body, max_bytes=len(body))
            except StrictJSONError as err:
                # The provider reads such a body as a failure too (invalid_response).
                message = f"the response body is not JSON: {err}"
                error = {"type": "invalid_response", "message": message, "status": None}
        metadata: JSONObject = {"provider": provider, "attempt": attempt}
        if case_id is not None:
            metadata["case_id"] = case_id
        line = pairs_line(
            body_sent,
            response=received,
            error=error,
            latency_ms=latency_ms,
            timestamp=sent.astimezone(UTC).isoformat(timespec="milliseconds"),
            metadata=metadata,
        )
        self._append(redact(line))

    def _append(self, entry: JSONValue) -> None:
        try:
            line = json.dumps(entry, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
            data = (line + "\n").encode("utf-8")
        except UnicodeEncodeError:
            # A lone surrogate (from the caller's text) has no UTF-8: escaped, as JSON allows.
            data = (json.dumps(entry, allow_nan=False, separators=(",", ":")) + "\n").encode()
        except (ValueError, TypeError, RecursionError) as err:
            self._lose(f"a line that is not JSON data ({err})")
            return
        with self._lock:
            if self._fd is None:
                self.error = self.error or "the log was already closed"
            if self._fd is None or self.error is not None:
                self.lost += 1
                return
            if self._gzip is not None:
                data = self._gzip.compress(data) + self._gzip.flush(zlib.Z_SYNC_FLUSH)
            if self._write(data):
                self.written += 1
            else:
                self.lost += 1

    def _write(self, data: bytes) -> bool:
        """Write ``data`` whole, or cut the file back to its last whole line and stop."""
        assert self._fd is not None
        view = memoryview(data)
        try:
            while view:
                view = view[os.write(self._fd, view) :]
        except OSError as err:
            self.error = err.strerror or str(err)
            # A device (/dev/full) cannot be cut, and kept nothing anyway.
            with contextlib.suppress(OSError):
                os.ftruncate(self._fd, self._whole)
            return False
        self._whole += len(data)
        return True

    def _lose(self, why: str) -> None:
        with self._lock:
            self.lost += 1
            self.error = self.error or why

    def close(self) -> None:
        """End the gzip member (when compressed) and close the file; later lines are lost."""
        with self._lock:
            if self._fd is None:
                return
            if self._gzip is not None and self.error is None:
                self._write(self._gzip.flush(zlib.Z_FINISH))
            os.close(self._fd)
            self._fd = None
