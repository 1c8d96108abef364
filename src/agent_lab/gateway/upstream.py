"""Forwarding: one pooled HTTP client to the upstream, its failures turned into API errors.

The client is aiohttp's, already a dependency (the ``openai`` SDK's
``aiohttp`` transport, chosen for many concurrent requests: docs/performance.md).
Every forwarded request has one deadline, ``upstream_timeout`` after it was
sent: a server that never answers, answers slowly or trickles its body a
byte at a time is cut off at the same moment. A body read whole has a cap,
``max_body_bytes``, counted after decoding: a broken or hostile upstream
cannot fill the gateway's memory. Bodies are asked for uncompressed
(``Accept-Encoding: identity``); one that comes gzipped, deflated or in
Brotli anyway is decoded, so that what is relayed is what is stored, and
its ``Content-Encoding`` is dropped with it (any other encoding is relayed
with its header, never decoded).

The gateway's own headers are its own: of the upstream's, only those about
the answer are relayed (``relayed_headers``): never a hop-by-hop one,
``x-agent-lab-*`` (an upstream cannot say an answer was local), a cookie,
another header that sets state in a client, or CORS (unless ``pass_cors``).
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import aiohttp

from agent_lab.errors import ProviderError

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Mapping

__all__ = ["HOP_BY_HOP", "Upstream", "UpstreamFailure", "UpstreamReply", "relayed_headers"]

HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "host",
        "content-length",
        "accept-encoding",
        "content-encoding",
        "date",
        "server",
    }
)
"""Headers that belong to one hop, or that the gateway sets itself: never relayed."""

_RELAYED = frozenset(
    {
        "content-type",
        "content-disposition",
        "cache-control",
        "vary",
        "etag",
        "last-modified",
        "retry-after",
        "retry-after-ms",
        "request-id",
    }
)
"""The upstream's headers a client gets, besides ``x-*`` and ``openai-*`` (request ids, rate
limits, processing time): what the API sends about the answer, nothing that sets state in a
client (cookies, HSTS, ``Clear-Site-Data``, ``Alt-Svc``, ``Refresh``, a ``Location``)."""
_SERVER_ONLY = frozenset({"x-accel-redirect", "x-sendfile", "x-lighttpd-send-file"})
"""``x-*`` headers a proxy in front of the gateway would obey: never relayed."""
_OWN_PREFIX = "x-agent-lab-"
_CORS_PREFIX = "access-control-"
_DECODED = frozenset({"gzip", "deflate", "br", "zstd", "identity", ""})
"""Encodings aiohttp decodes; ``br`` and ``zstd`` only with their libraries, else the answer is
a 502 that names the encoding (``Upstream.send``)."""
_VERSIONED = re.compile(r"/v\d+[a-z0-9]*$")


def relayed_headers(headers: Mapping[str, str], *, pass_cors: bool) -> dict[str, str]:
    """The upstream's headers a client may see: those about the answer, none that set state.

    Of ``_RELAYED``, ``x-*`` and ``openai-*`` headers, a header the upstream's
    ``Connection`` names is a hop's and dropped, as are the gateway's own
    ``x-agent-lab-*``; CORS headers pass only with ``pass_cors``. A header sent
    twice is joined with a comma, as HTTP reads it.
    """
    hop = {
        word.strip().lower()
        for name, value in headers.items()
        if name.lower() == "connection"
        for word in value.split(",")
    }
    kept: dict[str, str] = {}
    for name, value in headers.items():
        lowered = name.lower()
        if (
            lowered in hop
            or lowered in HOP_BY_HOP
            or lowered in _SERVER_ONLY
            or lowered.startswith(_OWN_PREFIX)
        ):
            continue
        if not (
            lowered in _RELAYED
            or lowered.startswith(("x-", "openai-"))
            or (pass_cors and lowered.startswith(_CORS_PREFIX))
        ):
            continue
        kept[lowered] = f"{kept[lowered]}, {value}" if lowered in kept else value
    encoding = headers.get("content-encoding", "").strip().lower()
    if encoding not in _DECODED:
        kept["content-encoding"] = encoding
    return kept


class UpstreamFailure(ProviderError):  # noqa: N818  (a value carried back, as httpx's are)
    """The upstream gave nothing usable: the status and API error code the client gets."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(code, message)
        self.status = status
        self.code = code
        self.message = message


@dataclass(slots=True)
class UpstreamReply:
    """The upstream's status and headers; its body read whole (``body``) or streamed."""

    status: int
    headers: dict[str, str]
    response: aiohttp.ClientResponse
    deadline: float
    limit: int
    """The most bytes of the body ``body`` reads."""

    @property
    def streamed(self) -> bool:
        """Whether the upstream answers with server-sent events."""
        return self.headers.get("content-type", "").startswith("text/event-stream")

    async def body(self) -> bytes:
        """The whole body, by the deadline, if it is no larger than ``limit``.

        Raises:
            UpstreamFailure: The deadline passed, the connection broke, or the body
                is (or says it is) larger than ``limit``.
        """
        try:
            declared = self.response.content_length
            if declared is not None and declared > self.limit:
                raise self._too_large()
            pieces: list[bytes] = []
            size = 0
            async with asyncio.timeout_at(self.deadline):
                async for piece in self.response.content.iter_any():
                    size += len(piece)
                    if size > self.limit:
                        raise self._too_large()
                    pieces.append(piece)
            return b"".join(pieces)
        except TimeoutError as err:
            raise _timed_out() from err
        except aiohttp.ClientError as err:
            raise _broken() from err
        finally:
            self.response.release()

    def _too_large(self) -> UpstreamFailure:
        # The rest is never read: the connection is closed, not returned to the pool.
        self.response.close()
        return UpstreamFailure(
            502,
            "upstream_too_large",
            f"the upstream's answer is larger than the gateway reads ({self.limit} bytes)",
        )

    async def pieces(self) -> AsyncIterator[bytes]:
        """The body as it comes, by the deadline.

        Raises:
            UpstreamFailure: The deadline passed, or the connection broke.
        """
        try:
            async with asyncio.timeout_at(self.deadline):
                async for piece in self.response.content.iter_any():
                    yield piece
        except TimeoutError as err:
            raise _timed_out() from err
        except aiohttp.ClientError as err:
            raise _broken() from err
        finally:
            self.response.release()


def _timed_out() -> UpstreamFailure:
    return UpstreamFailure(504, "upstream_timeout", "the upstream did not answer in time")


def _broken() -> UpstreamFailure:
    return UpstreamFailure(502, "upstream_error", "the upstream's answer was cut off or broken")


class Upstream:
    """A pooled client for one upstream base URL."""

    def __init__(
        self,
        base_url: str,
        *,
        timeout: float,
        connect_timeout: float,
        connections: int,
        max_body_bytes: int,
        pass_cors: bool = False,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self._pass_cors = pass_cors
        path = urlsplit(self.base_url).path
        self.hint = (
            ""
            if _VERSIONED.search(path)
            else f"; the upstream URL's path ({path or '/'}) has no version: OpenAI-compatible "
            "servers serve under /v1, which the upstream URL given to the gateway includes"
        )
        """Said after a bare 404: the upstream URL may lack its ``/v1``."""
        self._timeout = timeout
        self._max_body_bytes = max_body_bytes
        self._client_timeout = aiohttp.ClientTimeout(total=None, sock_connect=connect_timeout)
        self._connections = connections
        self._session: aiohttp.ClientSession | None = None

    async def start(self) -> None:
        """Open the pool (in the serving event loop)."""
        connector = aiohttp.TCPConnector(limit=self._connections, ttl_dns_cache=300)
        self._session = aiohttp.ClientSession(
            connector=connector,
            timeout=self._client_timeout,
            auto_decompress=True,
            skip_auto_headers=("User-Agent", "Content-Type"),
        )

    async def close(self) -> None:
        """Close the pool."""
        if self._session is not None:
            await self._session.close()

    async def send(
        self, method: str, path: str, *, query: str, headers: Mapping[str, str], body: bytes
    ) -> UpstreamReply:
        """Send one request; its status and headers once they arrive.

        Raises:
            UpstreamFailure: Unreachable, or no answer by the deadline.
        """
        assert self._session is not None, "start() first"
        url = f"{self.base_url}/{path}" + (f"?{query}" if query else "")
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self._timeout
        sent = {**headers, "Accept-Encoding": "identity"}
        try:
            async with asyncio.timeout_at(deadline):
                response = await self._session.request(
                    method, url, headers=sent, data=body or None, allow_redirects=False
                )
        except TimeoutError as err:
            raise _timed_out() from err
        except aiohttp.ClientConnectorError as err:
            raise UpstreamFailure(
                502, "upstream_unreachable", "the upstream could not be reached"
            ) from err
        except aiohttp.ClientResponseError as err:
            if "content-encoding" not in err.message:
                raise _broken() from err
            # aiohttp refuses at the headers an encoding it has no library for.
            raise UpstreamFailure(
                502,
                "upstream_encoding",
                "the upstream's answer is in an encoding the gateway cannot decode, though it "
                f"asked for none ({err.message})",
            ) from err
        except aiohttp.ClientError as err:
            raise _broken() from err
        relayed = relayed_headers(response.headers, pass_cors=self._pass_cors)
        return UpstreamReply(response.status, relayed, response, deadline, self._max_body_bytes)
