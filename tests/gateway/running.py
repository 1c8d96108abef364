"""A gateway served by uvicorn in a thread of the test process, on a free loopback port."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Generator
from contextlib import contextmanager

import uvicorn

from agent_lab.gateway import Gateway, GatewaySettings
from agent_lab.gateway.connections import with_header_deadline


class Served:
    """A running gateway: its URL, and the object itself (its store, counters, trust)."""

    def __init__(self, gateway: Gateway, port: int) -> None:
        self.gateway = gateway
        self.port = port

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def root(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def flush(self, timeout: float = 10.0) -> None:
        """Wait until the store's queue is written (the writer thread is asynchronous)."""
        store = self.gateway.store
        assert store is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if store.idle():
                return
            time.sleep(0.01)
        raise AssertionError("the store did not catch up")


@contextmanager
def serving(
    settings: GatewaySettings,
    *,
    keys: tuple[str | None, str | None] = (None, None),
    gateway: Gateway | None = None,
    port: int = 0,
) -> Generator[Served]:
    app = gateway or Gateway(settings, keys=keys)
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    port = int(sock.getsockname()[1])
    config = uvicorn.Config(
        app,
        lifespan="on",
        loop="asyncio",
        http=with_header_deadline(settings.body_timeout),
        access_log=False,
        log_level="warning",
        timeout_graceful_shutdown=5,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the gateway did not start")
        time.sleep(0.01)
    try:
        yield Served(app, port)
    finally:
        server.should_exit = True
        thread.join(15)
        sock.close()
