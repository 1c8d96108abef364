"""Record any provider's replies to a JSONL cassette, and replay them offline, exactly."""

from __future__ import annotations

import io
import json
import threading
from collections import deque
from pathlib import Path

from agent_lab._input_files import MAX_CASSETTE_BYTES, read_input_text
from agent_lab.agents.port import (
    FailureReason,
    Provider,
    ProviderFailure,
    ProviderReply,
    ProviderRequest,
    ProviderSetup,
    prepare,
)
from agent_lab.errors import CassetteError
from agent_lab.providers._cassette_schema import decode_reply, encode_reply
from agent_lab.usage import Usage

__all__ = ["CassetteError", "RecordingProvider", "ReplayProvider"]

CASSETTE_VERSION = 1


class RecordingProvider:
    """Wraps a provider and appends every request and reply to a JSONL cassette.

    Each line holds the request's fingerprint, the request as sent (model
    included; no credentials: they are never part of a request), the reply
    (raw text, parse, tool calls), usage and latency. Lines are appended and
    flushed one at a time, so a killed run keeps what it recorded.
    """

    def __init__(self, inner: Provider, cassette: str | Path) -> None:
        self.inner = inner
        self.name = inner.name
        self.model = inner.model
        self.path = Path(cassette)
        self._lock = threading.Lock()

    async def aclose(self) -> None:
        """Close the wrapped provider's kept connections, if it keeps any."""
        await self.inner.aclose()

    async def prepare(self) -> ProviderSetup | None:
        """The wrapped provider's set-up, unrecorded: a replay never negotiates."""
        return await prepare(self.inner)

    async def complete(self, request: ProviderRequest) -> ProviderReply:
        """Ask the wrapped provider, record the exchange, return its reply."""
        # The fingerprint covers the model actually asked, default or not.
        request = request.with_model(self.inner.model)
        reply = await self.inner.complete(request)
        line = json.dumps(
            {
                "version": CASSETTE_VERSION,
                "fingerprint": request.fingerprint(),
                "request": request.wire(),
                "provider": self.inner.name,
                "default_model": self.inner.model,
                "reply": encode_reply(reply),
            },
            ensure_ascii=False,
        )
        with self._lock, self.path.open("a", encoding="utf-8") as out:
            out.write(line + "\n")
            out.flush()
        return reply


class ReplayProvider:
    """Answers from a cassette, offline: the same request gets the recorded reply.

    Identical requests recorded several times are replayed in their recorded
    order. A request the cassette does not hold, or asked for more often than
    recorded, gets a failure (``not_in_cassette``) naming its fingerprint. The
    replayed usage and latency are the recorded ones.

    Args:
        cassette: The JSONL file.
        model: The model a request naming none is taken to ask.
        max_bytes: The largest cassette read (``MAX_CASSETTE_BYTES``, 1 GiB).

    Raises:
        CassetteError: At construction, for a file that is not a cassette.
        InputFileError: Not a regular file, over ``max_bytes``, or not UTF-8.
        OSError: The file cannot be read.
    """

    name = "replay"

    def __init__(
        self,
        cassette: str | Path,
        *,
        model: str | None = None,
        max_bytes: int = MAX_CASSETTE_BYTES,
    ) -> None:
        self.path = Path(cassette)
        self.model = model
        """The model a request naming none is taken to ask; the recorded one by default."""
        self.recorded_provider: str | None = None
        self._replies: dict[str, deque[ProviderReply]] = {}
        self._lock = threading.Lock()
        recorded_models: set[str | None] = set()
        text = read_input_text(self.path, what="cassette", max_bytes=max_bytes)
        for number, line in enumerate(io.StringIO(text, newline=None), start=1):
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
                version = entry.get("version")
                reply = decode_reply(entry["reply"])
                fingerprint = str(entry["fingerprint"])
            except (ValueError, KeyError, TypeError, AttributeError, RecursionError) as err:
                raise CassetteError(f"{self.path}:{number}: not a cassette line: {err}") from err
            if version != CASSETTE_VERSION:
                raise CassetteError(
                    f"{self.path}:{number}: cassette version {version!r}, "
                    f"expected {CASSETTE_VERSION}"
                )
            self.recorded_provider = entry.get("provider", self.recorded_provider)
            recorded_models.add(entry.get("default_model"))
            self._replies.setdefault(fingerprint, deque()).append(reply)

        if self.model is None and len(recorded_models - {None}) == 1:
            self.model = next(iter(recorded_models - {None}))

    def __len__(self) -> int:
        """How many replies are left to replay."""
        return sum(len(replies) for replies in self._replies.values())

    async def aclose(self) -> None:
        """Nothing to release: the cassette is read at construction."""

    async def complete(self, request: ProviderRequest) -> ProviderReply:
        """Return the next recorded reply for this request's fingerprint."""
        fingerprint = request.with_model(self.model).fingerprint()
        with self._lock:
            replies = self._replies.get(fingerprint)
            if replies:
                return replies.popleft()
        detail = (
            "asked for more often than it was recorded"
            if replies is not None
            else "not in the cassette"
        )
        return ProviderReply(
            usage=Usage(requests=0),
            failure=ProviderFailure(
                reason=FailureReason.NOT_IN_CASSETTE,
                message=f"request {fingerprint} is {detail} ({self.path.name})",
            ),
        )
