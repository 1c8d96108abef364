"""Connections that cannot be held open, and a request's headers fixed once they are read.

uvicorn closes a kept-alive connection that stays idle after a response, but
arms nothing on a new connection: one that sends nothing, or half a request
line, would hold a socket (and a file descriptor) for ever, with no key
needed and no count against ``max_in_flight``. ``HeaderDeadline`` is
uvicorn's httptools protocol with one more deadline: from a connection's
start, and again after each response, the next request's headers must be
complete within ``seconds`` (checked once a second), or the connection is
closed; and they may take at most
``MAX_HEAD_BYTES`` (431 past it). The body has its own deadline (``intake``).
"""

from __future__ import annotations

import functools
import weakref
from typing import TYPE_CHECKING, Any, cast

import httptools
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

if TYPE_CHECKING:
    import asyncio

    from uvicorn.protocols.http.httptools_impl import RequestResponseCycle

__all__ = ["MAX_HEAD_BYTES", "HeaderDeadline", "with_header_deadline"]

MAX_HEAD_BYTES = 64 << 10
"""The most a request line and its headers may take (nginx's default is 32 KiB); past it, 431."""
HEADERS_TOO_LARGE = "the request headers are too large"
_REFUSAL = (
    b'{"error": {"message": "the request headers are too large", "type": '
    b'"invalid_request_error", "param": null, "code": null}}'
)
_TOO_LARGE = (
    b"HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: application/json\r\n"
    + f"Content-Length: {len(_REFUSAL)}\r\nConnection: close\r\n\r\n".encode()
    + _REFUSAL
)


class HeaderDeadline(HttpToolsProtocol):
    """uvicorn's httptools protocol, closing a connection whose request headers are late."""

    def __init__(self, *args: Any, seconds: float = 10.0, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.seconds = seconds
        self._due_at: float | None = None
        """When the request's headers are due (the loop's clock); ``None`` once they came."""
        self._head = 0
        """Bytes received since the request's headers were due (``MAX_HEAD_BYTES``)."""
        self._parsed = 0
        """Bytes of the request target and headers parsed so far."""
        self._too_large = False

    def data_received(self, data: bytes) -> None:
        """Parse as uvicorn does; headers still unfinished past ``MAX_HEAD_BYTES`` are cut off."""
        super().data_received(data)
        if self._due_at is None:
            return
        self._head += len(data)
        if self._head > MAX_HEAD_BYTES and not self.transport.is_closing():
            self.transport.write(_TOO_LARGE)
            self.transport.close()

    def on_url(self, url: bytes) -> None:
        """The request target counts toward the bound."""
        self._count(len(url))
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        """Each header counts toward the bound; past it the request is never run."""
        self._count(len(name) + len(value))
        super().on_header(name, value)

    def _count(self, size: int) -> None:
        self._parsed += size
        if self._parsed > MAX_HEAD_BYTES:
            self._too_large = True
            # The parser stops here; uvicorn answers a parser error with send_400_response.
            raise httptools.HttpParserCallbackError(HEADERS_TOO_LARGE)

    def send_400_response(self, msg: str) -> None:
        """431 for headers past the bound, else uvicorn's 400."""
        if not self._too_large:
            super().send_400_response(msg)
            return
        self.transport.write(_TOO_LARGE)
        self.transport.close()

    def connection_made(self, transport: asyncio.Transport) -> None:
        """Start the connection, and the clock on its first request's headers."""
        super().connection_made(transport)
        self._arm()

    def on_message_begin(self) -> None:
        """A new request: its headers are counted from nothing."""
        self._parsed = 0
        super().on_message_begin()

    def on_headers_complete(self) -> None:
        """The headers came in time: the body is ``intake``'s to time.

        The request gets its own copy of the headers: uvicorn goes on appending a
        chunked body's trailers to its list, and they must not become headers after
        admission has read the key.
        """
        self._disarm()
        super().on_headers_complete()
        self.scope["headers"] = list(self.scope["headers"])

    def on_response_complete(self) -> None:
        """After each response, the next request's headers are due in time too.

        Not when they came already, pipelined: that request is running.
        """
        waiting = not self.pipeline
        super().on_response_complete()
        if waiting and not self.transport.is_closing():
            self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        """Nothing left to time."""
        self._disarm()
        _WATCHED.get(self.loop, set[HeaderDeadline]()).discard(self)
        super().connection_lost(exc)

    def _arm(self) -> None:
        # A time, not a timer: a timer armed and cancelled per request cost 0.1 ms of each
        # (the loop's heap of cancelled timers); one sweep a second checks every connection.
        self._head = 0
        self._due_at = self.loop.time() + self.seconds
        _watch(self)

    def _disarm(self) -> None:
        self._due_at = None

    def late(self, now: float) -> None:
        """Close the connection if its request's headers were due before ``now``."""
        if self._due_at is None or self._due_at > now:
            return
        self._due_at = None
        # uvicorn's cycle is None until a first request's headers: typed as never None.
        cycle = cast("RequestResponseCycle | None", self.cycle)
        running = cycle is not None and not cycle.response_complete
        if not running and not self.transport.is_closing():
            self.transport.close()


_SWEEP_SECONDS = 1.0
_WATCHED: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, set[HeaderDeadline]] = (
    weakref.WeakKeyDictionary()
)
"""The connections of each serving loop, swept once a second while there are any."""


def _watch(protocol: HeaderDeadline) -> None:
    watched = _WATCHED.get(protocol.loop)
    if watched is None:
        watched = _WATCHED[protocol.loop] = set()
        protocol.loop.call_later(_SWEEP_SECONDS, _sweep, protocol.loop)
    watched.add(protocol)


def _sweep(loop: asyncio.AbstractEventLoop) -> None:
    watched = _WATCHED.get(loop, set[HeaderDeadline]())
    now = loop.time()
    for protocol in list(watched):
        protocol.late(now)
    if watched:
        loop.call_later(_SWEEP_SECONDS, _sweep, loop)
    else:
        _WATCHED.pop(loop, None)


def with_header_deadline(seconds: float) -> Any:
    """What uvicorn's ``http`` setting takes: the protocol, giving request headers ``seconds``.

    A partial of a class by name, so that it travels to the worker processes of
    ``--workers N`` as uvicorn's configuration does (pickled).
    """
    return functools.partial(HeaderDeadline, seconds=seconds)
