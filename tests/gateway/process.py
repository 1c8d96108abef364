"""``agent-lab serve`` started as its own process, on a free loopback port, until the block ends."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Generator
from contextlib import contextmanager
from typing import IO

import httpx

__all__ = ["output", "serve"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def serve(*argv: str) -> Generator[tuple[str, subprocess.Popen[bytes], IO[bytes]]]:
    port = free_port()
    command = [sys.executable, "-m", "agent_lab.cli", "serve", "--port", str(port), *argv]
    # A file, not a pipe: a pipe nobody reads fills up and would stop the server.
    said = tempfile.TemporaryFile()  # noqa: SIM115  (closed when the block ends)
    # A session of its own: a kill of its process group reaches the store's writer too.
    process = subprocess.Popen(command, stdout=said, stderr=said, start_new_session=True)
    root = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        assert process.poll() is None, output(said)
        try:
            httpx.get(f"{root}/healthz", timeout=1)
            break
        except httpx.TransportError:
            assert time.monotonic() < deadline, "agent-lab serve did not start"
            time.sleep(0.1)
    try:
        yield root, process, said
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(30)
        said.close()


def output(said: IO[bytes]) -> str:
    said.seek(0)
    return said.read().decode()
