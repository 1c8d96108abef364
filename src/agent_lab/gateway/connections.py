"""Connections that cannot be held open, and a request's headers fixed once they are read.

uvicorn closes a kept-alive connection that stays idle after a response, but
arms nothing on a new connection: one that sends nothing, or half a request
line, would hold a socket (and a file descriptor) for ever, with no key
needed and no count against ``max_in_flight``. ``HeaderDeadline`` is
uvicorn's httptools protocol with one more timer: from a connection's start,
and again after each response, the next request's headers must be complete
within ``seconds``, or the connection is closed. The body has its own
deadline (``intake``).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

if TYPE_CHECKING:
    import asyncio
    from asyncio import TimerHandle

__all__ = ["HeaderDeadline", "with_header_deadline"]


class HeaderDeadline(HttpToolsProtocol):
    """uvicorn's httptools protocol, closing a connection whose request headers are late."""

    def __init__(self, *args: Any, seconds: float = 10.0, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.seconds = seconds
        self._headers_due: TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:
        """Start the connection, and the clock on its first request's headers."""
        super().connection_made(transport)
        self._arm()

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
        """After each response, the next request's headers are due in time too."""
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        """Nothing left to time."""
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._headers_due = self.loop.call_later(self.seconds, self._late)

    def _disarm(self) -> None:
        if self._headers_due is not None:
            self._headers_due.cancel()
            self._headers_due = None

    def _late(self) -> None:
        self._headers_due = None
        if not self.transport.is_closing():
            self.transport.close()


def with_header_deadline(seconds: float) -> Any:
    """What uvicorn's ``http`` setting takes: the protocol, giving request headers ``seconds``.

    A partial of a class by name, so that it travels to the worker processes of
    ``--workers N`` as uvicorn's configuration does (pickled).
    """
    return functools.partial(HeaderDeadline, seconds=seconds)
